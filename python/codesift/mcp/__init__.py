"""codesift's MCP server (`codesift mcp`): the tools over stdio or Streamable HTTP with the
official `mcp` SDK. See `server` for what it serves, `stdio` and `http` for the transports,
`annotations` for the tool annotations and `resources` for the spill files."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable
from functools import partial

import anyio

from ..tools import Toolbox
from .server import INSTRUCTIONS, CodesiftMCP, build_server
from .stdio import serve_stdio, unreadable_reply


def _log_to_stderr() -> None:
    """The server's own log lines (a cancelled call, a failed index build) go to stderr,
    which both transports leave free for logs."""
    logger = logging.getLogger("codesift.mcp")
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("codesift mcp: %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False


def run(
    toolbox: Toolbox,
    *,
    http: str | None = None,
    allow_non_loopback: bool = False,
    allowed_origins: Iterable[str] = (),
) -> None:
    """Serves `toolbox` over stdio until the client closes the connection, or, with `http`
    (`HOST:PORT`), over Streamable HTTP until interrupted."""
    _log_to_stderr()
    server = build_server(toolbox)
    if http is None:
        anyio.run(partial(serve_stdio, server))
        return
    from .http import serve_http

    serve_http(server, http, allow_non_loopback=allow_non_loopback, allowed_origins=allowed_origins)


__all__ = ["INSTRUCTIONS", "CodesiftMCP", "build_server", "run", "unreadable_reply"]
