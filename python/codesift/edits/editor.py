"""The `Editor`: every write to a workspace's files goes through it, in one order: lock the
file(s), plan the change on the locked bytes, commit it, shift the cached search hits that
the change moved, and record the write for undo. One file (`edit`, `edit_many`, `insert`,
`write`, `undo`) or many (`apply_patch`, through `codesift.edits.patch`).

The Editor owns the locks, the result cache's edit bookkeeping and the history; the
`Workspace` validates arguments and calls it."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from .. import _core
from ..arguments.sandbox import PathArg, Sandbox
from ..errors import (
    BinaryFileError,
    CodesiftError,
    ConflictError,
    InvalidArgumentError,
    NotFoundError,
    StaleResultError,
    problem_of,
    reworded,
)
from ..patches.model import ParsedPatch
from ..results.cache import HitState, ResultCache
from ..results.files import EditResult, PatchResult, UndoResult, WriteResult
from ..text.files import TextFile
from . import patch
from .diff import file_diff
from .history import EditHistory, digest
from .plan import (
    Change,
    apply_changes,
    check_disjoint,
    covering_change,
    fit_newlines,
    old_new,
    plan_edit,
)
from .text import (
    convert_newlines,
    dominant_newline,
    newline_near,
    snippet_lines,
    split_lines,
)
from .transaction import FileWrite

# Files larger than this are refused for edits (before they are read): an agent's edit of a
# larger file is almost surely a mistake, and the edit holds the whole file in memory.
EDIT_MAX_BYTES = 64 * 1024 * 1024


class Editor:
    """Lock → plan → commit → shift cached hits → record for undo, for one workspace.

    `engine` is the workspace's engine (every file operation runs beneath its root handle),
    `cache` its search-hit cache and `history` what codesift wrote, for `undo`."""

    def __init__(
        self,
        engine: _core.Engine,
        sandbox: Sandbox,
        cache: ResultCache,
        history: EditHistory | None = None,
    ) -> None:
        self.engine = engine
        self.sandbox = sandbox
        self.cache = cache
        self.history = EditHistory() if history is None else history

    # -- files -------------------------------------------------------------------------------

    def lock(self, path: PathArg) -> _core.FileLock:
        """The file locked for an edit (an exclusive lock across processes, held until the
        `with` block ends) with its bytes as read under the lock."""
        return self.engine.lock(self.sandbox.relative(path), EDIT_MAX_BYTES)

    def real(self, path: PathArg) -> str:
        """Where `path` really is (workspace-relative), or the path itself if it is missing."""
        rel = self.sandbox.relative(path)
        return self.engine.real(rel) or rel

    def lookup(self, search_result_id: str) -> tuple[Any, HitState]:
        """The cached hit of `search_result_id` and where it is now."""
        match, state = self.cache.require(search_result_id)
        if match.host is not None:
            raise InvalidArgumentError(
                f"search_result_id {search_result_id} is a hit on host {match.host}; edit it "
                "through the remote workspace"
            )
        return match, state

    # -- one file --------------------------------------------------------------------------

    def edit(
        self, path: PathArg, old: str, new: str, *, replace_all: bool, fuzzy: bool, dry_run: bool
    ) -> EditResult:
        """`old -> new` in one file (see `Workspace.edit`)."""
        with self.lock(path) as lock:
            shown = lock.real
            file = TextFile(lock.data, shown)
            plan = plan_edit(file.text, old, new, replace_all=replace_all, fuzzy=fuzzy)
            return self._commit(lock, shown, file, plan.changes, plan.strategy, dry_run=dry_run)

    def edit_hit(
        self,
        match: Any,
        state: HitState,
        new: str,
        search_result_id: str | None,
        *,
        dry_run: bool = False,
    ) -> EditResult:
        """Replaces exactly the text of a search hit (see `Workspace.edit_result`)."""
        with self.lock(match.file) as lock:
            shown = lock.real
            file = TextFile(lock.data, shown)
            change, moved_from = self._locate(file, match, state, search_result_id or "hit")
            change = Change(change.start, change.end, fit_newlines(new, file.text, change))
            if file.text[change.start : change.end] == change.replacement:
                raise InvalidArgumentError(
                    "new_string equals the text of the search result; nothing to change"
                )
            result = self._commit(
                lock,
                shown,
                file,
                [change],
                "search_result",
                edited_id=search_result_id,
                dry_run=dry_run,
            )
        if moved_from is not None:
            result = replace(result, strategy="search_result_moved", moved_from=moved_from)
        return result

    def edit_many(
        self,
        path: PathArg,
        edits: Sequence[tuple[str, str] | Mapping[str, Any]],
        *,
        sequential: bool,
        dry_run: bool,
    ) -> EditResult:
        """Several edits to one file, all or nothing (see `Workspace.edit_many`)."""
        if sequential:
            return self._edit_sequential(path, edits, dry_run=dry_run)
        with self.lock(path) as lock:
            shown = lock.real
            file = TextFile(lock.data, shown)
            changes: list[Change] = []
            strategies: list[str] = []
            for number, item in enumerate(edits, start=1):
                try:
                    found, strategy = self._plan_one(file, shown, item)
                except Exception as exc:
                    raise reworded(
                        exc, f"edit {number} of {len(edits)}: {problem_of(exc)}"
                    ) from None
                changes.extend(found)
                strategies.append(strategy)
            check_disjoint(changes, file.text)
            strategy = (
                "exact"
                if set(strategies) <= {"exact"}
                else "+".join(dict.fromkeys(s for s in strategies if s != "exact"))
            )
            return self._commit(lock, shown, file, changes, strategy, dry_run=dry_run)

    def _edit_sequential(
        self, path: PathArg, edits: Sequence[tuple[str, str] | Mapping[str, Any]], *, dry_run: bool
    ) -> EditResult:
        with self.lock(path) as lock:
            shown = lock.real
            file = TextFile(lock.data, shown)
            text = file.text
            strategies: list[str] = []
            replacements = 0
            for number, item in enumerate(edits, start=1):
                try:
                    old, new, replace_all = old_new(item, sequential=True)
                    plan = plan_edit(text, old, new, replace_all=replace_all)
                except CodesiftError as exc:
                    raise reworded(
                        exc,
                        f"edit {number} of {len(edits)} (applied to the text the edits before "
                        f"it left): {problem_of(exc)}",
                    ) from None
                text = apply_changes(text, plan.changes)
                replacements += len(plan.changes)
                strategies.append(plan.strategy)
            if text == file.text:
                raise InvalidArgumentError("the edits leave the file as it was; nothing to change")
            strategy = "+".join(dict.fromkeys(s for s in strategies if s != "exact")) or "exact"
            change = covering_change(file.text, text)
            result = self._commit(lock, shown, file, [change], strategy, dry_run=dry_run)
            return replace(result, replacements=replacements)

    def insert(self, path: PathArg, line: int, text: str, *, dry_run: bool) -> EditResult:
        """`text` as whole lines after line `line` (see `Workspace.insert`)."""
        with self.lock(path) as lock:
            shown = lock.real
            file = TextFile(lock.data, shown)
            lines = split_lines(file.text)
            if line > len(lines):
                raise InvalidArgumentError(
                    f"insert_line {line} is past the end of {shown}, which has "
                    f"{len(lines)} lines; use a line from 0 (top) to {len(lines)} (end)"
                )
            newline = (
                newline_near(file.text, lines[line - 1].start, dominant_newline(file.text))
                if line
                else dominant_newline(file.text)
            )
            body = convert_newlines(text, newline)
            if not body.endswith(newline):
                body += newline
            if line == len(lines) and lines and lines[-1].end == lines[-1].content_end:
                # After a last line without a newline: the file still ends without one.
                change = Change(len(file.text), len(file.text), newline + body[: -len(newline)])
            else:
                at = lines[line].start if line < len(lines) else len(file.text)
                change = Change(at, at, body)
            result = self._commit(lock, shown, file, [change], "insert", dry_run=dry_run)
            inserted = body.count(newline) if body.endswith(newline) else body.count(newline) + 1
            first = line + 1
            return replace(
                result, replacements=1, first_line=first, last_line=first + max(inserted, 1) - 1
            )

    def write(self, rel: str, data: bytes, *, dry_run: bool) -> WriteResult:
        """Creates or overwrites `rel` with `data` (see `Workspace.write`)."""
        if dry_run:
            return self._preview_write(rel, data)
        before = self._bytes_for_history(rel)
        shown, created = self.engine.write(rel, data)
        if not created:
            self.cache.invalidate_file(shown, None)
        if created or before is not None:
            self.history.record(shown, None if created else before, data)
        else:
            self.history.forget(shown)
        return WriteResult(path=shown, bytes_written=len(data), created=created)

    def _preview_write(self, rel: str, data: bytes) -> WriteResult:
        """What `write` would do, without writing: the file is read under its lock (so a
        directory or a file out of reach fails as the write would)."""
        if self.engine.exists(rel):
            with self.lock(rel) as lock:
                shown, before = lock.real, lock.data
        else:
            shown, before = self.real(rel), None
        try:
            old = None if before is None else TextFile(before, shown).text
            diff = file_diff(old, TextFile(data, shown).text, shown, shown)
        except BinaryFileError:
            diff = "" if before == data else f"Binary files differ: {shown}\n"
        return WriteResult(
            path=shown, bytes_written=len(data), created=before is None, dry_run=True, diff=diff
        )

    def undo(self, path: PathArg) -> UndoResult:
        """Undoes the last write codesift made to `path` (see `Workspace.undo_edit`)."""
        rel = self.sandbox.relative(path)
        real = self.engine.real(rel) or rel
        version = self.history.last(real)
        if version is None:
            raise NotFoundError(
                f"no edit of {real} to undo: codesift has not written it through this "
                "workspace (or its history was dropped: it keeps the last 10 versions of 64 "
                "files)"
            )
        changed = ConflictError(
            f"{real} changed since codesift last wrote it; the undo was refused so that those "
            "changes are not lost. Read the file and edit it instead"
        )
        if version.after is None:
            if self.engine.exists(rel):
                raise changed
            assert version.before is not None
            self.engine.create(rel, version.before, version.mode).release()
            self.cache.invalidate_file(real, None)
            self.history.pop(real, version)
            before_text = TextFile(version.before, real).text
            return UndoResult(
                real,
                "recreated",
                file_diff(None, before_text, real, real),
                self.history.count(real),
                new_text=before_text,
            )
        with self.lock(rel) as lock:
            if digest(lock.data) != version.after:
                raise changed
            current = TextFile(lock.data, real).text
            if version.before is None:
                lock.remove()
                action, restored = "deleted", None
            else:
                lock.replace(version.before)
                action, restored = "restored", TextFile(version.before, real).text
        self.cache.invalidate_file(real, None)
        self.history.pop(real, version)
        return UndoResult(
            real,
            action,
            file_diff(current, restored, real, real),
            self.history.count(real),
            new_text=restored,
        )

    # -- many files ------------------------------------------------------------------------

    def apply_patch(self, parsed: ParsedPatch, *, dry_run: bool) -> PatchResult:
        """A parsed patch's files, all or nothing (see `codesift.edits.patch`)."""
        return patch.apply_parsed(self, parsed, dry_run=dry_run)

    def committed(
        self, write: FileWrite, file: TextFile | None, changes: list[Change] | None
    ) -> None:
        """Bookkeeping after a patch's `write` was committed: cached hits shifted (or dropped
        for a file added, deleted or moved) and the write recorded for undo."""
        if write.action == "add":
            self.cache.invalidate_file(write.path, None)
            self.history.record(write.path, None, write.after)
            return
        if write.action in ("delete", "move"):
            self.cache.invalidate_file(write.path, None)
            self.history.record(write.path, write.before, None, write.mode)
            if write.new_path is not None:
                self.cache.invalidate_file(write.new_path, None)
                self.history.record(write.new_path, None, write.after, write.mode)
            return
        assert file is not None and changes is not None
        self._shift_cache(write.path, file, changes)
        self.history.record(write.path, write.before, write.after, write.mode)

    # -- the steps ---------------------------------------------------------------------------

    def _locate(
        self, file: TextFile, match: Any, state: HitState, search_result_id: str
    ) -> tuple[Change, int | None]:
        """The span of the hit in the current text, and the line it moved from if it had to
        be relocated."""
        view = file.view()
        start, length = state.byte_offset, match.byte_length
        found = view[start : start + length]
        if _same_text(found, match.content):
            return _view_change(file, start, length), None
        expected = match.content.encode("utf-8", "surrogateescape")
        elsewhere = ""
        if match.unique and len(expected) == length:
            positions = _occurrences(view, expected, limit=2)
            if len(positions) == 1:
                change = _view_change(file, positions[0], length)
                return change, state.line
            elsewhere = (
                " and occurs elsewhere more than once" if positions else " nor anywhere in the file"
            )
        line = state.line
        raise StaleResultError(
            f"the text of search result {search_result_id} ({match.content[:60]!r}, line {line} "
            f"of {match.file}) is no longer there{elsewhere}; run grep again and use a fresh id"
        )

    def _plan_one(
        self, file: TextFile, real: str, item: tuple[str, str] | Mapping[str, Any]
    ) -> tuple[list[Change], str]:
        if isinstance(item, Mapping):
            if "search_result_id" in item or "searchResultId" in item:
                result_id = item.get("search_result_id", item.get("searchResultId"))
                new = item.get("new", item.get("new_string"))
                if not isinstance(new, str):
                    raise InvalidArgumentError("an edit by search_result_id needs new (a string)")
                match, state = self.lookup(result_id)
                if self.real(match.file) != real:
                    raise InvalidArgumentError(
                        f"search_result_id {result_id} is a hit in {match.file}, not in this file"
                    )
                change, _ = self._locate(file, match, state, result_id)
                return [Change(change.start, change.end, fit_newlines(new, file.text, change))], (
                    "search_result"
                )
        old, new, replace_all = old_new(item, sequential=False)
        plan = plan_edit(file.text, old, new, replace_all=replace_all)
        return plan.changes, plan.strategy

    def _commit(
        self,
        lock: _core.FileLock,
        shown: str,
        file: TextFile,
        changes: list[Change],
        strategy: str,
        *,
        edited_id: str | None = None,
        dry_run: bool = False,
    ) -> EditResult:
        new_text = apply_changes(file.text, changes)
        data = file.encode(new_text)
        if not dry_run:
            lock.replace(data)
            self._shift_cache(shown, file, changes, edited_id=edited_id)
            self.history.record(shown, file.data, data, lock.mode)
        first, last = _changed_lines(new_text, changes)
        snippet, total = snippet_lines(new_text, first, last)
        return EditResult(
            path=shown,
            replacements=len(changes),
            strategy=strategy,
            first_line=first,
            last_line=last,
            diff=file_diff(file.text, new_text, shown, shown),
            dry_run=dry_run,
            snippet=snippet,
            total_lines=total,
            ends_with_newline=new_text.endswith("\n"),
            old_text=file.text,
            new_text=new_text,
        )

    def _bytes_for_history(self, rel: str) -> bytes | None:
        """The bytes of `rel` before a write, to undo it; None when there is no file or it is
        too large to keep."""
        try:
            fd, _, size = self.engine.open_read(rel)
        except CodesiftError:
            return None
        with os.fdopen(fd, "rb") as f:
            if size > self.history.max_bytes:
                return None
            return f.read(self.history.max_bytes + 1)

    def _shift_cache(
        self, shown: str, file: TextFile, changes: list[Change], *, edited_id: str | None = None
    ) -> None:
        """Keeps cached hits in step with an edit: later hits shift, overlapping ones become
        invalid."""
        for change in sorted(changes, key=lambda c: c.start, reverse=True):
            start = file.view_offset_of_index(change.start)
            old_length = file.view_offset_of_index(change.end) - start
            new_length = len(change.replacement.encode("utf-8", "surrogateescape"))
            line_delta = change.replacement.count("\n") - file.text.count(
                "\n", change.start, change.end
            )
            self.cache.after_edit(
                shown, None, start, old_length, new_length, line_delta, edited_id=edited_id
            )


def _view_change(file: TextFile, start: int, length: int) -> Change:
    begin = file.index_of_view_offset(start)
    end = file.index_of_view_offset(start + length)
    return Change(begin, end, "")


def _same_text(found: bytes, content: str) -> bool:
    try:
        return found.decode("utf-8") == content
    except UnicodeDecodeError:
        return found.decode("utf-8", "replace") == content


def _occurrences(haystack: bytes, needle: bytes, *, limit: int) -> list[int]:
    found: list[int] = []
    pos = haystack.find(needle)
    while pos >= 0 and len(found) < limit:
        found.append(pos)
        pos = haystack.find(needle, pos + 1)
    return found


def _changed_lines(new_text: str, changes: list[Change]) -> tuple[int, int]:
    """First and last line (in the new text) that the changes wrote."""
    shift = 0
    first = last = 1
    # Lines counted from the previous change on, so many changes cost one pass.
    counted_to, line = 0, 1
    for n, change in enumerate(sorted(changes, key=lambda c: c.start)):
        start = change.start + shift
        shift += len(change.replacement) - (change.end - change.start)
        line += new_text.count("\n", counted_to, start)
        counted_to = start
        if n == 0:
            first = line
        last = line + change.replacement.rstrip("\r\n").count("\n")
    return first, last


__all__ = ["EDIT_MAX_BYTES", "Editor"]
