"""The diff an edit would make, without making it (the page's Replace → preview → Apply):
the Workspace's own planning with `dry_run=True` (`edit_many` for a hit, `edit` for
old/new), so the preview is exactly what Apply will do, and nothing is written.
"""

from __future__ import annotations

import re
from typing import Any

from ..arguments import check_writable_text
from ..errors import InvalidArgumentError
from ..results.files import EditResult
from ..workspace import Workspace

HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(?P<start>\d+)(?:,\d+)? @@")


def preview_edit(workspace: Workspace, arguments: dict[str, Any]) -> dict[str, Any]:
    """What `edit` would do with these arguments (`{search_result_id, new_string}` or
    `{path, old_string, new_string, replace_all}`): the edit result's fields, with
    `dry_run: true` and `new_lines`, the changed lines as they would read."""
    new = arguments.get("new_string")
    if not isinstance(new, str):
        raise InvalidArgumentError("new_string (a string) is required")
    check_writable_text("new_string", new)
    result_id = arguments.get("search_result_id")
    if result_id is not None:
        if "old_string" in arguments:
            raise InvalidArgumentError("give either search_result_id or old_string, not both")
        result = _preview_hit(workspace, result_id, new)
    elif isinstance(arguments.get("path"), str) and isinstance(arguments.get("old_string"), str):
        result = _preview_old_new(
            workspace,
            arguments["path"],
            arguments["old_string"],
            new,
            bool(arguments.get("replace_all", False)),
        )
    else:
        raise InvalidArgumentError(
            "preview needs {search_result_id, new_string} or {path, old_string, new_string}"
        )
    data = result.to_dict()
    data["summary"] = "Preview, nothing written: " + data["summary"].replace(
        "Edited ", "would edit ", 1
    )
    data["dry_run"] = True
    data["new_lines"] = new_lines(data["diff"], data["first_line"], data["last_line"])
    return data


def _preview_hit(workspace: Workspace, result_id: Any, new: str) -> EditResult:
    match, _ = workspace.cached_hit(result_id)
    return workspace.edit_many(
        match.file, [{"search_result_id": result_id, "new": new}], dry_run=True
    )


def _preview_old_new(
    workspace: Workspace, path: str, old: str, new: str, replace_all: bool
) -> EditResult:
    return workspace.edit(path, old, new, replace_all=replace_all, dry_run=True)


def new_lines(diff: str, first: int, last: int) -> list[dict[str, Any]]:
    """The lines `first`..`last` of the new text, read off a unified diff:
    `[{line, text}]` (the diff holds every changed line and its context)."""
    out: list[dict[str, Any]] = []
    number = 0
    for raw in diff.splitlines():
        hunk = HUNK.match(raw)
        if hunk:
            number = int(hunk["start"])
            continue
        if raw.startswith(("---", "+++")) and number == 0:
            continue
        if raw.startswith("-") or raw.startswith("\\"):
            continue
        if raw.startswith(("+", " ")):
            if first <= number <= last:
                out.append({"line": number, "text": raw[1:].rstrip("\r")})
            number += 1
    return out


__all__ = ["new_lines", "preview_edit"]
