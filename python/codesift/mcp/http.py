"""The Streamable HTTP transport: `codesift mcp --http 127.0.0.1:PORT` serves the MCP endpoint
at `http://127.0.0.1:PORT/mcp`.

The workspace is readable and writable through it, so it is for local clients only:
- it binds loopback addresses only (127.0.0.0/8, ::1, localhost) unless the caller passes
  `allow_non_loopback` (the CLI's `--allow-non-loopback`);
- a request with an `Origin` header that is not a loopback origin (nor one of
  `allowed_origins`) is refused with 403 before it reaches the MCP layer: a web page the
  user visits cannot drive the server (the spec's MUST against DNS rebinding);
- the `Host` header must name a loopback host or the bound address (421 otherwise; the SDK's
  DNS-rebinding check).
"""

from __future__ import annotations

import ipaddress
import json
import socket
import sys
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

import anyio
from mcp.server.lowlevel import Server
from mcp.server.transport_security import TransportSecuritySettings

from ..errors import InvalidArgumentError

MCP_PATH = "/mcp"
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")


def parse_bind(text: str) -> tuple[str, int]:
    """`HOST:PORT` (`[::1]:PORT` for IPv6; PORT 0 picks a free port) as `(host, port)`."""
    host, sep, port_text = text.rpartition(":")
    if not sep or not host or not port_text.isdigit() or int(port_text) > 65535:
        raise InvalidArgumentError(
            f"--http takes HOST:PORT such as 127.0.0.1:8765 (or [::1]:8765), not {text!r}"
        )
    return host.removeprefix("[").removesuffix("]"), int(port_text)


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_bind(host: str, *, allow_non_loopback: bool) -> None:
    if is_loopback(host) or allow_non_loopback:
        return
    raise InvalidArgumentError(
        f"refusing to serve MCP on {host}: the endpoint reads and writes the workspace, so "
        "it binds loopback addresses only (127.0.0.1, ::1, localhost). Use 127.0.0.1, or pass "
        "--allow-non-loopback if other machines may really use it"
    )


def origin_allowed(origin: str, extra: Iterable[str] = ()) -> bool:
    """Whether a request from `origin` may use the endpoint: a loopback origin (any scheme
    http/https, any port) or one listed in `extra`."""
    if origin in extra:
        return True
    try:
        parts = urlsplit(origin)
        host = parts.hostname
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and host is not None and is_loopback(host)


class OriginGuard:
    """ASGI middleware answering 403 to a request whose `Origin` is not allowed."""

    def __init__(self, app: Any, allowed_origins: Iterable[str] = ()) -> None:
        self.app = app
        self.allowed = tuple(allowed_origins)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            origins = [v for k, v in scope.get("headers", ()) if k.lower() == b"origin"]
            for raw in origins:
                origin = raw.decode("latin-1")
                if not origin_allowed(origin, self.allowed):
                    await _forbidden(send, origin)
                    return
        await self.app(scope, receive, send)


async def _forbidden(send: Any, origin: str) -> None:
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": None,
            "error": {
                "code": -32000,
                "message": (
                    f"Forbidden: requests from origin {origin[:200]!r} are refused; this MCP "
                    "endpoint serves local clients only (start the server with "
                    "--allow-origin ORIGIN to trust that origin)"
                ),
            },
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 403,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def build_app(
    server: Server[Any], host: str, port: int, *, allowed_origins: Iterable[str] = ()
) -> Any:
    """The ASGI app: the SDK's Streamable HTTP app behind the Origin guard."""
    hosts = {"127.0.0.1", "localhost", "[::1]", f"[{host}]" if ":" in host else host}
    origins = tuple(allowed_origins)
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{h}:*" for h in sorted(hosts)] + sorted(hosts),
        allowed_origins=[
            *(f"{scheme}://{h}:*" for scheme in ("http", "https") for h in sorted(hosts)),
            *(f"{scheme}://{h}" for scheme in ("http", "https") for h in sorted(hosts)),
            *origins,
        ],
    )
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH, transport_security=security, host=host
    )
    return OriginGuard(app, origins)


def serve_http(
    server: Server[Any],
    bind: str,
    *,
    allow_non_loopback: bool = False,
    allowed_origins: Iterable[str] = (),
) -> None:
    """Serves `server` over Streamable HTTP on `bind` (`HOST:PORT`) until interrupted. The
    URL is printed on stderr once the socket listens (with the real port when PORT is 0)."""
    import uvicorn

    host, port = parse_bind(bind)
    check_bind(host, allow_non_loopback=allow_non_loopback)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise InvalidArgumentError(f"cannot listen on {bind}: {exc.strerror}") from None
    sock.listen(128)
    port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    app = build_app(server, host, port, allowed_origins=allowed_origins)
    # Slow or silent clients are bounded as for `codesift serve` (its request-head deadline
    # and connection bound; streams already answering are never closed).
    from ..serve.connections import connection_bound, protocol, quiet_accept_errors
    from ..serve.limits import Limits

    bounds = Limits()
    quiet_accept_errors()
    config = uvicorn.Config(
        app,
        http=protocol(bounds.head_seconds, connection_bound(bounds.connections)),
        log_level="warning",
        lifespan="on",
        access_log=False,
    )
    print(f"codesift mcp: serving http://{shown}:{port}{MCP_PATH}", file=sys.stderr, flush=True)
    anyio.run(uvicorn.Server(config).serve, [sock])


__all__ = ["OriginGuard", "build_app", "check_bind", "origin_allowed", "parse_bind", "serve_http"]
