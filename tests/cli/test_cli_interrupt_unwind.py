"""Ctrl-C ends a command only after the engine call it cancelled has unwound: an index build
removes its temporary file while it unwinds, so a command that exits first (the process
ends, taking the call's thread with it) leaves the file behind. These tests drive the CLI's
wait (`with_progress`) in this process with a stand-in for the engine call that records
whether the command had returned before the call finished unwinding."""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator

import pytest

from codesift.cli import progress
from codesift.control.current import current_token

#: Upper bound on every wait below; none is reached when the behaviour is right.
BOUND = 30.0


@pytest.fixture
def ctrl_c_raises() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt in the main thread, as in a command run from a
    terminal (a suite started in the background may run with SIGINT ignored)."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


class EngineCall:
    """Stands in for an engine call: runs until cancelled, then takes its time to unwind (as
    a build removing its temporary file does) and records whether the command returned
    meanwhile."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.returned = threading.Event()
        self.finished = threading.Event()
        self.record: dict[str, bool] = {}

    def __call__(self, before_cancel=lambda: None) -> None:
        try:
            self.entered.set()
            token = current_token()
            assert token is not None, "the call runs without a cancel token"
            before_cancel()
            self.record["cancelled"] = wait_for(lambda: token.cancelled, 10.0)
            # Unwinding takes as long as the command lets it: a command that does not wait
            # returns meanwhile.
            self.record["returned while unwinding"] = self.returned.wait(2.0)
        finally:
            self.finished.set()

    def outcome(self) -> dict[str, bool]:
        self.returned.set()
        assert self.finished.wait(BOUND), "the engine call never finished"
        return self.record


def wait_for(condition, bound: float = BOUND) -> bool:
    done = threading.Event()
    for _ in range(int(bound / 0.001)):
        if condition():
            return True
        done.wait(0.001)
    return False


def main_thread_waits_on_the_call() -> bool:
    """Whether the main thread is blocked in a `threading` wait other than `Thread.start`
    (i.e. in the command's wait for the call)."""
    frame = sys._current_frames().get(threading.main_thread().ident)
    if frame is None or frame.f_code.co_filename != threading.__file__:
        return False
    names = []
    while frame is not None:
        names.append(frame.f_code.co_name)
        frame = frame.f_back
    return "start" not in names and "with_progress" in names


EXPECTED = {"cancelled": True, "returned while unwinding": False}


def test_ctrl_c_while_waiting_returns_after_the_cancelled_call_unwound(ctrl_c_raises):
    call = EngineCall()

    def interrupt_once_the_command_waits() -> None:
        assert wait_for(main_thread_waits_on_the_call), "the command never waited"
        os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        progress.with_progress(None, "working", lambda: call(interrupt_once_the_command_waits))
    actual = call.outcome()
    assert actual == EXPECTED, f"expected {EXPECTED}, got {actual}"


def test_ctrl_c_as_the_call_starts_cancels_it_and_waits_for_it(ctrl_c_raises, monkeypatch):
    call = EngineCall()

    class InterruptedStart(threading.Thread):
        """Ctrl-C arriving after the call's thread started but before `start()` returned (a
        loaded machine runs the new thread first)."""

        def start(self) -> None:
            super().start()
            assert call.entered.wait(BOUND), "the call never started"
            raise KeyboardInterrupt

    # The CLI imports `threading` when it waits (a piped grep starts without it).
    monkeypatch.setattr(threading, "Thread", InterruptedStart)
    with pytest.raises(KeyboardInterrupt):
        progress.with_progress(None, "working", call)
    monkeypatch.undo()
    actual = call.outcome()
    assert actual == EXPECTED, f"expected {EXPECTED}, got {actual}"
