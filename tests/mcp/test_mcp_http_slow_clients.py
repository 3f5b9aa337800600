"""`codesift mcp --http` against a flood of connections that never finish a request head:
they never use up the process's descriptors, so a client's request is still answered (the
same connection bounds as `codesift serve`)."""

from __future__ import annotations

import os
import re
import resource
import socket
import subprocess
import sys
from pathlib import Path

import httpx

#: Generous bound on any wait in this test: only a hang ever reaches it.
HANG = 30.0

_MCP = """
import resource, sys
resource.setrlimit(resource.RLIMIT_NOFILE, (int(sys.argv[2]), int(sys.argv[2])))
from codesift.cli import main
sys.exit(main(["mcp", "--root", sys.argv[1], "--http", "127.0.0.1:0"]))
"""

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}


def test_a_flood_of_silent_connections_does_not_stall_the_http_transport(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    root.mkdir()
    (root / "a.py").write_text("x = 1\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    process = subprocess.Popen(
        [sys.executable, "-c", _MCP, str(root), "256"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    socks: list[socket.socket] = []
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        assert process.stderr is not None
        port = None
        for line in process.stderr:
            found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            if found:
                port = int(found.group(1))
                break
        assert port is not None, "no URL printed"
        if soft < 1024 and hard >= 1024:
            resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard))
        for _ in range(400):
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=HANG)
            except OSError:
                break  # refused once the backlog is full: the flood is as big as it gets
            sock.sendall(f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode())
            socks.append(sock)
        response = httpx.post(
            f"http://127.0.0.1:{port}/mcp",
            json=INITIALIZE,
            headers={"Accept": "application/json, text/event-stream"},
            timeout=HANG,
        )
        assert response.status_code == 200, response.text[:500]
    finally:
        for sock in socks:
            sock.close()
        process.terminate()
        try:
            _, err = process.communicate(timeout=HANG)
        except subprocess.TimeoutExpired:
            process.kill()
            _, err = process.communicate()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert "Traceback" not in err, err[-2000:]
