"""The MCP server: codesift's tools over stdio, with the official `mcp` SDK.

Each tool result carries the model-facing text as text content and the JSON-ready data as
structured content (checked against the tool's output schema by clients). The workspace,
and so the searchResultId cache, lives as long as the server.
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from . import __version__
from .escapes import json_safe
from .tools import Toolbox

INSTRUCTIONS = (
    "Search with grep_search, then change a hit with edit {search_result_id, new_string}: it "
    "replaces exactly what the search found. glob_search finds files, read_file reads them, "
    "list_dir lists a directory, write_file writes a whole file. Paths are relative to the "
    "workspace root."
)


def build_server(toolbox: Toolbox) -> Server[Any]:
    """An MCP server exposing `toolbox`'s tools."""

    async def list_tools(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=name,
                    description=toolbox.description(name),
                    input_schema=toolbox.input_schema(name),
                    output_schema=toolbox.output_schema(name),
                )
                for name in toolbox.names
            ]
        )

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        # The engine releases the GIL; a worker thread keeps the event loop responsive.
        result = await anyio.to_thread.run_sync(toolbox.call, params.name, params.arguments)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=result.text)],
            # JSON over the wire cannot carry a lone surrogate (a non-UTF-8 file name), so
            # such names are escaped here as in the text (t\xff.txt); tools accept that form.
            structured_content=json_safe(result.data),
            is_error=result.is_error,
        )

    return Server(
        "codesift",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve_stdio(toolbox: Toolbox) -> None:
    server = build_server(toolbox)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def run(toolbox: Toolbox) -> None:
    """Serves `toolbox` over stdio until the client closes the connection."""
    anyio.run(serve_stdio, toolbox)
