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
from ..spec import declared_profile
from ..tool_result import ToolResult

if TYPE_CHECKING:
    from ..toolbox import Toolbox

#: maxResults's default (ace.json publishes it).
DEFAULT_MAX_RESULTS = 100


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


PROFILE = declared_profile(
    __name__, {"ace-text_search": text_search, "filesystem-edit_search": edit_search}
)
