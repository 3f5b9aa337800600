"""`codesift serve` and `codesift mcp --http`, each run as its own process, against requests
framed to mislead or to cost: a request with both Content-Length and Transfer-Encoding is
answered 400 and its connection closed (nothing after it is read as a second request), and a
search call with a body of millions of globs is refused while it arrives, not after half a
minute of parsing."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from serve_helpers import printed_port, read_until_closed

#: Generous bound on any wait in these tests: only a hang ever reaches it.
HANG = 60.0

_SERVE = [sys.executable, "-m", "codesift", "serve", "--port", "0", "--token", "t0k", "--root"]
_MCP = [sys.executable, "-m", "codesift", "mcp", "--http", "127.0.0.1:0", "--root"]


@contextmanager
def running(argv: list[str], root: Path, url_on_stderr: bool) -> Iterator[int]:
    """The command run as a process over `root`; yields its port."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    process = subprocess.Popen(
        [*argv, str(root)],
        env=env,
        stdout=subprocess.DEVNULL if url_on_stderr else subprocess.PIPE,
        stderr=subprocess.PIPE if url_on_stderr else subprocess.DEVNULL,
        text=True,
    )
    try:
        lines = process.stderr if url_on_stderr else process.stdout
        assert lines is not None
        port = printed_port(lines)
        assert port is not None, "no URL printed"
        yield port
    finally:
        process.terminate()
        try:
            process.wait(timeout=HANG)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.py").write_text("def getUser(id):\n    return id\n")
    return tree


@pytest.mark.parametrize("command", ["serve", "mcp --http"])
def test_a_request_with_both_lengths_is_refused_and_its_connection_closed(
    root: Path, command: str
) -> None:
    argv, on_stderr, path = (
        (_SERVE, False, "/api/tools/grep_search") if command == "serve" else (_MCP, True, "/mcp")
    )
    with running(argv, root, on_stderr) as port:
        host = f"127.0.0.1:{port}"
        body = b'{"pattern": "getUser"}'
        chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
        smuggled = f"GET /api/info HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()
        request = (
            f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\n"
            f"Content-Length: {len(chunked)}\r\nTransfer-Encoding: chunked\r\n\r\n"
        ).encode()
        with socket.create_connection(("127.0.0.1", port), timeout=HANG) as sock:
            sock.sendall(request + chunked + smuggled)
            reply = read_until_closed(sock, HANG)
        print(f"{command}: {reply[:400]!r}")
        assert reply.startswith(b"HTTP/1.1 400 "), f"expected 400, got {reply[:400]!r}"
        assert reply.count(b"HTTP/1.1 ") == 1, f"a second request was answered: {reply!r}"
        head, _, text = reply.partition(b"\r\n\r\n")
        assert b"connection: close" in head.lower(), head
        error = json.loads(text)["error"]
        assert "Content-Length and Transfer-Encoding" in error["message"], error


def test_a_search_with_millions_of_globs_is_refused_while_it_arrives(root: Path) -> None:
    globs = [f"*.{chr(97 + i % 26)}" for i in range(2_200_000)]
    body = json.dumps({"pattern": "getUser", "include": globs}).encode()
    # Under the server's 16 MiB cap for every body: only the search's own cap refuses it.
    assert 14 * 2**20 < len(body) < 16 * 2**20, len(body)
    with running(_SERVE, root, False) as port:
        head = (
            f"POST /api/tools/grep_search HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Content-Type: application/json\r\nConnection: close\r\n"
        )
        for framing in ("content-length", "chunked"):
            started = time.monotonic()
            with socket.create_connection(("127.0.0.1", port), timeout=HANG) as sock:
                try:
                    if framing == "content-length":
                        sock.sendall(f"{head}Content-Length: {len(body)}\r\n\r\n".encode() + body)
                    else:
                        sock.sendall(f"{head}Transfer-Encoding: chunked\r\n\r\n".encode())
                        for at in range(0, len(body), 1 << 20):
                            piece = body[at : at + (1 << 20)]
                            sock.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))
                        sock.sendall(b"0\r\n\r\n")
                except (BrokenPipeError, ConnectionResetError):
                    pass  # refused and closed before the whole body was sent
                reply = read_until_closed(sock, HANG)
            took = time.monotonic() - started
            print(f"{framing}: refused after {took:.2f} s: {reply[:300]!r}")
            assert reply.startswith(b"HTTP/1.1 413 "), f"{framing}: got {reply[:400]!r}"
            error = json.loads(reply.partition(b"\r\n\r\n")[2])["error"]
            assert error["type"] == "PayloadTooLarge" and "glob" in error["message"], error
            # A stuck check, not a benchmark: parsing and checking each glob took ~27 s.
            assert took < 5.0, f"{framing}: the refusal took {took:.1f} s"
