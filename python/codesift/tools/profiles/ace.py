"""The `ace` profile: `ace-text_search` and `filesystem-edit_search`, the search-then-edit pair
codesift's `searchResultId` was designed for.

`ace-text_search{pattern, isRegex, fileGlob}` answers with a JSON array, one element per
match (never one per line or file): `{searchResultId, filePath, line, column, content}`, where
`content` is exactly the matched text, with the file's own line endings. An element's
`searchResultId` passed to `filesystem-edit_search{filePath, searchResultId, replaceContent}`
replaces exactly that match (linked mode, never fuzzy); `{filePath, searchContent,
replaceContent}` is the compatibility mode (codesift's edit strategies).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ...errors import InvalidArgumentError
from .. import schema
from ..spec import Profile, Tool
from ..tool_result import ToolResult

if TYPE_CHECKING:
    from ..toolbox import Toolbox

DEFAULT_MAX_RESULTS = 100
MAX_RESULTS = 500

SEARCH_PROPERTIES: dict[str, Any] = {
    "pattern": schema.string(
        'Text (or regex with isRegex) to search for, e.g. "TODO:" or "import.*from".', required=True
    ),
    "isRegex": {
        "type": "boolean",
        "default": False,
        "description": "Whether pattern is a regex (Rust/ripgrep syntax); default literal text.",
    },
    "fileGlob": schema.string('Only files matching this glob, e.g. "*.ts" or "src/**/*.{js,ts}".'),
    "maxResults": {
        "type": "integer",
        "minimum": 1,
        "maximum": MAX_RESULTS,
        "default": DEFAULT_MAX_RESULTS,
        "description": "Most matches to return.",
    },
}

EDIT_PROPERTIES: dict[str, Any] = {
    "filePath": schema.path("The file to edit, relative to the root.", required=True),
    "searchResultId": schema.string(
        "Preferred: the searchResultId of an ace-text_search match; exactly that match is replaced."
    ),
    "searchContent": schema.string(
        "Compatibility mode: the text to replace (must match one place)."
    ),
    "replaceContent": schema.text("The new text.", required=True),
}


def text_search(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    limit = args.get("maxResults", DEFAULT_MAX_RESULTS)
    result = box.workspace.grep(
        args["pattern"],
        ".",
        literal=not args.get("isRegex", False),
        include=args.get("fileGlob"),
        case_sensitive=True,
        max_matches=limit,
    )
    matches = [
        {
            "searchResultId": m.id,
            "filePath": m.file,
            "line": m.line,
            "column": m.column,
            "content": m.content,
        }
        for m in result.matches
    ]
    text = json.dumps(matches, indent=2, ensure_ascii=False)
    if result.truncated:
        # After the array, so that the array itself stays valid JSON.
        text += (
            f"\n\n[TRUNCATED: reached limit {limit} before completing search; narrow the "
            "pattern or fileGlob, or raise maxResults]"
        )
    data = {
        "matches": matches,
        "total": result.total,
        "truncated": result.truncated,
        "summary": result.summary,
    }
    return box.finish("ace-text_search", text, data)


def edit_search(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    path, new = args["filePath"], args["replaceContent"]
    result_id, old = args.get("searchResultId"), args.get("searchContent")
    if result_id is not None and old is not None:
        raise InvalidArgumentError(
            "give either searchResultId (preferred) or searchContent, not both"
        )
    if result_id is not None:
        result = box.edit_target(result_id).edit_result(result_id, new, path=path)
    elif old is not None:
        result = box.workspace.edit(path, old, new)
    else:
        raise InvalidArgumentError(
            "filesystem-edit_search needs searchResultId (from ace-text_search; preferred) or "
            "searchContent, with filePath and replaceContent"
        )
    return box.finish(
        "filesystem-edit_search", f"{result.summary}\n{result.diff}".rstrip(), result.to_dict()
    )


PROFILE = Profile(
    name="ace",
    summary="ACE: ace-text_search (a JSON array of matches with searchResultId) and "
    "filesystem-edit_search (edit a match by its id)",
    tools=(
        Tool(
            name="ace-text_search",
            description=(
                "Search file contents for text (or a regex with isRegex); fileGlob filters "
                "files. Returns a JSON array, one element per match: {searchResultId, "
                "filePath, line, column, content}. To change a match, pass its searchResultId "
                "to filesystem-edit_search."
            ),
            properties=SEARCH_PROPERTIES,
            handler=text_search,
            output_required=("matches", "total", "truncated"),
            example='{"pattern": "TODO:", "fileGlob": "*.ts"}',
        ),
        Tool(
            name="filesystem-edit_search",
            description=(
                "Edit a file. Preferred: {filePath, searchResultId, replaceContent} replaces "
                "exactly a match from ace-text_search. Compatibility mode: {filePath, "
                "searchContent, replaceContent} replaces searchContent, which must match one "
                "place."
            ),
            properties=EDIT_PROPERTIES,
            handler=edit_search,
            output_required=("path", "replacements", "strategy", "diff", "summary"),
            read_only=False,
            example='{"filePath": "src/a.ts", "searchResultId": "sr_abc1", "replaceContent": "x"}',
        ),
    ),
    instructions=(
        "Search with ace-text_search, then change a match with filesystem-edit_search "
        "{filePath, searchResultId, replaceContent}: it replaces exactly what the search "
        "found. Paths are relative to the workspace root."
    ),
)
