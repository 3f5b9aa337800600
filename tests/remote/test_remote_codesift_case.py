"""Strategy "codesift" runs the host's `codesift grep`, whose command line is case-sensitive
by default (ripgrep's habit): the strategy must say `-i` for the library's case-insensitive
search, or a remote search would silently find less than a local one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from remote_helpers import grep_query
from trees import write_tree

from codesift import Workspace
from codesift.remote.codesift_strategy import CodesiftStrategy
from codesift.remote.host_specs import HostSpec
from codesift.remote.paths import RemoteRoot
from codesift.remote.scripts import ShellScripts


class LocalShell:
    """Runs a host script with the local `sh`, as ssh would run it on a host."""

    def run(self, spec: HostSpec, script: str, *, timeout: float | None = None):
        return subprocess.run(
            ["sh", "-s"], input=script.encode(), capture_output=True, check=False, timeout=120
        )


def test_codesift_strategy_keeps_the_librarys_case_insensitive_default(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.py": "HELLO = 1\nhello()\n"})
    strategy = CodesiftStrategy(
        LocalShell(),  # type: ignore[arg-type]
        HostSpec("here", "here"),
        ShellScripts(RemoteRoot(str(tmp_path))),
        [sys.executable, "-m", "codesift"],
    )
    local = [(m.file, m.line) for m in Workspace(tmp_path).grep("hello").matches]
    folded = strategy.grep(grep_query("hello", case_sensitive=False))
    got = [(h.file, h.line) for h in folded.hits]
    assert got == local == [("a.py", 1), ("a.py", 2)], f"expected {local}, got {got}"
    exact = strategy.grep(grep_query("hello", case_sensitive=True))
    assert [(h.file, h.line) for h in exact.hits] == [("a.py", 2)], exact.hits
