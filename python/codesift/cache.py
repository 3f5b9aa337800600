"""The search-result cache: grep hits kept by their `searchResultId` so that an edit can
replace exactly what a search found.

Each search stores its hits as one batch (their ids are consecutive), so caching costs
nothing per hit; the oldest batches are dropped once more than `capacity` hits are held.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Sequence

from ._core import GrepMatch

BASE36 = 36


class ResultCache:
    """Bounded store of grep hits, looked up by id."""

    def __init__(self, prefix: str, capacity: int = 100_000) -> None:
        self.prefix = prefix
        self.capacity = capacity
        self._starts: list[int] = []
        self._batches: list[Sequence[GrepMatch]] = []
        self._held = 0
        self._lock = threading.Lock()

    def add_batch(self, first_id: int, matches: Sequence[GrepMatch]) -> None:
        """Keeps `matches`, whose ids count up from `first_id`."""
        if not matches:
            return
        with self._lock:
            index = bisect.bisect_left(self._starts, first_id)
            self._starts.insert(index, first_id)
            self._batches.insert(index, matches)
            self._held += len(matches)
            # Drop the oldest batches, but never the newest one.
            while self._held > self.capacity and len(self._batches) > 1:
                self._held -= len(self._batches[0])
                del self._starts[0], self._batches[0]

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
        return match if match.id == result_id else None

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
