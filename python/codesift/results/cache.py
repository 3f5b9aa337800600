"""The search-result cache: grep hits kept by their `searchResultId` so that an edit can
replace exactly what a search found.

Each search stores its hits as one batch (their ids are consecutive), so caching costs
nothing per hit. Once more than `capacity` hits are held, the least recently used batches
are dropped (a look-up counts as a use; the newest batch always stays). The batches are kept
in the order of their last use, so dropping one costs the same however many there are: a
streamed search caches a batch a page, and finding the least recently used by a scan of
every batch made each page past the capacity cost thousands of comparisons (6-8 s for the
seventh `grep_iter` of 16,455 hits on the Linux tree).

Edits made through the workspace are kept as a log per file, not applied to the hits: an
edit costs O(1) whatever the number of cached hits (it used to visit every one of them, 5-9 s
and hundreds of MB for a million), and a look-up replays, on the one hit it wants, the edits
of its file made since its batch was cached. Later hits shift, overlapping ones are gone, and
the hit an edit used up is gone, exactly as if every hit had been updated at once.
"""

from __future__ import annotations

import bisect
import time
from _thread import RLock, allocate_lock
from collections import OrderedDict, namedtuple

from .._core import GrepMatch
from ..errors import InvalidArgumentError, StaleResultError

# `threading`'s locks are `_thread`'s (`Lock` is `allocate_lock`, `RLock` the C one), and the
# tuples `collections.namedtuple`s, as `typing.NamedTuple` makes them: a workspace is made at
# every command's start, and importing `threading` and `typing` would be most of its cost.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Hashable, Sequence
    from typing import Any

BASE36 = 36

HitState = namedtuple("HitState", ("byte_offset", "line", "end_line"))
HitState.__doc__ = "Where a cached hit is now: its search-time position, shifted by later edits."

# One edit of a file: bytes `[start, end)` became `end - start + delta` bytes with
# `line_delta` more lines; `whole` means the file was rewritten (every older hit is gone).
# `seq` is the edit's number: batches cached after it (epoch >= seq) are not affected.
_Edit = namedtuple(
    "_Edit", ("seq", "start", "end", "delta", "line_delta", "whole"), defaults=(False,)
)


class ResultCache:
    """Bounded store of grep hits, looked up by id."""

    def __init__(self, prefix: str, capacity: int = 100_000) -> None:
        self.prefix = prefix
        self.capacity = capacity
        # Each batch's first id, ascending (to find a hit's batch); per first id, the batch
        # and how many edits had been made when it was cached (its hits describe the files
        # as they were then), least recently used first.
        self._starts: list[int] = []
        self._batches: OrderedDict[int, tuple[Sequence[GrepMatch], int]] = OrderedDict()
        self._held = 0
        self._lock = RLock()
        self._edit_count = 0
        # Edits made through the workspace, per (host, file), in order; and the ids of hits
        # that edits used up.
        self._edits: dict[tuple[str | None, str], list[_Edit]] = {}
        self._used: set[str] = set()

    def add_batch(self, first_id: int, matches: Sequence[GrepMatch]) -> None:
        """Keeps `matches`, whose ids count up from `first_id`."""
        if not matches:
            return
        with self._lock:
            if first_id in self._batches:
                self._drop(first_id)
            bisect.insort(self._starts, first_id)
            self._batches[first_id] = (matches, self._edit_count)
            self._held += len(matches)
            evicted = False
            while self._held > self.capacity and len(self._batches) > 1:
                # The least recently used: never the newest, which is last.
                self._drop(next(iter(self._batches)))
                evicted = True
            if evicted and self._edits:
                self._prune_edits()

    def _drop(self, first_id: int) -> None:
        matches, _ = self._batches.pop(first_id)
        self._held -= len(matches)
        if self._used:
            self._forget_used(first_id, len(matches))
        del self._starts[bisect.bisect_left(self._starts, first_id)]

    def _forget_used(self, first: int, count: int) -> None:
        """Drops the used-up marks of the hits numbered `first .. first+count-1` (the marks
        are few; the batch may be huge)."""
        numbers = {k: self._number(k) for k in self._used}
        self._used.difference_update(
            k for k, n in numbers.items() if n is not None and first <= n < first + count
        )

    def _prune_edits(self) -> None:
        """Forgets edits older than every cached batch: they can affect no hit any more."""
        oldest = min((epoch for _, epoch in self._batches.values()), default=self._edit_count)
        for key in list(self._edits):
            kept = [e for e in self._edits[key] if e.seq > oldest]
            if kept:
                self._edits[key] = kept
            else:
                del self._edits[key]

    def _find(self, result_id: str) -> tuple[int, GrepMatch] | None:
        """The epoch of this id's batch and its hit (a use of its batch), or None."""
        number = self._number(result_id)
        if number is None:
            return None
        with self._lock:
            index = bisect.bisect_right(self._starts, number) - 1
            if index < 0:
                return None
            start = self._starts[index]
            batch, epoch = self._batches[start]
            offset = number - start
            if offset >= len(batch):
                return None
            match = batch[offset]
            self._batches.move_to_end(start)
        return (epoch, match) if match.id == result_id else None

    def get(self, result_id: str) -> GrepMatch | None:
        """The hit with this id, or None when the id is unknown or was evicted."""
        found = self._find(result_id)
        return None if found is None else found[1]

    def lookup(self, result_id: str) -> tuple[GrepMatch, HitState] | None:
        """The hit and where it is now, or None when unknown, evicted or destroyed by an edit."""
        with self._lock:
            found = self._find(result_id)
            if found is None or result_id in self._used:
                return None
            epoch, match = found
            state = self._replay(match, epoch)
        return None if state is None else (match, state)

    def require(self, result_id: str) -> tuple[GrepMatch, HitState]:
        """`lookup`, or the error that tells the agent what to do instead: an id that is not a
        non-empty string is an `InvalidArgumentError`, an unknown, expired or used one a
        `StaleResultError`."""
        check_result_id(result_id)
        found = self.lookup(result_id)
        if found is None:
            raise StaleResultError(
                f"search_result_id {result_id!r} is unknown, expired or was used up by an "
                "earlier edit; run grep again and use an id from its result"
            )
        return found

    def _replay(self, match: GrepMatch, epoch: int) -> HitState | None:
        """Where `match` (cached when `epoch` edits had been made) is after the edits of its
        file made since; None if one of them overlapped it."""
        state = HitState(match.byte_offset, match.line, match.end_line)
        edits = self._edits.get((match.host, match.file))
        if not edits or edits[-1].seq <= epoch:
            return state
        length = match.byte_length
        first = bisect.bisect_right(edits, epoch, key=lambda e: e.seq)
        for edit in edits[first:]:
            if edit.whole:
                return None
            start = state.byte_offset
            if start + length <= edit.start:
                continue  # before the edit: unchanged
            if start >= edit.end:  # after it: shifted
                state = HitState(
                    start + edit.delta,
                    state.line + edit.line_delta,
                    state.end_line + edit.line_delta,
                )
                continue
            return None  # overlapping it
        return state

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
        the hit that was edited) are no longer valid. O(1): no cached hit is visited."""
        with self._lock:
            if edited_id is not None:
                self._used.add(edited_id)
            if not self._batches:
                return  # no hit for the edit to move
            self._edit_count += 1
            edit = _Edit(
                self._edit_count, start, start + old_length, new_length - old_length, line_delta
            )
            self._edits.setdefault((host, file), []).append(edit)

    def invalidate_file(self, file: str, host: str | None) -> None:
        """Forgets every hit in `file` (it was overwritten as a whole)."""
        with self._lock:
            if not self._batches:
                return
            self._edit_count += 1
            # Older edits of the file matter no more: every hit they could move is gone.
            self._edits[(host, file)] = [_Edit(self._edit_count, 0, 0, 0, 0, whole=True)]

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


def check_result_id(result_id: object) -> None:
    """A `search_result_id` argument must be a non-empty string."""
    if not isinstance(result_id, str) or not result_id:
        raise InvalidArgumentError("search_result_id must be a non-empty string")


class LiveSearch:
    """One search kept running between the pages asked of it: its stream (paused by the
    engine while nobody pulls) and the hits it has yielded so far, with each one's count
    (its file's matches in the count mode, else 1). Memory: the hits pages have consumed."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.hits: list[GrepMatch] = []
        self.counts: list[int] = []
        self.done = False
        self.lock = allocate_lock()
        self.used = time.monotonic()

    def pull(self, wanted: int) -> None:
        """Reads the stream on until `wanted` hits are held or it ends."""
        while not self.done and len(self.hits) < wanted:
            piece = self.stream.next_piece()
            if piece is None:
                self.done = True
                break
            hits, matches, _continued = piece
            self.hits.extend(hits)
            self.counts.extend([matches] if len(hits) == 1 else [1] * len(hits))

    def close(self) -> None:
        self.stream.close()


class LiveSearches:
    """The searches paged through (`Workspace.grep_page`), by the search's options: at most
    `capacity`, each for `ttl` seconds after its last page. One evicted or expired is closed
    (its engine threads stop); its next page runs the search again."""

    def __init__(self, capacity: int = 8, ttl: float = 600.0) -> None:
        self.capacity = capacity
        self.ttl = ttl
        self._live: dict[Hashable, LiveSearch] = {}
        self._lock = allocate_lock()

    def _expire(self) -> list[LiveSearch]:
        now = time.monotonic()
        gone = [k for k, v in self._live.items() if now - v.used > self.ttl]
        return [self._live.pop(k) for k in gone]

    def get(self, key: Hashable) -> LiveSearch | None:
        with self._lock:
            closing = self._expire()
            live = self._live.pop(key, None)
            if live is not None:
                self._live[key] = live  # the most recently used last
                live.used = time.monotonic()
        for old in closing:
            old.close()
        return live

    def put(self, key: Hashable, live: LiveSearch) -> None:
        with self._lock:
            closing = self._expire()
            replaced = self._live.pop(key, None)
            if replaced is not None:
                closing.append(replaced)
            self._live[key] = live
            while len(self._live) > self.capacity:
                closing.append(self._live.pop(next(iter(self._live))))
        for old in closing:
            old.close()

    def drop(self, key: Hashable, live: LiveSearch) -> None:
        """Forgets `live` (ended, or failed) and closes it."""
        with self._lock:
            if self._live.get(key) is live:
                del self._live[key]
        live.close()

    def close(self) -> None:
        with self._lock:
            closing = list(self._live.values())
            self._live.clear()
        for old in closing:
            old.close()

    def __len__(self) -> int:
        return len(self._live)
