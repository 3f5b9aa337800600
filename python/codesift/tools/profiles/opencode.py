"""The `opencode` profile: opencode's file tools (grep, glob, list, read, edit, multiedit,
write, apply_patch) with their parameter names and output text.

Source: sst/opencode (now anomalyco/opencode) `packages/opencode/src/tool/grep.ts`, `glob.ts`,
`ls.ts`, `read.ts`, `edit.ts`, `multiedit.ts`, `write.ts`, `apply_patch.ts`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..._core import GlobMatcher
from ...errors import InvalidArgumentError, NotAFileError
from ..lines import absolute, read_lines
from ..spec import declared_profile
from ..tool_result import ToolResult

if TYPE_CHECKING:
    from ..toolbox import Toolbox

LIMIT = 100
MAX_LINE_LENGTH = 2000
READ_LIMIT = 2000
MAX_BYTES = 50 * 1024
#: Directories `list` never descends into.
LIST_IGNORED = (
    "node_modules",
    "__pycache__",
    ".git",
    "dist",
    "build",
    "target",
    "vendor",
    "bin",
    "obj",
    ".idea",
    ".vscode",
    ".zig-cache",
    "zig-out",
    ".coverage",
    "coverage",
    "tmp",
    "temp",
    ".cache",
    "cache",
    "logs",
    ".venv",
    "venv",
    "env",
)
TRUNCATED = "(Results are truncated. Consider using a more specific path or pattern.)"


def grep(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    if not args["pattern"]:
        raise InvalidArgumentError("pattern is required")
    result = box.workspace.grep(
        args["pattern"],
        args.get("path", "."),
        include=args.get("include"),
        case_sensitive=True,
        max_matches=LIMIT,
    )
    if not result.matches:
        return box.finish("grep", "No files found", {"matches": 0, "truncated": False})
    truncated = result.truncated
    out = [
        f"Found {len(result.matches)} matches" + (" (more matches available)" if truncated else "")
    ]
    current = None
    for m in result.matches:
        if m.file != current:
            if current is not None:
                out.append("")
            current = m.file
            out.append(f"{absolute(box.workspace, m.file)}:")
        text = m.text if len(m.text) <= MAX_LINE_LENGTH else m.text[:MAX_LINE_LENGTH] + "..."
        out.append(f"  Line {m.line}: {text}")
    if truncated:
        out += ["", "(Results truncated. Consider using a more specific path or pattern.)"]
    data = {"matches": len(result.matches), "truncated": truncated}
    return box.finish("grep", "\n".join(out), data)


def glob(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    result = box.workspace.glob(args["pattern"], args.get("path", "."), limit=LIMIT, sort="mtime")
    files = [absolute(box.workspace, f.path) for f in result.files]
    data = {"count": len(files), "truncated": result.truncated}
    if not files:
        return box.finish("glob", "No files found", data)
    lines = files + (["", TRUNCATED] if result.truncated else [])
    return box.finish("glob", "\n".join(lines), data)


def list_files(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    """A tree of up to 100 files under `path`, directories first, two spaces per level."""
    path = args.get("path", ".")
    base = box.workspace.sandbox.relative(path)
    prefix = "" if base == "." else base + "/"
    patterns = [p.rstrip("/") for p in args.get("ignore") or [] if p.rstrip("/")]
    ignore = GlobMatcher(patterns) if patterns else None
    found = box.workspace.glob("*", path, limit=1_000_000, sort="path")
    files: list[str] = []
    for f in found.files:
        rel = f.path[len(prefix) :]
        parts = rel.split("/")
        if any(part in LIST_IGNORED for part in parts[:-1]):
            continue
        if ignore is not None and (ignore.is_match(rel, f.path) or _dir_ignored(ignore, parts)):
            continue
        files.append(rel)
        if len(files) >= LIMIT:
            break
    dirs: set[str] = {"."}
    by_dir: dict[str, list[str]] = {}
    for rel in files:
        parent, _, name = rel.rpartition("/")
        parent = parent or "."
        parts = [] if parent == "." else parent.split("/")
        for k in range(1, len(parts) + 1):
            dirs.add("/".join(parts[:k]))
        by_dir.setdefault(parent, []).append(name)

    def render(directory: str, depth: int) -> list[str]:
        out = [f"{'  ' * depth}{directory.rsplit('/', 1)[-1]}/"] if depth else []
        children = sorted(d for d in dirs if d != "." and _parent(d) == directory)
        for child in children:
            out += render(child, depth + 1)
        out += [f"{'  ' * (depth + 1)}{name}" for name in sorted(by_dir.get(directory, []))]
        return out

    text = f"{absolute(box.workspace, base)}/\n" + "".join(line + "\n" for line in render(".", 0))
    return box.finish("list", text, {"count": len(files), "truncated": len(files) >= LIMIT})


def _parent(directory: str) -> str:
    return directory.rpartition("/")[0] or "."


def _dir_ignored(matcher: Any, parts: list[str]) -> bool:
    return any(
        matcher.is_match("/".join(parts[:k]), "/".join(parts[:k])) for k in range(1, len(parts))
    )


def read(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    path = args["filePath"]
    offset = args.get("offset", 1)
    if offset < 1:
        raise InvalidArgumentError("offset must be greater than or equal to 1")
    limit = args.get("limit", READ_LIMIT)
    workspace = box.read_workspace(path)
    shown = absolute(workspace, workspace.sandbox.relative(path))
    try:
        lines = read_lines(workspace, path, offset, limit)
    except NotAFileError:
        return _read_directory(box, path, shown, offset, limit)
    if lines.total < offset and not (lines.total == 0 and offset == 1):
        raise InvalidArgumentError(
            f"Offset {offset} is out of range for this file ({lines.total} lines)"
        )
    raw: list[str] = []
    used = 0
    cut = False
    for line in lines.lines:
        text = line.text
        if line.cut_from is not None or len(text) > MAX_LINE_LENGTH:
            text = text[:MAX_LINE_LENGTH] + f"... (line truncated to {MAX_LINE_LENGTH} chars)"
        size = len(text.encode()) + (1 if raw else 0)
        if used + size > MAX_BYTES:
            cut = True
            break
        raw.append(text)
        used += size
    last = offset + len(raw) - 1
    body = "\n".join(f"{offset + k}: {text}" for k, text in enumerate(raw))
    if cut:
        footer = (
            f"(Output capped at {MAX_BYTES // 1024} KB. Showing lines {offset}-{last}. "
            f"Use offset={last + 1} to continue.)"
        )
    elif last < lines.total:
        footer = (
            f"(Showing lines {offset}-{last} of {lines.total}. Use offset={last + 1} to continue.)"
        )
    else:
        footer = f"(End of file - total {lines.total} lines)"
    text = f"<path>{shown}</path>\n<type>file</type>\n<content>\n{body}\n\n{footer}\n</content>"
    data = {"preview": "\n".join(raw[:20]), "truncated": cut or last < lines.total}
    return box.finish("read", text, data, allow_spill=False)


def _read_directory(box: Toolbox, path: str, shown: str, offset: int, limit: int) -> ToolResult:
    entries = sorted(box.workspace.list_dir(path, limit=1_000_000).entries, key=str.lower)
    sliced = entries[offset - 1 : offset - 1 + limit]
    truncated = offset - 1 + len(sliced) < len(entries)
    note = (
        f"(Showing {len(sliced)} of {len(entries)} entries. Use 'offset' parameter to read "
        f"beyond entry {offset + len(sliced)})"
        if truncated
        else f"({len(entries)} entries)"
    )
    text = (
        f"<path>{shown}</path>\n<type>directory</type>\n<entries>\n"
        + "\n".join(sliced)
        + f"\n\n{note}\n</entries>"
    )
    data = {"preview": "\n".join(sliced[:20]), "truncated": truncated}
    return box.finish("read", text, data)


def edit(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    path, old, new = args["filePath"], args["oldString"], args["newString"]
    if old == new:
        raise InvalidArgumentError("No changes to apply: oldString and newString are identical.")
    if old == "":
        result = box.workspace.write(path, new)
        return box.finish("edit", "Edit applied successfully.", {"diff": "", "path": result.path})
    done = box.workspace.edit(path, old, new, replace_all=bool(args.get("replaceAll", False)))
    return box.finish("edit", "Edit applied successfully.", {"diff": done.diff, "path": done.path})


def multiedit(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    path = args["filePath"]
    edits = args["edits"]
    for item in edits:
        if item["oldString"] == item["newString"]:
            raise InvalidArgumentError(
                "No changes to apply: oldString and newString are identical."
            )
    done = box.workspace.edit_many(
        path,
        [
            {
                "old_string": e["oldString"],
                "new_string": e["newString"],
                "replace_all": bool(e.get("replaceAll", False)),
            }
            for e in edits
        ],
        sequential=True,
    )
    return box.finish("multiedit", "Edit applied successfully.", {"diff": done.diff})


def write(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    result = box.workspace.write(args["filePath"], args["content"])
    data = {"filepath": result.path, "exists": not result.created}
    return box.finish("write", "Wrote file successfully.", data)


def apply_patch(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    if not args["patchText"]:
        raise InvalidArgumentError("patchText is required")
    result = box.workspace.apply_patch(args["patchText"], format="apply_patch")
    lines = [f"{_LETTERS[f.action]} {f.new_path or f.path}" for f in result.files]
    text = "Success. Updated the following files:\n" + "\n".join(lines)
    return box.finish("apply_patch", text, result.to_dict())


_LETTERS = {"add": "A", "delete": "D", "update": "M", "move": "M"}

PROFILE = declared_profile(
    __name__,
    {
        "grep": grep,
        "glob": glob,
        "list": list_files,
        "read": read,
        "edit": edit,
        "multiedit": multiedit,
        "write": write,
        "apply_patch": apply_patch,
    },
)
