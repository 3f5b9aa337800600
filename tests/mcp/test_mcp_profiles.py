"""Each agent profile served by `codesift mcp --profile NAME`, driven by the MCP SDK's own
client over stdio: the agent's tool names are listed and one of its calls answers in its
format."""

from __future__ import annotations

import os
import sys

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

APP = "def alpha():\n    return 1  # TODO\n"


def server(root, profile):
    # The SDK starts servers with a minimal environment: pass the import path on.
    env = {**os.environ}
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "codesift", "mcp", "--root", str(root), "--profile", profile],
        env=env,
    )


CALLS = {
    "claude-code": ("Grep", {"pattern": "TODO"}, "Found 1 file\nsrc/app.py"),
    "opencode": ("glob", {"pattern": "**/*.py"}, "{root}/src/app.py"),
    "gemini-cli": (
        "grep_search",
        {"pattern": "TODO", "context": 0},
        'Found 1 match for pattern "TODO" in path ".":\n---\nFile: src/app.py\n'
        "L2:     return 1  # TODO\n---",
    ),
    "cline": ("list_files", {"path": "src"}, "app.py"),
    "codex": (
        "read_file",
        {"file_path": "{root}/src/app.py"},
        "L1: def alpha():\nL2:     return 1  # TODO",
    ),
    "swe-agent": (
        "str_replace_editor",
        {"command": "view", "path": "{root}/src/app.py", "view_range": [2, 2]},
        "Here's the result of running `cat -n` on {root}/src/app.py:\n"
        "     2\t    return 1  # TODO\n",
    ),
    "mcp-filesystem": ("list_directory", {"path": "src"}, "[FILE] app.py"),
}


@pytest.mark.parametrize("profile", sorted(CALLS))
def test_profile_over_mcp_stdio(tree, profile):
    root = tree({"src/app.py": APP})
    name, args, expected = CALLS[profile]
    args = {k: v.replace("{root}", str(root)) if isinstance(v, str) else v for k, v in args.items()}
    expected = expected.replace("{root}", str(root))

    async def session():
        async with Client(server(root, profile)) as client:
            listed = await client.list_tools()
            assert name in {tool.name for tool in listed.tools}
            result = await client.call_tool(name, args)
            assert not result.is_error, result.content[0].text
            assert result.content[0].text == expected
            assert isinstance(result.structured_content, dict)

    anyio.run(session)


def test_mcp_filesystem_edit_and_error_over_stdio(tree):
    root = tree({"src/app.py": APP})

    async def session():
        async with Client(server(root, "mcp-filesystem")) as client:
            edited = await client.call_tool(
                "edit_file",
                {"path": "src/app.py", "edits": [{"oldText": "return 1", "newText": "return 2"}]},
            )
            assert not edited.is_error, edited.content[0].text
            assert edited.structured_content["content"] == edited.content[0].text
            assert "+    return 2  # TODO" in edited.content[0].text
            outside = await client.call_tool("read_text_file", {"path": "/etc/passwd"})
            assert outside.is_error
            assert "outside the workspace" in outside.content[0].text

    anyio.run(session)
    assert (root / "src/app.py").read_text() == APP.replace("return 1", "return 2")


def test_unknown_profile_is_refused_by_the_cli(tree, capsys):
    from codesift.cli import main

    assert main(["mcp", "--root", str(tree({"a.txt": "x\n"})), "--profile", "nope"]) == 2
    err = capsys.readouterr().err
    assert "unknown profile 'nope'" in err and "claude-code" in err
