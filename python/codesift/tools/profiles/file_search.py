"""The `file-search` profile: one content-search tool, `file_search{query, path, ignore_case,
include}`: a recursive substring search (the query is text, never a regex), case-insensitive
by default, `.git`, gitignored and binary files skipped, at most 50 matching lines, answered as
a Markdown list:

    Found 3 matches for "TODO":

    - `README.md:12`: // TODO: Add setup instructions
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...results.matches import plural
from ..call_arguments import renaming
from ..matching import LineHit, matching_lines
from ..spec import Tool, declared_profile
from ..tool_result import ToolResult

if TYPE_CHECKING:
    from ..toolbox import Toolbox

MAX_MATCHES = 50

PARAM_ALIASES = {
    "pattern": "query",
    "text": "query",
    "directory": "path",
    "ignoreCase": "ignore_case",
    "glob": "include",
    "file_pattern": "include",
    "filePattern": "include",
}


def argument_name(tool: Tool, key: Any, value: Any) -> tuple[Any, Any]:
    if key in ("case_sensitive", "caseSensitive") and isinstance(value, bool):
        return "ignore_case", not value
    return PARAM_ALIASES.get(key, key), value


def file_search(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    query, path = args["query"], args.get("path", ".")
    found = matching_lines(
        box.workspace,
        query,
        path,
        limit=MAX_MATCHES,
        literal=True,
        case_sensitive=not args.get("ignore_case", True),
        include=args.get("include"),
    )
    shown = [_item(box, hit) for hit in found.lines]
    if shown:
        summary = f'Found {plural(len(shown), "match", "matches")} for "{query}":'
        text = summary + "\n\n" + "\n".join(shown)
    else:
        summary = f'No matches found for "{query}".'
        text = summary + _skipped_note(found.result.ignored, found.result.binary_files)
    if found.truncated:
        text += (
            f"\n\n[TRUNCATED: reached limit {MAX_MATCHES} before completing search; narrow it "
            "with path or include]"
        )
    data = {
        "matches": [hit.to_dict() for hit in found.lines],
        "total": len(shown),
        "truncated": found.truncated,
        "summary": summary,
    }
    return box.finish("file_search", text, data)


def _item(box: Toolbox, hit: LineHit) -> str:
    """`` - `file:line`: text `` with the line's surrounding whitespace trimmed and a long
    line shown as a window around the match."""
    stripped = hit.text.lstrip()
    column = max(1, hit.column - (len(hit.text) - len(stripped)))
    text, _ = box.output.clip(stripped.rstrip(), column, hit.length)
    return f"- `{hit.file}:{hit.line}`: {text}"


def _skipped_note(ignored: int, binary: int) -> str:
    parts = []
    if ignored:
        parts.append(f"{plural(ignored, 'path')} hidden by ignore rules")
    if binary:
        parts.append(f"{plural(binary, 'binary file')}")
    return f"\n\n(Not searched: {' and '.join(parts)}.)" if parts else ""


PROFILE = declared_profile(__name__, {"file_search": file_search}, rename=renaming(argument_name))
