"""Remote search through the HOST's index daemon, over a real sshd on 127.0.0.1 (see
tests/sshd.py): strategy "codesift" runs the host's codesift in a new process per search, and
those processes share one index per tree, the host daemon's, built once in the background
(no `codesift index build` on the host).

The host "dx" runs the codesift package these tests import (`PYTHONPATH`). Its sessions may
use a daemon (`CODESIFT_DAEMON` is not "never" there) and have a private socket directory
(`XDG_RUNTIME_DIR`, 0700) and index cache (`CODESIFT_CACHE_DIR`) under the test's tmp_path,
set by sshd's `SetEnv`: the ssh sessions do not inherit the test's environment. The daemon
those sessions start is stopped when the test ends, failed or not.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from daemon_helpers import end_process
from mcp_helpers import PACKAGE_PARENT
from remote_helpers import FILES, make_tree, rows
from sshd import SshLab, codesift_bin_dir

from codesift import Workspace
from codesift.remote import RemoteWorkspace
from codesift.results.matches import GrepResult

#: How long the daemon may take to start, build the index and catch its watch up.
INDEXED_WITHIN = 60.0


@dataclass
class Host:
    """Host "dx" of an sshd lab, whose sessions share one daemon."""

    lab: SshLab
    env: dict[str, str]

    @property
    def cache(self) -> Path:
        return Path(self.env["CODESIFT_CACHE_DIR"])

    def run(self, *command: str) -> subprocess.CompletedProcess[str]:
        """`codesift COMMAND` on the host through ssh, in the sessions' environment."""
        return subprocess.run(
            ["ssh", "-F", str(self.lab.ssh_config), "dx", "codesift", *command],
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )

    def daemon_status(self) -> dict[str, Any]:
        """`codesift daemon status --json` on the host (`running` False when none serves)."""
        done = self.run("daemon", "status", "--json")
        assert done.returncode in (0, 1), f"daemon status on dx: {done.returncode} {done.stderr}"
        return json.loads(done.stdout)

    def remote(self, root: Path) -> RemoteWorkspace:
        return RemoteWorkspace(
            "dx", str(root), ssh_config=str(self.lab.ssh_config), connect_timeout=5
        )


def stop_daemon(env: dict[str, str]) -> None:
    """Stops the daemon of the sessions' socket directory, run here with their environment
    (no ssh needed): `codesift daemon stop`, then SIGKILL to its pid if it is still there."""
    local = {**os.environ, **env}
    command = [sys.executable, "-m", "codesift", "daemon"]
    status = subprocess.run(
        [*command, "status", "--json"], env=local, capture_output=True, text=True, timeout=30
    )
    pid = json.loads(status.stdout or "{}").get("pid") if status.returncode == 0 else None
    subprocess.run([*command, "stop"], env=local, capture_output=True, timeout=30)
    if pid:
        end_process(int(pid), within=10)


@pytest.fixture
def host(tmp_path: Path) -> Iterator[Host]:
    # Anything but "never": the sessions ask (and start) the daemon.
    yield from start_host(tmp_path, "auto")


@pytest.fixture
def opted_out_host(tmp_path: Path) -> Iterator[Host]:
    yield from start_host(tmp_path, "never")


def start_host(tmp_path: Path, daemon: str) -> Iterator[Host]:
    lab = SshLab(tmp_path / "lab")
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    run.chmod(0o700)
    env = {
        "PYTHONPATH": PACKAGE_PARENT,
        "CODESIFT_DAEMON": daemon,
        "XDG_RUNTIME_DIR": str(run),
        "CODESIFT_CACHE_DIR": str(tmp_path / "host-cache"),
        # A daemon this test somehow failed to stop exits on its own soon.
        "CODESIFT_DAEMON_IDLE": "120",
    }
    try:
        lab.start("dx", f"{codesift_bin_dir()}:/usr/bin:/bin", env)
        yield Host(lab, env)
    finally:
        try:
            stop_daemon(env)
        finally:
            lab.stop()


def assert_equals_scan(found: GrepResult, root: Path, pattern: str = "rare_needle") -> GrepResult:
    """`found` (a remote grep of host dx) has the rows and counts of a local scan."""
    scanned = Workspace(root).grep(pattern, max_matches=None)
    assert scanned.indexed is False
    assert found.errors == {}, found.errors
    assert rows(found) == rows(scanned), (rows(found), rows(scanned))
    assert {m.host for m in found.matches} <= {"dx"}, [m.host for m in found.matches]
    assert (found.total, found.truncated) == (scanned.total, scanned.truncated), (
        (found.total, found.truncated),
        (scanned.total, scanned.truncated),
    )
    return scanned


def root_entry(status: dict[str, Any], root: Path) -> dict[str, Any] | None:
    real = os.path.realpath(root)
    return next((r for r in status.get("roots", []) if r["root"] == real), None)


def wait_indexed(host: Host, root: Path) -> dict[str, Any]:
    """Polls the host's daemon status until it holds an index of `root` with a caught-up
    watch; returns the status."""
    deadline = time.monotonic() + INDEXED_WITHIN
    status: dict[str, Any] = {}
    while time.monotonic() < deadline:
        status = host.daemon_status()
        entry = root_entry(status, root)
        if (
            entry is not None
            and entry["index"]["generation"]
            and entry["watch"]["state"] == "caught up"
        ):
            return status
        time.sleep(0.2)
    raise AssertionError(
        f"the host's daemon did not index {root} within {INDEXED_WITHIN} s: {status}"
    )


def index_files(cache: Path) -> list[str]:
    return sorted(str(p) for p in cache.rglob("index-*.bin"))


def test_remote_searches_use_the_hosts_daemon_and_its_one_index(host, tmp_path):
    root = make_tree(tmp_path / "repo")
    assert host.daemon_status()["running"] is False
    rws = host.remote(root)
    try:
        assert rws.strategy_of("dx") == "codesift"

        # The first search finds no daemon: the host scans (a right answer) and starts one.
        first = rws.grep("rare_needle", max_matches=None)
        scanned = assert_equals_scan(first, root)
        assert first.indexed is False, first.to_dict()
        assert first.files_searched == scanned.files_searched == FILES

        # The daemon indexes the tree in the background; then the host answers from it.
        status = wait_indexed(host, root)
        assert [r["root"] for r in status["roots"]] == [os.path.realpath(root)], status
        found = rws.grep("rare_needle", max_matches=None)
        assert_equals_scan(found, root)
        assert found.indexed is True, found.to_dict()
        assert found.files_searched < scanned.files_searched, (
            found.files_searched,
            scanned.files_searched,
        )

        # A change made behind codesift's back is seen by the very next search.
        (root / "pkg2" / "new.py").write_text("x = 1\n# a rare_needle appears\n")
        (root / "pkg3" / "mod03.py").unlink()
        changed = rws.grep("rare_needle", max_matches=None)
        assert_equals_scan(changed, root)
        assert [(m.file, m.line) for m in changed.matches] == [
            ("pkg1/mod17.py", 3),
            ("pkg2/new.py", 2),
        ], rows(changed)
        assert changed.indexed is True, changed.to_dict()
    finally:
        rws.close()


def test_concurrent_remote_searches_share_one_index(host, tmp_path):
    root = make_tree(tmp_path / "repo")
    rws = host.remote(root)
    try:
        assert_equals_scan(rws.grep("rare_needle", max_matches=None), root)
        before = wait_indexed(host, root)
        queries_before = root_entry(before, root)["queries"]
    finally:
        rws.close()

    results: list[GrepResult | BaseException] = []

    def search() -> None:
        remote = host.remote(root)
        try:
            results.append(remote.grep("rare_needle", max_matches=None))
        except BaseException as exc:  # reported below, with the others
            results.append(exc)
        finally:
            remote.close()

    threads = [threading.Thread(target=search) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert len(results) == len(threads), results
    for found in results:
        assert isinstance(found, GrepResult), found
        assert_equals_scan(found, root)

    # One root, one index (the daemon's), and every session's query counted on it.
    after = host.daemon_status()
    entry = root_entry(after, root)
    assert [r["root"] for r in after["roots"]] == [os.path.realpath(root)], after
    assert entry is not None and entry["queries"] > queries_before, (queries_before, entry)
    # Every search of a session that found the root indexed asked the daemon (each is one
    # query; a search it answered `scan` meanwhile is no error, but is also counted).
    indexed = [r for r in results if isinstance(r, GrepResult) and r.indexed]
    assert entry["queries"] - queries_before >= len(indexed), (entry, len(indexed))
    assert index_files(host.cache) == [entry["index"]["path"]], (
        index_files(host.cache),
        entry["index"]["path"],
        sorted(str(p) for p in host.cache.rglob("*")),
    )


def test_sessions_with_codesift_daemon_never_start_no_daemon(opted_out_host, tmp_path):
    host = opted_out_host
    root = make_tree(tmp_path / "repo")
    rws = host.remote(root)
    try:
        for _ in range(3):
            found = rws.grep("rare_needle", max_matches=None)
            assert_equals_scan(found, root)
            assert found.indexed is False, found.to_dict()
    finally:
        rws.close()
    status = host.daemon_status()
    assert status["running"] is False, status
    socket_dir = Path(host.env["XDG_RUNTIME_DIR"]) / "codesift"
    assert not socket_dir.exists() or not list(socket_dir.iterdir()), list(socket_dir.iterdir())
    assert index_files(host.cache) == [], index_files(host.cache)
