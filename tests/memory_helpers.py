"""Peak memory of a search, measured in a child process of its own (its high-water mark,
`VmHWM`, is that search's alone)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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
    proc = subprocess.run(
        [sys.executable, "-c", _PREAMBLE + search, str(root)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)
