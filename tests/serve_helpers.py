"""A live `codesift serve` for tests: a real uvicorn server on 127.0.0.1 (port 0) in a
thread, over a Workspace of a tree in tmp_path."""

from __future__ import annotations

import re
import resource
import socket
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from codesift import Workspace
from codesift.serve import Server


@contextmanager
def live_server(root: Path, **options: Any) -> Iterator[Server]:
    server = Server(Workspace(root), port=0, **options).start()
    try:
        yield server
    finally:
        server.stop()


def auth(server: Server) -> dict[str, str]:
    """The header that lets a request of a test write through `server`."""
    return {"Authorization": f"Bearer {server.token}"}


def post_tool(
    http: httpx.Client, name: str, args: Any, headers: dict[str, str] | None = None
) -> httpx.Response:
    """`POST /api/tools/<name>` with `args` as its JSON body."""
    return http.post(f"/api/tools/{name}", json=args, headers=headers or {})


def answer(response: httpx.Response, status: int = 200) -> Any:
    """The JSON body of a response that has `status`, is JSON and holds no traceback."""
    assert response.status_code == status, (
        f"expected HTTP {status}, got {response.status_code}: {response.text[:500]}"
    )
    assert response.headers["content-type"].startswith("application/json"), response.headers
    assert "Traceback" not in response.text, response.text
    return response.json()


def printed_port(lines: Iterable[str]) -> int | None:
    """The port of the first `http://127.0.0.1:PORT/` a server prints."""
    for line in lines:
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if found:
            return int(found.group(1))
    return None


@contextmanager
def silent_flood(port: int, path: str, count: int = 400, wait: float = 30.0) -> Iterator[int]:
    """`count` connections to `port` that send part of a request head for `path` and then
    nothing (fewer if the server's backlog refuses more), open for the `with` block; yields
    how many. This process's descriptor limit is raised for them and restored after."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    socks: list[socket.socket] = []
    try:
        if soft < count + 256 <= hard:
            resource.setrlimit(resource.RLIMIT_NOFILE, (count + 256, hard))
        for _ in range(count):
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=wait)
            except OSError:
                break  # refused once the backlog is full: the flood is as big as it gets
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode())
            socks.append(sock)
        yield len(socks)
    finally:
        for sock in socks:
            sock.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def read_until_closed(sock: socket.socket, wait: float) -> bytes:
    """Everything the server sends until it closes (or resets) the connection; fails when it
    keeps it open for `wait` seconds."""
    data = b""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            break
        except ConnectionResetError:
            return data
        if not chunk:
            return data
        data += chunk
    raise AssertionError(f"the server kept the connection open; it sent {data[:500]!r}")
