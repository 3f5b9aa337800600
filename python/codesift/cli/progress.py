"""A command's engine call waited for on a thread, so that Ctrl-C cancels it at once, with a
spinner on a terminal when it takes more than a moment."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    from rich.console import Console

    T = TypeVar("T")

# A spinner appears on a terminal when a scan takes longer than this (seconds).
PROGRESS_AFTER_SECONDS = float(os.environ.get("CODESIFT_PROGRESS_AFTER", "0.3"))

#: How long Ctrl-C waits for a cancelled engine call to wind down (it stops within
#: milliseconds; an index build then removes its temporary file).
CANCEL_GRACE_SECONDS = 10.0


def with_progress(console: Console | None, label: str, work: Callable[[], T]) -> T:
    """Runs `work` on a thread under its own `CallControl`, so that Ctrl-C cancels the
    engine's walk, search or build at once instead of waiting for the call to return (the
    main thread waits and handles the signal; KeyboardInterrupt then ends the command with
    exit 130, once the cancelled call has unwound). On a terminal, shows a spinner if it
    takes more than a moment."""
    import threading

    from ..control.call import CallControl, controlling

    outcome: dict[str, Any] = {}
    control = CallControl()
    # The wait is on an event of ours, never on `Thread.join`: on Python < 3.12 a join that
    # Ctrl-C interrupts marks the thread as ended while it still runs, and the next join
    # returns at once, so the command would exit while the call unwinds (killing it before
    # an index build removed its temporary file).
    finished = threading.Event()
    # Decides, with the cancel, whether the call runs at all: Ctrl-C may arrive before the
    # thread starts, while it starts, or after.
    gate = threading.Lock()
    began: list[bool] = []

    def run() -> None:
        try:
            with gate:
                if control.cancelled:
                    return
                began.append(True)
            with controlling(control):
                outcome["value"] = work()
        except BaseException as exc:  # re-raised in the caller's thread
            outcome["error"] = exc
        finally:
            finished.set()

    thread = threading.Thread(target=run, daemon=True)
    try:
        thread.start()
        if not finished.wait(PROGRESS_AFTER_SECONDS):
            if console is None or not sys.stderr.isatty():
                while not finished.wait(0.05):
                    pass
            else:
                from rich.console import Console

                with Console(stderr=True).status(label):
                    while not finished.wait(0.05):
                        pass
    except KeyboardInterrupt:
        control.cancel()
        with gate:
            running = bool(began)
        if running:
            finished.wait(CANCEL_GRACE_SECONDS)
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
