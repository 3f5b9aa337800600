"""A streamed search holds a piece of a file's hits, not the file's whole answer: its peak
memory barely moves when ONE file's hits grow tenfold, and the pieces give exactly the hits
of the whole search."""

from __future__ import annotations

from pathlib import Path

import memory_helpers

from codesift import Workspace

SEARCH = r"""
hits = 0
with Workspace(sys.argv[1]).grep_iter("e", remember=False) as stream:
    for m in stream:
        hits += 1
print(json.dumps({"hits": hits, "peak_kib": peak_kib(), "total": stream.result.total,
                  "files": stream.result.files_with_matches}))
"""


def one_file(root: Path, lines: int) -> Path:
    root.mkdir(parents=True)
    (root / "small.txt").write_text("e\n")
    (root / "big.txt").write_text("e\n" * lines)  # one hit per line
    return root


def peak(root: Path) -> dict:
    return memory_helpers.peak(SEARCH, root)


def test_peak_memory_does_not_grow_with_one_files_hits(tmp_path):
    few = peak(one_file(tmp_path / "few", 100_000))
    many = peak(one_file(tmp_path / "many", 1_000_000))
    assert few["hits"] == few["total"] == 100_001 and few["files"] == 2, few
    assert many["hits"] == many["total"] == 1_000_001 and many["files"] == 2, many
    ratio = many["peak_kib"] / few["peak_kib"]
    # (Held whole, the million hits of one file took x5 here: 36 MB, then 180 MB.)
    assert ratio < 1.5, (
        f"expected a peak RSS that does not follow one file's hits: {few['peak_kib']} KiB "
        f"for {few['hits']} hits, {many['peak_kib']} KiB for {many['hits']} hits (x{ratio:.2f})"
    )


def fields(m) -> dict:
    d = m.to_dict()
    d.pop("id")
    return {**d, "unique": m.unique, "byte_length": m.byte_length, "encoding": m.encoding}


def test_a_file_in_pieces_gives_the_whole_searchs_hits(tmp_path):
    root = tmp_path / "t"
    root.mkdir()
    # Hits of one file past several pieces: lines with two hits, distinct and repeated
    # texts (uniqueness is proven piece by piece), and a file after it.
    body = "".join(
        f"needle{i} and needle{i % 3}\n" if i % 5 else f"plain line {i}\n" for i in range(30_000)
    )
    (root / "a.txt").write_text(body + "needle_last\n")
    (root / "b.txt").write_text("needle in b\n")
    ws = Workspace(root)
    whole = ws.grep(r"needle\w*", max_matches=None)
    with ws.grep_iter(r"needle\w*") as stream:
        streamed = list(stream)
    assert len(streamed) == len(whole.matches) == 48_002, (len(streamed), len(whole.matches))
    assert [fields(m) for m in streamed] == [fields(m) for m in whole.matches]
    assert stream.result is not None
    assert (stream.result.total, stream.result.files_with_matches) == (48_002, 2), stream.result
    # A file at a time, whole, as before.
    with ws.grep_iter(r"needle\w*") as again:
        sizes = [(group[0].file, len(group)) for group in again.files()]
    assert sizes == [("a.txt", 48_001), ("b.txt", 1)], sizes
    # Ids follow one another and find their hits again.
    ids = [m.id for m in streamed]
    assert len(set(ids)) == len(ids)
    assert ws.cache.get(ids[20_000]).line == streamed[20_000].line
