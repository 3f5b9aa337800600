"""Remote search through the host's persistent index, over a real sshd on 127.0.0.1 (see
tests/sshd.py): strategy "codesift" uses an index built on the host for the root, reports
it in `indexed`, and returns exactly what a scan returns, even after a file changed behind
codesift's back.

The host "ix" runs the codesift package these tests import (`PYTHONPATH`), and its index
cache is a directory of the lab (`CODESIFT_CACHE_DIR`, set by sshd's `SetEnv`): the ssh
sessions do not inherit the test's environment, and nothing is written to ~/.cache.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp_helpers import PACKAGE_PARENT
from remote_helpers import FILES, make_tree, rows
from sshd import SshLab, closed_port, codesift_bin_dir

from codesift import Workspace


def host_cache(lab: SshLab) -> Path:
    """The index cache of host "ix"'s sessions."""
    return lab.workdir / "host-cache"


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SshLab]:
    lab = SshLab(tmp_path_factory.mktemp("ssh-index"))
    host_env = {"PYTHONPATH": PACKAGE_PARENT, "CODESIFT_CACHE_DIR": str(host_cache(lab))}
    try:
        lab.start("ix", f"{codesift_bin_dir()}:/usr/bin:/bin", host_env)
        lab.start("sh", "/usr/bin:/bin")
        yield lab
    finally:
        lab.stop()


def on_host(lab: SshLab, *command: str) -> subprocess.CompletedProcess[str]:
    """Runs a codesift command on host "ix" through ssh, in the session's environment."""
    done = subprocess.run(
        ["ssh", "-F", str(lab.ssh_config), "ix", "codesift", *command],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, f"codesift {' '.join(command)} on ix: {done.stderr}"
    return done


@pytest.fixture
def indexed_root(lab: SshLab, tmp_path: Path) -> Iterator[Path]:
    """A tree with an index built on host "ix" (dropped afterwards)."""
    root = make_tree(tmp_path / "repo")
    on_host(lab, "index", "build", "--root", str(root), "--json")
    try:
        yield root
    finally:
        on_host(lab, "index", "drop", "--root", str(root))
    assert not list(host_cache(lab).rglob("index-*.bin"))


def test_the_host_index_answers_and_matches_a_local_scan(lab, indexed_root, remote):
    status = json.loads(
        on_host(lab, "index", "status", "--root", str(indexed_root), "--json").stdout
    )
    assert status["exists"] is True, status
    assert status["path"].startswith(str(host_cache(lab))), (status["path"], host_cache(lab))

    rws = remote("ix", indexed_root)
    assert rws.strategy_of("ix") == "codesift"
    found = rws.grep("rare_needle", max_matches=None)
    scanned = Workspace(indexed_root).grep("rare_needle", max_matches=None)
    assert found.errors == {}, found.errors
    assert found.indexed is True, found.to_dict()
    assert scanned.indexed is False
    assert rows(found) == rows(scanned), (rows(found), rows(scanned))
    assert [m.host for m in found.matches] == ["ix", "ix"]
    assert (found.total, found.truncated) == (scanned.total, scanned.truncated)
    # The index narrowed the search to the files that can match.
    assert found.files_searched < scanned.files_searched == FILES, (
        found.files_searched,
        scanned.files_searched,
    )
    assert found.to_dict()["indexed"] is True

    # A pattern the index cannot narrow is a scan on the host: indexed is False there.
    everything = rws.grep(r"\w+", max_matches=3)
    assert everything.indexed is False and everything.total == 3


def test_a_change_behind_codesifts_back_is_seen(lab, indexed_root, remote):
    rws = remote("ix", indexed_root)
    assert rws.grep("rare_needle").indexed is True

    # Same size, same mtime: only the ctime (and the bytes) tell that the file changed.
    changed = indexed_root / "pkg1" / "mod05.py"
    before = changed.stat()
    text = changed.read_text()
    changed.write_text(text.replace("respond(request, 35)", "rare_needle(request)"))
    os.utime(changed, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert changed.stat().st_size == before.st_size
    (indexed_root / "pkg3" / "mod03.py").write_text("nothing here any more\n")

    found = rws.grep("rare_needle", max_matches=None)
    scanned = Workspace(indexed_root).grep("rare_needle", max_matches=None)
    assert rows(found) == rows(scanned), (rows(found), rows(scanned))
    assert [(m.file, m.line) for m in found.matches] == [
        ("pkg1/mod05.py", 2),
        ("pkg1/mod17.py", 3),
    ], rows(found)
    assert found.indexed is True, found.to_dict()


def test_indexed_only_when_every_answering_host_used_its_index(lab, indexed_root, remote):
    # "sh" searches with find and grep (no index): the whole result was not indexed.
    mixed = remote("ix,sh", indexed_root).grep("rare_needle", max_matches=None)
    assert mixed.errors == {}, mixed.errors
    assert [m.host for m in mixed.matches] == ["ix", "ix", "sh", "sh"]
    assert mixed.indexed is False, mixed.to_dict()

    # A host that failed answered nothing: the hosts that did answer decide.
    failed = f"127.0.0.1:{closed_port()}"
    partial = remote(f"ix,{failed}", indexed_root).grep("rare_needle", max_matches=None)
    assert list(partial.errors) == [failed], partial.errors
    assert len(partial.matches) == 2 and partial.indexed is True, partial.to_dict()

    # No host answered: nothing was searched through an index.
    none = remote(failed, indexed_root).grep("rare_needle")
    assert none.errors and none.indexed is False, none.to_dict()
