"""Connections of `codesift serve` that cannot pile up: uvicorn's HTTP/1.1 protocol with a
deadline for each request head and a bound on open connections.

uvicorn keeps a connection open for as long as its client sends a request head slowly (or
nothing at all), and every open connection holds a descriptor: a few hundred silent
connections used up a desktop's 1024 and every other client then waited forever (the accept
failing, asyncio printing a traceback for each try). So a head must arrive whole within
`head_seconds` of the connection, or of the previous response, and at most `max_connections`
are open: one past it closes the connection that has waited longest for a head (busy ones
are never closed), or, when every one is busy, is answered 503 and closed.

A request that gives both `Content-Length` and `Transfer-Encoding` is answered 400 and its
connection closed (RFC 9112 §6.3 lets a server refuse it): h11 would read it as chunked, and
a proxy in front that read it by its length would take the rest for a second request
(request smuggling). Every 400 of the protocol layer is JSON, as the API's errors are.
"""

from __future__ import annotations

import asyncio
import json
import logging
import resource
import sys
import time
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

#: Descriptors kept for everything but connections (files searched, the index, the watch).
RESERVED_DESCRIPTORS = 256

_BUSY = json.dumps(
    {
        "error": {
            "type": "ServerBusy",
            "message": "the server has too many connections open, all of them busy; retry in "
            "a moment",
        }
    }
).encode()
_AMBIGUOUS_LENGTH = (
    "the request has both Content-Length and Transfer-Encoding, so its length is ambiguous; "
    "send one of them"
)


def _ambiguous_length(event: object) -> bool:
    if not isinstance(event, h11.Request):
        return False
    names = {name.lower() for name, _ in event.headers}
    return b"content-length" in names and b"transfer-encoding" in names


_BUSY_RESPONSE = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
    b"connection: close\r\ncontent-length: " + str(len(_BUSY)).encode() + b"\r\n\r\n" + _BUSY
)


def connection_bound(wanted: int) -> int:
    """How many connections may be open: `wanted`, less when the descriptor limit is low.
    The soft limit is raised to the hard one first (up to what `wanted` needs)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = wanted + RESERVED_DESCRIPTORS
    if soft != resource.RLIM_INFINITY and soft < need:
        raised = need if hard == resource.RLIM_INFINITY else min(need, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
        except (OSError, ValueError):
            pass
    if soft == resource.RLIM_INFINITY:
        return wanted
    reserve = min(RESERVED_DESCRIPTORS, soft // 2)
    return max(1, min(wanted, soft - reserve))


def protocol(head_seconds: float, max_connections: int) -> type[H11Protocol]:
    """uvicorn's `http` protocol class with these bounds."""

    class BoundedH11(H11Protocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._head_timer: asyncio.TimerHandle | None = None
            self.waiting_since = 0.0
            self._refusal: str | None = None
            parse = self.conn.next_event

            def checked_event() -> Any:
                # Refused as h11 refuses a malformed head: uvicorn answers 400 and closes.
                event = parse()
                if _ambiguous_length(event):
                    self._refusal = _AMBIGUOUS_LENGTH
                    raise h11.RemoteProtocolError(_AMBIGUOUS_LENGTH)
                return event

            self.conn.next_event = checked_event  # type: ignore[method-assign]

        def send_400_response(self, msg: str) -> None:
            message = self._refusal or "the request is not valid HTTP/1.1; send a well-formed one"
            body = json.dumps({"error": {"type": "BadRequest", "message": message}}).encode()
            if self.conn.our_state not in (h11.IDLE, h11.SEND_RESPONSE):
                self.transport.close()
                return
            self.transport.write(
                b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\n"
                b"connection: close\r\ncontent-length: "
                + str(len(body)).encode()
                + b"\r\n\r\n"
                + body
            )
            self.transport.close()

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if len(self.connections) > max_connections and not _evict_one(self):
                transport.write(_BUSY_RESPONSE)
                transport.close()
                return
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self.disarm_head_timer()
            super().connection_lost(exc)

        def handle_events(self) -> None:
            super().handle_events()
            if self.busy():
                self.disarm_head_timer()

        def on_response_complete(self) -> None:
            # Armed before the next pipelined request (if any) is started, which disarms it.
            self._arm()
            super().on_response_complete()

        def busy(self) -> bool:
            return self.cycle is not None and not self.cycle.response_complete

        def _arm(self) -> None:
            self.disarm_head_timer()
            self.waiting_since = self.loop.time()
            self._head_timer = self.loop.call_later(head_seconds, self._head_late)

        def disarm_head_timer(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_late(self) -> None:
            self._head_timer = None
            if not self.busy() and not self.transport.is_closing():
                self.transport.close()

    def _evict_one(newcomer: H11Protocol) -> bool:
        """Closes the connection that has waited longest for a request head."""
        idle = [
            c
            for c in newcomer.connections
            if c is not newcomer
            and isinstance(c, BoundedH11)
            and not c.busy()
            and not c.transport.is_closing()
        ]
        if not idle:
            return False
        oldest = min(idle, key=lambda c: c.waiting_since)
        oldest.disarm_head_timer()
        oldest.transport.close()
        return True

    return BoundedH11


class _AcceptErrors(logging.Filter):
    """asyncio logs a traceback for every failed `accept` (out of descriptors: thousands a
    second in a flood, as it retries): one line every 10 s says what happened instead."""

    def __init__(self) -> None:
        super().__init__()
        self._said = float("-inf")

    def filter(self, record: logging.LogRecord) -> bool:
        message = str(record.msg)
        error = record.exc_info[1] if record.exc_info else None
        if "_start_serving" in message and isinstance(error, ValueError):
            # A retry of such an accept fired after the server closed its socket: nothing
            # is wrong, asyncio only never cancels its retries.
            return False
        if not message.startswith("socket.accept() out of system resource"):
            return True
        now = time.monotonic()
        if now - self._said >= 10.0:
            self._said = now
            print(
                f"codesift serve: cannot accept a connection ({error or 'out of resources'}); "
                "connections are closed until it can; raise the limit (ulimit -n) if this "
                "goes on",
                file=sys.stderr,
                flush=True,
            )
        return False


_ACCEPT_ERRORS = _AcceptErrors()


def quiet_accept_errors() -> None:
    """Installs the one-line report of failed accepts (once per process)."""
    logger = logging.getLogger("asyncio")
    if _ACCEPT_ERRORS not in logger.filters:
        logger.addFilter(_ACCEPT_ERRORS)


__all__ = ["connection_bound", "protocol", "quiet_accept_errors"]
