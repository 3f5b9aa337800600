"""`codesift serve` against clients that connect and then send slowly or nothing: a
connection whose request head does not arrive in time is closed, a body that does not arrive
in time is answered 408 (JSON), and a flood of such connections never uses up the process's
descriptors: a request from anyone else is still answered."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from serve_helpers import live_server, printed_port, read_until_closed, silent_flood

from codesift.serve.limits import Limits

#: Generous bound on any wait in these tests: only a hang ever reaches it.
HANG = 30.0


@pytest.fixture
def root(tree) -> Path:
    return tree({"src/a.py": "def getUser(id):\n    return id\n"})


def _connect(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=HANG)
    return sock


def test_a_connection_whose_request_head_never_arrives_is_closed(root: Path) -> None:
    with live_server(root, limits=Limits(head_seconds=0.5)) as server:
        idle = _connect(server.port)
        partial = _connect(server.port)
        partial.sendall(f"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n".encode())
        try:
            assert read_until_closed(idle, HANG) == b"", (
                "a connection that sent nothing gets nothing"
            )
            read_until_closed(partial, HANG)
        finally:
            idle.close()
            partial.close()
        with httpx.Client(base_url=server.url, timeout=HANG) as http:
            assert http.get("/api/info").status_code == 200


def test_a_body_that_does_not_arrive_in_time_is_answered_408(root: Path) -> None:
    with live_server(root, limits=Limits(body_seconds=0.5)) as server:
        sock = _connect(server.port)
        try:
            sock.sendall(
                (
                    f"POST /api/tools/grep_search HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                    "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
                ).encode()
            )
            reply = read_until_closed(sock, HANG)
        finally:
            sock.close()
        head, _, body = reply.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 408"), f"expected 408, got {reply[:300]!r}"
        error = json.loads(body)["error"]
        assert error["type"] == "RequestTimeout" and "send" in error["message"], error


_SERVE = """
import resource, sys
resource.setrlimit(resource.RLIMIT_NOFILE, (int(sys.argv[2]), int(sys.argv[2])))
from codesift.cli import main
sys.exit(main(["serve", "--root", sys.argv[1], "--port", "0", "--token", "t0k"]))
"""


def test_a_flood_of_silent_connections_does_not_use_up_the_descriptors(
    root: Path, tmp_path: Path
) -> None:
    """The server runs with 256 descriptors (a desktop's soft limit is often 1024); 400
    connections that never finish their request head are opened, then a plain request must
    still be answered."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    errors = tmp_path / "stderr"
    with errors.open("wb") as err:
        process = subprocess.Popen(
            [sys.executable, "-c", _SERVE, str(root), "256"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
        )
    try:
        assert process.stdout is not None
        port = printed_port(process.stdout)
        assert port is not None, errors.read_text()
        with silent_flood(port, "/api/info"):
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=HANG) as http:
                response = http.get("/api/info")
        assert response.status_code == 200, response.text
        assert "Traceback" not in errors.read_text(), errors.read_text()[-2000:]
    finally:
        process.terminate()
        process.wait(timeout=HANG)
