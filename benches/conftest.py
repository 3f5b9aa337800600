"""Benchmark fixtures: the corpus and the peer tools, found or explained."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

DEFAULT_CORPUS = Path(os.environ.get("CODESIFT_BENCH_CORPUS", "/work/corpus/linux"))


@pytest.fixture(scope="session")
def corpus() -> Path:
    if not DEFAULT_CORPUS.is_dir():
        pytest.skip(
            f"no corpus at {DEFAULT_CORPUS}: run ../shared/bench/get_corpus.sh {DEFAULT_CORPUS} "
            "or set CODESIFT_BENCH_CORPUS"
        )
    # Warm the page cache once: every benchmark below reads the whole tree.
    subprocess.run(
        ["rg", "--no-ignore", "--hidden", "-c", "zzzz_warmup"],
        cwd=DEFAULT_CORPUS,
        capture_output=True,
        check=False,
    )
    return DEFAULT_CORPUS


@pytest.fixture(scope="session")
def rg() -> str:
    path = shutil.which("rg")
    if not path:
        pytest.skip("rg missing: pip install --only-binary :all: ripgrep")
    return path
