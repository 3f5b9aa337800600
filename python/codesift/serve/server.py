"""Running `codesift serve`: bind the socket (so the real port is known before anything is
printed: `--port 0` picks a free one), build the app, print the URL with its token, and
serve with uvicorn — in the foreground, or in a thread (tests, notebooks)."""

from __future__ import annotations

import socket
import sys
import threading
import time
import webbrowser
from typing import Any, TextIO

import uvicorn

from ..errors import CodesiftError, InvalidArgumentError
from ..workspace import Workspace
from .app import Service, create_app
from .connections import connection_bound, protocol, quiet_accept_errors
from .limits import Limits
from .security import MAX_BODY_BYTES, Guard, is_loopback, new_token

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
START_TIMEOUT_SECONDS = 30.0


class Server:
    """An HTTP server over one Workspace: bound at construction, serving after `run()` (which
    blocks) or `start()` (a background thread; `stop()` ends it)."""

    def __init__(
        self,
        workspace: Workspace,
        *,
        host: str = DEFAULT_HOST,
        port: int = DEFAULT_PORT,
        token: str | None = None,
        read_only: bool = False,
        profile: str | None = None,
        max_body_bytes: int = MAX_BODY_BYTES,
        limits: Limits | None = None,
    ) -> None:
        if token is not None and (not token.strip() or any(c.isspace() for c in token)):
            raise InvalidArgumentError("--token must be a non-empty string without spaces")
        self.socket = _bind(host, port)
        self.port: int = self.socket.getsockname()[1]
        self.guard = Guard(host, self.port, token or new_token())
        self.service = Service(
            workspace,
            self.guard,
            read_only=read_only,
            profile=profile,
            max_body_bytes=max_body_bytes,
            limits=limits,
        )
        bounds = self.service.limits
        quiet_accept_errors()
        config = uvicorn.Config(
            create_app(self.service),
            http=protocol(bounds.head_seconds, connection_bound(bounds.connections)),
            lifespan="off",
            log_level="warning",
            access_log=False,
            server_header=False,
            date_header=False,
        )
        self._uvicorn = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    @property
    def token(self) -> str:
        return self.guard.token

    @property
    def url(self) -> str:
        """The base URL (`http://127.0.0.1:PORT/`)."""
        return self.guard.url()

    @property
    def page_url(self) -> str:
        """The page's URL with the token, as printed at start."""
        return self.guard.url(with_token=True)

    def banner(self) -> str:
        service = self.service
        header = f"the header 'Authorization: Bearer {self.token}'"
        if service.read_only:
            # No token lets a read-only server write: the banner does not promise it.
            mode, page = "read-only", "it searches and reads; nothing can be edited"
            rule = "read-only: requests that write are refused"
            if not self.guard.loopback:
                rule += f"; every request needs {header}"
        else:
            mode, page = "read-write", "the token in the URL lets it edit files"
            rule = f"requests that write need {header}"
        lines = [
            f"codesift serve: {service.workspace.root} ({mode}, profile "
            f"{service.profile or 'codesift'})",
            f"Open the page ({page}):",
            f"    {self.page_url}",
            f"API: GET /api/tools, POST /api/tools/{{name}}, POST /api/agent; {rule}.",
        ]
        if not self.guard.loopback:
            lines.append(
                f"warning: listening on {self.guard.host}, beyond this machine: every API "
                "request needs the token; prefer --host 127.0.0.1 and an SSH tunnel."
            )
        lines.append("Press Ctrl-C to stop.")
        return "\n".join(lines)

    def run(self, *, open_browser: bool = False, out: TextIO | None = None) -> None:
        """Prints the banner and serves until Ctrl-C (or `stop()`)."""
        print(self.banner(), file=out or sys.stdout, flush=True)
        if open_browser:
            threading.Timer(0.3, webbrowser.open, [self.page_url]).start()
        self._uvicorn.run(sockets=[self.socket])

    def start(self) -> Server:
        """Serves in a daemon thread; returns once requests are answered."""
        self._thread = threading.Thread(
            target=self._uvicorn.run, kwargs={"sockets": [self.socket]}, daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while not self._uvicorn.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise CodesiftError("the HTTP server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self._uvicorn.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        self.socket.close()


def _bind(host: str, port: int) -> socket.socket:
    if not isinstance(port, int) or not 0 <= port <= 65535:
        raise InvalidArgumentError(f"--port must be 0..65535 (0: any free port), not {port!r}")
    try:
        infos = socket.getaddrinfo(host or "0.0.0.0", port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise InvalidArgumentError(f"cannot resolve --host {host!r}: {exc}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        # Listening now (not when uvicorn starts) lets a client that read the banner connect
        # at once: its connection waits in the backlog until the server accepts it.
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        hint = (
            "; pick another --port (0 picks a free one)"
            if exc.errno in (98, 48)  # EADDRINUSE on Linux, macOS
            else ""
        )
        raise CodesiftError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}{hint}"
        ) from None
    return sock


def serve(workspace: Workspace, *, open_browser: bool = False, **options: Any) -> None:
    """`codesift serve`: a `Server` (`options`: its own) serving until Ctrl-C."""
    Server(workspace, **options).run(open_browser=open_browser)


__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "Server", "is_loopback", "serve"]
