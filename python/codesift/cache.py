"""The search-result cache: grep hits kept by their `searchResultId` so that an edit can
replace exactly what a search found.

Each search stores its hits as one batch (their ids are consecutive), so caching costs
nothing per hit. Once more than `capacity` hits are held, the least recently used batches
are dropped (a look-up counts as a use; the newest batch always stays).
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Sequence
from typing import NamedTuple

from ._core import GrepMatch

BASE36 = 36


class HitState(NamedTuple):
    """Where a cached hit is now: its search-time position, shifted by later edits."""

    byte_offset: int
    line: int
    end_line: int


class ResultCache:
    """Bounded store of grep hits, looked up by id."""

    def __init__(self, prefix: str, capacity: int = 100_000) -> None:
        self.prefix = prefix
        self.capacity = capacity
        self._starts: list[int] = []
        self._batches: list[Sequence[GrepMatch]] = []
        self._last_used: list[int] = []
        self._clock = 0
        self._held = 0
        self._lock = threading.RLock()
        # Hits moved by edits made through the workspace, and hits those edits destroyed.
        self._moved: dict[str, HitState] = {}
        self._invalid: set[str] = set()

    def add_batch(self, first_id: int, matches: Sequence[GrepMatch]) -> None:
        """Keeps `matches`, whose ids count up from `first_id`."""
        if not matches:
            return
        with self._lock:
            index = bisect.bisect_left(self._starts, first_id)
            self._starts.insert(index, first_id)
            self._batches.insert(index, matches)
            self._clock += 1
            self._last_used.insert(index, self._clock)
            self._held += len(matches)
            while self._held > self.capacity and len(self._batches) > 1:
                newest = self._last_used.index(self._clock)
                victim = min(
                    (i for i in range(len(self._batches)) if i != newest),
                    key=self._last_used.__getitem__,
                )
                self._held -= len(self._batches[victim])
                self._forget_overlays(self._starts[victim], len(self._batches[victim]))
                del self._starts[victim], self._batches[victim], self._last_used[victim]

    def _forget_overlays(self, first: int, count: int) -> None:
        """Drops the edit overlays of the hits numbered `first .. first+count-1` (the
        overlays are few; the batch may be huge)."""
        for table in (self._moved, self._invalid):
            for result_id in [k for k in table if first <= (self._number(k) or -1) < first + count]:
                if isinstance(table, dict):
                    table.pop(result_id, None)
                else:
                    table.discard(result_id)

    def get(self, result_id: str) -> GrepMatch | None:
        """The hit with this id, or None when the id is unknown or was evicted."""
        number = self._number(result_id)
        if number is None:
            return None
        with self._lock:
            index = bisect.bisect_right(self._starts, number) - 1
            if index < 0:
                return None
            offset = number - self._starts[index]
            batch = self._batches[index]
            if offset >= len(batch):
                return None
            match = batch[offset]
            self._clock += 1
            self._last_used[index] = self._clock
        return match if match.id == result_id else None

    def lookup(self, result_id: str) -> tuple[GrepMatch, HitState] | None:
        """The hit and where it is now, or None when unknown, evicted or destroyed by an edit."""
        match = self.get(result_id)
        with self._lock:
            if match is None or result_id in self._invalid:
                return None
            return match, self._state(match)

    def _state(self, match: GrepMatch) -> HitState:
        moved = self._moved.get(match.id)
        return (
            moved if moved is not None else HitState(match.byte_offset, match.line, match.end_line)
        )

    def after_edit(
        self,
        file: str,
        host: str | None,
        start: int,
        old_length: int,
        new_length: int,
        line_delta: int,
        edited_id: str | None = None,
    ) -> None:
        """Records that bytes `[start, start + old_length)` of `file` became `new_length`
        bytes with `line_delta` more lines: hits after them shift, hits overlapping them (and
        the hit that was edited) are no longer valid."""
        end = start + old_length
        with self._lock:
            for batch in self._batches:
                for match in batch:
                    if match.file != file or match.host != host or match.id in self._invalid:
                        continue
                    state = self._state(match)
                    hit_start, hit_end = state.byte_offset, state.byte_offset + match.byte_length
                    if match.id != edited_id:
                        if hit_end <= start:
                            continue  # before the edit: unchanged
                        if hit_start >= end:  # after it: shifted
                            self._moved[match.id] = HitState(
                                hit_start + new_length - old_length,
                                state.line + line_delta,
                                state.end_line + line_delta,
                            )
                            continue
                    self._invalid.add(match.id)
                    self._moved.pop(match.id, None)

    def invalidate_file(self, file: str, host: str | None) -> None:
        """Forgets every hit in `file` (it was overwritten as a whole)."""
        with self._lock:
            for batch in self._batches:
                for match in batch:
                    if match.file == file and match.host == host:
                        self._invalid.add(match.id)
                        self._moved.pop(match.id, None)

    def __len__(self) -> int:
        return self._held

    def _number(self, result_id: str) -> int | None:
        if not isinstance(result_id, str) or not result_id.startswith(self.prefix):
            return None
        digits = result_id[len(self.prefix) :]
        if not digits or not digits.isalnum():
            return None
        try:
            return int(digits, BASE36)
        except ValueError:
            return None
