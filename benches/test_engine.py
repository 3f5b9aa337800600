"""First engine benchmarks: codesift's glob and grep beside ripgrep on the same corpus.

Run: python -m pytest benches -p no:cacheprovider --benchmark-group-by=group
(the corpus: ../shared/bench/get_corpus.sh /work/corpus/linux, or CODESIFT_BENCH_CORPUS).
Each pair (codesift, rg) shares a group, so the table shows them side by side.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from codesift import Workspace

RG = ["--no-ignore", "--hidden", "--no-config"]
QUERIES = {
    "rare_literal": ("EXPORT_SYMBOL_GPL", True),
    "common_literal": ("static", True),
    "regex": (r"\w+_lock\(", False),
}
SMOKE = os.environ.get("CODESIFT_BENCH_SMOKE") == "1"
ROUNDS = 1 if SMOKE else 5


@pytest.fixture(scope="module")
def ws(corpus):
    # The Debian kernel tree's .gitignore ignores its whole top level (`/*`), so compare
    # with ignore files off on both sides.
    return Workspace(corpus, gitignore=False)


def run_rg(rg, corpus, *args) -> int:
    out = subprocess.run([rg, *RG, *args], cwd=corpus, capture_output=True, check=False)
    return out.stdout.count(b"\n")


@pytest.mark.parametrize("name", list(QUERIES))
def test_grep_all_codesift(benchmark, ws, name):
    pattern, literal = QUERIES[name]
    benchmark.group = f"grep-all-{name}"
    result = benchmark.pedantic(
        lambda: ws.grep(pattern, literal=literal, case_sensitive=True, max_matches=None),
        rounds=ROUNDS,
        warmup_rounds=1,
    )
    assert not result.truncated


@pytest.mark.parametrize("name", list(QUERIES))
def test_grep_all_rg(benchmark, rg, corpus, name):
    pattern, literal = QUERIES[name]
    benchmark.group = f"grep-all-{name}"
    flags = ["-F"] if literal else []
    lines = benchmark.pedantic(
        lambda: run_rg(rg, corpus, "-s", "--column", "-n", *flags, pattern),
        rounds=ROUNDS,
        warmup_rounds=1,
    )
    assert lines >= 0


def test_grep_first500_codesift(benchmark, ws):
    benchmark.group = "grep-first-500"
    result = benchmark.pedantic(
        lambda: ws.grep("static", literal=True, max_matches=500), rounds=ROUNDS, warmup_rounds=1
    )
    assert len(result.matches) <= 500


def test_grep_first500_rg_full_scan(benchmark, rg, corpus):
    benchmark.group = "grep-first-500"
    assert 0 <= benchmark.pedantic(
        lambda: run_rg(rg, corpus, "-F", "-i", "static"), rounds=ROUNDS, warmup_rounds=1
    )


def test_glob_codesift(benchmark, ws):
    benchmark.group = "glob-c"
    result = benchmark.pedantic(
        lambda: ws.glob("**/*.c", limit=100_000), rounds=ROUNDS, warmup_rounds=1
    )
    assert result.total >= 0


def test_glob_rg(benchmark, rg, corpus):
    benchmark.group = "glob-c"
    assert 0 <= benchmark.pedantic(
        lambda: run_rg(rg, corpus, "--files", "-g", "*.c"), rounds=ROUNDS, warmup_rounds=1
    )


def test_glob_prefix_codesift(benchmark, ws):
    benchmark.group = "glob-drivers-h"
    result = benchmark.pedantic(
        lambda: ws.glob("drivers/**/*.h", limit=100_000), rounds=ROUNDS, warmup_rounds=1
    )
    assert result.total >= 0


def test_glob_prefix_rg(benchmark, rg, corpus):
    benchmark.group = "glob-drivers-h"
    assert 0 <= benchmark.pedantic(
        lambda: run_rg(rg, corpus, "--files", "-g", "drivers/**/*.h"),
        rounds=ROUNDS,
        warmup_rounds=1,
    )


def test_grep_case_insensitive_codesift(benchmark, ws):
    benchmark.group = "grep-case-insensitive"
    result = benchmark.pedantic(
        lambda: ws.grep("mutex_lock", literal=True, max_matches=None),
        rounds=ROUNDS,
        warmup_rounds=1,
    )
    assert not result.truncated


def test_grep_case_insensitive_rg(benchmark, rg, corpus):
    benchmark.group = "grep-case-insensitive"
    assert 0 <= benchmark.pedantic(
        lambda: run_rg(rg, corpus, "-i", "-F", "mutex_lock"), rounds=ROUNDS, warmup_rounds=1
    )


def test_grep_multiline_codesift(benchmark, ws):
    benchmark.group = "grep-multiline"
    result = benchmark.pedantic(
        lambda: ws.grep(r"\}\n\nstatic int", case_sensitive=True, max_matches=None),
        rounds=ROUNDS,
        warmup_rounds=1,
    )
    assert not result.truncated


def test_grep_multiline_rg(benchmark, rg, corpus):
    benchmark.group = "grep-multiline"
    assert 0 <= benchmark.pedantic(
        lambda: run_rg(rg, corpus, "-U", "-s", r"\}\n\nstatic int"), rounds=ROUNDS, warmup_rounds=1
    )


def test_grep_count_total_codesift(benchmark, ws):
    benchmark.group = "grep-count-total"
    result = benchmark.pedantic(
        lambda: ws.grep("static", literal=True, max_matches=500, count_total=True),
        rounds=ROUNDS,
        warmup_rounds=1,
    )
    assert result.total >= len(result.matches)


def test_grep_count_total_rg(benchmark, rg, corpus):
    benchmark.group = "grep-count-total"
    assert 0 <= benchmark.pedantic(
        lambda: run_rg(rg, corpus, "-s", "-F", "--count-matches", "static"),
        rounds=ROUNDS,
        warmup_rounds=1,
    )
