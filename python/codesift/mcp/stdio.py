"""The stdio transport: one JSON-RPC message per line on stdin/stdout, logs on stderr.

A line the SDK's stdio transport cannot read (not JSON, nested deeper than its parser allows,
a lone surrogate escape such as `"\\ud800"`, or JSON that is not a JSON-RPC message) reaches
the server as an exception, which the SDK only logs: the client would wait forever. Such
lines are answered here with a JSON-RPC error (-32700 parse error, -32600 invalid request),
carrying the request's id when it can still be read, else `null`; the connection stays open.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pydantic
from anyio.streams.memory import MemoryObjectSendStream
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from ..text.escapes import escape_surrogates

#: Longest part of a parser's message quoted in an error reply.
MAX_DETAIL_CHARS = 300


async def serve_stdio(server: Server[Any]) -> None:
    """Serves `server` over stdin/stdout until the client closes stdin."""
    async with stdio_server() as (read_stream, write_stream):
        send_inbound, inbound = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_answer_unreadable, read_stream, send_inbound, write_stream)
            await server.run(inbound, write_stream, server.create_initialization_options())


async def _answer_unreadable(
    source: Any,
    inbound: MemoryObjectSendStream[SessionMessage | Exception],
    replies: Any,
) -> None:
    """Passes readable messages on to the server and answers each unreadable line with a
    JSON-RPC error itself (the SDK would drop it without a reply)."""
    async with inbound:
        async for item in source:
            if not isinstance(item, Exception):
                await inbound.send(item)
                continue
            reply = unreadable_reply(item)
            if reply is None:
                continue
            try:
                await replies.send(SessionMessage(reply))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                return  # the server has shut down


def unreadable_reply(exc: Exception) -> types.JSONRPCError | None:
    """The JSON-RPC error answering a line the transport could not read (None for a blank
    line, which is no message at all)."""
    errors = exc.errors() if isinstance(exc, pydantic.ValidationError) else []
    if not errors:
        return _error_reply(
            None,
            types.PARSE_ERROR,
            f"Parse error: the line could not be read ({type(exc).__name__}); send one "
            "JSON-RPC message per line",
        )
    first = errors[0]
    if first.get("type") == "json_invalid":
        raw = first.get("input")
        if isinstance(raw, bytes | bytearray):
            raw = raw.decode("utf-8", "replace")
        if isinstance(raw, str) and not raw.strip():
            return None
        detail = str(first.get("msg", "invalid JSON")).removeprefix("Invalid JSON: ")
        return _error_reply(
            _request_id(_loads(raw) if isinstance(raw, str) else None),
            types.PARSE_ERROR,
            f"Parse error: {detail[:MAX_DETAIL_CHARS]}. Send one JSON-RPC message per line, as "
            "UTF-8 JSON nested less than 200 levels deep, without lone surrogate escapes "
            "such as \\ud800",
        )
    where = ".".join(str(part) for part in first.get("loc", ())[1:]) or "message"
    detail = f"{where}: {first.get('msg', 'invalid')}"
    # The message itself is the input of an error about it as a whole (a wrong type) or
    # about one of its fields being missing.
    whole = [
        e.get("input")
        for e in errors
        if len(e.get("loc", ())) == 1 or (e.get("type") == "missing" and len(e["loc"]) == 2)
    ]
    return _error_reply(
        next((i for i in map(_request_id, whole) if i is not None), None),
        types.INVALID_REQUEST,
        f"Invalid request: not a JSON-RPC 2.0 message ({detail[:MAX_DETAIL_CHARS]}); send an "
        'object such as {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}',
    )


def _loads(raw: str) -> Any:
    """`raw` parsed by Python's JSON reader (which takes some lines the SDK's refuses), or
    None."""
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return None


def _request_id(message: object) -> str | int | None:
    """The id of a request that could not be served, when it can be told, so that the client
    waiting for it gets its answer; else None (JSON null)."""
    if not isinstance(message, dict):
        return None
    found = message.get("id")
    if isinstance(found, bool) or not isinstance(found, str | int):
        return None
    if isinstance(found, str) and escape_surrogates(found) != found:
        return None  # cannot be written back
    if isinstance(found, int) and not -(2**63) <= found < 2**63:
        return None
    return found


def _error_reply(request_id: str | int | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(
        jsonrpc="2.0",
        id=request_id,
        error=types.ErrorData(code=code, message=escape_surrogates(message)),
    )
