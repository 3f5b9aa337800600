"""A stdio client that goes away without closing stdin first (it stops reading the server's
output: its end of the pipe is closed) ends the server quietly, as a closed pipe ends
`codesift grep`: exit 0 and no "please report it" on stderr."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from mcp_helpers import INITIALIZE, server_env


def test_server_exits_quietly_when_the_client_stops_reading(tmp_path: Path) -> None:
    for i in range(50):
        (tmp_path / f"f{i}.txt").write_text("alpha\n" * 50)
    proc = subprocess.Popen(
        [sys.executable, "-m", "codesift", "mcp", "--root", str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=server_env(),
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
    proc.stdin.flush()
    first = json.loads(proc.stdout.readline())
    assert first.get("id") == 1 and "result" in first, f"expected the initialize reply: {first}"
    proc.stdout.close()  # the client stops reading: the server's next reply meets EPIPE
    lines = [json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})]
    lines += [
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": i,
                "method": "tools/call",
                "params": {"name": "grep_search", "arguments": {"pattern": "alpha"}},
            }
        )
        for i in range(2, 12)
    ]
    try:
        proc.stdin.write(("\n".join(lines) + "\n").encode())
        proc.stdin.flush()
    except BrokenPipeError:
        pass  # the server already went away
    try:
        code = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        try:
            proc.stdin.close()
        except BrokenPipeError:
            pass
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert "report it" not in err and "Traceback" not in err, f"expected no bug report: {err!r}"
    assert code == 0, f"expected exit 0 once the client stopped reading, got {code}: {err!r}"
