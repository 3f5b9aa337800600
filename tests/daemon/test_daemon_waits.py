"""Waiting on the daemon never blocks a person: a daemon that does not take a request within
the hello wait (stopped with SIGSTOP, stuck) is passed over, each search scanning at once,
until it answers a ping again; a cancel ends a wait at once; a daemon of another version is
never believed (its answers are not used: the search scans)."""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from daemon_helpers import daemon_env, primed_tree, root_status, wait_for
from trees import write_tree

import codesift
from codesift import CancelToken, Workspace

TREE = {f"src/f{i}.c": f"int value_{i} = {i};\nPM_RESUME();\n" for i in range(40)}

#: Runs in a fresh process (its own pass-over state): times N indexed greps, prints JSON.
SEARCHES = textwrap.dedent(
    """
    import json, sys, time
    from codesift import Workspace
    ws = Workspace(sys.argv[1], index=True, index_watch=False)
    times, indexed, totals = [], [], []
    for _ in range(int(sys.argv[2])):
        started = time.monotonic()
        result = ws.grep("value_1", max_matches=None)
        times.append(time.monotonic() - started)
        indexed.append(result.indexed)
        totals.append(result.total)
    print(json.dumps({"times": times, "indexed": indexed, "totals": totals}))
    """
)


def searches(root: Path, count: int, **env: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", SEARCHES, str(root), str(count)],
        env={**daemon_env(), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def answered_by_daemon(root: Path) -> int:
    """How many searches of `root` the daemon has answered (its status, per root)."""
    status = root_status(root)
    assert status is not None, "the daemon serves the root"
    return status["queries"]


@pytest.fixture
def default_hello_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """The production hello wait (the suite sets a long one against a loaded machine)."""
    monkeypatch.delenv("CODESIFT_DAEMON_ACK_MS", raising=False)


def test_a_stopped_daemon_is_passed_over_until_it_answers_again(
    served: subprocess.Popen[bytes], tmp_path: Path, default_hello_wait: None
) -> None:
    root = primed_tree(tmp_path / "tree", TREE)
    before = answered_by_daemon(root)
    answered = searches(root, 1)
    assert answered["totals"] == [11], answered
    assert answered_by_daemon(root) > before, "answered by the daemon while it runs"
    os.kill(served.pid, signal.SIGSTOP)
    try:
        stopped = searches(root, 5)
    finally:
        os.kill(served.pid, signal.SIGCONT)
    print("while stopped:", stopped)
    # Each search answered in-process, correctly; none waited for the reply timeout (3 s
    # each before): the first gave up after the hello wait, the others did not ask.
    assert stopped["totals"] == [11] * 5
    assert sum(stopped["times"]) < 2.5, stopped["times"]
    # Running again: a new process asks it at once.
    before = answered_by_daemon(root)
    searches(root, 1)
    assert answered_by_daemon(root) > before


def test_a_process_that_passed_it_over_asks_again_once_it_answers_a_ping(
    served: subprocess.Popen[bytes], tmp_path: Path, default_hello_wait: None
) -> None:
    root = primed_tree(tmp_path / "tree", TREE)
    ws = Workspace(root, index=True, index_watch=False)
    before = answered_by_daemon(root)
    assert ws.grep("value_1").total == 11
    assert answered_by_daemon(root) == before + 1
    os.kill(served.pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        assert ws.grep("value_1").total == 11  # gives up after the hello wait
        assert ws.grep("value_1").total == 11  # does not ask
        took = time.monotonic() - started
        said = ws.index_status()["daemon"]
    finally:
        os.kill(served.pid, signal.SIGCONT)
    assert took < 2.5, f"two searches took {took:.2f} s while the daemon was stopped"
    print("status while stopped:", said)
    assert said is not None and said.startswith("passed over"), said
    # The stopped daemon read the first request when it woke and answered it to nobody.
    after_wake = wait_for(
        "the daemon counts the request it woke to", lambda: answered_by_daemon(root)
    )

    def asked_again() -> bool:
        ws.grep("value_1")
        return answered_by_daemon(root) > after_wake

    wait_for("the same workspace asks the daemon again", asked_again)
    assert ws.index_status()["daemon"] is None, "still said to be passed over"


def test_a_cancel_ends_a_wait_on_a_stopped_daemon(
    served: subprocess.Popen[bytes], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = primed_tree(tmp_path / "tree", TREE)
    # A hello wait far longer than the test: only the cancel can end it.
    monkeypatch.setenv("CODESIFT_DAEMON_ACK_MS", "60000")
    ws = Workspace(root, index=True, index_watch=False)
    token = CancelToken()
    os.kill(served.pid, signal.SIGSTOP)
    try:
        timer = threading.Timer(0.3, token.cancel)
        timer.start()
        started = time.monotonic()
        with pytest.raises(Exception) as raised:
            ws.grep("value_1", cancel=token)
        took = time.monotonic() - started
    finally:
        os.kill(served.pid, signal.SIGCONT)
    print(type(raised.value).__name__, raised.value, took)
    assert "cancel" in str(raised.value).lower()
    # Before, the search waited for the reply timeout (3 s), whatever the cancel.
    assert took < 2.0, f"the cancel ended the wait after {took:.2f} s"


def fake_daemon(socket_dir: Path, hello: dict, answer: dict) -> tuple[socket.socket, list]:
    """A socket at the daemon's place answering every request with `hello`, then `answer`;
    the requests it read go to the returned list."""
    socket_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(socket_dir / "daemon.sock"))
    server.listen(16)
    seen: list = []

    def frame(message: dict) -> bytes:
        body = json.dumps(message).encode()
        return struct.pack(">I", len(body)) + body

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                header = conn.recv(4, socket.MSG_WAITALL)
                if len(header) < 4:
                    continue
                body = conn.recv(struct.unpack(">I", header)[0], socket.MSG_WAITALL)
                seen.append(json.loads(body))
                conn.sendall(frame(hello) + frame(answer))

    threading.Thread(target=serve, daemon=True).start()
    return server, seen


@pytest.mark.parametrize(
    "hello",
    [
        {"hello": True, "protocol": 2, "version": "0.0.0-another"},
        {"hello": True, "protocol": 999, "version": None},
        # A daemon of protocol 2 (JSON files only) of this version string.
        {"hello": True, "protocol": 2, "version": "ours"},
        # A daemon of protocol 3 (the wire before it was typed) of this version string.
        {"hello": True, "protocol": 3, "version": "ours"},
        # A daemon of protocol 4 (`files` lists as text) of this version string.
        {"hello": True, "protocol": 4, "version": "ours"},
        {"ok": True, "pid": 1},  # an old daemon: no hello, a reply straight away
    ],
    ids=["other-version", "other-protocol", "protocol-2", "protocol-3", "protocol-4", "no-hello"],
)
def test_a_daemon_of_another_version_is_never_believed(
    socket_dir: Path, tmp_path: Path, hello: dict
) -> None:
    from codesift import daemon

    if hello.get("version") is None and "version" in hello:
        hello = {**hello, "version": daemon.ping.__module__}  # any string but ours
    if hello.get("version") == "ours":
        hello = {**hello, "version": codesift.__version__}
    root = write_tree(tmp_path / "tree", TREE)
    # It claims a selection in which no file has a hit: believed, the search finds nothing.
    lie = {"ok": True, "files": [], "binary": 0, "ignored": 0, "unreadable": 0, "skips": []}
    server, seen = fake_daemon(socket_dir, hello, lie)
    try:
        result = Workspace(root, index=True, index_watch=False).grep("value_1")
    finally:
        server.close()
    print(seen[:1], result.total, result.indexed)
    assert seen and seen[0]["protocol"] == 5 and isinstance(seen[0]["version"], str)
    assert result.total == 11, "the lie was believed"
