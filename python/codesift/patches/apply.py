"""Applying a parsed patch to a Workspace: every file planned first, then all written or none.

1. Paths are checked: each inside the sandbox, no file named twice (also through a symlink),
   an added file or move destination must not exist, an updated or deleted one must.
2. Every existing file the patch touches is locked, in sorted order of its real path, and read
   under its lock.
3. Each file's new text is planned: hunks by `codesift.patches.hunks`, SEARCH/REPLACE blocks
   by `edit_many`'s strategies (`codesift.edit.plan_edit`), one after the other.
4. Unless `dry_run`, `codesift.transaction.commit` writes them all or rolls back.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, NoReturn

from .. import _core, linediff
from ..control import current as current_control
from ..edit import Change, apply_changes, plan_edit, split_lines
from ..errors import (
    CancelledError,
    CodesiftError,
    ConflictError,
    InvalidArgumentError,
    MatchError,
    NotFoundError,
    SandboxError,
)
from ..files import TextFile
from ..results import FileChange, PatchResult
from ..transaction import FileWrite, commit
from .hunks import plan_hunks
from .model import FileOp, ParsedPatch, Replacement

if TYPE_CHECKING:
    from ..workspace import Workspace


@dataclass
class _Planned:
    op: FileOp
    rel: str
    write: FileWrite
    change: FileChange
    file: TextFile | None = None
    changes: list[Change] | None = None


def apply_parsed(ws: Workspace, parsed: ParsedPatch, *, dry_run: bool = False) -> PatchResult:
    """Applies `parsed` to `ws` all or nothing (see the module documentation)."""
    _stop_if_cancelled()
    targets = _targets(ws, parsed.ops)
    locks: dict[str, _core.FileLock] = {}
    try:
        for real_path in sorted({real for _, real, _ in targets if real is not None}):
            op, rel = next((op, rel) for op, r, rel in targets if r == real_path)
            try:
                locks[real_path] = ws._lock(rel)
            except CodesiftError as exc:
                raise type(exc)(f"{op.label}: {exc}") from None
        planned = []
        for op, real, rel in targets:
            try:
                planned.append(_plan(ws, op, rel, locks[real] if real is not None else None))
            except CodesiftError as exc:
                raise type(exc)(f"{op.label}: {exc}") from None
        result = PatchResult(
            files=tuple(p.change for p in planned), format=parsed.format, dry_run=dry_run
        )
        if dry_run:
            return result
        # A call cancelled up to here writes nothing; once the writes start they all run (a
        # patch is never half applied) and the result says that the cancel came too late.
        _stop_if_cancelled()
        commit(ws._engine, [p.write for p in planned])
        for p in planned:
            _after_commit(ws, p)
        control = current_control()
        if control is not None and control.cancelled:
            return replace(result, cancelled_after_commit=True)
        return result
    finally:
        for lock in locks.values():
            lock.release()


def _stop_if_cancelled() -> None:
    control = current_control()
    if control is not None and control.cancelled:
        raise CancelledError(
            "the call was cancelled before the patch was applied; nothing was written"
        )


def _targets(ws: Workspace, ops: tuple[FileOp, ...]) -> list[tuple[FileOp, str | None, str]]:
    """Each operation with the real path of the existing file it reads (None for an added
    file) and its workspace-relative path; refuses duplicates and existence mismatches."""
    seen: dict[str, FileOp] = {}
    out: list[tuple[FileOp, str | None, str]] = []

    def claim(name: str, op: FileOp) -> None:
        if name in seen:
            other = seen[name]
            raise InvalidArgumentError(
                f"{op.label}: {name} is also changed by the section '{other.label}'; each file "
                "may appear in one section only (merge the hunks into one section)"
            )
        seen[name] = op

    for op in ops:
        try:
            rel = ws.sandbox.relative(op.path)
            real = ws._engine.real(rel)
            if real is None and op.replacements and all(b.old == "" for b in op.replacements):
                # SEARCH/REPLACE blocks with empty SEARCH sections create the file.
                content = "".join(b.new for b in op.replacements)
                op = FileOp("add", op.path, content=content, patch_line=op.patch_line)
            if op.action == "add":
                if real is not None:
                    raise ConflictError(
                        f"{rel} already exists; use an update (Update File) to change it, or "
                        "delete it first"
                    )
                # The checks the real run's create makes, also for a dry run.
                claim(ws._engine.check_create(rel), op)
                out.append((op, None, rel))
                continue
            if real is None:
                _missing(ws, rel)
            claim(real, op)
            if op.move_to is not None:
                dest = ws.sandbox.relative(op.move_to)
                dest_real = ws._engine.real(dest)
                if dest_real is not None and dest_real != real:
                    raise ConflictError(
                        f"the move destination {dest} already exists; choose another path or "
                        "delete it first"
                    )
                if dest_real is None:
                    claim(ws._engine.check_create(dest), op)
            out.append((op, real, rel))
        except CodesiftError as exc:
            if str(exc).startswith(op.label):
                raise
            raise type(exc)(f"{op.label}: {exc}") from None
    return out


def _missing(ws: Workspace, rel: str) -> NoReturn:
    """The error for a file to update or delete that cannot be resolved: a symlink (or a
    directory link along the path) that leads outside the workspace is a `SandboxError`, not a
    missing file that could be added instead."""
    try:
        ws._engine.check_create(rel)
    except SandboxError:
        raise
    except CodesiftError:
        pass
    raise NotFoundError(
        f"{rel} does not exist; check the path (glob or list_dir), or add the file instead"
    )


def _plan(ws: Workspace, op: FileOp, rel: str, lock: _core.FileLock | None) -> _Planned:
    if op.action == "add":
        content = op.content or ""
        data = content.encode("utf-8", "surrogateescape")
        write = FileWrite("add", rel, None, data)
        change = FileChange(
            rel, "add", file_diff(None, content, rel, rel), added_lines=_count_lines(content)
        )
        return _Planned(op, rel, write, change)
    assert lock is not None
    shown = lock.real
    file = TextFile(lock.data, shown)
    if op.action == "delete":
        _check_deleted_content(file, op)
        write = FileWrite("delete", shown, lock.data, None, lock=lock, mode=lock.mode)
        change = FileChange(
            shown,
            "delete",
            file_diff(file.text, None, shown, shown),
            removed_lines=_count_lines(file.text),
        )
        return _Planned(op, rel, write, change, file=file)
    changes, strategy = _plan_update(file, op, shown)
    new_text = apply_changes(file.text, changes) if changes else file.text
    after = file.encode(new_text)
    dest = ws.sandbox.relative(op.move_to) if op.move_to is not None else None
    if dest is not None and (dest == shown or ws._engine.real(dest) == shown):
        dest = None
    if dest is None and after == lock.data:
        raise InvalidArgumentError(
            "the changes leave the file as it is; nothing to change (check that the '-' and "
            "'+' lines differ)"
        )
    added, removed = _line_counts(file.text, new_text)
    if dest is not None:
        write = FileWrite("move", shown, lock.data, after, lock=lock, mode=lock.mode, new_path=dest)
        diff = file_diff(file.text, new_text, shown, dest)
        change = FileChange(shown, "move", diff, dest, strategy, added, removed)
    else:
        write = FileWrite("update", shown, lock.data, after, lock=lock, mode=lock.mode)
        diff = file_diff(file.text, new_text, shown, shown)
        change = FileChange(shown, "update", diff, None, strategy, added, removed)
    return _Planned(op, rel, write, change, file=file, changes=changes)


def _plan_update(file: TextFile, op: FileOp, shown: str) -> tuple[list[Change], str]:
    if op.replacements:
        return plan_sequential(file.text, op.replacements, shown)
    if op.hunks:
        plan = plan_hunks(file.text, op.hunks, shown)
        return plan.changes, plan.strategy
    return [], "exact"


def plan_sequential(
    text: str, replacements: tuple[Replacement, ...] | list[Replacement], shown: str
) -> tuple[list[Change], str]:
    """SEARCH/REPLACE blocks applied one after the other, each to the text the previous ones
    left, with `edit_many`'s strategies; each must match one place, or one place after the
    previous block (the blocks' order). Returns one change covering everything that changed."""
    current = text
    cursor = 0
    strategies: list[str] = []
    for number, block in enumerate(replacements, start=1):
        label = f"block {number}" + (f" (line {block.patch_line})" if block.patch_line else "")
        try:
            if block.old == "":
                if current.strip():
                    raise InvalidArgumentError(
                        "its SEARCH section is empty, which only fills an empty file; put the "
                        "lines to replace in SEARCH (or write the whole file with write_file)"
                    )
                current, cursor = block.new, len(block.new)
                strategies.append("exact")
                continue
            try:
                changes, strategy = plan_in_order(current, block.old, block.new, cursor)
            except MatchError:
                at_end = _last_lines_without_newline(current, block.old, block.new)
                if at_end is None:
                    raise
                changes, strategy = [at_end], "exact"
        except (MatchError, InvalidArgumentError) as exc:
            raise type(exc)(f"{label} of {shown}: {_as_search(exc)}") from None
        current = apply_changes(current, changes)
        change = changes[0]
        cursor = change.start + len(change.replacement)
        strategies.append(strategy)
    if current == text:
        return [], "exact"
    fuzzy = [s for s in dict.fromkeys(strategies) if s != "exact"]
    return [covering_change(text, current)], "+".join(fuzzy) or "exact"


def _last_lines_without_newline(text: str, old: str, new: str) -> Change | None:
    """SEARCH/REPLACE sections are whole lines, each ending with a newline (as Cline reads
    them), so a block for the last lines of a file without a final newline has one newline
    more than the file: it is matched without it at the very end of the file. The file still
    ends without a newline unless the lines are deleted whole (then the line before ends the
    file, with its newline)."""
    if not text or text.endswith("\n") or not old.endswith("\n"):
        return None
    ending = "\r\n" if old.endswith("\r\n") else "\n"
    wanted = old.removesuffix(ending)
    start = len(text) - len(wanted)
    if not wanted or not text.endswith(wanted) or (start > 0 and text[start - 1] != "\n"):
        return None
    return Change(start, len(text), new.removesuffix(ending) if new.endswith(ending) else new)


def plan_in_order(text: str, old: str, new: str, cursor: int) -> tuple[list[Change], str]:
    """`plan_edit` of one edit; when `old` matches several places, the one place at or after
    `cursor` (where the previous edit ended) is taken, if there is exactly one."""
    try:
        plan = plan_edit(text, old, new)
    except MatchError as first_error:
        line_start = text.rfind("\n", 0, cursor) + 1
        if line_start == 0:
            raise
        try:
            tail = plan_edit(text[line_start:], old, new)
        except MatchError:
            raise first_error from None
        return [
            Change(c.start + line_start, c.end + line_start, c.replacement) for c in tail.changes
        ], tail.strategy
    return plan.changes, plan.strategy


def covering_change(before: str, after: str) -> Change:
    """One change that turns `before` into `after`: the span between their common prefix and
    suffix."""
    limit = min(len(before), len(after))
    prefix = 0
    while prefix < limit and before[prefix] == after[prefix]:
        prefix += 1
    suffix = 0
    while (
        suffix < limit - prefix
        and before[len(before) - 1 - suffix] == after[len(after) - 1 - suffix]
    ):
        suffix += 1
    return Change(prefix, len(before) - suffix, after[prefix : len(after) - suffix])


def _as_search(exc: CodesiftError) -> str:
    return (
        str(exc)
        .replace("old_string", "the SEARCH section")
        .replace("new_string", "the REPLACE section")
    )


def _check_deleted_content(file: TextFile, op: FileOp) -> None:
    """A unified diff that deletes a file lists its lines: they must be the file's."""
    if not op.hunks:
        return
    listed = [line.rstrip() for hunk in op.hunks for line in hunk.old_lines]
    actual = [file.text[ln.start : ln.content_end].rstrip() for ln in split_lines(file.text)]
    if listed != actual:
        first = next(
            (i for i, (a, b) in enumerate(zip(listed, actual, strict=False)) if a != b),
            min(len(listed), len(actual)),
        )
        raise MatchError(
            f"the diff deletes a file whose lines differ from {op.path}'s (first "
            f"difference at line {first + 1}); re-read the file and regenerate the diff"
        )


def _after_commit(ws: Workspace, p: _Planned) -> None:
    write = p.write
    if write.action == "add":
        ws.cache.invalidate_file(write.path, None)
        ws.history.record(write.path, None, write.after)
        return
    if write.action in ("delete", "move"):
        ws.cache.invalidate_file(write.path, None)
        ws.history.record(write.path, write.before, None, write.mode)
        if write.new_path is not None:
            ws.cache.invalidate_file(write.new_path, None)
            ws.history.record(write.new_path, None, write.after, write.mode)
        return
    assert p.file is not None and p.changes is not None
    ws._shift_cache(write.path, p.file, p.changes)
    ws.history.record(write.path, write.before, write.after, write.mode)


def file_diff(before: str | None, after: str | None, old_name: str, new_name: str) -> str:
    """A git-style unified diff of one file (`/dev/null` for a missing side), with
    `\\ No newline at end of file` markers so that the diff applies back exactly."""
    lines = linediff.unified_diff(
        [] if before is None else lines_with_ends(before),
        [] if after is None else lines_with_ends(after),
        fromfile="/dev/null" if before is None else f"a/{old_name}",
        tofile="/dev/null" if after is None else f"b/{new_name}",
        n=3,
    )
    out = []
    for line in lines:
        if line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n\\ No newline at end of file\n")
    if not out and old_name != new_name:
        out = [f"--- a/{old_name}\n", f"+++ b/{new_name}\n"]
    return "".join(out)


def lines_with_ends(text: str) -> list[str]:
    """The lines of `text` with their endings, split on `\n` only."""
    return [text[ln.start : ln.end] for ln in split_lines(text)]


def _count_lines(text: str) -> int:
    return len(split_lines(text))


def _line_counts(before: str, after: str) -> tuple[int, int]:
    added = removed = 0
    old = lines_with_ends(before)
    new = lines_with_ends(after)
    for tag, i1, i2, j1, j2 in linediff.opcodes(old, new):
        if tag in ("replace", "delete"):
            removed += i2 - i1
        if tag in ("replace", "insert"):
            added += j2 - j1
    return added, removed
