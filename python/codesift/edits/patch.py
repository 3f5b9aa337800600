"""Applying a parsed patch through the `Editor`: every file planned first, then all written or
none.

1. Paths are checked: each inside the sandbox, no file named twice (also through a symlink),
   an added file or move destination must not exist, an updated or deleted one must.
2. Every existing file the patch touches is locked, in sorted order of its real path, and read
   under its lock.
3. Each file's new text is planned: hunks by `codesift.patches.hunks`, SEARCH/REPLACE blocks
   by `edit_many`'s strategies (`codesift.edits.plan.plan_sequential`), one after the other.
4. Unless `dry_run`, `codesift.edits.transaction.commit` writes them all or rolls back, and
   the Editor shifts cached hits and records each write for undo.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, NoReturn

from .. import _core
from ..control.call import current as current_control
from ..errors import (
    CancelledError,
    CodesiftError,
    Concept,
    ConflictError,
    Hint,
    InvalidArgumentError,
    MatchError,
    NotFoundError,
    SandboxError,
    hinted,
    problem_of,
    reworded,
)
from ..patches.hunks import plan_hunks
from ..patches.model import FileOp, Hunk, ParsedPatch
from ..results.files import FileChange, PatchResult
from ..text.files import TextFile
from .diff import count_lines, file_diff, line_counts
from .plan import Change, apply_changes, plan_sequential
from .text import split_lines
from .transaction import FileWrite, commit

if TYPE_CHECKING:
    from .editor import Editor


@dataclass
class _Planned:
    op: FileOp
    rel: str
    write: FileWrite
    change: FileChange
    file: TextFile | None = None
    changes: list[Change] | None = None


def apply_parsed(editor: Editor, parsed: ParsedPatch, *, dry_run: bool = False) -> PatchResult:
    """Applies `parsed` through `editor` all or nothing (see the module documentation)."""
    _stop_if_cancelled()
    targets = _targets(editor, parsed.ops)
    locks: dict[str, _core.FileLock] = {}
    try:
        for real_path in sorted({real for _, real, _ in targets if real is not None}):
            op, rel = next((op, rel) for op, r, rel in targets if r == real_path)
            try:
                locks[real_path] = editor.lock(rel)
            except CodesiftError as exc:
                raise reworded(exc, op.said(problem_of(exc))) from None
        planned = []
        for op, real, rel in targets:
            try:
                planned.append(_plan(editor, op, rel, locks[real] if real is not None else None))
            except CodesiftError as exc:
                raise reworded(exc, op.said(problem_of(exc))) from None
        result = PatchResult(
            files=tuple(p.change for p in planned), format=parsed.format, dry_run=dry_run
        )
        if dry_run:
            return result
        # A call cancelled up to here writes nothing; once the writes start they all run (a
        # patch is never half applied) and the result says that the cancel came too late.
        _stop_if_cancelled()
        commit(editor.engine, [p.write for p in planned])
        for p in planned:
            editor.committed(p.write, p.file, p.changes)
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


def _targets(editor: Editor, ops: tuple[FileOp, ...]) -> list[tuple[FileOp, str | None, str]]:
    """Each operation with the real path of the existing file it reads (None for an added
    file) and its workspace-relative path; refuses duplicates and existence mismatches."""
    seen: dict[str, FileOp] = {}
    out: list[tuple[FileOp, str | None, str]] = []

    def claim(name: str, op: FileOp) -> None:
        if name in seen:
            other = seen[name]
            if op.format != "apply_patch":
                raise InvalidArgumentError(
                    f"{name} is changed by two diffs of the patch; each file may have one diff "
                    "only (merge their hunks into one)"
                )
            raise InvalidArgumentError(
                f"{op.label}: {name} is also changed by the section '{other.label}'; each file "
                "may appear in one section only (merge the hunks into one section)"
            )
        seen[name] = op

    for op in ops:
        try:
            rel = editor.sandbox.relative(op.path)
            real = editor.engine.real(rel)
            if real is None and op.replacements and all(b.old == "" for b in op.replacements):
                # SEARCH/REPLACE blocks with empty SEARCH sections create the file.
                content = "".join(b.new for b in op.replacements)
                op = FileOp(
                    "add", op.path, content=content, patch_line=op.patch_line, format=op.format
                )
            if op.action == "add":
                if real is not None:
                    update = "a diff of it" if op.format == "unified" else "an update (Update File)"
                    raise ConflictError(
                        f"{rel} already exists; use {update} to change it, or delete it first"
                    )
                # The checks the real run's create makes, also for a dry run.
                claim(editor.engine.check_create(rel), op)
                out.append((op, None, rel))
                continue
            if real is None:
                _missing(editor, rel)
            claim(real, op)
            if op.move_to is not None:
                dest = editor.sandbox.relative(op.move_to)
                dest_real = editor.engine.real(dest)
                if dest_real is not None and dest_real != real:
                    raise ConflictError(
                        f"the move destination {dest} already exists; choose another path or "
                        "delete it first"
                    )
                if dest_real is None:
                    claim(editor.engine.check_create(dest), op)
            out.append((op, real, rel))
        except CodesiftError as exc:
            said = op.said(problem_of(exc))
            if said == problem_of(exc):
                raise
            raise reworded(exc, said) from None
    return out


def _missing(editor: Editor, rel: str) -> NoReturn:
    """The error for a file to update or delete that cannot be resolved: a symlink (or a
    directory link along the path) that leads outside the workspace is a `SandboxError`, not a
    missing file that could be added instead."""
    try:
        editor.engine.check_create(rel)
    except SandboxError:
        raise
    except CodesiftError:
        pass
    raise hinted(
        NotFoundError,
        f"{rel} does not exist",
        Hint(
            "check the path (with {option}), or add the file instead",
            (Concept.FIND_FILES, Concept.LIST_DIR),
            "check the path, or add the file instead",
        ),
    )


def _plan(editor: Editor, op: FileOp, rel: str, lock: _core.FileLock | None) -> _Planned:
    if op.action == "add":
        content = op.content or ""
        data = content.encode("utf-8", "surrogateescape")
        write = FileWrite("add", rel, None, data)
        change = FileChange(
            rel,
            "add",
            file_diff(None, content, rel, rel),
            added_lines=count_lines(content),
            new_text=content,
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
            removed_lines=count_lines(file.text),
        )
        return _Planned(op, rel, write, change, file=file)
    op, keep_mark = _byte_order_mark(file, op)
    changes, strategy = _plan_update(file, op, shown)
    new_text = apply_changes(file.text, changes) if changes else file.text
    after = file.encode(new_text)
    if keep_mark is False:
        after = after[len(file.bom) :]
        # Every offset into the file moved: cached hits of it are dropped, not shifted.
        changes = [Change(0, len(file.text), new_text)]
    dest = editor.sandbox.relative(op.move_to) if op.move_to is not None else None
    if dest is not None and (dest == shown or editor.engine.real(dest) == shown):
        dest = None
    if dest is None and after == lock.data:
        raise InvalidArgumentError(
            "the changes leave the file as it is; nothing to change (check that the '-' and "
            "'+' lines differ)"
        )
    added, removed = line_counts(file.text, new_text)
    if dest is not None:
        write = FileWrite("move", shown, lock.data, after, lock=lock, mode=lock.mode, new_path=dest)
        diff = file_diff(file.text, new_text, shown, dest)
        change = FileChange(shown, "move", diff, dest, strategy, added, removed, new_text)
    else:
        write = FileWrite("update", shown, lock.data, after, lock=lock, mode=lock.mode)
        diff = file_diff(file.text, new_text, shown, shown)
        change = FileChange(shown, "update", diff, None, strategy, added, removed, new_text)
    return _Planned(op, rel, write, change, file=file, changes=changes)


def _byte_order_mark(file: TextFile, op: FileOp) -> tuple[FileOp, bool | None]:
    """`git diff` shows a UTF-8 byte-order mark as the start of the first line, where the
    decoded text has none: a first hunk whose first old line starts with it is read without
    it when its old lines are the file's first lines (else it stays unmatched, and is refused).
    Also says whether the mark stays (the new first line starts with it too) or goes (False);
    None when the patch does not mention it."""
    if file.codec != "utf-8" or not file.bom or not op.hunks:
        return op, None
    first = op.hunks[0]
    if not first.old_lines or not first.old_lines[0].startswith(MARK):
        return op, None
    stripped = _without_mark(first)
    raw = _without_mark(first.raw) if first.raw is not None else None
    top = split_lines(file.text)
    contents = [file.text[ln.start : ln.content_end] for ln in top]
    raws = [file.text[ln.start : ln.end].removesuffix("\n") for ln in top]
    if not top and stripped.old_lines == ("",):
        # A file holding the mark alone: git's one line is the decoded text's no line.
        stripped = replace(stripped, old_lines=(), old_start=0, old_eol=None)
        if raw is not None:
            raw = replace(raw, old_lines=(), old_start=0, old_eol=None)
    size = len(stripped.old_lines)
    if contents[:size] != list(stripped.old_lines) and (
        raw is None or raws[: len(raw.old_lines)] != list(raw.old_lines)
    ):
        return op, None
    keep = bool(first.new_lines) and first.new_lines[0].startswith(MARK)
    hunk = replace(stripped, raw=raw)
    return replace(op, hunks=(hunk, *op.hunks[1:])), keep


MARK = "\ufeff"


def _without_mark(hunk: Hunk) -> Hunk:
    def strip(lines: tuple[str, ...]) -> tuple[str, ...]:
        return (lines[0].removeprefix(MARK), *lines[1:]) if lines else lines

    return replace(hunk, old_lines=strip(hunk.old_lines), new_lines=strip(hunk.new_lines))


def _plan_update(file: TextFile, op: FileOp, shown: str) -> tuple[list[Change], str]:
    if op.replacements:
        return plan_sequential(file.text, op.replacements, shown)
    if op.hunks:
        plan = plan_hunks(file.text, op.hunks, shown)
        return plan.changes, plan.strategy
    return [], "exact"


def _check_deleted_content(file: TextFile, op: FileOp) -> None:
    """A unified diff that deletes a file lists its lines: they must be the file's."""
    if not op.hunks:
        if op.deletes_empty and file.data:
            raise MatchError(
                f"the diff deletes {op.path} as an empty file, but it holds "
                f"{len(file.data)} bytes; re-read the file and regenerate the diff "
                "(a diff that deletes a file lists its lines)"
            )
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
