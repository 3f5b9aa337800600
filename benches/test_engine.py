"""First engine benchmarks: codesift's glob and grep beside ripgrep on the same corpus.

Run: python -m pytest benches -p no:cacheprovider --benchmark-group-by=group
(the corpus: ../shared/bench/get_corpus.sh /work/corpus/linux, or CODESIFT_BENCH_CORPUS).
Each group runs once for codesift and once for rg, so the table shows them side by side.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from typing import Any, NamedTuple

import pytest

from codesift import Workspace

RG = ["--no-ignore", "--hidden", "--no-config"]
SMOKE = os.environ.get("CODESIFT_BENCH_SMOKE") == "1"
ROUNDS = 1 if SMOKE else 5


def not_truncated(result: Any) -> bool:
    return not result.truncated


class Case(NamedTuple):
    """One benchmark group: codesift's call, what its answer must hold, and rg's arguments."""

    codesift: Callable[[Workspace], Any]
    holds: Callable[[Any], bool]
    rg_args: tuple[str, ...]


def grep_all(pattern: str, literal: bool) -> Case:
    return Case(
        lambda ws: ws.grep(pattern, literal=literal, case_sensitive=True, max_matches=None),
        not_truncated,
        ("-s", "--column", "-n", *(["-F"] if literal else []), pattern),
    )


CASES = {
    "grep-all-rare_literal": grep_all("EXPORT_SYMBOL_GPL", True),
    "grep-all-common_literal": grep_all("static", True),
    "grep-all-regex": grep_all(r"\w+_lock\(", False),
    # rg has no early stop for a first-N answer, so its side is a full scan.
    "grep-first-500": Case(
        lambda ws: ws.grep("static", literal=True, max_matches=500),
        lambda result: len(result.matches) <= 500,
        ("-F", "-i", "static"),
    ),
    "glob-c": Case(
        lambda ws: ws.glob("**/*.c", limit=100_000),
        lambda result: result.total >= 0,
        ("--files", "-g", "*.c"),
    ),
    "glob-drivers-h": Case(
        lambda ws: ws.glob("drivers/**/*.h", limit=100_000),
        lambda result: result.total >= 0,
        ("--files", "-g", "drivers/**/*.h"),
    ),
    "grep-case-insensitive": Case(
        lambda ws: ws.grep("mutex_lock", literal=True, max_matches=None),
        not_truncated,
        ("-i", "-F", "mutex_lock"),
    ),
    "grep-multiline": Case(
        lambda ws: ws.grep(r"\}\n\nstatic int", case_sensitive=True, max_matches=None),
        not_truncated,
        ("-U", "-s", r"\}\n\nstatic int"),
    ),
    "grep-count-total": Case(
        lambda ws: ws.grep("static", literal=True, max_matches=500, count_total=True),
        lambda result: result.total >= len(result.matches),
        ("-s", "-F", "--count-matches", "static"),
    ),
}


@pytest.fixture(scope="module")
def ws(corpus):
    # The Debian kernel tree's .gitignore ignores its whole top level (`/*`), so compare
    # with ignore files off on both sides.
    return Workspace(corpus, gitignore=False)


def run_rg(rg, corpus, *args) -> int:
    out = subprocess.run([rg, *RG, *args], cwd=corpus, capture_output=True, check=False)
    return out.stdout.count(b"\n")


def measure(benchmark, group: str, run: Callable[[], Any]) -> Any:
    benchmark.group = group
    return benchmark.pedantic(run, rounds=ROUNDS, warmup_rounds=1)


@pytest.mark.parametrize("group", list(CASES))
def test_codesift(benchmark, ws, group):
    case = CASES[group]
    result = measure(benchmark, group, lambda: case.codesift(ws))
    assert case.holds(result), f"{group}: the answer does not hold: {result!r}"


@pytest.mark.parametrize("group", list(CASES))
def test_rg(benchmark, rg, corpus, group):
    lines = measure(benchmark, group, lambda: run_rg(rg, corpus, *CASES[group].rg_args))
    assert lines >= 0, f"{group}: expected a line count, got {lines}"
