"""Tests of the per-user index daemon run as its own process: lifecycle, security,
freshness and its clients."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from daemon_helpers import run_daemon, serving, stop, use_runtime_dir


@pytest.fixture
def socket_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's own daemon socket directory (its XDG_RUNTIME_DIR is tmp_path/run)."""
    return use_runtime_dir(monkeypatch, tmp_path / "run")


@pytest.fixture
def served(socket_dir: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A daemon of this test's own, run as a child process, answering; stopped at the end."""
    process = run_daemon()
    try:
        serving(process)
        yield process
    finally:
        stop(process)
