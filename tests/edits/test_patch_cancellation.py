"""A cancelled apply_patch: cancelled before its writes start, it writes nothing (through the
MCP server too); cancelled while they run, the patch stays applied whole and the result says
so."""

from __future__ import annotations

import threading
from typing import Any

import anyio
import pytest
from mcp import Client

import codesift.edits.patch as apply_module
from codesift import CancelledError, Workspace
from codesift.control.call import CallControl, controlling
from codesift.mcp import CodesiftMCP
from codesift.tools import Toolbox

PATCH = "*** Begin Patch\n*** Update File: a.txt\n@@\n-old\n+new\n*** End Patch\n"


def test_a_patch_cancelled_before_it_is_applied_writes_nothing(tree):
    root = tree({"a.txt": "old\n"})
    toolbox = Toolbox(Workspace(root))
    control = CallControl()
    control.cancel()
    with controlling(control):
        result = toolbox.call("apply_patch", {"patch": PATCH})
    assert result.is_error and result.data["error"]["type"] == "CancelledError", result
    assert "nothing was written" in result.text, result.text
    assert (root / "a.txt").read_text() == "old\n"


def test_a_cancel_during_planning_stops_before_the_writes(tree, monkeypatch):
    root = tree({"a.txt": "old\n", "b.txt": "b\n"})
    control = CallControl()
    planned = apply_module._plan

    def plan_then_cancel(*args: Any, **kwargs: Any) -> Any:
        outcome = planned(*args, **kwargs)
        control.cancel()
        return outcome

    monkeypatch.setattr(apply_module, "_plan", plan_then_cancel)
    with controlling(control), pytest.raises(CancelledError):
        Workspace(root).apply_patch(PATCH)
    assert (root / "a.txt").read_text() == "old\n"


def test_a_cancel_after_the_commit_is_reported_in_the_result(tree, monkeypatch):
    root = tree({"a.txt": "old\n"})
    toolbox = Toolbox(Workspace(root))
    control = CallControl()
    committed = apply_module.commit

    def commit_then_cancel(*args: Any, **kwargs: Any) -> None:
        committed(*args, **kwargs)
        control.cancel()

    monkeypatch.setattr(apply_module, "commit", commit_then_cancel)
    with controlling(control):
        result = toolbox.call("apply_patch", {"patch": PATCH})
    assert not result.is_error, result.text
    assert (root / "a.txt").read_text() == "new\n"
    assert result.data["cancelled_after_commit"] is True, result.data
    assert "cancelled after the files were written" in result.text, result.text


def test_a_patch_cancelled_over_mcp_before_its_commit_writes_nothing(tree, monkeypatch):
    root = tree({"a.txt": "old\n"})
    reached, release, done = threading.Event(), threading.Event(), threading.Event()
    targets = apply_module._targets
    apply_parsed = apply_module.apply_parsed

    def slow_targets(*args: Any, **kwargs: Any) -> Any:
        reached.set()
        release.wait(30)
        return targets(*args, **kwargs)

    def watched(*args: Any, **kwargs: Any) -> Any:
        try:
            return apply_parsed(*args, **kwargs)
        finally:
            done.set()

    monkeypatch.setattr(apply_module, "_targets", slow_targets)
    monkeypatch.setattr(apply_module, "apply_parsed", watched)
    toolbox = Toolbox(Workspace(root))

    async def session() -> None:
        async with Client(CodesiftMCP(toolbox).server()) as client:
            finished = []

            async def call() -> None:
                await client.call_tool("apply_patch", {"patch": PATCH})
                finished.append(True)

            with anyio.fail_after(30):
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(call)
                    await anyio.to_thread.run_sync(reached.wait, 30)
                    tasks.cancel_scope.cancel()  # the client sends notifications/cancelled
            # Let the server see the cancel before the patch goes on.
            await anyio.sleep(0.3)
            release.set()
            await anyio.to_thread.run_sync(done.wait, 30)
            assert not finished
            again = await client.call_tool("read_file", {"path": "a.txt"})
            assert "old" in again.content[0].text, again

    anyio.run(session)
    assert done.is_set()
    assert (root / "a.txt").read_text() == "old\n"
