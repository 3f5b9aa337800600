"""Running `codesift grep` as a process, for the command line's tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def codesift_grep(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`codesift grep ARGS` in `cwd`, its output as text."""
    return subprocess.run(
        [sys.executable, "-m", "codesift", "grep", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def codesift_grep_bytes(cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    """`codesift grep ARGS` in `cwd`, its output as bytes."""
    return subprocess.run(
        [sys.executable, "-m", "codesift", "grep", *args],
        cwd=cwd,
        capture_output=True,
        timeout=120,
        check=False,
    )
