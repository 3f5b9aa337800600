"""The index cache is hostile input: whatever another process or user plants, truncates or
damages in it (symlinks, FIFOs, foreign owners, flipped bytes, out-of-range ids), a search
answers exactly like a scan, never hangs or crashes, creates nothing outside the cache, and
`index_status` says the index was discarded. What the cache creates is private (0700/0600)."""

from __future__ import annotations

import json
import os
import stat
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from index_helpers import hits

from codesift import Workspace

#: The header's fields (after the magic and the version), little-endian u64s.
FIELD_TRIGRAMS, FIELD_OFF_POSTINGS, FIELD_OFF_LOOKUP, FIELD_TOTAL = 4, 8, 9, 10
FIELD_OFF_PATHS = 5
#: After the eleven fields: one CRC-32 per table (paths, files, units, lookup) and a spare
#: slot, then the header's own CRC-32 (computed with that field zeroed).
SECTION_CRCS = 16 + 8 * 11
LOOKUP_CRC = SECTION_CRCS + 4 * 3
HEADER_CRC = SECTION_CRCS + 4 * 5
#: A lookup entry: trigram (low 24 bits) and the list's encoding (top 8), list length, list
#: offset, the list's CRC-32, its cardinality.
LOOKUP_ENTRY = "<IIQII"
LOOKUP_LEN = 24
#: List encodings: a roaring bitmap, varint gaps of the unit ids, or of those not in the list,
#: and the same two with the gaps bit-packed in blocks of 32 (the writer picks the smallest).
ENCODING_ROARING, ENCODING_IDS = 0, 1
ROARING_NO_RUNS = 12346
TIMEOUT = 60

#: `needle` is rare enough in this tree for the index to narrow a search to it.
FILES = {
    "a.txt": "alpha needle here\nnothing\n",
    "sub/b.py": "def needle_fn():\n    return 'needle'\n",
    **{f"filler/f{i}.txt": f"no match in this one, file {i}\n" for i in range(30)},
}


def scan_hits(root: Path, pattern: str = "needle") -> list[dict]:
    return hits(Workspace(root, index=False).grep(pattern))


def assert_discarded(root: Path, answered_from: str | None = None) -> None:
    """A search with index="auto" answers as a scan does and the status says the index was
    discarded; with `answered_from` (what the index was), also that it did not answer."""
    ws = Workspace(root, index="auto")
    result = ws.grep("needle")
    assert hits(result) == scan_hits(root)
    if answered_from is not None:
        assert not result.indexed, f"a search answered from {answered_from}"
    problem = ws.index_status()["problem"]
    assert problem and "discarded" in problem, f"status problem: {problem!r}"


def index_path(root: Path) -> Path:
    return Path(Workspace(root, index="auto").index_status()["path"])


def field(data: bytes, i: int) -> int:
    return struct.unpack_from("<Q", data, 16 + 8 * i)[0]


def reseal(data: bytearray) -> None:
    """Recomputes the lookup table's and the header's checksums (what a writer with a bug
    would leave: a file whose checksums hold but whose contents are wrong)."""
    lookup = field(data, FIELD_OFF_LOOKUP)
    end = field(data, FIELD_TOTAL) - 8
    struct.pack_into("<I", data, LOOKUP_CRC, zlib.crc32(bytes(data[lookup:end])))
    struct.pack_into("<I", data, HEADER_CRC, 0)
    header_len = field(data, FIELD_OFF_PATHS)
    struct.pack_into("<I", data, HEADER_CRC, zlib.crc32(bytes(data[:header_len])))


def run_search(root: Path, cache: Path, index: str, before: str = "") -> dict:
    """Runs a search in a child process (a hang or a crash there fails the test, not the
    suite); returns its hits, whether the index answered and the index status."""
    script = f"""
import json, os, sys
from codesift import Workspace
root = {str(root)!r}
ws = Workspace(root, index={index!r})
{before}
result = ws.grep("needle")
rows = []
for match in result.matches:
    row = match.to_dict()
    row.pop("id")
    rows.append(row)
print(json.dumps({{"hits": rows, "indexed": result.indexed,
                   "status": ws.index_status()}}, default=str))
"""
    env = dict(os.environ, CODESIFT_CACHE_DIR=str(cache))
    try:
        done = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            env=env,
            timeout=TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the search hung (no answer in {TIMEOUT} s)")
    assert done.returncode == 0, (
        f"the search process died: returncode {done.returncode}, stderr {done.stderr[-2000:]}"
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_symlinks_planted_in_the_cache_are_never_followed(tree, tmp_path):
    root = tree(FILES)
    path = index_path(root)
    cache_dir = path.parent
    cache_dir.mkdir(parents=True, mode=0o700)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim").write_text("keep me\n")
    (cache_dir / "build.lock").symlink_to(outside / "lock-target")
    (cache_dir / ".index-0000000000000001.tmp").symlink_to(outside / "victim")
    path.symlink_to(outside / "index-target")

    result = Workspace(root, index=True).grep("needle")

    assert hits(result) == scan_hits(root)
    created = sorted(p.name for p in outside.iterdir())
    assert created == ["victim"], f"expected only the victim outside the cache, got {created}"
    assert (outside / "victim").read_text() == "keep me\n"
    assert not path.is_symlink(), "the index is still the planted symlink"
    assert not (cache_dir / "build.lock").is_symlink(), "the lock is still the planted symlink"


def test_a_symlink_at_the_index_name_is_not_trusted(tree, tmp_path):
    root = tree(FILES)
    ws = Workspace(root, index="auto")
    ws.index_build()
    path = index_path(root)
    elsewhere = tmp_path / "elsewhere.bin"
    path.rename(elsewhere)
    path.symlink_to(elsewhere)

    assert_discarded(root, answered_from="an index reached through a symlink")


def test_a_fifo_in_place_of_the_index_does_not_hang_a_search(tree, index_cache):
    root = tree(FILES)
    path = index_path(root)
    path.parent.mkdir(parents=True, mode=0o700)
    os.mkfifo(path, 0o600)

    answer = run_search(root, index_cache, "auto")

    assert answer["hits"] == scan_hits(root)
    assert not answer["indexed"]
    problem = answer["status"]["problem"]
    assert problem and "discarded" in problem, f"status problem: {problem!r}"


def test_a_fifo_in_place_of_the_lock_does_not_hang_a_build(tree, index_cache):
    root = tree(FILES)
    path = index_path(root)
    path.parent.mkdir(parents=True, mode=0o700)
    os.mkfifo(path.parent / "build.lock", 0o600)

    answer = run_search(root, index_cache, "on")

    assert answer["hits"] == scan_hits(root)


def test_an_index_truncated_while_open_never_crashes_the_process(tree, index_cache):
    root = tree(FILES)
    before = """
ws.grep("needle")
path = ws.index_status()["path"]
os.truncate(path, 0)
"""
    answer = run_search(root, index_cache, "on", before)

    assert answer["hits"] == scan_hits(root)


def damage_postings(path: Path, damage) -> None:
    data = bytearray(path.read_bytes())
    damage(data)
    path.write_bytes(bytes(data))


def flip_a_posting_byte(data: bytearray) -> None:
    """Flips a byte of every posting list (lists are checked when a search reads them, so
    every search meets one)."""
    lookup, postings = field(data, FIELD_OFF_LOOKUP), field(data, FIELD_OFF_POSTINGS)
    for i in range(field(data, FIELD_TRIGRAMS)):
        _, size, off, _, _ = struct.unpack_from(LOOKUP_ENTRY, data, lookup + i * LOOKUP_LEN)
        if size:  # a list of every unit (or none) takes no bytes
            data[postings + off + size // 2] ^= 0x40


def flip_a_lookup_byte(data: bytearray) -> None:
    """Damages the lookup table, which is checked whenever the index is opened."""
    data[field(data, FIELD_OFF_LOOKUP) + 5] ^= 0x40


def unit_ids_out_of_range(data: bytearray) -> None:
    """Makes every list name units that do not exist, then recomputes the checksums: only the
    bounds checks can tell. A list of varint gaps starts at unit 127 (the tree has fewer); a
    roaring list's first container moves to the key 0x7fff (unit ids above 2^31)."""
    lookup, postings = field(data, FIELD_OFF_LOOKUP), field(data, FIELD_OFF_POSTINGS)
    changed = 0
    for i in range(field(data, FIELD_TRIGRAMS)):
        entry = lookup + i * LOOKUP_LEN
        trigram, size, off, _, count = struct.unpack_from(LOOKUP_ENTRY, data, entry)
        at = postings + off
        encoding = trigram >> 24
        if encoding == ENCODING_IDS and size and data[at] < 0x80:
            data[at] = 0x7F
        elif (
            encoding == ENCODING_ROARING
            and size >= 10
            and struct.unpack_from("<I", data, at)[0] == ROARING_NO_RUNS
        ):
            struct.pack_into("<H", data, at + 8, 0x7FFF)
        else:
            continue
        crc = zlib.crc32(bytes(data[at : at + size]))
        struct.pack_into(LOOKUP_ENTRY, data, entry, trigram, size, off, crc, count)
        changed += 1
    assert changed, "no posting list to damage"
    reseal(data)


@pytest.mark.parametrize("damage", [flip_a_posting_byte, unit_ids_out_of_range])
def test_damaged_postings_are_discarded(tree, damage):
    root = tree(FILES)
    Workspace(root, index="auto").index_build()
    damage_postings(index_path(root), damage)

    assert_discarded(root)


def test_damaged_postings_are_rebuilt_when_the_index_is_on(tree):
    root = tree(FILES)
    Workspace(root, index="auto").index_build()
    damage_postings(index_path(root), unit_ids_out_of_range)

    ws = Workspace(root, index=True)
    # The search that finds the damage answers by scan; the next one rebuilds.
    assert hits(ws.grep("needle")) == scan_hits(root)
    assert "discarded" in (ws.index_status()["problem"] or "")
    assert hits(ws.grep("needle")) == scan_hits(root)
    assert ws.index_status()["problem"] is None
    assert Workspace(root, index="auto").grep("needle").indexed


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another uid needs root")
def test_an_index_owned_by_another_user_is_not_trusted(tree):
    root = tree(FILES)
    Workspace(root, index="auto").index_build()
    os.chown(index_path(root), 65534, 65534)

    assert_discarded(root, answered_from="another user's index")


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another uid needs root")
def test_a_cache_directory_owned_by_another_user_is_refused(tree, tmp_path, monkeypatch):
    root = tree(FILES)
    cache = tmp_path / "shared-cache"
    cache.mkdir(mode=0o777)
    os.chown(cache, 65534, 65534)
    monkeypatch.setenv("CODESIFT_CACHE_DIR", str(cache))

    ws = Workspace(root, index=True)
    result = ws.grep("needle")

    assert hits(result) == scan_hits(root)
    assert not result.indexed
    assert list(cache.iterdir()) == [], "something was written into another user's directory"
    problem = ws.index_status()["problem"]
    assert problem and "not owned by you" in problem, f"status problem: {problem!r}"


def test_cache_directories_and_files_are_private(tree, tmp_path, monkeypatch):
    root = tree(FILES)
    top = tmp_path / "fresh"
    cache = top / "nested" / "cache"
    monkeypatch.setenv("CODESIFT_CACHE_DIR", str(cache))
    old = os.umask(0o022)
    try:
        Workspace(root, index="auto").index_build()
    finally:
        os.umask(old)
    path = index_path(root)
    modes = {
        str(p.relative_to(tmp_path)): stat.S_IMODE(p.lstat().st_mode)
        for p in [top, top / "nested", cache, path.parent]
    }
    assert modes == dict.fromkeys(modes, 0o700), f"directory modes: {modes}"
    files = {p.name: stat.S_IMODE(p.lstat().st_mode) for p in path.parent.iterdir()}
    assert files and files == dict.fromkeys(files, 0o600), f"file modes: {files}"


def test_a_cache_directory_of_ours_open_to_others_is_made_private(tree, tmp_path, monkeypatch):
    root = tree(FILES)
    cache = tmp_path / "loose-cache"
    cache.mkdir()
    cache.chmod(0o777)
    monkeypatch.setenv("CODESIFT_CACHE_DIR", str(cache))

    Workspace(root, index="auto").index_build()

    mode = stat.S_IMODE(cache.stat().st_mode)
    assert mode == 0o700, f"cache directory mode {oct(mode)}"
    assert Workspace(root, index="auto").grep("needle").indexed


def test_cli_index_status_says_the_index_was_discarded(tree, index_cache):
    root = tree(FILES)
    Workspace(root, index="auto").index_build()
    damage_postings(index_path(root), flip_a_lookup_byte)
    env = dict(os.environ, CODESIFT_CACHE_DIR=str(index_cache))
    done = subprocess.run(
        [sys.executable, "-m", "codesift", "index", "status", "--root", str(root)],
        capture_output=True,
        text=True,
        env=env,
        timeout=TIMEOUT,
    )
    assert done.returncode == 0, done.stderr
    assert "discarded" in done.stdout and "scan" in done.stdout, done.stdout
