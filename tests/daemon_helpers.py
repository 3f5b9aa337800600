"""Helpers for the daemon's tests: a private socket directory per test, the daemon as its own
process, raw framed requests, and polling (bounded, never a timing assertion)."""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from trees import TreeSpec, write_tree

from codesift import Workspace, daemon

PYTHON_PATH = os.pathsep.join(p for p in sys.path if p)


def daemon_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = PYTHON_PATH
    return env


def use_runtime_dir(monkeypatch: pytest.MonkeyPatch, run: Path) -> Path:
    """Makes `run` (created 0700) this test's XDG_RUNTIME_DIR; returns the socket directory."""
    run.mkdir(mode=0o700, parents=True, exist_ok=True)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(run))
    return run / "codesift"


def run_daemon(idle: float = 60.0) -> subprocess.Popen[bytes]:
    """`codesift daemon run --foreground` as a child process of the test."""
    return subprocess.Popen(
        [sys.executable, "-m", "codesift", "daemon", "run", "--foreground", "--idle", str(idle)],
        env=daemon_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def wait_for(what: str, check: Callable[[], Any], limit: float = 30.0) -> Any:
    """Polls `check` until it returns something true (at most `limit` seconds)."""
    deadline = time.monotonic() + limit
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: still not the case after {limit} s")
        time.sleep(0.05)


def serving(process: subprocess.Popen[bytes] | None = None) -> dict:
    """Waits until a daemon answers ping; returns its reply."""

    def check() -> dict | None:
        if process is not None and process.poll() is not None:
            out, err = process.communicate()
            raise AssertionError(f"the daemon exited with {process.returncode}: {err!r}")
        return daemon.ping()

    return wait_for("a daemon answers", check)


def stop(process: subprocess.Popen[bytes]) -> None:
    daemon.stop()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def frame(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


def connect(socket_dir: Path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(20)
    sock.connect(str(socket_dir / "daemon.sock"))
    return sock


def read_reply(sock: socket.socket) -> dict | None:
    """One framed reply, or None when the daemon closed the connection."""
    header = _read_exactly(sock, 4)
    if header is None:
        return None
    body = _read_exactly(sock, struct.unpack(">I", header)[0])
    assert body is not None, "the reply was cut short"
    return json.loads(body)


def _read_exactly(sock: socket.socket, n: int) -> bytes | None:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def ask(sock: socket.socket, request: dict | bytes) -> dict | None:
    body = request if isinstance(request, bytes) else json.dumps(request).encode()
    sock.sendall(frame(body))
    return read_reply(sock)


def end_process(pid: int, within: float) -> None:
    """Waits up to `within` seconds for process `pid` to end (a daemon asked to stop), then
    kills it (SIGKILL)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline and alive(pid):
        time.sleep(0.02)
    if alive(pid):
        os.kill(pid, signal.SIGKILL)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (a test's child not reaped yet) is gone for this purpose.
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def root_status(root: Path, **options: Any) -> dict[str, Any] | None:
    """The daemon's status of `root` (by its real path), of the entry whose walk options hold
    `options` (e.g. gitignore=True) when given; None with no daemon or no such root."""
    status = daemon.status()
    if status is None:
        return None
    real = os.path.realpath(root)
    return next(
        (
            r
            for r in status["roots"]
            if r["root"] == real and all(r["options"][k] == v for k, v in options.items())
        ),
        None,
    )


def caught_up(root: Path, **options: Any) -> bool:
    found = root_status(root, **options)
    return found is not None and found["watch"]["state"] == "caught up"


def prime(root: Path, **options: Any) -> None:
    """Asks the daemon about `root` until its watch is caught up (its first question starts
    the catch-up; the searches meanwhile scan)."""

    def check() -> bool:
        if caught_up(root, **options):
            return True
        Workspace(root, index=True, index_watch=False).grep("warm-up", max_matches=1)
        return False

    wait_for("the daemon watches the root", check, limit=60)


def primed_tree(root: Path, files: TreeSpec) -> Path:
    """`files` written under `root` (see `trees.write_tree`), which the daemon then watches,
    caught up (`prime`); returns `root`."""
    write_tree(root, files)
    prime(root)
    return root


_CHANGE = """
import json, os, sys
root, appended, new, writes = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
with open(os.path.join(root, "src/util.c"), "a") as f:
    f.write(appended)
os.rename(os.path.join(root, "src/main.c"), os.path.join(root, "src/moved.c"))
os.remove(os.path.join(root, "src/deep/x.h"))
os.makedirs(os.path.join(root, "fresh/sub"))
with open(os.path.join(root, "fresh/sub/new.c"), "w") as f:
    f.write(new)
for rel, text in writes.items():
    with open(os.path.join(root, rel), "w") as f:
        f.write(text)
"""


def change_in_another_process(root: Path, appended: str, new: str, writes: dict[str, str]) -> None:
    """From another process: appends `appended` to src/util.c, renames src/main.c to
    src/moved.c, deletes src/deep/x.h, makes fresh/sub/new.c holding `new`, then writes each
    of `writes` (path: text)."""
    script = [sys.executable, "-c", _CHANGE, str(root), appended, new, json.dumps(writes)]
    subprocess.run(script, check=True, timeout=60)


def published(cache: Path) -> Path:
    """The one index file published under the index cache `cache`."""
    (found,) = cache.glob("*/index-*.bin")
    return found
