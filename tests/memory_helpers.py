"""Peak memory of a search, measured in a child process of its own (its high-water mark,
`VmHWM`, is that search's alone)."""

from __future__ import annotations

from pathlib import Path

from processes import python_json

_PREAMBLE = r"""
import json, sys
from codesift import Workspace

def peak_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise SystemExit("no VmHWM")
"""


def peak(search: str, root: Path) -> dict:
    """What `search` printed (a JSON object): Python run in a child process with the tree's
    root as `sys.argv[1]`, `Workspace` imported and `peak_kib()` (the process's peak RSS in
    KiB) defined."""
    return python_json(_PREAMBLE + search, str(root))
