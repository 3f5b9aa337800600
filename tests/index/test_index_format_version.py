"""An index file of an older format version (what an upgrade leaves in the cache) is never
read: `index="auto"` answers as a scan does and says why, `index=True` rebuilds it in the
current format and answers as a scan does."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

from index_helpers import hits

from codesift import Workspace

#: The header: 8 bytes of magic, the format version (u32) at byte 8, then fields; the
#: header's own CRC-32 (computed with that field zeroed) at HEADER_CRC; the header ends where
#: the paths start (the fifth u64 field).
VERSION_AT = 8
HEADER_CRC = 16 + 8 * 11 + 4 * 5
FIELD_OFF_PATHS = 5
#: The format before posting-list gaps were bit-packed.
OLD_VERSION = 5

#: `needle` is rare enough in this tree for the index to narrow a search to it.
FILES = {
    "a.txt": "alpha needle here\nnothing\n",
    "sub/b.py": "def needle_fn():\n    return 'needle'\n",
    **{f"filler/f{i}.txt": f"no match in this one, file {i}\n" for i in range(30)},
}


def index_path(root: Path) -> Path:
    return Path(Workspace(root, index="auto").index_status()["path"])


def version_of(path: Path) -> int:
    return struct.unpack_from("<I", path.read_bytes(), VERSION_AT)[0]


def make_old_format(path: Path) -> int:
    """Rewrites the index's version field as format 5's, with the header's checksum made
    right again (so the version is the only thing wrong with it); returns the current
    version."""
    data = bytearray(path.read_bytes())
    current = struct.unpack_from("<I", data, VERSION_AT)[0]
    assert current > OLD_VERSION, f"the built index has version {current}"
    struct.pack_into("<I", data, VERSION_AT, OLD_VERSION)
    struct.pack_into("<I", data, HEADER_CRC, 0)
    header_len = struct.unpack_from("<Q", data, 16 + 8 * FIELD_OFF_PATHS)[0]
    struct.pack_into("<I", data, HEADER_CRC, zlib.crc32(bytes(data[:header_len])))
    path.write_bytes(bytes(data))
    return current


def built_in_old_format(root: Path) -> tuple[Path, int]:
    Workspace(root, index="auto").index_build()
    path = index_path(root)
    return path, make_old_format(path)


def scan_hits(root: Path) -> list[dict]:
    return hits(Workspace(root, index=False).grep("needle"))


def test_an_old_format_index_is_not_used_by_auto(tree):
    root = tree(FILES)
    path, _ = built_in_old_format(root)

    ws = Workspace(root, index="auto")
    result = ws.grep("needle")

    expected, actual = scan_hits(root), hits(result)
    assert actual == expected, f"expected the scan's hits {expected}, got {actual}"
    assert not result.indexed, "a search answered from an index of format 5"
    problem = ws.index_status()["problem"] or ""
    assert "discarded" in problem and "format version" in problem, f"status: {problem!r}"


def test_an_old_format_index_is_rebuilt_when_the_index_is_on(tree):
    root = tree(FILES)
    path, current = built_in_old_format(root)

    result = Workspace(root, index=True).grep("needle")

    expected, actual = scan_hits(root), hits(result)
    assert actual == expected, f"expected the scan's hits {expected}, got {actual}"
    assert version_of(path) == current, (
        f"expected the index rebuilt as version {current}, found {version_of(path)}"
    )
    again = Workspace(root, index="auto").grep("needle")
    assert again.indexed, "the rebuilt index does not answer"
    assert hits(again) == expected
