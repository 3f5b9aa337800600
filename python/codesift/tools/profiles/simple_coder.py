"""The `simple-coder` profile: simple-coder's four tools (`read_file`, `list_dir`, `search`,
`replace`) with its limits and texts: `Read F (lines A-B of N total)` and `N | text` lines,
`Found N items matching 'P'`, `file:line:snippet` search lines, `Replaced 'OLD' with 'NEW'
in F`, and its failure texts (`File not found: F`, `Path is not a regular file: F`,
`Security violation - ...`, `Invalid regex pattern - ...`, `Old string '...' appears N times
(must be unique for safety)`).

Limits are simple-coder's defaults: `max-file-lines` 500, `max-list-results` 200,
`max-search-results` 50.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ...arguments import MAX_LINES
from ...errors import (
    BinaryFileError,
    CodesiftError,
    Concept,
    NotAFileError,
    NotFoundError,
    PatternError,
    SandboxError,
)
from ...errors.hints import DEFAULT_OPTIONS, Option
from ..call_arguments import renaming
from ..lines import read_lines
from ..matching import matching_lines, shorten
from ..spec import Tool, declared_profile
from ..tool_result import ToolResult

if TYPE_CHECKING:
    from ..toolbox import Toolbox

MAX_FILE_LINES = 500
MAX_LIST_RESULTS = 200
MAX_SEARCH_RESULTS = 50
#: Search snippets (the matching line, trimmed) longer than this are cut, with `...`.
SNIPPET_CHARS = 100
#: How much of old/new a success or failure text quotes.
QUOTE_SUCCESS_CHARS = 30
QUOTE_FAILURE_CHARS = 50

LINE_RANGE = re.compile(r"^(?P<path>.+?):(?P<start>\d+)-(?P<end>\d+)$")
GLOB_CHARS = ("*", "?")

#: simple-coder's own method parameters (`readFile(filePath, startLine, endLine)`,
#: `searchText(pattern, searchPath, isRegex, caseSensitive)`, `replaceText(filePath,
#: oldString, newString)`), taken as well.
PARAM_ALIASES = {
    "filePath": "path",
    "file_path": "path",
    "searchPath": "path",
    "search_path": "path",
    "startLine": "start_line",
    "endLine": "end_line",
    "caseSensitive": "case_sensitive",
    "oldString": "old_string",
    "newString": "new_string",
    "old": "old_string",
    "new": "new_string",
}
TOOL_ALIASES = {
    "read": "read_file",
    "readfile": "read_file",
    "list": "list_dir",
    "listfiles": "list_dir",
    "list_files": "list_dir",
    "searchtext": "search",
    "search_text": "search",
    "replacetext": "replace",
    "replace_text": "replace",
}


def argument_name(tool: Tool, key: Any, value: Any) -> tuple[Any, Any]:
    target = PARAM_ALIASES.get(key, key)
    if key in ("isRegex", "is_regex", "regex") and tool.name == "search":
        target = "mode"
        if isinstance(value, bool):
            value = "regex" if value else "contains"
    return (target if target in tool.properties else key), value


# -- handlers ------------------------------------------------------------------------------


def read_file(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    path = args["path"]
    start, end = args.get("start_line"), args.get("end_line")
    ranged = LINE_RANGE.match(path) if start is None and end is None else None
    if ranged:
        try:
            return _read(box, ranged["path"], int(ranged["start"]), int(ranged["end"]))
        except _Failure as failure:
            if failure.kind != "NotFoundError":
                return box.error(failure.message, failure.kind)
            try:  # perhaps a file really is called "name:1-2"
                return _read(box, path, 1, None)
            except _Failure as literal:
                found = failure if literal.kind == "NotFoundError" else literal
                return box.error(found.message, found.kind)
    try:
        return _read(box, path, 1 if start is None else start, end)
    except _Failure as failure:
        return box.error(failure.message, failure.kind)


def list_dir(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    path = args.get("path", ".")
    workspace = box.workspace
    try:
        if any(c in path for c in GLOB_CHARS):
            found = workspace.glob(path, ".", limit=MAX_LIST_RESULTS, sort="path")
            items, total = list(found.paths), found.total
        else:
            listing = workspace.list_dir(path, limit=MAX_LINES)
            prefix = "" if listing.path == "." else listing.path.removeprefix("./") + "/"
            everything = sorted(prefix + entry for entry in listing.entries)
            items, total = everything[:MAX_LIST_RESULTS], len(everything)
    except NotFoundError:
        return box.error(f"Directory not found: {path}", "NotFoundError")
    except NotAFileError:
        return box.error(f"Path is not a directory: {path}", "NotAFileError")
    except SandboxError as exc:
        return box.error(f"Security violation - {box.message(exc, 'list_dir')}", "SandboxError")
    truncated = total > len(items)
    summary = f"Found {total} items matching '{path}'"
    text = summary + ("\n\n" + "\n".join(items) if items else "")
    if truncated:
        text += f"\n[TRUNCATED: first {len(items)} items]"
    data = {"path": path, "items": items, "total": total, "truncated": truncated}
    return box.finish("list_dir", text, {**data, "summary": summary})


def search(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    pattern, path = args["pattern"], args.get("path", ".")
    try:
        found = matching_lines(
            box.workspace,
            pattern,
            path,
            limit=MAX_SEARCH_RESULTS,
            literal=args.get("mode", "contains") == "contains",
            case_sensitive=args.get("case_sensitive", False),
        )
    except NotFoundError:
        return box.error(f"Path not found: {path}", "NotFoundError")
    except SandboxError as exc:
        return box.error(f"Security violation - {box.message(exc, 'search')}", "SandboxError")
    except PatternError as exc:
        return box.error(f"Invalid regex pattern - {box.message(exc, 'search')}", "PatternError")
    lines = [
        f"{hit.file}:{hit.line}:{shorten(hit.text.strip(), SNIPPET_CHARS)}" for hit in found.lines
    ]
    summary = f"Found {len(lines)} matches for '{pattern}' in {path}"
    if found.truncated:
        summary += f" [TRUNCATED: reached limit {MAX_SEARCH_RESULTS} before completing search]"
    data = {
        "matches": [hit.to_dict() for hit in found.lines],
        "total": len(lines),
        "truncated": found.truncated,
        "summary": summary,
    }
    return box.finish("search", summary + "\n\n" + "\n".join(lines), data)


def replace(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    path, old, new = args["path"], args["old_string"], args["new_string"]
    workspace = box.workspace
    try:
        workspace.read(path, limit=1)  # exists, a regular text file, inside the root
        if old == new:
            return box.error(
                "Old string and new string are identical - no replacement needed",
                "InvalidArgumentError",
            )
        if not old:
            return box.error(
                "Old string must not be empty; give the exact text to replace",
                "InvalidArgumentError",
            )
        # Every exact occurrence, non-overlapping, left to right; a line-ending variant that
        # the search also finds is not the exact string.
        hits = workspace.grep(old, path, literal=True, case_sensitive=True, max_matches=None)
        exact = [m for m in hits.matches if m.content == old]
        if not exact:
            return box.error(
                f"Old string '{shorten(old, QUOTE_FAILURE_CHARS)}' not found in file", "MatchError"
            )
        if len(exact) > 1:
            return box.error(
                f"Old string '{shorten(old, QUOTE_FAILURE_CHARS)}' appears {len(exact)} times "
                "(must be unique for safety)",
                "MatchError",
            )
        result = workspace.edit_result(exact[0].id, new)
    except CodesiftError as exc:
        failure = _failure(box, "replace", exc, path)
        return box.error(failure.message, failure.kind)
    summary = (
        f"Replaced '{shorten(old, QUOTE_SUCCESS_CHARS)}' with "
        f"'{shorten(new, QUOTE_SUCCESS_CHARS)}' in {path}"
    )
    data = {
        "path": result.path,
        "replacements": result.replacements,
        "first_line": result.first_line,
        "last_line": result.last_line,
        "summary": summary,
    }
    return box.finish("replace", summary, data)


# -- helpers -------------------------------------------------------------------------------


class _Failure(Exception):
    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.message, self.kind = message, kind


def _failure(box: Toolbox, tool: str, exc: CodesiftError, path: str) -> _Failure:
    """simple-coder's text for a failure on `path`."""
    kind = type(exc).__name__
    if isinstance(exc, NotFoundError):
        return _Failure(f"File not found: {path}", kind)
    if isinstance(exc, NotAFileError):
        return _Failure(f"Path is not a regular file: {path}", kind)
    if isinstance(exc, SandboxError):
        return _Failure(f"Security violation - {box.message(exc, tool)}", kind)
    if isinstance(exc, BinaryFileError):
        return _Failure(f"Failed to read file - {box.message(exc, tool)}", kind)
    return _Failure(box.message(exc, tool), kind)


def _read(box: Toolbox, path: str, start: int, end: int | None) -> ToolResult:
    if end is not None and end < start:
        raise _Failure("End line must be >= start line", "InvalidArgumentError")
    workspace = box.read_workspace(path)
    wanted = MAX_FILE_LINES if end is None else min(end - start + 1, MAX_FILE_LINES)
    try:
        part = read_lines(workspace, path, offset=start, limit=wanted)
    except CodesiftError as exc:
        raise _failure(box, "read_file", exc, path) from None
    total = part.total
    if total == 0:
        summary = f"Read {path} (empty file: 0 lines)"
        data = {"path": path, "content": "", "start_line": 0, "end_line": 0, "total_lines": 0}
        return box.finish("read_file", summary, {**data, "truncated": False, "summary": summary})
    if start > total:
        raise _Failure(
            f"Start line {start} exceeds file length ({total} lines)", "InvalidArgumentError"
        )
    width = len(str(part.last))
    numbered = "\n".join(
        f"{line.number:>{width}} | {line.text}"
        + (f"... [line truncated: {line.cut_from} characters]" if line.cut_from else "")
        for line in part.lines
    )
    summary = f"Read {path} (lines {start}-{part.last} of {total} total)"
    more = (total if end is None else min(end, total)) - part.last
    if more > 0:
        summary += f" [TRUNCATED: showing first {MAX_FILE_LINES} lines, {more} more available]"
    data = {
        "path": path,
        "content": numbered,
        "start_line": start,
        "end_line": part.last,
        "total_lines": total,
        "truncated": more > 0,
        "summary": summary,
    }
    return box.finish("read_file", f"{summary}\n\n{numbered}", data, allow_spill=False)


PROFILE = declared_profile(
    __name__,
    {"read_file": read_file, "list_dir": list_dir, "search": search, "replace": replace},
    aliases=TOOL_ALIASES,
    rename=renaming(argument_name),
    # search is literal unless mode="regex": a plain-text search is mode="contains".
    hint_options={**DEFAULT_OPTIONS, Concept.LITERAL: (Option("mode", '"contains"'),)},
)
