"""Child processes a test starts and never leaves behind."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any


@contextmanager
def child(argv: Sequence[str], **popen: Any) -> Iterator[subprocess.Popen[Any]]:
    """`argv` started with `popen`'s options for `subprocess.Popen`; killed and reaped when
    the block ends with it still running (a failed assertion, a timeout)."""
    process = subprocess.Popen(argv, **popen)
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
