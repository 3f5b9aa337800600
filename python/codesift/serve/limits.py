"""How much `codesift serve` runs at once, and for how long.

Each kind of work has its own pool of slots, so no kind can starve another: reads (tool calls
that change nothing, and the agent's commands), edits (one at a time: the Workspace
serialises edits of a file, and one pool keeps a stuck edit from piling up threads),
previews with the token, and previews without it (one at a time, the shortest bound).

A slot is taken before the work starts on a worker thread and given back by that thread when
the work ends, not when the answer is sent: a call answered "timed out" whose thread still
runs (an edit or preview waiting for a file another process has locked cannot be
interrupted) keeps its slot, so a flood of slow requests ends in refusals, never in more
threads. A request that finds its pool full waits a little (`wait_seconds`; previews do not
wait), then is refused with a JSON answer saying to retry.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import anyio

#: How often a request waiting for a slot looks again.
POLL_SECONDS = 0.02


@dataclass(frozen=True)
class Limits:
    """The bounds of one server (seconds; `None`: no time bound)."""

    #: Reads (and the agent's commands) running at once.
    calls: int = 8
    #: Edits running at once (more than one only helps edits of different files).
    writes: int = 1
    #: Previews with the token running at once.
    previews: int = 2
    #: Previews without the token running at once.
    anonymous_previews: int = 1
    #: A read or search is cancelled (through its CancelToken) after this long.
    call_seconds: float | None = 120.0
    #: A preview with the token is answered "timed out" after this long.
    preview_seconds: float | None = 30.0
    #: A preview without the token is answered "timed out" after this long.
    anonymous_preview_seconds: float | None = 5.0
    #: How long a read or edit waits for a free slot before it is refused.
    wait_seconds: float = 10.0
    #: A connection whose request head has not arrived whole this long after it was opened
    #: (or after its previous answer) is closed.
    head_seconds: float = 10.0
    #: A request body that has not arrived whole this long after its head is answered 408.
    body_seconds: float = 30.0
    #: Connections open at once (fewer when the descriptor limit is low); one more closes
    #: the one waiting longest for a request head.
    connections: int = 512


class Slots:
    """At most `size` pieces of work at once; thread-safe (given back from worker threads)."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"a pool needs at least one slot, not {size}")
        self._free = size
        self._lock = threading.Lock()

    def try_take(self) -> bool:
        with self._lock:
            if self._free == 0:
                return False
            self._free -= 1
            return True

    async def take(self, wait: float) -> bool:
        """Takes a slot, waiting up to `wait` seconds (without holding a thread)."""
        deadline = time.monotonic() + wait
        while not self.try_take():
            if time.monotonic() >= deadline:
                return False
            await anyio.sleep(POLL_SECONDS)
        return True

    def give_back(self) -> None:
        with self._lock:
            self._free += 1


__all__ = ["Limits", "Slots"]
