"""The MCP server, driven by the MCP SDK's own client over stdio."""

from __future__ import annotations

import os
import sys

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters


def run(coro_fn):
    return anyio.run(coro_fn)


def test_mcp_server_over_stdio(tree, tmp_path):
    root = tree({"src/app.py": "def handler():\n    return compute()\n", "notes.md": "x\n"})
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "codesift", "mcp", "--root", str(root), "--spill-dir", str(tmp_path / "sp")],
    )

    async def session():
        async with Client(params) as client:
            tools = await client.list_tools()
            by_name = {t.name: t for t in tools.tools}
            assert set(by_name) == {
                "grep_search",
                "edit",
                "glob_search",
                "read_file",
                "list_dir",
                "write_file",
            }
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
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "codesift", "mcp", "--root", str(root)]
    )

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
