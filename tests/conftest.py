"""Shared fixtures: small trees built in tmp_path."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from trees import TreeSpec, write_tree


@pytest.fixture
def tree(tmp_path: Path) -> Callable[[TreeSpec], Path]:
    """`tree({...})` writes a tree into a fresh directory and returns its root."""
    counter = iter(range(1_000_000))

    def make(files: TreeSpec) -> Path:
        root = tmp_path / f"ws{next(counter)}"
        root.mkdir()
        return write_tree(root, files)

    return make


@pytest.fixture(autouse=True)
def index_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Indexes built by tests go to a temporary cache directory, never to ~/.cache."""
    cache = tmp_path_factory.mktemp("index-cache")
    monkeypatch.setenv("CODESIFT_CACHE_DIR", str(cache))
    return cache


@pytest.fixture(autouse=True)
def daemon_runtime(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Path]:
    """Every test gets its own daemon socket directory (a private XDG_RUNTIME_DIR), so it
    never talks to the user's daemon nor another test's. Searching workspaces start no daemon
    (`CODESIFT_DAEMON=never`: the tests of the in-process paths stay what they were) except in
    tests/daemon/ and tests that take `allow_daemon`; a daemon started by a test is stopped
    when it ends (and one that was still starting exits idle soon: CODESIFT_DAEMON_IDLE)."""
    run = tmp_path_factory.mktemp("run")
    run.chmod(0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(run))
    monkeypatch.setenv("CODESIFT_DAEMON_IDLE", "30")
    # The suite runs many processes on a small machine: a daemon slow to say it took a
    # request (50 ms in production) would be passed over now and then, and a test expecting
    # an indexed answer would get a scan. The pass-over has tests of its own.
    monkeypatch.setenv("CODESIFT_DAEMON_ACK_MS", "3000")
    if Path(str(request.node.fspath)).parent.name != "daemon":
        monkeypatch.setenv("CODESIFT_DAEMON", "never")
    yield run
    stop_daemons()


@pytest.fixture
def allow_daemon(monkeypatch: pytest.MonkeyPatch) -> None:
    """Searching workspaces of this test ask (and start) the daemon of its runtime dir."""
    monkeypatch.delenv("CODESIFT_DAEMON", raising=False)


def stop_daemons(limit: float = 15.0) -> None:
    """Stops the daemon of the current socket directory, if one runs (SIGKILL if it will not
    stop), and waits until none holds its lock."""
    import fcntl
    import os
    import time

    from daemon_helpers import end_process

    from codesift import _core, daemon

    socket_dir = _core.daemon_dir()
    if socket_dir is None or not Path(socket_dir).is_dir():
        return
    lock = Path(socket_dir) / "daemon.lock"
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        running = daemon.ping(0.5)
        if running is not None:
            daemon.request({"op": "stop"}, 1.0)
            end_process(int(running["pid"]), within=5)
        try:
            fd = os.open(lock, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            time.sleep(0.05)
        finally:
            os.close(fd)
