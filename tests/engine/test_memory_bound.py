"""A streamed search holds the hits of a window of files, not of the whole answer: its peak
memory barely moves when the number of hits grows tenfold."""

from __future__ import annotations

from pathlib import Path

import memory_helpers

SEARCH = r"""
hits = 0
stream = Workspace(sys.argv[1]).grep_iter("e", remember=False)
for group in stream.files():
    hits += len(group)
print(json.dumps({"hits": hits, "peak_kib": peak_kib(), "total": stream.result.total}))
"""

LINES_PER_FILE = 400
LINE = "a quick brown fox jumps on a lazy dog: e\n"  # one match of "e"


def make_tree(root: Path, files: int) -> None:
    body = LINE * LINES_PER_FILE
    for i in range(files):
        d = root / f"d{i // 200:04}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"f{i:06}.txt").write_text(body)


def peak(root: Path) -> dict:
    return memory_helpers.peak(SEARCH, root)


def test_peak_memory_does_not_grow_with_the_hits(tmp_path):
    small, large = tmp_path / "small", tmp_path / "large"
    make_tree(small, 150)  # 60,000 hits
    make_tree(large, 1500)  # 600,000 hits
    few, many = peak(small), peak(large)
    assert few["hits"] == few["total"] == 150 * LINES_PER_FILE, few
    assert many["hits"] == many["total"] == 1500 * LINES_PER_FILE, many
    ratio = many["peak_kib"] / few["peak_kib"]
    # (`grep`, which holds the whole answer, grows about x3 here.)
    assert ratio < 2, (
        f"expected a peak RSS that does not follow the hits: {few['peak_kib']} KiB for "
        f"{few['hits']} hits, {many['peak_kib']} KiB for {many['hits']} hits (x{ratio:.2f})"
    )
