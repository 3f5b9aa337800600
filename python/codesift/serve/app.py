"""The Starlette application of `codesift serve`: the JSON API over one Workspace and its
Toolbox, and the static page.

Routes (every answer is JSON except the page; an error is `{"error": {"type", "message"}}`,
a library error's with its `problem` and `hints` apart too, with a 4xx/5xx status, never a
traceback):

- `GET  /` and `GET /static/{file}`: the page.
- `GET  /api/info`: the root, whether the server is read-only, its profile.
- `GET  /api/tools[?profile=NAME][&format=json|openai|anthropic]`: the tool schemas.
- `POST /api/tools/{name}[?profile=NAME]`: JSON arguments → `{text, data, is_error}`,
  exactly `Toolbox.call` (a tool's own failure is `is_error: true` with status 200).
- `POST /api/agent`: `{prompt, tool?, options?}` → `{tool, arguments, note, text, data,
  is_error}`, the command language of `codesift.serve.commands`.
- `POST /api/preview`: the arguments of an edit → the diff it would make, nothing written.

Concurrency (see `limits`): reads run side by side on worker threads without a global lock
(the Workspace is thread-safe for searches and its result cache locks itself); edits run one
at a time; previews have pools of their own, the one without the token a single slot. Each
kind is bounded in number and (but for edits) in time; past a bound the answer is a JSON
error (429/503), never a queue without end. A read over its time, or whose client went away,
is cancelled through the engine's CancelToken.
"""

from __future__ import annotations

import functools
import json
import sys
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any

import anyio.to_thread
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from ..control.call import CallControl, controlling
from ..errors import CodesiftError, InvalidArgumentError, first_line
from ..errors.hints import http_error_fields
from ..text.escapes import json_escape_surrogates
from ..tools import Toolbox
from ..workspace import Workspace
from .commands import TOOL_CHOICES, CommandError, plan
from .limits import Limits, Slots
from .preview import preview_edit
from .security import MAX_BODY_BYTES, MAX_READ_BODY_BYTES, Guard, read_only_tools, resolve_tool

STATIC_FILES = {
    "index.html": "text/html; charset=utf-8",
    "app.js": "text/javascript; charset=utf-8",
    "style.css": "text/css; charset=utf-8",
}
PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "X-Frame-Options": "DENY",
}
COMMON_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    # The page's first URL carries the token: never let it leave in a Referer.
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
SCHEMA_FORMATS = ("json", "openai", "anthropic")


class ApiError(Exception):
    """An HTTP error answered as `{"error": {"type", "message"}}`."""

    def __init__(self, status: int, kind: str, message: str) -> None:
        super().__init__(message)
        self.status, self.kind, self.message = status, kind, message


class JSONResponse(Response):
    """JSON with lone surrogates (non-UTF-8 file names) as `\\udcff` escapes, which
    `JSON.parse` and `json.loads` read back exactly (like the CLI's `--json`)."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        text = json.dumps(content, ensure_ascii=False, allow_nan=False)
        return json_escape_surrogates(text).encode("utf-8")


def error_response(status: int, kind: str, message: str) -> JSONResponse:
    return JSONResponse(
        {"error": {"type": kind, "message": message}}, status_code=status, headers=COMMON_HEADERS
    )


@dataclass(frozen=True)
class _Pool:
    """The slots and bounds of one kind of work, and what to answer past them."""

    slots: Slots
    seconds: float | None
    wait: float
    busy: tuple[int, str, str]
    timed_out: str


class _Claim:
    """One taken slot, given back exactly once: by the worker thread when the work ends, or
    by the request when the work never started (cancelled while waiting for a thread)."""

    def __init__(self, slots: Slots) -> None:
        self._slots = slots
        self._lock = threading.Lock()
        self._state = "taken"

    def start(self) -> bool:
        with self._lock:
            if self._state != "taken":
                return False
            self._state = "running"
            return True

    def finish(self) -> None:
        with self._lock:
            self._state = "done"
        self._slots.give_back()

    def drop_if_not_started(self) -> None:
        with self._lock:
            if self._state != "taken":
                return
            self._state = "done"
        self._slots.give_back()


class Service:
    """What the routes share for the server's lifetime: the one Workspace, the Toolbox the
    command language and the page use, a Toolbox per profile asked for (all over the same
    Workspace, so a `search_result_id` from any request works in any later one), and the
    pools that bound how much runs at once (see `limits`)."""

    def __init__(
        self,
        workspace: Workspace,
        guard: Guard,
        *,
        read_only: bool = False,
        profile: str | None = None,
        max_body_bytes: int = MAX_BODY_BYTES,
        limits: Limits | None = None,
    ) -> None:
        self.workspace = workspace
        self.guard = guard
        self.read_only = read_only
        self.max_body_bytes = max_body_bytes
        self.toolbox = Toolbox(workspace)
        self.profile = profile
        self.limits = limits = limits if limits is not None else Limits()
        self._toolboxes: dict[str | None, Toolbox] = {None: self.toolbox}
        self._toolboxes_lock = threading.Lock()
        self._pools = {
            "read": _Pool(
                Slots(limits.calls),
                limits.call_seconds,
                limits.wait_seconds,
                (
                    503,
                    "ServerBusy",
                    f"the server is already running {limits.calls} calls, its bound; retry in "
                    "a moment",
                ),
                "the call ran over {seconds:g}s and was stopped; narrow it (a path, an include "
                "glob, fewer matches) and retry",
            ),
            "write": _Pool(
                Slots(limits.writes),
                None,
                limits.wait_seconds,
                (
                    503,
                    "ServerBusy",
                    "another edit is still running (edits run one at a time; is a file locked "
                    "by another editor?); retry when it has finished",
                ),
                "",
            ),
            "preview": _Pool(
                Slots(limits.previews),
                limits.preview_seconds,
                0.0,
                (
                    429,
                    "TooManyPreviews",
                    f"{limits.previews} previews are still running, the bound; retry when one "
                    "has finished",
                ),
                "the preview ran over {seconds:g}s (is the file locked by another editor?) "
                "and was abandoned; nothing was written; retry later",
            ),
            "anonymous_preview": _Pool(
                Slots(limits.anonymous_previews),
                limits.anonymous_preview_seconds,
                0.0,
                (
                    429,
                    "TooManyPreviews",
                    "another preview without the token is still running (they run one at a "
                    "time); retry when it has finished, or send the token",
                ),
                "the preview ran over {seconds:g}s (is the file locked by another editor?) "
                "and was abandoned; nothing was written; retry later, or send the token for "
                "a longer bound",
            ),
        }
        if profile is not None:  # a bad --profile fails at start, not on first use
            try:
                self.toolbox_for(profile)
            except ApiError as exc:
                # Said as `codesift mcp --profile` says it: the reason names the profile.
                reason = exc.message.removeprefix(f"profile {profile!r}: ")
                raise InvalidArgumentError(f"--profile: {reason}") from None

    def toolbox_for(self, profile: str | None) -> Toolbox:
        """The Toolbox of a profile (None: the server's `--profile`, else the default)."""
        key = profile if profile is not None else self.profile
        with self._toolboxes_lock:
            found = self._toolboxes.get(key)
            if found is not None:
                return found
            try:
                made = Toolbox(self.workspace, profile=key or "codesift")
            except (CodesiftError, ValueError, KeyError, TypeError) as exc:
                raise ApiError(
                    400, "InvalidArgumentError", f"profile {key!r}: {first_line(exc)}"
                ) from None
            self._toolboxes[key] = made
            return made

    async def run(
        self, work: Callable[[], Any], *, kind: str = "read", request: Request | None = None
    ) -> Any:
        """Runs `work` in a worker thread (the engine releases the GIL) within the pool of
        `kind` ("read", "write", "preview", "anonymous_preview"): past the pool's size the
        request waits a little and is refused; past its time the call is cancelled (the
        CancelToken stops a search) and answered as timed out, its thread keeping the slot
        until it ends. With `request`, a client that goes away cancels a read or preview too
        (not an edit)."""
        pool = self._pools[kind]
        if not await pool.slots.take(pool.wait):
            raise ApiError(*pool.busy)
        claim = _Claim(pool.slots)
        control = CallControl()

        def job() -> Any:
            if not claim.start():
                return None
            try:
                with controlling(control):
                    return work()
            finally:
                claim.finish()

        done, gone = False, False
        result: Any = None
        failed: Exception | None = None

        async def watch(scope: anyio.CancelScope) -> None:
            nonlocal gone
            assert request is not None
            while (await request.receive())["type"] != "http.disconnect":
                pass
            gone = True
            control.cancel()
            scope.cancel()

        try:
            with anyio.move_on_after(pool.seconds):
                async with anyio.create_task_group() as tasks:
                    # An edit is not interrupted (it may be half way through a replace):
                    # only reads and previews stop when their client goes.
                    if request is not None and kind != "write":
                        tasks.start_soon(watch, tasks.cancel_scope)
                    try:
                        result = await anyio.to_thread.run_sync(job, abandon_on_cancel=True)
                    except Exception as exc:  # raised out here, not as a task group's group
                        failed = exc
                    done = True
                    tasks.cancel_scope.cancel()
        finally:
            if not done:
                control.cancel()
                claim.drop_if_not_started()
        if failed is not None:
            raise failed
        if done:
            return result
        if gone:
            raise ApiError(503, "Cancelled", "the client went away, so the call was stopped")
        raise ApiError(503, "Timeout", pool.timed_out.format(seconds=pool.seconds or 0))

    def check_write(self, request: Request, tool: str) -> None:
        if self.read_only:
            raise ApiError(
                403,
                "ReadOnlyError",
                f"{tool} changes files, and this server is read-only (started with --read-only)",
            )
        if not self.guard.token_ok(request.headers):
            raise ApiError(
                401,
                "TokenRequired",
                f"{tool} changes files and needs the server's token: send the header "
                "'Authorization: Bearer TOKEN' (or 'X-Codesift-Token: TOKEN'), TOKEN as "
                "printed by codesift serve; on the page, open the URL with ?token=",
            )


# -- routes ------------------------------------------------------------------------------------

Endpoint = Callable[[Service, Request], Awaitable[Response]]


def _endpoint(handler: Endpoint) -> Callable[[Service], Callable[[Request], Awaitable[Response]]]:
    """A route for `handler`: API errors become their JSON answer, anything unexpected a 500
    with one line (the traceback goes to the server's stderr only)."""

    def bind(service: Service) -> Callable[[Request], Awaitable[Response]]:
        @functools.wraps(handler)
        async def route(request: Request) -> Response:
            try:
                if not service.guard.loopback and not service.guard.token_ok(request.headers):
                    if request.url.path.startswith("/api/"):
                        raise ApiError(
                            401,
                            "TokenRequired",
                            "this server listens beyond this machine, so every API request "
                            "needs its token (header 'Authorization: Bearer TOKEN')",
                        )
                return await handler(service, request)
            except ApiError as exc:
                return error_response(exc.status, exc.kind, exc.message)
            except CodesiftError as exc:
                return JSONResponse(
                    {"error": http_error_fields(exc)}, status_code=400, headers=COMMON_HEADERS
                )
            except Exception as exc:
                print(f"codesift serve: unexpected error: {exc!r}", file=sys.stderr)
                return error_response(
                    500,
                    "InternalError",
                    f"unexpected {type(exc).__name__}: {first_line(exc)}; please report it",
                )

        return route

    return bind


@_endpoint
async def page(service: Service, request: Request) -> Response:
    return _static("index.html")


@_endpoint
async def static(service: Service, request: Request) -> Response:
    name = request.path_params["name"]
    if name not in STATIC_FILES:
        raise ApiError(404, "NotFound", f"no static file {name[:60]!r}")
    return _static(name)


@_endpoint
async def info(service: Service, request: Request) -> Response:
    return JSONResponse(
        {
            "root": str(service.workspace.root),
            "read_only": service.read_only,
            "profile": service.profile or "codesift",
            "tools": service.toolbox.names,
            "tool_choices": list(TOOL_CHOICES),
        },
        headers=COMMON_HEADERS,
    )


@_endpoint
async def list_tools(service: Service, request: Request) -> Response:
    fmt = request.query_params.get("format", "json")
    if fmt not in SCHEMA_FORMATS:
        raise ApiError(
            400, "InvalidArgumentError", f"format must be one of {', '.join(SCHEMA_FORMATS)}"
        )
    profile = request.query_params.get("profile") or None
    toolbox = service.toolbox_for(profile)
    schemas = toolbox.schemas(format=fmt)
    if service.read_only:
        allowed = read_only_tools(toolbox)
        schemas = [s for s in schemas if _schema_name(s) in allowed]
    return JSONResponse(
        {
            "profile": profile or service.profile or "codesift",
            "read_only": service.read_only,
            "tools": schemas,
        },
        headers=COMMON_HEADERS,
    )


@_endpoint
async def call_tool(service: Service, request: Request) -> Response:
    name = request.path_params["name"]
    toolbox = service.toolbox_for(request.query_params.get("profile") or None)
    resolved = resolve_tool(toolbox, name)
    # Known before the body is read: a search's arguments are small, so its body is capped
    # lower (checked while it arrives, not after parsing).
    reads = resolved is not None and resolved in read_only_tools(toolbox)
    limit = min(service.max_body_bytes, MAX_READ_BODY_BYTES) if reads else None
    arguments = await _read_json(service, request, default={}, limit=limit)
    if resolved is None and service.read_only:
        raise ApiError(
            404,
            "UnknownTool",
            f"unknown tool {name[:60]!r}; this read-only server has: "
            + ", ".join(sorted(read_only_tools(toolbox))),
        )
    if resolved is not None and resolved not in read_only_tools(toolbox):
        service.check_write(request, resolved)
    elif resolved is None and not hasattr(toolbox, "resolve_name"):
        service.check_write(request, name[:60])  # cannot tell what it is: treat as a write
    writes = resolved not in read_only_tools(toolbox) and (
        resolved is not None or not hasattr(toolbox, "resolve_name")
    )
    result = await service.run(
        lambda: toolbox.call(name, arguments),
        kind="write" if writes else "read",
        request=request,
    )
    return JSONResponse(result.to_dict(), headers=COMMON_HEADERS)


@_endpoint
async def agent(service: Service, request: Request) -> Response:
    body = await _read_json(service, request, default=None)
    usage = (
        'send {"prompt": "Search \'TODO\' in src", "tool": "auto"}; tool is one of '
        + ", ".join(TOOL_CHOICES)
    )
    if not isinstance(body, dict) or not isinstance(body.get("prompt"), str):
        raise ApiError(400, "InvalidArgumentError", f"prompt (a string) is required: {usage}")
    unknown = sorted(set(body) - {"prompt", "tool", "options"})
    if unknown:
        raise ApiError(
            400,
            "InvalidArgumentError",
            f"unknown field {unknown[0][:40]!r}; fields are prompt, tool, options",
        )
    tool = body.get("tool") or "auto"
    if not isinstance(tool, str) or tool.strip().lower() not in TOOL_CHOICES:
        raise ApiError(400, "InvalidArgumentError", f"tool {str(tool)[:40]!r} is unknown: {usage}")
    options = body.get("options")
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise ApiError(400, "InvalidArgumentError", "options must be a JSON object")

    def kind_of(path: str) -> str | None:
        return path_kind(service.workspace, path)

    try:
        call = await service.run(
            lambda: plan(body["prompt"], tool, kind_of=kind_of, options=options),
            request=request,
        )
    except CommandError as exc:
        message = str(exc)
        return JSONResponse(
            {
                "tool": None,
                "arguments": None,
                "note": None,
                "text": f"[tool=none] Error: {message}",
                "data": {"error": {"type": "CommandError", "message": message}},
                "is_error": True,
            },
            headers=COMMON_HEADERS,
        )
    writes = call.tool not in read_only_tools(service.toolbox)
    if writes:
        service.check_write(request, call.tool)
    result = await service.run(
        lambda: service.toolbox.call(call.tool, call.arguments),
        kind="write" if writes else "read",
        request=request,
    )
    head = f"[tool={call.tool}]" + (f" ({call.note})" if call.note else "")
    return JSONResponse(
        {
            "tool": call.tool,
            "arguments": call.arguments,
            "note": call.note,
            "text": f"{head} {result.text}",
            "data": result.data,
            "is_error": result.is_error,
        },
        headers=COMMON_HEADERS,
    )


@_endpoint
async def preview(service: Service, request: Request) -> Response:
    if service.read_only:
        raise ApiError(
            403, "ReadOnlyError", "this server is read-only: there is nothing to preview"
        )
    arguments = await _read_json(service, request, default=None)
    if not isinstance(arguments, dict):
        raise ApiError(
            400,
            "InvalidArgumentError",
            'send the edit\'s arguments as a JSON object: {"search_result_id": "sr_...", '
            '"new_string": "..."} or {"path", "old_string", "new_string"}',
        )
    try:
        data = await service.run(
            lambda: preview_edit(service.workspace, arguments),
            kind="preview" if service.guard.token_ok(request.headers) else "anonymous_preview",
            request=request,
        )
    except CodesiftError as exc:
        # What to do names the fields of an edit's JSON arguments, not a CLI's flags.
        fields = http_error_fields(exc)
        return JSONResponse(
            {
                "text": f"Error: {fields['message']}",
                "data": {"error": fields},
                "is_error": True,
            },
            headers=COMMON_HEADERS,
        )
    text = f"{data['summary']}\n{data['diff']}".rstrip()
    return JSONResponse({"text": text, "data": data, "is_error": False}, headers=COMMON_HEADERS)


# -- helpers ----------------------------------------------------------------------------------


def path_kind(workspace: Workspace, path: str) -> str | None:
    """ "dir", "file" or None (missing, or outside the sandbox), asked of the Workspace."""
    try:
        workspace.list_dir(path, limit=1)
        return "dir"
    except CodesiftError:
        pass
    try:
        return "file" if workspace.exists(path) else None
    except (CodesiftError, OSError, ValueError):
        return None


async def _read_json(
    service: Service, request: Request, *, default: Any, limit: int | None = None
) -> Any:
    """The request body as JSON, read up to the size cap (`limit`, else the server's; 413
    beyond, as soon as the declared length or the bytes received pass it; 400 if not
    JSON)."""
    search = limit is not None
    limit = service.max_body_bytes if limit is None else limit
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise _too_large(limit, search)
    body = bytearray()
    seconds = service.limits.body_seconds
    # A body trickled in (or never sent) would hold the request, and its connection, open.
    with anyio.move_on_after(seconds) as late:
        async for chunk in request.stream():
            body += chunk
            if len(body) > limit:
                raise _too_large(limit, search)
    if late.cancelled_caught:
        raise ApiError(
            408,
            "RequestTimeout",
            f"the request body did not arrive within {seconds:g}s; send it at once",
        )
    if not body.strip():
        return default
    try:
        return json.loads(bytes(body))
    except RecursionError:
        raise ApiError(
            400, "InvalidJSON", "the body is nested too deeply; send a flat object"
        ) from None
    except json.JSONDecodeError as exc:
        raise ApiError(
            400,
            "InvalidJSON",
            f"the body is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); "
            'send a JSON object such as {"pattern": "TODO"}',
        ) from None
    except ValueError:  # not UTF-8/16/32, or a number with thousands of digits
        raise ApiError(400, "InvalidJSON", "the body is not readable JSON text (UTF-8)") from None


def _too_large(limit: int, search: bool) -> ApiError:
    if search:
        advice = "a search takes a pattern and glob lists of at most 64 KiB each"
    else:
        advice = "write big files in parts, or search for less"
    return ApiError(413, "PayloadTooLarge", f"the body is over {limit} bytes; send less ({advice})")


def _static(name: str) -> Response:
    content = resources.files(__package__).joinpath("static", name).read_bytes()
    headers = dict(COMMON_HEADERS)
    if name == "index.html":
        headers.update(PAGE_HEADERS)
    return Response(content, media_type=STATIC_FILES[name], headers=headers)


def _schema_name(schema: dict[str, Any]) -> str | None:
    if "function" in schema:
        return schema["function"].get("name")
    return schema.get("name")


class GuardMiddleware:
    """Refuses a request whose `Host` is not this server's (421) or whose `Origin` is
    another site's (403), before any route sees it."""

    def __init__(self, app: ASGIApp, guard: Guard) -> None:
        self.app = app
        self.guard = guard

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = Headers(scope=scope)
            host = headers.get("host")
            response: Response | None = None
            if not self.guard.host_ok(host):
                response = error_response(
                    421,
                    "HostRejected",
                    f"the Host header {str(host)[:80]!r} does not name this server; use "
                    f"{self.guard.url()} (requests through other host names are refused "
                    "against DNS rebinding)",
                )
            elif not self.guard.origin_ok(headers.get("origin"), host):
                response = error_response(
                    403,
                    "OriginRejected",
                    f"requests from the page of another site ({headers.get('origin', '')[:80]!r})"
                    " are refused; use the page the server itself serves",
                )
            if response is not None:
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(service: Service) -> ASGIApp:
    """The ASGI application for a `Service`."""

    async def not_found(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        if status == 404:
            message = (
                "no such endpoint; see GET /api/tools, POST /api/tools/{name}, POST /api/agent"
            )
        elif status == 405:
            message = f"{request.method} is not allowed here"
        else:
            message = str(getattr(exc, "detail", "request failed"))
        return error_response(status, "HTTPError", message)

    async def crashed(request: Request, exc: Exception) -> Response:
        return error_response(500, "InternalError", "unexpected error; please report it")

    routes = [
        Route("/", page(service), methods=["GET"]),
        Route("/static/{name}", static(service), methods=["GET"]),
        Route("/api/info", info(service), methods=["GET"]),
        Route("/api/tools", list_tools(service), methods=["GET"]),
        Route("/api/tools/{name}", call_tool(service), methods=["POST"]),
        Route("/api/agent", agent(service), methods=["POST"]),
        Route("/api/preview", preview(service), methods=["POST"]),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={HTTPException: not_found, Exception: crashed},
    )
    return GuardMiddleware(app, service.guard)


__all__ = ["ApiError", "Service", "create_app", "path_kind"]
