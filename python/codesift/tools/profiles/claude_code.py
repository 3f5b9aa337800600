"""The `claude-code` profile: Claude Code's file tools (Grep, Glob, Read, Edit, MultiEdit,
Write) with their parameter names and the text their results give the model.

Source: Claude Code's tool definitions and result mappers (`mapToolResultToToolResultBlockParam`)
as published in the Claude Code docs and the analyses of its CLI bundle (Grep: ripgrep flags,
`files_with_matches` sorted newest first, `Found N files`, `[Showing results with pagination =
limit: L, offset: O]`, 20,000-character cap; Glob: 100 files; Read: `     1→text` lines;
Edit/Write: `cat -n` snippets).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..._core import GlobMatcher
from ...errors import InvalidArgumentError
from ...results.files import EditResult
from ..filetypes import type_globs
from ..lines import absolute, edited_lines, exists, read_lines
from ..spec import declared_profile
from ..tool_result import ToolResult

if TYPE_CHECKING:
    from ..toolbox import Toolbox

#: Longest result text before it is cut (`... [N lines truncated] ...`).
MAX_RESULT_CHARS = 20000
#: ripgrep's `--max-columns 500`: longer lines are omitted.
MAX_COLUMNS = 500
GLOB_LIMIT = 100
READ_LIMIT = 2000
SNIPPET_CONTEXT = 4
#: Lines of a written file shown back.
WRITE_SNIPPET_LINES = 16000
RESPONSE_CLIPPED = (
    "<response clipped><NOTE>To save on context only part of this file has been shown to you. "
    "You should retry this tool after you have searched inside the file with Grep in order to "
    "find the line numbers of what you are looking for.</NOTE>"
)

# -- Grep ----------------------------------------------------------------------------------


def grep(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    mode = args.get("output_mode", "files_with_matches")
    path = args.get("path", ".")
    pattern = args["pattern"]
    multiline = bool(args.get("multiline", False))
    if multiline:
        pattern = "(?s)" + pattern
    before = after = 0
    if mode == "content":
        both = args.get("-C", args.get("context"))
        if both is not None:
            before = after = _count("-C", both)
        else:
            before, after = _count("-B", args.get("-B", 0)), _count("-A", args.get("-A", 0))
    include = _glob_list(args["glob"]) if "glob" in args else None
    types = type_globs(args["type"]) if "type" in args else None
    result = box.workspace.grep(
        pattern,
        path,
        include=include if include is not None else types,
        case_sensitive=not args.get("-i", False),
        multiline=True if multiline else None,
        before=before,
        after=after,
        max_matches=None,
    )
    matches = list(result.matches)
    if include is not None and types is not None:
        # rg applies --type and --glob together: a file must pass both.
        matcher = GlobMatcher(types)
        matches = [m for m in matches if matcher.is_match(m.file, m.file)]
    searched = box.workspace.sandbox.relative(path)
    single_file = bool(matches) and all(m.file == searched for m in matches)
    limit = args.get("head_limit")
    offset = int(args.get("offset", 0) or 0)
    if mode == "content":
        lines = _content_lines(matches, single_file, args.get("-n", True), before or after)
        shown = _page(lines, limit, offset)
        data: dict[str, Any] = {
            "mode": "content",
            "numFiles": 0,
            "filenames": [],
            "content": "\n".join(shown),
            "numLines": len(shown),
        }
        text = _cap(data["content"] or "No matches found")
        info = _pagination(limit, offset)
        if info:
            text = f"{text}\n\n[Showing results with pagination = {info}]"
    elif mode == "count":
        counts: dict[str, set[int]] = {}
        for m in matches:
            counts.setdefault(m.file, set()).add(m.line)
        rows = [str(len(n)) if single_file else f"{f}:{len(n)}" for f, n in counts.items()]
        shown = _page(rows, limit, offset)
        total = sum(int(row.rsplit(":", 1)[-1]) for row in shown)
        data = {
            "mode": "count",
            "numFiles": len(shown),
            "filenames": [],
            "content": "\n".join(shown),
            "numMatches": total,
        }
        info = _pagination(limit, offset)
        text = _cap(data["content"] or "No matches found") + (
            f"\n\nFound {total} total {'occurrence' if total == 1 else 'occurrences'} across "
            f"{len(shown)} {'file' if len(shown) == 1 else 'files'}."
            + (f" with pagination = {info}" if info else "")
        )
    else:
        newest: dict[str, int] = {}
        for m in matches:
            newest.setdefault(m.file, m.file_mtime_ns)
        files = sorted(newest, key=lambda f: (-newest[f], f))
        shown = _page(files, limit, offset)
        data = {"mode": "files_with_matches", "filenames": shown, "numFiles": len(shown)}
        info = _pagination(limit, offset)
        if not shown:
            text = "No files found"
        else:
            count = f"Found {len(shown)} file{'' if len(shown) == 1 else 's'}"
            text = _cap(f"{count}{' ' + info if info else ''}\n" + "\n".join(shown))
    if limit is not None:
        data["appliedLimit"] = limit
    if offset > 0:
        data["appliedOffset"] = offset
    return box.finish("Grep", text, data, truncated=result.truncated)


def _count(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise InvalidArgumentError(f"{name} must be a number of lines (0 or more)")
    return int(value)


def _glob_list(text: str) -> list[str]:
    """Claude Code's reading of `glob`: split on whitespace, and on commas outside braces."""
    out: list[str] = []
    for part in text.split():
        out.extend([part] if "{" in part and "}" in part else [p for p in part.split(",") if p])
    return out


def _page(items: list[str], limit: Any, offset: int) -> list[str]:
    if limit is None or limit == 0:
        return items[offset:]
    return items[offset : offset + int(limit)]


def _pagination(limit: Any, offset: int) -> str:
    """`limit: L, offset: O` as Claude Code writes it (even `limit: undefined`)."""
    if not limit and not offset:
        return ""
    return f"limit: {_js(limit)}, offset: {offset}"


def _js(value: Any) -> str:
    if value is None:
        return "undefined"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _cap(text: str) -> str:
    if len(text) <= MAX_RESULT_CHARS:
        return text
    rest = text[MAX_RESULT_CHARS:].count("\n") + 1
    return f"{text[:MAX_RESULT_CHARS]}\n\n... [{rest} lines truncated] ..."


def _content_lines(matches: list[Any], single_file: bool, numbered: Any, context: int) -> list[str]:
    """ripgrep's output: `path:12:text` for matching lines, `path-11-text` for context, `--`
    between groups of lines that are not adjacent (when context is asked for)."""
    by_file: dict[str, dict[int, tuple[bool, str, int]]] = {}
    for m in matches:
        rows = by_file.setdefault(m.file, {})
        for k, text in enumerate(m.before):
            rows.setdefault(m.line - len(m.before) + k, (False, text, 0))
        texts = [m.text, *m.content.split("\n")[1:]]
        for k, number in enumerate(range(m.line, m.end_line + 1)):
            hits = rows[number][2] + 1 if number in rows and rows[number][0] else 1
            rows[number] = (True, texts[k] if k < len(texts) else "", hits)
        for k, text in enumerate(m.after):
            number = m.end_line + 1 + k
            if number not in rows:
                rows[number] = (False, text, 0)
    out: list[str] = []
    for file, rows in by_file.items():
        previous = None
        for number in sorted(rows):
            is_match, text, hits = rows[number]
            if context and previous is not None and number != previous + 1:
                out.append("--")
            elif context and previous is None and out:
                out.append("--")
            previous = number
            sep = ":" if is_match else "-"
            if len(text) > MAX_COLUMNS:
                text = (
                    f"[Omitted long line with {hits} matches]"
                    if is_match
                    else "[Omitted long context line]"
                )
            prefix = "" if single_file else f"{file}{sep}"
            out.append(f"{prefix}{number}{sep}{text}" if numbered else f"{prefix}{text}")
    return out


# -- Glob, Read ------------------------------------------------------------------------------


def glob(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    result = box.workspace.glob(
        args["pattern"], args.get("path", "."), limit=GLOB_LIMIT, sort="mtime"
    )
    files = [absolute(box.workspace, f.path) for f in result.files]
    data = {"filenames": files, "numFiles": len(files), "truncated": result.truncated}
    if not files:
        return box.finish("Glob", "No files found", data)
    lines = files + (
        ["(Results are truncated. Consider using a more specific path or pattern.)"]
        if result.truncated
        else []
    )
    return box.finish("Glob", "\n".join(lines), data)


def numbered(texts: list[str], start: int) -> str:
    """Claude Code's `cat -n` form: the number right-aligned in 6 columns, then `→`."""
    return "\n".join(f"{start + k:>6}→{text}" for k, text in enumerate(texts))


def read(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    path = args["file_path"]
    workspace = box.read_workspace(path)
    offset = int(args.get("offset", 1) or 1)
    limit = int(args.get("limit", READ_LIMIT))
    if limit < 1:
        raise InvalidArgumentError("limit must be at least 1")
    lines = read_lines(workspace, path, offset, limit)
    data = {
        "type": "text",
        "file": {
            "filePath": path,
            "content": "\n".join(lines.texts),
            "numLines": len(lines.lines),
            "startLine": offset,
            "totalLines": lines.total,
        },
    }
    if lines.lines:
        text = numbered(lines.texts, offset)
    elif lines.total == 0:
        text = (
            "<system-reminder>Warning: the file exists but the contents are empty."
            "</system-reminder>"
        )
    else:
        text = (
            "<system-reminder>Warning: the file exists but is shorter than the provided offset "
            f"({offset}). The file has {lines.total} lines.</system-reminder>"
        )
    return box.finish("Read", text, data, truncated=lines.more, allow_spill=False)


# -- Edit, MultiEdit, Write ----------------------------------------------------------------


def edit(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    path, old, new = args["file_path"], args["old_string"], args["new_string"]
    replace_all = bool(args.get("replace_all", False))
    if old == new:
        raise InvalidArgumentError(
            "No changes to make: old_string and new_string are exactly the same."
        )
    result = box.workspace.edit(path, old, new, replace_all=replace_all)
    data = {
        "filePath": path,
        "oldString": old,
        "newString": new,
        "replaceAll": replace_all,
        "structuredPatch": result.diff,
    }
    if replace_all:
        text = (
            f"The file {path} has been updated. All occurrences of '{old}' were successfully "
            f"replaced with '{new}'."
        )
    else:
        text = f"The file {path} has been updated. " + _snippet(box, path, result, new)
    return box.finish("Edit", text, data)


def _snippet(box: Toolbox, path: str, result: EditResult, new: str) -> str:
    """The edited region with 4 lines around it, as Claude Code shows it after an edit (from
    the edit's result, without reading the file again)."""
    start = max(0, result.first_line - 1 - SNIPPET_CONTEXT)
    end = result.first_line - 1 + SNIPPET_CONTEXT + len(new.split("\n"))
    lines = edited_lines(box.workspace, path, result, start, end)
    return "Here's the result of running `cat -n` on a snippet of the edited file:\n" + numbered(
        lines, start + 1
    )


def multi_edit(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    path, edits = args["file_path"], args["edits"]
    if not edits:
        raise InvalidArgumentError("At least one edit is required")
    for item in edits:
        if item["old_string"] == item["new_string"]:
            raise InvalidArgumentError(
                "No changes to make: old_string and new_string are exactly the same."
            )
    rest = list(edits)
    created = False
    if rest[0]["old_string"] == "" and not exists(box.workspace, path):
        # Claude Code creates a file from an empty first old_string.
        box.workspace.write(path, rest.pop(0)["new_string"])
        created = True
    if rest:
        try:
            box.workspace.edit_many(path, rest, sequential=True)
        except BaseException:
            if created:
                box.workspace.undo_edit(path)
            raise
    data = {"filePath": path, "edits": edits}
    listed = "\n".join(
        f'{k + 1}. Replaced "{_short(e["old_string"])}" with "{_short(e["new_string"])}"'
        for k, e in enumerate(edits)
    )
    count = f"{len(edits)} edit{'' if len(edits) == 1 else 's'}"
    return box.finish("MultiEdit", f"Applied {count} to {path}:\n{listed}", data)


def _short(text: str) -> str:
    return text[:50] + ("..." if len(text) > 50 else "")


def write(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    path, content = args["file_path"], args["content"]
    result = box.workspace.write(path, content)
    data = {"type": "create" if result.created else "update", "filePath": path, "content": content}
    if result.created:
        return box.finish("Write", f"File created successfully at: {path}", data)
    lines = content.split("\n")
    shown = "\n".join(lines[:WRITE_SNIPPET_LINES]) + (
        RESPONSE_CLIPPED if len(lines) > WRITE_SNIPPET_LINES else ""
    )
    text = (
        f"The file {path} has been updated. Here's the result of running `cat -n` on a "
        f"snippet of the edited file:\n{numbered(shown.split(chr(10)), 1) if shown else ''}"
    )
    return box.finish("Write", text, data)


PROFILE = declared_profile(
    __name__,
    {
        "Grep": grep,
        "Glob": glob,
        "Read": read,
        "Edit": edit,
        "MultiEdit": multi_edit,
        "Write": write,
    },
)
