"""Child processes a test starts and never leaves behind."""

from __future__ import annotations

import json
import subprocess
import sys
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


def python_json(script: str, *args: str, timeout: float = 600) -> Any:
    """What `script`, run by this Python in a child process with `args` as `sys.argv[1:]`,
    printed as JSON; its exit status must be 0 (its stderr is shown when not)."""
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    print("stdout:", done.stdout, "stderr:", done.stderr[-2000:])
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)
