"""The reduced reproductions the differential run wrote for causes that were fixed: each is a
self-contained script that exits 0 when the indexed answer equals the scan's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import codesift

REPROS = sorted((Path(__file__).parent / "repros").glob("*.py"))
PACKAGE_PARENT = str(Path(codesift.__file__).resolve().parents[1])


@pytest.mark.parametrize("script", REPROS, ids=lambda p: p.stem)
def test_reproduction_now_agrees_with_the_scan(script: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": PACKAGE_PARENT, "CODESIFT_CACHE_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, f"{script.name} still differs:\n{done.stdout}\n{done.stderr}"
