"""An indexed search returns what a scan returns, field by field, summary and hints included,
whatever the query: the same binary files (a NUL byte anywhere in a file, however far into
it, makes it binary for every query), and the same per-file counts in every output mode under
`max_matches`. Each tree is compared through a watched, an unwatched and a strict indexed
Workspace, each asked twice (a watched one answers from its watch the second time)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from codesift import Workspace

#: Files changed less than 2 s before a build are searched from disk (racily clean): the
#: trees wait this long before their index is built, so that the index's own records answer.
RACY_SECONDS = 2.1

VARIANTS = {
    "watched": {"index": True},
    "unwatched": {"index": True, "index_watch": False},
    "strict": {"index": True, "strict": True},
}

#: Plain text well past the 64 KiB the searcher sniffs for NUL bytes before searching.
FILLER = "".join(f"filler line {i:05d} of plain text\n" for i in range(4_000))


def fields(result) -> dict:
    """Every field a caller sees, but the ids (unique per call), whether the index answered
    and how many files were read (the index reads fewer: that is its point). A truncated
    search counts the binary files it came across before it stopped, which depends on how far
    it got (the index knows them all unread): those counts are left out then, and checked
    against the tree by the callers."""
    data = result.to_dict()
    for match in data["matches"]:
        match.pop("id")
    data.pop("indexed")
    data.pop("files_searched")
    if result.truncated:
        data.pop("binary_files")
        data["skipped"].pop("binary")
    return data


def indexed_workspaces(root: Path) -> dict[str, Workspace]:
    time.sleep(RACY_SECONDS)
    Workspace(root, index=True).index_build()
    return {name: Workspace(root, **options) for name, options in VARIANTS.items()}


def assert_agree(
    root: Path, workspaces: dict[str, Workspace], pattern: str, binary: int = 0, **options
):
    """Asserts that every indexed Workspace returns exactly the scan's result (and at most
    `binary` binary files when truncated); returns the scan's result and whether the index
    answered every time."""
    scanned = Workspace(root, index=False).grep(pattern, **options)
    expected = fields(scanned)
    answered = True
    for name, ws in workspaces.items():
        for attempt in ("first", "second"):
            result = ws.grep(pattern, **options)
            answered &= result.indexed
            if result.truncated:
                counted = (scanned.binary_files, result.binary_files)
                assert max(counted) <= binary, (
                    f"{name} {pattern!r} {options}: (scan, indexed) counted {counted} "
                    f"binary files of {binary}"
                )
            got = fields(result)
            differing = {k: (got[k], expected[k]) for k in expected if got[k] != expected[k]}
            assert not differing, (
                f"{name} workspace, {attempt} search for {pattern!r} {options}: "
                f"(indexed, scan) differ in {differing}"
            )
    return scanned, answered


QUERY_OPTIONS = [
    {"max_matches": None},
    {"max_matches": 500},
    {"max_matches": 500, "count_total": True},
    {"max_matches": 1},
    {"max_matches": 3, "count_total": True},
    {"mode": "files", "max_matches": None},
    {"mode": "files", "max_matches": 2},
    {"mode": "count", "max_matches": None},
    {"mode": "count", "max_matches": 2},
    {"context_lines": 1, "max_matches": None},
]


@pytest.fixture
def nul_tree(tree) -> tuple[Path, set[str]]:
    """Files whose first NUL byte lies far into them (before, after or away from the hits),
    one with an early NUL, UTF-16 files with and without a late U+0000, and clean files; the
    set of the binary ones."""
    files: dict[str, str | bytes] = {
        "late_nul_no_hit.txt": FILLER + "a nul \0 here\n" + FILLER[:2_000],
        "late_nul_hit_first.txt": "rare_token at the start\n" + FILLER + "\0\n",
        "late_nul_hit_after.txt": FILLER + "\0\n" + "rare_token after the nul\n",
        "late_nul_hits_around.txt": "rare_token one\n" + FILLER + "x\0y\n" + "rare_token two\n",
        "early_nul.bin": b"\0 rare_token\n",
        "utf16_late_nul.txt": ("rare_token in UTF-16\n" + FILLER + "\0\n").encode("utf-16"),
        "utf16_clean.txt": "rare_token in clean UTF-16\n".encode("utf-16"),
        "bom.txt": b"\xef\xbb\xbfrare_token after a BOM\n" + FILLER.encode(),
    }
    for i in range(12):
        files[f"clean/c{i:02d}.txt"] = f"rare_token {i}\n" + FILLER[: 2_000 * (i + 1)]
    for i in range(4):
        files[f"bulk/b{i}.txt"] = FILLER  # indexed bytes without the token: keeps it selective
    binary = {
        "late_nul_no_hit.txt",
        "late_nul_hit_first.txt",
        "late_nul_hit_after.txt",
        "late_nul_hits_around.txt",
        "early_nul.bin",
        "utf16_late_nul.txt",
    }
    return tree(files), binary


@pytest.mark.parametrize("pattern", ["zzz_absent_zzz", "rare_token", "a nul", "rare_token \\d+$"])
def test_a_nul_byte_anywhere_makes_a_file_binary_for_every_query(nul_tree, pattern):
    root, binary = nul_tree
    workspaces = indexed_workspaces(root)
    for options in QUERY_OPTIONS:
        scanned, answered = assert_agree(root, workspaces, pattern, binary=len(binary), **options)
        shown = set(scanned.files)
        assert not shown & binary, (
            f"{pattern!r} {options}: hits from binary files {sorted(shown & binary)}"
        )
        if not scanned.truncated:
            assert scanned.binary_files == len(binary), (
                f"{pattern!r} {options}: expected {len(binary)} binary files, "
                f"the scan counted {scanned.binary_files}"
            )
            if scanned.total < 5:
                assert f"({len(binary)} binary files not searched)" in scanned.summary, (
                    f"{pattern!r} {options}: summary {scanned.summary!r}"
                )
        if pattern in ("zzz_absent_zzz", "rare_token"):
            assert answered, f"{pattern!r} {options}: the index did not answer"


def test_multiline_and_literal_searches_count_late_nul_files_too(nul_tree):
    root, binary = nul_tree
    workspaces = indexed_workspaces(root)
    for pattern, options in [
        ("rare_token \\d+\\nfiller", {"max_matches": None}),
        ("no such\nlines", {"max_matches": None, "mode": "files"}),
        ("rare_token", {"literal": True, "max_matches": None, "mode": "count"}),
    ]:
        scanned, _ = assert_agree(root, workspaces, pattern, binary=len(binary), **options)
        assert scanned.binary_files == len(binary), (
            f"{pattern!r} {options}: expected {len(binary)}, got {scanned.binary_files}"
        )


@pytest.fixture
def counts_tree(tree) -> Path:
    """More files with one hit each than an indexed search takes in its first batch, then a
    file with many hits, and files whose hits lie in distant units (read unit by unit)."""
    files: dict[str, str] = {}
    for i in range(40):
        files[f"a/f{i:02d}.txt"] = f"head {i}\nrare_token {i}\n"
    files["b_many.txt"] = "".join(f"rare_token many {i}\n" for i in range(20))
    for i in range(3):
        files[f"c_units{i}.txt"] = (
            f"rare_token first {i}\n" + FILLER + f"rare_token last {i}\n" + FILLER[:5_000]
        )
    for i in range(6):
        files[f"d_bulk{i}.txt"] = FILLER  # indexed bytes without the token: keeps it selective
    return tree(files)


def test_files_and_count_modes_and_the_last_files_count_agree(counts_tree):
    root = counts_tree
    workspaces = indexed_workspaces(root)
    for mode in ("content", "files", "count"):
        for max_matches in (None, 1, 5, 31, 33, 41, 45, 50, 60, 500):
            for count_total in (False, True):
                for offset in (0, 2):
                    options = {
                        "mode": mode,
                        "max_matches": max_matches,
                        "count_total": count_total,
                        "offset": offset,
                    }
                    scanned, answered = assert_agree(root, workspaces, "rare_token", **options)
                    assert answered, f"{options}: the index did not answer"
                    if mode == "files":
                        assert set(scanned.counts) <= {1}, (
                            f"{options}: files mode counts one match per file, got "
                            f"{scanned.file_counts}"
                        )
                    if mode == "content" and not count_total and offset == 0:
                        assert sum(scanned.counts) == scanned.total, (
                            f"{options}: counts {scanned.file_counts} do not add up to "
                            f"total {scanned.total}"
                        )
