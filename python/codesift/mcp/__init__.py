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


def _client_gone(exc: BaseException) -> bool:
    """Whether `exc` (an exception group of the stdio tasks, or one exception) holds only
    failures to write to a stdout whose reader has gone."""
    inner = getattr(exc, "exceptions", None)
    if isinstance(inner, tuple) and inner:
        return all(_client_gone(e) for e in inner)
    if isinstance(exc, anyio.BrokenResourceError | anyio.ClosedResourceError):
        return True
    return isinstance(exc, BrokenPipeError)


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
        try:
            anyio.run(partial(serve_stdio, server))
        except BaseException as exc:
            if _client_gone(exc):
                # The client closed its end of stdout: as a closed pipe ends `codesift grep`.
                raise BrokenPipeError from None
            raise
        return
    from .http import serve_http

    serve_http(server, http, allow_non_loopback=allow_non_loopback, allowed_origins=allowed_origins)


__all__ = ["INSTRUCTIONS", "CodesiftMCP", "build_server", "run", "unreadable_reply"]
