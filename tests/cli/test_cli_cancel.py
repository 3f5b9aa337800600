"""Ctrl-C stops the CLI at once, whatever it is doing: the engine's search or build is
cancelled (not waited for), the command exits 130 without a word, and an interrupted
`index build` leaves the previous index as it was and no temporary file."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from cli_helpers import codesift_run, numbered_tree


def codesift(root: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "codesift", *args],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # A suite started in the background by a shell without job control runs with SIGINT
        # ignored, and children inherit that (Python then installs no Ctrl-C handler): the
        # command under test gets the disposition a terminal gives it.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def interrupt(proc: subprocess.Popen[bytes]) -> tuple[int, float]:
    """Sends SIGINT; returns the exit code and how long the process took to exit."""
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    code = proc.wait(timeout=60)
    return code, time.monotonic() - sent


def test_ctrl_c_stops_a_streaming_grep_with_exit_130(tmp_path):
    root = tmp_path / "t"
    numbered_tree(root, 3000, "needle\n" * 20)
    proc = codesift(root, "grep", "-m", "0", "needle")
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline().startswith(b"d000/")  # under way; then the pipe fills up
    code, took = interrupt(proc)
    err = proc.stderr.read().decode()
    print(f"grep exited {took * 1000:.0f} ms after SIGINT")
    assert code == 130, f"expected exit 130, got {code}: {err}"
    assert "Traceback" not in err and err == "", err


def temp_files(cache: Path) -> list[Path]:
    return [p for p in cache.rglob(".index-*.tmp")]


def index_files(cache: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in cache.rglob("index-*.bin")}


def test_ctrl_c_during_index_build_keeps_the_old_index(tmp_path, index_cache):
    root = tmp_path / "t"
    rng = random.Random(7)
    body = "".join(f"line {i} {rng.random()} some words here\n" for i in range(200))
    numbered_tree(root, 8000, body)
    built = codesift_run(root, "index", "build", timeout=300)
    assert built.returncode == 0, built.stderr
    before = index_files(index_cache)
    assert len(before) == 1, f"expected one index file, found {list(before)}"
    (root / "new.txt").write_text("a file the old index does not have\n")

    proc = codesift(root, "index", "-j", "1", "build")
    deadline = time.monotonic() + 60
    while not temp_files(index_cache) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    assert proc.poll() is None, "the build ended before it could be interrupted"
    code, took = interrupt(proc)
    assert proc.stderr is not None
    err = proc.stderr.read().decode()
    print(f"index build exited {took * 1000:.0f} ms after SIGINT")
    assert code == 130, f"expected exit 130, got {code}: {err}"
    assert err == "", f"expected nothing on stderr, got {err!r}"
    assert index_files(index_cache) == before, "the interrupted build changed the index"
    assert temp_files(index_cache) == [], f"temporary files left: {temp_files(index_cache)}"
    assert not os.path.exists(root / ".index.tmp")
