"""Running `codesift grep` as a process, for the command line's tests."""

from __future__ import annotations

import os
import pty
import signal
import subprocess
import sys
import time
from pathlib import Path


def codesift_run(cwd: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`codesift ARGS` in `cwd`, its output as text."""
    return subprocess.run(
        [sys.executable, "-m", "codesift", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def codesift_grep(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`codesift grep ARGS` in `cwd`, its output as text."""
    return codesift_run(cwd, "grep", *args)


def codesift_grep_bytes(cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    """`codesift grep ARGS` in `cwd`, its output as bytes."""
    return subprocess.run(
        [sys.executable, "-m", "codesift", "grep", *args],
        cwd=cwd,
        capture_output=True,
        timeout=120,
        check=False,
    )


def start_grep(cwd: Path, *args: str) -> subprocess.Popen[bytes]:
    """`codesift grep ARGS` in `cwd` under way, its output piped to the test."""
    return subprocess.Popen(
        [sys.executable, "-m", "codesift", "grep", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # A suite started without job control runs with SIGINT ignored; the command under
        # test gets the disposition a terminal gives it.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def numbered_tree(root: Path, files: int, body: str) -> Path:
    """`files` files holding `body`, d000/f00000.txt on, a hundred to a directory."""
    for i in range(files):
        d = root / f"d{i // 100:03}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"f{i:05}.txt").write_text(body)
    return root


def assert_a_closed_pipe_exits_0_quietly(proc: subprocess.Popen[bytes]) -> None:
    """Closes the reading end of `proc`'s output (as `| head -1` does): `proc` must stop with
    exit 0 and nothing on stderr."""
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    code = proc.wait(timeout=60)
    err = proc.stderr.read().decode()
    assert code == 0, f"expected exit 0 after a closed pipe, got {code}: {err}"
    assert err == "", f"expected nothing on stderr, got {err!r}"


def on_a_terminal(
    argv: list[str], cwd: Path | None = None, env: dict[str, str] | None = None
) -> tuple[int, bytes]:
    """Runs `argv` with stdout and stderr a terminal (a pty); returns its exit code and what
    it wrote there (read for at most 120 seconds)."""
    pid, fd = pty.fork()
    if pid == 0:  # child: stdout and stderr are the terminal
        if cwd is not None:
            os.chdir(cwd)
        os.environ.update(env or {})
        os.execv(argv[0], argv)
    output = b""
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), output
