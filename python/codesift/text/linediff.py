"""Line diffs whose cost stays bounded on any input, for the diffs and line counts of edits.

`difflib.SequenceMatcher` with `autojunk=False` is quadratic (and worse) on files of many
equal lines: a one-line change in 16,000 repeated lines took seconds to minutes. Here the
small input is diffed by `SequenceMatcher` as before (so small diffs are exactly what they
were); in a large one the common leading and trailing lines are set aside first (linear), a
small middle part is diffed by `SequenceMatcher`, and a large one is split
at the lines that occur once on each side (patience diff, as `git diff --patience`) and each
part diffed again, and a large part with no such line is written as replaced whole. The
result is always a correct diff (it turns `a` into `b`); only its minimality is bounded.
"""

from __future__ import annotations

import bisect
import difflib
from collections.abc import Hashable, Iterator, Sequence

#: The largest `len(a) * len(b)` diffed by `SequenceMatcher`.
SMALL_PRODUCT = 1 << 18
#: How deep patience splits nest before a part is written as replaced whole.
MAX_DEPTH = 64

Opcode = tuple[str, int, int, int, int]


def matching_blocks(a: Sequence[Hashable], b: Sequence[Hashable]) -> list[tuple[int, int, int]]:
    """`(i, j, n)` runs with `a[i:i+n] == b[j:j+n]`, increasing in `i` and `j`."""
    blocks: list[tuple[int, int, int]] = []
    _blocks(a, b, 0, len(a), 0, len(b), blocks, 0)
    # Adjacent runs merged, as difflib does.
    merged: list[tuple[int, int, int]] = []
    for i, j, n in blocks:
        if n == 0:
            continue
        if merged and merged[-1][0] + merged[-1][2] == i and merged[-1][1] + merged[-1][2] == j:
            pi, pj, pn = merged[-1]
            merged[-1] = (pi, pj, pn + n)
        else:
            merged.append((i, j, n))
    return merged


def _blocks(
    a: Sequence[Hashable],
    b: Sequence[Hashable],
    a0: int,
    a1: int,
    b0: int,
    b1: int,
    out: list[tuple[int, int, int]],
    depth: int,
) -> None:
    if (a1 - a0) * (b1 - b0) <= SMALL_PRODUCT:
        # Small: exactly difflib's diff (the longest match first, not the common ends).
        matcher = difflib.SequenceMatcher(None, a[a0:a1], b[b0:b1], autojunk=False)
        out.extend((a0 + i, b0 + j, n) for i, j, n in matcher.get_matching_blocks() if n)
        return
    prefix = 0
    while a0 + prefix < a1 and b0 + prefix < b1 and a[a0 + prefix] == b[b0 + prefix]:
        prefix += 1
    if prefix:
        out.append((a0, b0, prefix))
        a0, b0 = a0 + prefix, b0 + prefix
    suffix = 0
    while a1 - suffix > a0 and b1 - suffix > b0 and a[a1 - 1 - suffix] == b[b1 - 1 - suffix]:
        suffix += 1
    tail = (a1 - suffix, b1 - suffix, suffix)
    a1, b1 = a1 - suffix, b1 - suffix
    if a0 < a1 and b0 < b1:
        if (a1 - a0) * (b1 - b0) <= SMALL_PRODUCT:
            matcher = difflib.SequenceMatcher(None, a[a0:a1], b[b0:b1], autojunk=False)
            out.extend((a0 + i, b0 + j, n) for i, j, n in matcher.get_matching_blocks() if n)
        elif depth < MAX_DEPTH:
            anchors = _unique_anchors(a, b, a0, a1, b0, b1)
            i, j = a0, b0
            for ai, bj in anchors:
                _blocks(a, b, i, ai, j, bj, out, depth + 1)
                out.append((ai, bj, 1))
                i, j = ai + 1, bj + 1
            if anchors:
                _blocks(a, b, i, a1, j, b1, out, depth + 1)
    if suffix:
        out.append(tail)


def _unique_anchors(
    a: Sequence[Hashable], b: Sequence[Hashable], a0: int, a1: int, b0: int, b1: int
) -> list[tuple[int, int]]:
    """The longest increasing run of (i, j) pairs of lines that occur once in `a[a0:a1]` and
    once in `b[b0:b1]`."""
    count_a: dict[Hashable, int] = {}
    where_a: dict[Hashable, int] = {}
    for i in range(a0, a1):
        count_a[a[i]] = count_a.get(a[i], 0) + 1
        where_a[a[i]] = i
    count_b: dict[Hashable, int] = {}
    where_b: dict[Hashable, int] = {}
    for j in range(b0, b1):
        count_b[b[j]] = count_b.get(b[j], 0) + 1
        where_b[b[j]] = j
    pairs = sorted(
        (where_a[line], where_b[line])
        for line, n in count_a.items()
        if n == 1 and count_b.get(line) == 1
    )
    # Longest increasing subsequence of the b positions (patience sorting), O(n log n).
    tails: list[int] = []
    tail_index: list[int] = []
    previous: list[int] = [-1] * len(pairs)
    for k, (_, j) in enumerate(pairs):
        pos = bisect.bisect_left(tails, j)
        if pos == len(tails):
            tails.append(j)
            tail_index.append(k)
        else:
            tails[pos] = j
            tail_index[pos] = k
        previous[k] = tail_index[pos - 1] if pos else -1
    chain: list[tuple[int, int]] = []
    k = tail_index[-1] if tail_index else -1
    while k >= 0:
        chain.append(pairs[k])
        k = previous[k]
    return chain[::-1]


def opcodes(a: Sequence[Hashable], b: Sequence[Hashable]) -> list[Opcode]:
    """`SequenceMatcher.get_opcodes()` for the bounded diff of `a` and `b`."""
    out: list[Opcode] = []
    i = j = 0
    for ai, bj, n in [*matching_blocks(a, b), (len(a), len(b), 0)]:
        tag = ""
        if i < ai and j < bj:
            tag = "replace"
        elif i < ai:
            tag = "delete"
        elif j < bj:
            tag = "insert"
        if tag:
            out.append((tag, i, ai, j, bj))
        i, j = ai + n, bj + n
        if n:
            out.append(("equal", ai, i, bj, j))
    return out


def grouped_opcodes(codes: list[Opcode], n: int = 3) -> Iterator[list[Opcode]]:
    """`SequenceMatcher.get_grouped_opcodes(n)` for `codes`."""
    codes = list(codes) or [("equal", 0, 1, 0, 1)]
    if codes[0][0] == "equal":
        tag, i1, i2, j1, j2 = codes[0]
        codes[0] = tag, max(i1, i2 - n), i2, max(j1, j2 - n), j2
    if codes[-1][0] == "equal":
        tag, i1, i2, j1, j2 = codes[-1]
        codes[-1] = tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)
    nn = n + n
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > nn:
            group.append((tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)))
            yield group
            group = []
            i1, j1 = max(i1, i2 - n), max(j1, j2 - n)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        yield group


def unified_diff(
    a: Sequence[str], b: Sequence[str], fromfile: str, tofile: str, n: int = 3
) -> Iterator[str]:
    """`difflib.unified_diff(a, b, fromfile, tofile, n=n)` with the bounded diff."""
    started = False
    for group in grouped_opcodes(opcodes(a, b), n):
        if not started:
            started = True
            yield f"--- {fromfile}\n"
            yield f"+++ {tofile}\n"
        first, last = group[0], group[-1]
        old = _range(first[1], last[2])
        new = _range(first[3], last[4])
        yield f"@@ -{old} +{new} @@\n"
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                for line in a[i1:i2]:
                    yield " " + line
                continue
            if tag in ("replace", "delete"):
                for line in a[i1:i2]:
                    yield "-" + line
            if tag in ("replace", "insert"):
                for line in b[j1:j2]:
                    yield "+" + line


def _range(start: int, stop: int) -> str:
    """difflib's `_format_range_unified`."""
    beginning = start + 1
    length = stop - start
    if length == 1:
        return str(beginning)
    if not length:
        beginning -= 1
    return f"{beginning},{length}"


__all__ = ["grouped_opcodes", "matching_blocks", "opcodes", "unified_diff"]
