"""The diff an edit would make, without making it (the page's Replace → preview → Apply).

When the Workspace offers `dry_run=` on its edits (`edit_result`, else `edit_many` for a hit;
`edit` for old/new), that is used; otherwise the edit is planned here exactly as
`Workspace.edit_result` / `Workspace.edit` plan it (the same lookup, relocation and line-ending
rules, through the Workspace's own helpers), from the file's bytes read beneath the root, and
nothing is written or locked.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

from ..arguments import check_writable_text
from ..edit import Change, apply_changes, plan_edit
from ..errors import InvalidArgumentError
from ..files import TextFile
from ..results import EditResult
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
    if _has_dry_run(workspace.edit_result):
        found: EditResult = workspace.edit_result(result_id, new, dry_run=True)  # type: ignore[call-arg]
        return found
    match, state = workspace._lookup(result_id)
    if _has_dry_run(workspace.edit_many):
        planned: EditResult = workspace.edit_many(  # type: ignore[call-arg]
            match.file, [{"search_result_id": result_id, "new": new}], dry_run=True
        )
        return planned
    from ..workspace import _fit_newlines  # the planning edit_result does, without writing

    shown = workspace._real(match.file)
    file = TextFile(workspace._read_bytes(match.file), shown)
    change, moved_from = workspace._locate(file, match, state, result_id)
    change = Change(change.start, change.end, _fit_newlines(new, file.text, change))
    if file.text[change.start : change.end] == change.replacement:
        raise InvalidArgumentError(
            "new_string equals the text of the search result; nothing to change"
        )
    return _result(
        file,
        shown,
        [change],
        "search_result" if moved_from is None else "search_result_moved",
        moved_from,
    )


def _preview_old_new(
    workspace: Workspace, path: str, old: str, new: str, replace_all: bool
) -> EditResult:
    if _has_dry_run(workspace.edit):
        found: EditResult = workspace.edit(  # type: ignore[call-arg]
            path, old, new, replace_all=replace_all, dry_run=True
        )
        return found
    shown = workspace._real(path)
    file = TextFile(workspace._read_bytes(path), shown)
    plan = plan_edit(file.text, old, new, replace_all=replace_all)
    return _result(file, shown, plan.changes, plan.strategy, None)


def _result(
    file: TextFile, shown: str, changes: list[Change], strategy: str, moved_from: int | None
) -> EditResult:
    from ..workspace import _changed_lines, _unified_diff

    new_text = apply_changes(file.text, changes)
    file.encode(new_text)  # what the edit would refuse to write, the preview refuses too
    first, last = _changed_lines(new_text, changes)
    return EditResult(
        path=shown,
        replacements=len(changes),
        strategy=strategy,
        first_line=first,
        last_line=last,
        diff=_unified_diff(file.text, new_text, shown),
        moved_from=moved_from,
    )


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


def _has_dry_run(method: Any) -> bool:
    try:
        return "dry_run" in inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False


__all__ = ["new_lines", "preview_edit"]
