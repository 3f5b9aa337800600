"""`codesift mcp --http` against a flood of connections that never finish a request head:
they never use up the process's descriptors, so a client's request is still answered (the
same connection bounds as `codesift serve`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
from mcp_helpers import INITIALIZE
from serve_helpers import printed_port, silent_flood

#: Generous bound on any wait in this test: only a hang ever reaches it.
HANG = 30.0

_MCP = """
import resource, sys
resource.setrlimit(resource.RLIMIT_NOFILE, (int(sys.argv[2]), int(sys.argv[2])))
from codesift.cli import main
sys.exit(main(["mcp", "--root", sys.argv[1], "--http", "127.0.0.1:0"]))
"""


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
    try:
        assert process.stderr is not None
        port = printed_port(process.stderr)
        assert port is not None, "no URL printed"
        with silent_flood(port, "/mcp"):
            response = httpx.post(
                f"http://127.0.0.1:{port}/mcp",
                json=INITIALIZE,
                headers={"Accept": "application/json, text/event-stream"},
                timeout=HANG,
            )
        assert response.status_code == 200, response.text[:500]
    finally:
        process.terminate()
        try:
            _, err = process.communicate(timeout=HANG)
        except subprocess.TimeoutExpired:
            process.kill()
            _, err = process.communicate()
    assert "Traceback" not in err, err[-2000:]
