"""Freshness of the daemon's answers: after another process writes, renames, deletes and
creates a directory with files in it, a `select` sent at once lists every file a scan of the
tree at that moment would find a match in; what the watch cannot vouch for is answered
`scan`, never a stale selection."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from daemon_helpers import daemon_env, wait_for

from codesift import Workspace, daemon

PATTERNS = ["needle_one", "needle_two", r"zebra[0-9]+", r"needle_(one|two) end"]

CHANGES = """
import json, os, sys
from pathlib import Path
from codesift import daemon
root = Path(sys.argv[1])
with open(root / "f3.txt", "a") as f:
    f.write("now needle_one end\\n")
os.rename(root / "match.txt", root / "moved.txt")
os.remove(root / "gone.txt")
(root / "newdir" / "sub").mkdir(parents=True)
(root / "newdir" / "a.txt").write_text("needle_one end\\n")
(root / "newdir" / "sub" / "b.txt").write_text("needle_two zebra42\\n")
(root / "f7.txt").write_text("rewritten: zebra7\\n")
print(json.dumps(daemon.select(str(root), {"pattern": sys.argv[2]})))
"""


def make_tree(root: Path) -> Path:
    root.mkdir()
    for i in range(60):
        (root / f"f{i}.txt").write_text(f"filler {i} text alpha beta\n" * 3)
    (root / "match.txt").write_text("a needle_two end here\n")
    (root / "gone.txt").write_text("needle_one end\n")
    (root / "keep.txt").write_text("needle_one end and zebra1\n")
    return root


def answered(root: Path, pattern: str) -> dict:
    """The daemon's selection once it answers from its index (it builds and catches up
    first)."""

    def check() -> dict | None:
        reply = daemon.select(str(root), {"pattern": pattern})
        return reply if reply and "files" in reply else None

    return wait_for(f"the daemon selects for {pattern!r}", check)


def matching_in(root: Path, files: list[str], pattern: str) -> set[str]:
    regex = re.compile(pattern.encode())
    found = set()
    for rel in files:
        try:
            data = (root / rel).read_bytes()
        except FileNotFoundError:
            continue
        if any(regex.search(line) for line in data.split(b"\n")):
            found.add(rel)
    return found


def scanned(root: Path, pattern: str) -> set[str]:
    result = Workspace(str(root), index=False).grep(pattern, case_sensitive=True, max_matches=None)
    return {str(Path(m.file)) for m in result.matches}


def assert_selection_equals_scan(root: Path, reply: dict, pattern: str) -> None:
    assert "files" in reply, f"expected a selection for {pattern!r}, got {reply}"
    selected = matching_in(root, reply["files"], pattern)
    expected = scanned(root, pattern)
    assert selected == expected, (
        f"{pattern!r}: files with matches from the selection {sorted(selected)}, "
        f"from a scan {sorted(expected)} (selection: {reply['files']})"
    )


def test_changes_by_another_process_are_in_the_next_selection(served, tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree")
    for pattern in PATTERNS:
        assert_selection_equals_scan(root, answered(root, pattern), pattern)
    done = subprocess.run(
        [sys.executable, "-c", CHANGES, str(root), "needle_one"],
        env=daemon_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    reply = json.loads(done.stdout)
    assert reply is not None and reply.get("trusted"), f"expected a selection, got {reply}"
    for rel in ("f3.txt", "newdir/a.txt"):
        assert rel in reply["files"], f"{rel} missing from {reply['files']}"
    assert "gone.txt" not in reply["files"], reply["files"]
    assert_selection_equals_scan(root, reply, "needle_one")
    for pattern in PATTERNS:
        reply = daemon.select(str(root), {"pattern": pattern})
        assert reply is not None, "the daemon answers"
        assert_selection_equals_scan(root, reply, pattern)


def test_a_rule_file_change_is_answered_scan_until_caught_up(served, tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree")
    answered(root, "needle_one")
    (root / ".gitignore").write_text("keep.txt\n")
    reply = daemon.select(str(root), {"pattern": "needle_one"})
    assert reply is not None and "scan" in reply, f"expected scan, got {reply}"
    reply = answered(root, "needle_one")
    assert "keep.txt" not in reply["files"], reply
    assert_selection_equals_scan(root, reply, "needle_one")


def test_a_path_outside_the_root_is_never_answered(served, tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree")
    (tmp_path / "outside.txt").write_text("needle_one end\n")
    answered(root, "needle_one")
    reply, _ = daemon.request(
        {"op": "select", "root": str(root), "path": "../", "pattern": {"pattern": "needle_one"}}
    )
    assert reply is not None and "error" in reply, reply
