"""The daemon holds no copy of an index: it reads the posting lists from the file as queries
need them (each checked against its checksum), so an index file truncated, rewritten or
replaced under a running daemon costs at most a scan, never a wrong answer or the daemon."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from daemon_helpers import prime, primed_tree, published, root_status, wait_for
from index_helpers import hits
from trees import write_tree

from codesift import Workspace

TREE = {f"src/f{i}.c": f'int value_{i} = {i};\nchar *name_{i} = "n{i}";\n' for i in range(300)}
PATTERNS = ["value_7 =", "name_12", r"value_\d+ = 4", "n29"]


def answers(root: Path, index: bool) -> list[list[dict]]:
    return [
        hits(Workspace(root, index=index, index_watch=False).grep(pattern)) for pattern in PATTERNS
    ]


def served_queries(root: Path) -> int:
    return (root_status(root) or {}).get("queries", 0)


def served_and_answering(root: Path) -> list[list[dict]]:
    """Has the daemon serve `root` and answer as a scan does; the scan's answers."""
    prime(root)
    expected = answers(root, index=False)
    assert answers(root, index=True) == expected
    return expected


def test_the_daemon_maps_no_index_and_holds_no_copy_of_it(
    served: subprocess.Popen[bytes], tmp_path: Path, index_cache: Path
) -> None:
    root = primed_tree(tmp_path / "tree", TREE)
    before = served_queries(root)
    assert answers(root, index=True) == answers(root, index=False)
    assert served_queries(root) > before, "the daemon did not answer"

    maps = Path(f"/proc/{served.pid}/maps").read_text()
    index_file = str(published(index_cache))
    held = [line for line in maps.splitlines() if "codesift-index" in line or index_file in line]
    print("\n".join(held))
    assert held == [], "the daemon maps the index or a copy of it"


def test_an_index_truncated_under_the_daemon_costs_a_scan_not_a_wrong_answer(
    served: subprocess.Popen[bytes], tmp_path: Path, index_cache: Path
) -> None:
    root = write_tree(tmp_path / "tree", TREE)
    expected = served_and_answering(root)
    os.truncate(published(index_cache), 300)

    for _ in range(3):
        assert answers(root, index=True) == expected
    assert served.poll() is None, "the daemon died"
    # The daemon discards the damaged index, builds another and answers from it again.
    prime(root)
    wait_for("a good index is published", lambda: published(index_cache).stat().st_size > 300)
    before = served_queries(root)
    assert answers(root, index=True) == expected
    assert served_queries(root) > before


def test_an_index_rewritten_or_replaced_under_the_daemon_costs_a_scan(
    served: subprocess.Popen[bytes], tmp_path: Path, index_cache: Path
) -> None:
    root = write_tree(tmp_path / "tree", TREE)
    expected = served_and_answering(root)
    path = published(index_cache)
    # Rewritten in place: the same length, every byte past the tables turned over.
    data = bytearray(path.read_bytes())
    half = len(data) // 2
    data[half:-8] = bytes(b ^ 0x5A for b in data[half:-8])
    with open(path, "r+b") as f:
        f.write(data)
    assert answers(root, index=True) == expected
    assert served.poll() is None, "the daemon died"
    # Replaced by another file under the same name.
    other = path.with_name("planted")
    other.write_bytes(b"CSIFTIDX" + bytes(4096))
    os.replace(other, path)
    assert answers(root, index=True) == expected
    assert served.poll() is None, "the daemon died"
