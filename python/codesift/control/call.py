"""Cancelling a running call and following its progress, without passing a token through
every layer in between.

A server (the MCP server) makes a `CallControl` current around a tool call with
`controlling(control)`; inside it, `Workspace.grep` and `Workspace.glob` use the control's
`CancelToken` when they are given none (so `control.cancel()` from another thread stops the
engine's walk and search within milliseconds, and the call raises `CancelledError`), and
slower steps report how far they got (`report`: an index build, the hosts of a remote
search). `snapshot()` combines those reports with the token's own counters into one count
that only grows, as progress notifications require.

The current control is a context variable: it belongs to the thread (or task) that set it,
so concurrent calls each see their own.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from .._core import CancelToken
from ..results.matches import plural
from .current import current, current_token, make_current, restore


@dataclass(frozen=True)
class Progress:
    """How far a call got. `done` counts units of work (a file listed by a walk, a file
    searched, a file indexed, a host that answered) and only grows; `total` is given when
    the current step knows it; `message` says what the count is made of."""

    done: int
    total: int | None
    message: str


@contextmanager
def controlling(control: CallControl) -> Iterator[CallControl]:
    """Makes `control` current for the code inside the `with` block."""
    reset = make_current(control)
    try:
        yield control
    finally:
        restore(reset)


class CallControl:
    """The cancel token and progress reports of one call."""

    def __init__(self, token: CancelToken | None = None) -> None:
        self.token = token if token is not None else CancelToken()
        self._lock = threading.Lock()
        #: Reported steps in order: name -> (done, total).
        self._steps: dict[str, tuple[int, int | None]] = {}

    def cancel(self) -> None:
        self.token.cancel()

    @property
    def cancelled(self) -> bool:
        return self.token.cancelled

    def report(self, step: str, done: int, total: int | None = None) -> None:
        """Records that `step` (e.g. "files indexed", "hosts answered") is at `done` of
        `total`. Thread-safe; a count never goes back."""
        with self._lock:
            before = self._steps.pop(step, (0, None))[0]
            self._steps[step] = (max(before, int(done)), total)

    def advance(self, step: str, total: int | None = None) -> None:
        """Counts one more unit of `step` (thread-safe)."""
        with self._lock:
            before = self._steps.pop(step, (0, None))[0]
            self._steps[step] = (before + 1, total)

    def snapshot(self) -> Progress:
        """The progress so far: the reported steps' counts plus the files the engine has
        walked and searched."""
        with self._lock:
            steps = list(self._steps.items())
        searched, walked = self.token.files_searched, self.token.files_walked
        done = sum(count for _, (count, _) in steps) + walked + searched
        total = None
        parts = []
        if steps:
            name, (count, step_total) = steps[-1]
            parts.append(f"{count} of {step_total} {name}" if step_total else f"{count} {name}")
            if step_total is not None and not (searched or walked):
                total = done - count + step_total
        if searched:
            parts.append(f"{plural(searched, 'file')} searched")
        elif walked:
            parts.append(f"{plural(walked, 'file')} walked")
        return Progress(done, total, ", ".join(parts) or "starting")


__all__ = ["CallControl", "Progress", "controlling", "current", "current_token"]
