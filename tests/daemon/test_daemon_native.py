"""The daemon is its own native executable, `codesift-daemon`, shipped in the package beside
`codesift-rg`: `codesift daemon start|run`, the library and codesift-rg all start it, no
Python runs in it, and it stops cleanly on a signal or when idle."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from daemon_helpers import alive, daemon_env, end_process, run_daemon, serving, stop, wait_for
from processes import child
from rg_helpers import BIN as RG_BIN

from codesift import daemon

DAEMON_BIN = Path(daemon.__file__).parent / "bin" / "codesift-daemon"

pytestmark = pytest.mark.skipif(
    not DAEMON_BIN.is_file(), reason="codesift-daemon not built (no Rust toolchain at install)"
)


def runs_natively(pid: int) -> None:
    """Process `pid` is the package's codesift-daemon, with no Python loaded in it."""
    exe = os.readlink(f"/proc/{pid}/exe")
    maps = Path(f"/proc/{pid}/maps").read_text()
    python_maps = [line for line in maps.splitlines() if "libpython" in line or "python3" in line]
    print("expected", DAEMON_BIN.resolve(), "actual", exe, python_maps[:3])
    assert exe == str(DAEMON_BIN.resolve())
    assert python_maps == []


def test_codesift_daemon_run_becomes_the_native_daemon(socket_dir: Path) -> None:
    process = run_daemon()
    try:
        reply = serving(process)
        assert reply["pid"] == process.pid, "the same process serves: run execs the daemon"
        runs_natively(process.pid)
    finally:
        stop(process)
    assert process.returncode == 0, process.stderr.read() if process.stderr else ""
    assert not (socket_dir / "daemon.sock").exists(), "the socket is removed on the way out"


def test_codesift_daemon_start_detaches_the_native_daemon(socket_dir: Path) -> None:
    started = subprocess.run(
        [sys.executable, "-m", "codesift", "daemon", "start", "--idle", "60"],
        env=daemon_env(),
        capture_output=True,
        text=True,
    )
    assert started.returncode == 0, started.stderr
    pid = serving()["pid"]
    try:
        runs_natively(pid)
    finally:
        daemon.stop()
        end_process(pid, 30)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_stops_it_cleanly(socket_dir: Path, signum: int) -> None:
    argv = [str(DAEMON_BIN), "--idle", "60"]
    with child(argv, env=daemon_env(), stderr=subprocess.PIPE) as process:
        serving(process)
        process.send_signal(signum)
        assert process.wait(timeout=30) == 0
    assert not (socket_dir / "daemon.sock").exists()
    assert daemon.ping(0.5) is None


def test_a_second_daemon_says_one_serves_and_leaves_it_alone(socket_dir: Path) -> None:
    first = subprocess.Popen([str(DAEMON_BIN), "--idle", "60"], env=daemon_env())
    try:
        pid = serving(first)["pid"]
        second = subprocess.run(
            [str(DAEMON_BIN)], env=daemon_env(), capture_output=True, text=True, timeout=30
        )
        print(second.returncode, second.stderr)
        assert second.returncode == 1
        assert "already serving" in second.stderr
        assert daemon.ping()["pid"] == pid
    finally:
        stop(first)


def test_it_exits_when_idle(socket_dir: Path) -> None:
    process = subprocess.Popen([str(DAEMON_BIN), "--idle", "0.5"], env=daemon_env())
    serving(process)
    assert process.wait(timeout=30) == 0
    assert not (socket_dir / "daemon.sock").exists()


@pytest.mark.parametrize("args", [["--idle", "soon"], ["--idle", "0"], ["--nonsense"]])
def test_a_bad_command_line_is_refused_with_the_usage(socket_dir: Path, args: list[str]) -> None:
    done = subprocess.run(
        [str(DAEMON_BIN), *args], env=daemon_env(), capture_output=True, text=True, timeout=30
    )
    print(done.returncode, done.stderr)
    assert done.returncode == 2
    assert done.stderr.startswith("codesift-daemon: ")
    assert "usage: codesift-daemon" in done.stderr
    assert daemon.ping(0.5) is None, "nothing serves after a refused command line"


@pytest.mark.skipif(not RG_BIN.is_file(), reason="codesift-rg not built")
def test_codesift_rg_starts_it_without_any_python(tmp_path: Path, socket_dir: Path) -> None:
    """`CODESIFT_RG_INDEX=force` with no Python to be found: codesift-rg starts the native
    daemon beside it and answers from its index."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.txt").write_text("needle\n")
    env = {
        "PATH": "/nonexistent",
        "HOME": str(tmp_path),
        "XDG_RUNTIME_DIR": os.environ["XDG_RUNTIME_DIR"],
        "CODESIFT_CACHE_DIR": str(tmp_path / "cache"),
        "CODESIFT_RG_INDEX": "force",
        "CODESIFT_RG_FALLBACK": "never",
        "CODESIFT_RG_DEBUG": "index",
    }
    done = subprocess.run(
        [str(RG_BIN), "needle"], cwd=tree, env=env, capture_output=True, timeout=120
    )
    try:
        print(done.stdout, done.stderr)
        assert done.stdout == b"a.txt:needle\n"
        assert b"files from the index" in done.stderr
        pid = wait_for("the daemon answers", daemon.ping)["pid"]
        runs_natively(pid)
    finally:
        daemon.stop()
        reply = daemon.ping(0.5)
        if reply is not None and alive(reply["pid"]):
            end_process(reply["pid"], 30)


def test_a_build_without_the_executable_hosts_the_daemon_in_python(
    socket_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(daemon, "executable", lambda: None)
    argv = daemon.spawn_argv(60.0)
    assert argv[0] == sys.executable and "daemon" in argv[-1], argv
    process = subprocess.Popen(argv, env=daemon_env())
    try:
        pid = serving(process)["pid"]
        assert os.readlink(f"/proc/{pid}/exe") == os.path.realpath(sys.executable)
    finally:
        stop(process)
