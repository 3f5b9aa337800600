"""Ids of remote hits: `sr_` + a salt + a base-36 counter from this workspace's own cache,
each id remembered with the host and strategy that found it (so that `edit_result` knows
where to edit, and whether it can)."""

from __future__ import annotations

import bisect
import secrets
import threading
from collections.abc import Mapping, Sequence

from .._core import GrepMatch
from ..errors import StaleResultError
from ..results.cache import ResultCache
from .queries import Hit

ID_SALT_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"
BASE36_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
MAX_RANGES = 100_000  # id ranges remembered; the oldest half is dropped past this


class HitRegistry:
    """Gives hits their ids and caches them; `origin(id)` says which host found a hit."""

    def __init__(self, capacity: int) -> None:
        salt = "".join(secrets.choice(ID_SALT_ALPHABET) for _ in range(4))
        self.cache = ResultCache(f"sr_{salt}", capacity=capacity)
        self._next = 0
        self._lock = threading.Lock()
        # Id ranges of each search per host: (first number, end number, host, strategy).
        self._ranges: list[tuple[int, int, str, str]] = []

    def register(
        self, hits: Mapping[str, list[Hit]], hosts: Sequence[str], strategies: Mapping[str, str]
    ) -> list[GrepMatch]:
        """The hits as matches with ids, in the order of `hosts`, cached; `strategies` names
        the strategy that searched each host."""
        ordered = [(label, hit) for label in hosts for hit in hits.get(label, [])]
        with self._lock:  # ids and their ranges in one step, so the ranges stay sorted
            first = number = self._next
            self._next += len(ordered)
            for label in hosts:
                count = len(hits.get(label, []))
                if count:
                    self._ranges.append((number, number + count, label, strategies[label]))
                    number += count
            if len(self._ranges) > MAX_RANGES:
                del self._ranges[: len(self._ranges) // 2]
        prefix = self.cache.prefix
        matches = [
            GrepMatch(
                prefix + base36(first + n),
                hit.file,
                hit.line,
                hit.column,
                hit.end_line,
                hit.byte_offset,
                hit.content,
                hit.text,
                hit.before,
                hit.after,
                host=label,
                byte_length=hit.byte_length,
                unique=hit.unique,
                encoding=hit.encoding,
            )
            for n, (label, hit) in enumerate(ordered)
        ]
        self.cache.add_batch(first, matches)
        return matches

    def owns(self, search_result_id: object) -> bool:
        """Whether `search_result_id` is a (still cached) hit of this registry."""
        return isinstance(search_result_id, str) and self.cache.get(search_result_id) is not None

    def origin(self, search_result_id: str) -> tuple[str, str]:
        """(host, strategy) of the search that produced the id."""
        number = int(search_result_id[len(self.cache.prefix) :], 36)
        with self._lock:
            index = bisect.bisect_right(self._ranges, (number, float("inf"))) - 1
            if index >= 0:
                first, end, host, strategy = self._ranges[index]
                if first <= number < end:
                    return host, strategy
        raise StaleResultError(
            f"search_result_id {search_result_id!r} is unknown or expired; run grep again"
        )


def base36(number: int) -> str:
    digits = []
    while True:
        number, digit = divmod(number, 36)
        digits.append(BASE36_DIGITS[digit])
        if not number:
            return "".join(reversed(digits))
