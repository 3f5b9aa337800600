"""No search waits for another process's index build: a workspace's first search while
another process holds the build lock (a daemon building, stopped or stuck) scans at once
instead of hanging on the lock; an explicit `index_build` waiting for it stops on Ctrl-C or
a cancel."""

from __future__ import annotations

import fcntl
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from processes import child
from trees import write_tree

from codesift import CancelToken, CodesiftError, Workspace

TREE = {f"src/f{i}.c": f"int value_{i} = {i};\n" for i in range(50)}


def lock_file(cache: Path, root: Path) -> Path:
    """The build lock of `root`'s index directory (made by building once, then dropped)."""
    ws = Workspace(root, index=True)
    ws.index_build()
    ws.index_drop()
    (lock,) = cache.glob("*/build.lock")
    return lock


@pytest.fixture
def held_lock(tmp_path: Path, index_cache: Path):
    """A tree whose build lock this test holds, as a stopped builder would."""
    root = write_tree(tmp_path / "tree", TREE)
    with open(lock_file(index_cache, root), "r+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        # Let go after a while in any case, so that a call that waits for it (the defect)
        # fails its bound instead of hanging the suite.
        release = threading.Timer(15.0, fcntl.flock, (lock, fcntl.LOCK_UN))
        release.start()
        yield root
        release.cancel()
        fcntl.flock(lock, fcntl.LOCK_UN)


def test_a_first_search_scans_instead_of_waiting_for_another_build(held_lock: Path) -> None:
    started = time.monotonic()
    result = Workspace(held_lock, index=True).grep("value_7 =")
    took = time.monotonic() - started
    print(f"answered in {took:.2f} s: total {result.total}, indexed {result.indexed}")
    assert result.total == 1 and not result.indexed
    # Before, the search hung on the lock for as long as the other builder held it.
    assert took < 10.0


def test_an_explicit_build_waiting_for_the_lock_stops_on_a_cancel(held_lock: Path) -> None:
    token = CancelToken()
    threading.Timer(0.3, token.cancel).start()
    started = time.monotonic()
    with pytest.raises(CodesiftError) as raised:
        Workspace(held_lock, index=True).index_build(cancel=token)
    took = time.monotonic() - started
    print(type(raised.value).__name__, raised.value, f"{took:.2f} s")
    assert took < 10.0


BUILD = textwrap.dedent(
    """
    import sys
    from codesift import Workspace
    print("building", flush=True)
    try:
        Workspace(sys.argv[1], index=True).index_build()
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        sys.exit(130)
    print("built", flush=True)
    """
)


def test_an_explicit_build_waiting_for_the_lock_stops_on_ctrl_c(held_lock: Path) -> None:
    argv = [sys.executable, "-c", BUILD, str(held_lock)]
    with child(argv, stdout=subprocess.PIPE, text=True) as build:
        assert build.stdout is not None
        assert build.stdout.readline().strip() == "building"
        time.sleep(0.5)
        build.send_signal(signal.SIGINT)
        sent = time.monotonic()
        out, _ = build.communicate(timeout=30)
        took = time.monotonic() - sent
    print(out, build.returncode, f"{took:.2f} s")
    assert build.returncode == 130 and "interrupted" in out
    assert took < 10.0
