"""The MCP server, driven by the MCP SDK's own client over stdio."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading

import anyio
import pytest
from mcp import Client
from mcp_helpers import INITIALIZE, server_env, server_params
from tool_helpers import CODESIFT_TOOLS


def run(coro_fn):
    return anyio.run(coro_fn)


def test_mcp_server_over_stdio(tree, tmp_path):
    root = tree({"src/app.py": "def handler():\n    return compute()\n", "notes.md": "x\n"})
    params = server_params(root, "--spill-dir", str(tmp_path / "sp"))

    async def session():
        async with Client(params) as client:
            tools = await client.list_tools()
            by_name = {t.name: t for t in tools.tools}
            assert set(by_name) == set(CODESIFT_TOOLS)
            assert by_name["grep_search"].output_schema["type"] == "object"
            assert "search_result_id" in by_name["edit"].description

            found = await client.call_tool("grep_search", {"pattern": r"compute\(\)"})
            assert not found.is_error
            hit = found.structured_content["matches"][0]
            assert f"src/app.py:2:12 [{hit['id']}]" in found.content[0].text

            # The workspace (and its cache) lives as long as the server: the id still works.
            edited = await client.call_tool(
                "edit", {"search_result_id": hit["id"], "new_string": "compute(fast=True)"}
            )
            assert not edited.is_error, edited.content[0].text
            assert edited.structured_content["strategy"] == "search_result"

            bad = await client.call_tool("read_file", {"path": "../outside.txt"})
            assert bad.is_error
            assert "outside the workspace" in bad.content[0].text
            assert bad.structured_content["error"]["type"] == "SandboxError"

            unknown = await client.call_tool("frobnicate", {})
            assert unknown.is_error and "grep_search" in unknown.content[0].text

    run(session)
    assert (root / "src/app.py").read_text() == "def handler():\n    return compute(fast=True)\n"


def test_mcp_non_utf8_file_names_use_the_escaped_form(tree, tmp_path):
    # JSON over the wire cannot carry a lone surrogate: the server shows t\xff.txt in text and
    # structured content alike, and takes that form back as a path.
    root = tree({})
    params = server_params(root)

    async def session():
        with anyio.fail_after(30):
            async with Client(params) as client:
                written = await client.call_tool(
                    "write_file", {"path": "t\\xff.txt", "content": "x\n"}
                )
                assert not written.is_error, written.content[0].text
                assert written.content[0].text == "Created t\\xff.txt (2 bytes)"
                assert written.structured_content["path"] == "t\\xff.txt"
                read = await client.call_tool("read_file", {"path": "t\\xff.txt"})
                assert read.content[0].text == "     1\tx"

    run(session)
    assert (root / os.fsdecode(b"t\xff.txt")).read_bytes() == b"x\n"


class RawServer:
    """`codesift mcp` as a subprocess spoken to in raw lines; every read has a deadline, so a
    missing reply fails the test instead of hanging it."""

    def __init__(self, root) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "codesift", "mcp", "--root", str(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=server_env(),
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def send(self, raw: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(raw + b"\n")
        self.proc.stdin.flush()

    def reply(self, timeout: float = 30) -> dict:
        try:
            return json.loads(self.lines.get(timeout=timeout))
        except queue.Empty:
            raise AssertionError(f"no reply within {timeout} s") from None

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.mark.parametrize(
    ("line", "code", "request_id"),
    [
        (b"this is not json", -32700, None),
        (b"[" * 300 + b"]" * 300, -32700, None),  # deeper than the SDK's parser allows
        (b'{"jsonrpc": "2.0", "id": 7, "method": "ping", "params": {"a": "\\ud800"}}', -32700, 7),
        (b'{"jsonrpc": "2.0", "id": "q", "method": "x", "params": ' + b"[" * 250, -32700, None),
        (b'{"jsonrpc": "2.0", "id": 9, "method": 5}', -32600, 9),
        (b'"just a string"', -32600, None),
        (b'{"id": 3}', -32600, 3),
        (b"\xff\xfe garbage", -32700, None),
    ],
)
def test_mcp_unreadable_lines_get_an_error_reply(tree, line, code, request_id):
    # The SDK only logged such lines: the client waited forever for a reply.
    server = RawServer(tree({"a.txt": "alpha\n"}))
    try:
        server.send(line)
        reply = server.reply()
        assert reply["jsonrpc"] == "2.0" and reply["id"] == request_id
        assert reply["error"]["code"] == code
        assert "Traceback" not in reply["error"]["message"]
        # The connection still serves valid requests afterwards.
        server.send(json.dumps(INITIALIZE).encode())
        initialized = server.reply()
        assert initialized["id"] == 1 and "result" in initialized
        server.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "grep_search", "arguments": {"pattern": "alpha"}},
        }
        server.send(json.dumps(call).encode())
        found = server.reply()
        assert found["id"] == 2 and not found["result"].get("isError")
        assert found["result"]["structuredContent"]["total"] == 1
    finally:
        server.close()


def test_mcp_blank_lines_and_several_bad_lines_in_a_row(tree):
    server = RawServer(tree({}))
    try:
        server.send(b"")
        server.send(b"{")
        server.send(b"   ")
        server.send(b"}")
        assert server.reply()["error"]["code"] == -32700
        assert server.reply()["error"]["code"] == -32700  # blank lines are no messages
        server.send(json.dumps(INITIALIZE).encode())
        assert server.reply()["id"] == 1
    finally:
        server.close()
