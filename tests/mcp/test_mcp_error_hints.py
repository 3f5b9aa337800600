"""What an error says to do over MCP: the served profile's words (only the called tool's
parameters and the profile's tools), with its line breaks, through a real `codesift mcp`
process driven by the SDK's client."""

from __future__ import annotations

import anyio
from mcp import Client
from mcp_helpers import server_params


def test_claude_codes_tools_over_mcp_advise_only_their_own_parameters(tree):
    root = tree({"a.py": "def f():\n    x  =\t1\n    x  =\t1\n"})

    async def session() -> tuple[str, str, str]:
        async with Client(server_params(root, "--profile", "claude-code")) as client:
            grep = await client.call_tool("Grep", {"pattern": "f("})
            missing = await client.call_tool(
                "Edit", {"file_path": "a.py", "old_string": "y = 2", "new_string": "z"}
            )
            several = await client.call_tool(
                "Edit", {"file_path": "a.py", "old_string": "x  =\t1", "new_string": "z"}
            )
            assert grep.is_error and missing.is_error and several.is_error
            return grep.content[0].text, missing.content[0].text, several.content[0].text

    grep, missing, several = anyio.run(session)
    assert "    f(\n     ^\n" in grep and "literal" not in grep, grep
    assert grep.endswith("\nEscape special characters with \\.</tool_use_error>"), grep
    assert "     2\t    x  =\t1\n" in missing, f"expected the region verbatim, got {missing!r}"
    assert "read the region first with Read" in missing, missing
    assert "pass replace_all=true to change every one." in several, several
    assert "search_result_id" not in several, several
