"""The MCP server: a `Toolbox`'s tools over MCP with the official `mcp` SDK.

Protocol: 2026-07-28 (the newest revision the SDK speaks), and the handshake revisions
2024-11-05 .. 2025-11-25 for older clients; the SDK negotiates which.

- `tools/list`: each tool with its title, input and output schemas and annotations (see
  `annotations`). `tools/call`: the model-facing text as text content, the JSON-ready data
  as structured content (valid against the output schema), and a `resource_link` to the
  spill file when the text was cut to a preview.
- Progress: when the call carries a progress token, `notifications/progress` at the start,
  every `PROGRESS_INTERVAL` seconds while the count grows (files searched or walked, files
  indexed, hosts answered) and once more at the end.
- Cancellation: `notifications/cancelled` cancels the call's `CancelToken`, which the engine's
  walker and searchers check between directories and files; the handler waits for the
  engine call to return (milliseconds) so that no thread goes on scanning. A patch cancelled
  before its writes start writes nothing; one whose writes had started is applied whole, and
  its result (and the server's log) says that the cancel came too late.
- Resources: the spill files of this server's results, and nothing else (see `resources`).

The workspace, and so the searchResultId cache, lives as long as the server.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import anyio
from mcp import types
from mcp.server.lowlevel import Server

from .. import __version__
from ..control.call import CallControl, controlling
from ..errors import CodesiftError
from ..text.escapes import json_safe
from ..tools import Toolbox, ToolResult
from ..tools.registry import get_profile
from .annotations import describe, tool_annotations
from .resources import SpillResources

log = logging.getLogger("codesift.mcp")

#: Seconds between progress notifications while a call runs.
PROGRESS_INTERVAL = 0.1
#: Seconds a cancelled call waits at most for the engine to return (it stops in
#: milliseconds; only an index build, which is never cut short, can take longer).
STOP_WAIT = 10.0

#: The `codesift` profile's instructions (each profile brings its own: `Profile.instructions`).
INSTRUCTIONS = get_profile("codesift").instructions

T = TypeVar("T")


class CodesiftMCP:
    """The handlers of codesift's MCP server over one toolbox."""

    def __init__(self, toolbox: Toolbox, *, spills: SpillResources | None = None) -> None:
        self.toolbox = toolbox
        self.spills = (
            spills if spills is not None else SpillResources(reader=toolbox.output.spills.read)
        )
        self._index_lock = threading.Lock()
        self._index_checked = False

    def server(self) -> Server[Any]:
        return Server(
            "codesift",
            version=__version__,
            title="codesift",
            instructions=self.toolbox.profile.instructions,
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
            on_list_resources=self.list_resources,
            on_read_resource=self.read_resource,
        )

    # -- tools ---------------------------------------------------------------------------

    def tool(self, name: str) -> types.Tool:
        schema = self.toolbox.input_schema(name)
        notes = tool_annotations(name, schema, remote=self.toolbox.remote is not None)
        return types.Tool(
            name=name,
            title=notes.title,
            description=self.toolbox.description(name),
            input_schema=schema,
            output_schema=self.toolbox.output_schema(name),
            annotations=notes,
        )

    async def list_tools(
        self, ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[self.tool(name) for name in self.toolbox.names])

    async def call_tool(
        self, ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        control = CallControl()
        canonical = self.toolbox.resolve_name(params.name) or params.name
        searches = any(describe(n)[1].searches_contents for n in (canonical, params.name))
        # Sent only when the client asked (report_progress is a no-op otherwise; an
        # in-process client asks without a token on the wire).
        progress = _ProgressSender(ctx, control)

        def call() -> ToolResult:
            with controlling(control):
                if searches:
                    self._build_index_if_wanted(control)
                return self.toolbox.call(params.name, params.arguments)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(progress.run)
            try:
                result = await _run_cancellable(call, control, params.name)
            finally:
                tasks.cancel_scope.cancel()
        await progress.send()
        content: list[types.ContentBlock] = [types.TextContent(type="text", text=result.text)]
        spill = (result.data or {}).get("spill_file")
        if spill and not result.is_error:
            content.append(self.spills.add(spill, canonical))
        return types.CallToolResult(
            content=content,
            # JSON over the wire cannot carry a lone surrogate (a non-UTF-8 file name), so
            # such names are escaped here as in the text (t\xff.txt); tools accept that form.
            structured_content=json_safe(result.data),
            is_error=result.is_error,
        )

    def _build_index_if_wanted(self, control: CallControl) -> None:
        """With `index=True` (`--index`), the first search builds the index; built here
        instead, it reports its progress. Runs once per server."""
        with self._index_lock:
            if self._index_checked:
                return
            workspace = self.toolbox.workspace
            try:
                status = workspace.index_status()
                if status.get("mode") == "on" and not status.get("exists"):
                    workspace.index_build(
                        lambda done, total: control.report("files indexed", done, total)
                    )
            except CodesiftError as exc:
                # The search itself will build it (or scan) and report any failure.
                log.warning("could not build the index before the first search: %s", exc)
            self._index_checked = True

    # -- resources -------------------------------------------------------------------------

    async def list_resources(
        self, ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return self.spills.list()

    async def read_resource(
        self, ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        return self.spills.read(str(params.uri))


def build_server(toolbox: Toolbox) -> Server[Any]:
    """An MCP server exposing `toolbox`'s tools and the spill files of their results."""
    return CodesiftMCP(toolbox).server()


class _ProgressSender:
    """Sends a call's progress: at the start, then whenever its count has grown."""

    def __init__(self, ctx: Any, control: CallControl) -> None:
        self._ctx = ctx
        self._control = control
        self._last: int | None = None

    async def send(self) -> None:
        now = self._control.snapshot()
        if self._last is not None and now.done <= self._last:
            return
        self._last = now.done
        try:
            await self._ctx.session.report_progress(now.done, now.total, now.message)
        except Exception as exc:  # a notification that cannot be sent must not fail the call
            log.debug("progress notification not sent: %s", exc)

    async def run(self) -> None:
        await self.send()
        while True:
            await anyio.sleep(PROGRESS_INTERVAL)
            await self.send()


async def _run_cancellable(fn: Callable[[], T], control: CallControl, name: str) -> T:
    """Runs `fn` in a worker thread (the engine releases the GIL, so the event loop stays
    responsive). If the call is cancelled meanwhile, the engine is told to stop through the
    control's token, and this waits until it has (so that no thread goes on scanning)."""
    started, finished = threading.Event(), threading.Event()
    outcome: list[T] = []

    def work() -> T:
        started.set()
        try:
            result = fn()
            outcome.append(result)
            return result
        finally:
            finished.set()

    try:
        return await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
    except anyio.get_cancelled_exc_class():
        control.cancel()
        if started.is_set():
            with anyio.CancelScope(shield=True):
                stopped = await anyio.to_thread.run_sync(finished.wait, STOP_WAIT)
            token = control.token
            data = getattr(outcome[0], "data", None) if outcome else None
            if isinstance(data, dict) and data.get("cancelled_after_commit"):
                # The cancel came after the files were written: they stay written.
                log.warning(
                    "%s cancelled after it had written its changes: %s", name, data.get("summary")
                )
            log.info(
                "%s cancelled: the engine %s after %d files searched (%d walked)",
                name,
                "stopped" if stopped else f"had not stopped within {STOP_WAIT:g}s",
                token.files_searched,
                token.files_walked,
            )
        raise


__all__ = ["INSTRUCTIONS", "CodesiftMCP", "build_server"]
