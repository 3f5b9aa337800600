"""The `openlink` profile: OpenLink's tools, in the style of opencode's: `glob` (at most 100
files, newest first), `grep` (at most 100 matching lines, `path:` headers and `  Line N: text`),
`edit` (exact, then line endings, then trimmed lines), `read_file`, `write_file`, `list_dir`,
and `invalid`, which answers a call of any unknown tool name with the list of tools. Tool
names are case-insensitive; outputs over 2000 lines or 50 KB are cut and saved to a spill
file."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...results.matches import plural
from ..matching import matching_lines
from ..spec import declared_profile
from ..tool_result import ToolResult, echo

if TYPE_CHECKING:
    from ..toolbox import Toolbox

GLOB_LIMIT = 100
GREP_LIMIT = 100
#: grep lines longer than this are cut, with `...` (opencode's limit).
GREP_LINE_CHARS = 2000
NO_FILES = "No files found"
TRUNCATED_NOTE = "(Results are truncated. Consider using a more specific path or pattern.)"

# -- handlers ------------------------------------------------------------------------------


def glob(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    result = box.workspace.glob(
        args["pattern"], args.get("path", "."), limit=GLOB_LIMIT, sort="mtime"
    )
    paths = list(result.paths)
    if paths:
        text = "\n".join(paths) + (f"\n\n{TRUNCATED_NOTE}" if result.truncated else "")
    else:
        text = NO_FILES + _hidden_note(result.ignored)
    data = {"files": paths, "total": result.total, "truncated": result.truncated}
    return box.finish("glob", text, {**data, "summary": result.summary})


def grep(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    found = matching_lines(
        box.workspace,
        args["pattern"],
        args.get("path", "."),
        limit=GREP_LIMIT,
        include=args.get("include"),
        case_sensitive=True,
    )
    if not found.lines:
        text = NO_FILES + _hidden_note(found.result.ignored)
    else:
        lines = [f"Found {len(found.lines)} matches"]
        current = None
        for hit in found.lines:
            if hit.file != current:
                if current is not None:
                    lines.append("")
                lines.append(f"{hit.file}:")
                current = hit.file
            shown = hit.text
            if len(shown) > GREP_LINE_CHARS:
                shown = shown[:GREP_LINE_CHARS] + "..."
            lines.append(f"  Line {hit.line}: {shown}")
        if found.truncated:
            lines += ["", TRUNCATED_NOTE]
        text = "\n".join(lines)
    data = {
        "matches": [hit.to_dict() for hit in found.lines],
        "total": len(found.lines),
        "truncated": found.truncated,
    }
    return box.finish("grep", text, data)


def edit(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    result = box.workspace.edit(
        args["path"],
        args["old_string"],
        args["new_string"],
        replace_all=args.get("replace_all", False),
    )
    return box.finish("edit", f"{result.summary}\n{result.diff}".rstrip(), result.to_dict())


def read_file(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    workspace = box.read_workspace(args["path"])
    offset, limit = args.get("offset", 1), args.get("limit", 2000)
    result = workspace.read(args["path"], offset=offset, limit=limit)
    return box.finish_read(result)


def write_file(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    result = box.workspace.write(args["path"], args["content"])
    return box.finish("write_file", result.summary, result.to_dict())


def list_dir(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    result = box.workspace.list_dir(args.get("path", "."), limit=args.get("limit", 1000))
    return box.finish("list_dir", result.text or "(empty directory)", result.to_dict())


def invalid(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    """The answer to a call of a tool that does not exist (or the model calling `invalid`)."""
    tools = ", ".join(name for name in box.names if name != "invalid")
    name = args.get("tool")
    if name is None:
        message = f"invalid was called without a tool name. Available tools: {tools}."
    else:
        shown = f'"{name}"' if isinstance(name, str) and len(name) <= 200 else echo(name)
        message = f"Unknown tool {shown}. Available tools: {tools}."
    if isinstance(args.get("error"), str) and args["error"]:
        message = f"{args['error'].rstrip('.')}. {message}"
    return box.error(message, "UnknownTool")


def _hidden_note(ignored: int) -> str:
    if not ignored:
        return ""
    hidden = plural(ignored, "path")
    return f"\n({hidden} hidden by .gitignore or access-ignore rules were not searched)"


PROFILE = declared_profile(
    __name__,
    {
        "glob": glob,
        "grep": grep,
        "edit": edit,
        "read_file": read_file,
        "write_file": write_file,
        "list_dir": list_dir,
        "invalid": invalid,
    },
)
