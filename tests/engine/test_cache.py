"""The search-result cache after edits: an edit visits no cached hit (it used to visit all of
them: 5-9 s and ~650 MB with a million cached), and look-ups still see later hits of the
edited file shifted, overlapping ones gone and the edited id used up."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import overload

from codesift import StaleResultError, Workspace
from codesift._core import GrepMatch
from codesift.results.cache import HitState, ResultCache

PREFIX = "sr_tst"


class CountingBatch(Sequence[GrepMatch]):
    """A batch that counts how many of its hits are read."""

    def __init__(self, hits: list[GrepMatch]) -> None:
        self.hits = hits
        self.touched = 0

    def __len__(self) -> int:
        return len(self.hits)

    @overload
    def __getitem__(self, index: int) -> GrepMatch: ...
    @overload
    def __getitem__(self, index: slice) -> list[GrepMatch]: ...
    def __getitem__(self, index: int | slice) -> GrepMatch | list[GrepMatch]:
        found = self.hits[index]
        self.touched += len(found) if isinstance(found, list) else 1
        return found

    def __iter__(self) -> Iterator[GrepMatch]:
        for hit in self.hits:
            self.touched += 1
            yield hit


def hit(number: int, file: str, offset: int, line: int, length: int = 3) -> GrepMatch:
    return GrepMatch(
        f"{PREFIX}{_base36(number)}",
        file,
        line,
        1,
        line,
        offset,
        "x" * length,
        "x" * length,
        byte_length=length,
    )


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while n:
        n, r = divmod(n, 36)
        out = digits[r] + out
    return out or "0"


def batch(first: int, file: str, count: int) -> CountingBatch:
    """`count` hits in `file`, one per 10-byte line."""
    return CountingBatch([hit(first + k, file, 10 * k, k + 1) for k in range(count)])


def test_an_edit_touches_no_cached_hit():
    cache = ResultCache(PREFIX, capacity=1_000_000)
    a, b = batch(0, "a.txt", 50_000), batch(50_000, "b.txt", 50_000)
    cache.add_batch(0, a)
    cache.add_batch(50_000, b)
    a.touched = b.touched = 0
    edited = a.hits[100]
    # Line 101 of a.txt (bytes 1000-1003) becomes two lines of 9 bytes.
    cache.after_edit("a.txt", None, 1000, 3, 9, 1, edited_id=edited.id)
    cache.invalidate_file("c.txt", None)
    assert a.touched == 0 and b.touched == 0  # it was every hit of every batch

    # Look-ups read only the hit they want, and see the edit.
    assert cache.lookup(edited.id) is None  # used up
    assert cache.lookup(a.hits[99].id) == (a.hits[99], HitState(990, 100, 100))  # before
    assert cache.lookup(a.hits[101].id) == (a.hits[101], HitState(1016, 103, 103))  # shifted
    assert cache.lookup(a.hits[49_999].id) == (a.hits[49_999], HitState(499_996, 50_001, 50_001))
    assert cache.lookup(b.hits[101].id) == (b.hits[101], HitState(1010, 102, 102))  # other file
    assert a.touched == 4 and b.touched == 1


def test_edits_replay_in_order_and_overlaps_are_gone():
    cache = ResultCache(PREFIX)
    a = batch(0, "a.txt", 10)
    cache.add_batch(0, a)
    cache.after_edit("a.txt", None, 20, 3, 0, 0)  # hit 2 deleted: overlapping
    cache.after_edit("a.txt", None, 0, 0, 5, 1)  # an inserted line at the top
    cache.after_edit("a.txt", None, 40, 4, 4, 0)  # hit 3 (now at 35..38) untouched
    assert cache.lookup(a.hits[2].id) is None
    assert cache.lookup(a.hits[1].id) == (a.hits[1], HitState(15, 3, 3))
    assert cache.lookup(a.hits[3].id) == (a.hits[3], HitState(32, 5, 5))
    # hit 4 was at 40 -> 37 -> 42, which overlaps the third edit [40, 44).
    assert cache.lookup(a.hits[4].id) is None
    assert cache.lookup(a.hits[5].id) == (a.hits[5], HitState(52, 7, 7))


def test_a_batch_cached_after_an_edit_is_not_moved_by_it():
    cache = ResultCache(PREFIX)
    old = batch(0, "a.txt", 5)
    cache.add_batch(0, old)
    cache.after_edit("a.txt", None, 0, 0, 100, 10)
    new = batch(5, "a.txt", 5)  # a search made after the edit: positions are current
    cache.add_batch(5, new)
    assert cache.lookup(new.hits[0].id) == (new.hits[0], HitState(0, 1, 1))
    assert cache.lookup(old.hits[0].id) == (old.hits[0], HitState(100, 11, 11))
    cache.invalidate_file("a.txt", None)
    assert cache.lookup(old.hits[0].id) is None and cache.lookup(new.hits[0].id) is None
    newest = batch(10, "a.txt", 1)
    cache.add_batch(10, newest)
    assert cache.lookup(newest.hits[0].id) == (newest.hits[0], HitState(0, 1, 1))


def test_hosts_are_separate_files():
    cache = ResultCache(PREFIX)
    local = batch(0, "a.txt", 3)
    cache.add_batch(0, local)
    cache.after_edit("a.txt", "web1", 0, 3, 3, 0)
    assert cache.lookup(local.hits[0].id) == (local.hits[0], HitState(0, 1, 1))


def test_eviction_forgets_marks_and_old_edits():
    cache = ResultCache(PREFIX, capacity=10)
    first = batch(0, "a.txt", 10)
    cache.add_batch(0, first)
    cache.after_edit("a.txt", None, 0, 3, 3, 0, edited_id=first.hits[0].id)
    cache.add_batch(10, batch(10, "b.txt", 10))  # evicts the first batch
    assert cache.get(first.hits[1].id) is None
    assert not cache._used and not cache._edits  # nothing left that could apply


def test_workspace_edits_by_id_in_any_order(tree):
    text = "".join(f"value_{k} = {k}\n" for k in range(200))
    ws = Workspace(tree({"a.py": text, "b.py": text}))
    hits = ws.grep(r"value_\d+", max_matches=None).matches
    a_hits = [m for m in hits if m.file == "a.py"]
    b_hits = [m for m in hits if m.file == "b.py"]
    ws.edit_result(a_hits[150].id, "v150\nextra_line")
    ws.edit_result(a_hits[10].id, "v10")
    ws.edit_result(a_hits[199].id, "v199")
    ws.edit_result(b_hits[5].id, "b5")
    lines = (ws.root / "a.py").read_text().splitlines()
    assert lines[10] == "v10 = 10" and lines[150:152] == ["v150", "extra_line = 150"]
    assert lines[200] == "v199 = 199"
    assert (ws.root / "b.py").read_text().splitlines()[5] == "b5 = 5"
    found = ws.cache.lookup(a_hits[160].id)
    assert found is not None and found[1].line == 162  # shifted by the added line
    for used in (a_hits[150].id, a_hits[10].id):
        try:
            ws.edit_result(used, "again")
        except StaleResultError:
            pass
        else:
            raise AssertionError("an id used up by an edit must not work again")
    # A new search after the edits gives ids whose positions are current.
    again = ws.grep("value_160", literal=True).matches[0]
    assert again.line == 162
    ws.edit_result(again.id, "w160")
    assert (ws.root / "a.py").read_text().splitlines()[161] == "w160 = 160"


def test_the_least_recently_used_batches_go_first_among_many():
    # A streamed search caches a batch a page: thousands of small batches past the capacity.
    cache = ResultCache(PREFIX, capacity=3_000)
    batches = [batch(4 * k, f"f{k}.txt", 4) for k in range(1_500)]
    for k, each in enumerate(batches[:750]):
        cache.add_batch(4 * k, each)
    # Look-ups make the first 100 batches the most recently used.
    for each in batches[:100]:
        assert cache.get(each.hits[2].id) == each.hits[2]
    # 600 more: the 600 least recently used go, the 100 looked up and the newest stay.
    for k, each in enumerate(batches[750:1_350], start=750):
        cache.add_batch(4 * k, each)
    kept = [k for k, each in enumerate(batches) if cache.get(each.hits[0].id) is not None]
    expected = list(range(100)) + list(range(700, 1_350))
    print("kept", len(kept), "expected", len(expected))
    assert kept == expected
    assert len(cache) == 3_000


def test_the_newest_batch_stays_whatever_its_size():
    cache = ResultCache(PREFIX, capacity=5)
    cache.add_batch(0, batch(0, "a.txt", 3))
    big = batch(3, "b.txt", 8)
    cache.add_batch(3, big)
    assert cache.get(big.hits[7].id) == big.hits[7]
    assert cache.get(f"{PREFIX}0") is None
    assert len(cache) == 8
