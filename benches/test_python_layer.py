"""The Python layer's own costs, on generated trees (no corpus needed): turning 100k hits into
Python objects, an edit's latency, and the sandbox's path checks."""

from __future__ import annotations

import itertools
import os

import pytest

from codesift import Workspace

SMOKE = os.environ.get("CODESIFT_BENCH_SMOKE") == "1"
ROUNDS = 1 if SMOKE else 5


@pytest.fixture(scope="module")
def hits_tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("hits")
    for i in range(100):
        (root / f"f{i:03}.txt").write_text("needle and needle\n" * 500)  # 1000 hits per file
    return root


def test_result_conversion_100k_hits(benchmark, hits_tree):
    ws = Workspace(hits_tree)

    def run():
        result = ws.grep("needle", max_matches=None)
        return sum(1 for m in result.matches if m.line)

    assert benchmark.pedantic(run, rounds=ROUNDS, warmup_rounds=1) == 100_000


def test_to_dict_100k_hits(benchmark, hits_tree):
    result = Workspace(hits_tree).grep("needle", max_matches=None)
    data = benchmark.pedantic(result.to_dict, rounds=ROUNDS, warmup_rounds=1)
    assert len(data["matches"]) == 100_000


@pytest.fixture
def source_file(tmp_path):
    lines = [f"    value_{i} = compute({i})\n" for i in range(2000)]
    (tmp_path / "big.py").write_text("def f():\n" + "".join(lines))
    return tmp_path


def flipping_edit(ws: Workspace, first: str, second: str):
    """An edit of big.py that swaps `first` for `second` on one call and back on the next, so
    every round changes the file."""
    calls = itertools.count()

    def run():
        old, new = (first, second) if next(calls) % 2 == 0 else (second, first)
        return ws.edit("big.py", old, new)

    return run


def test_edit_latency_exact(benchmark, source_file):
    run = flipping_edit(Workspace(source_file), "compute(1000)", "compute(-1000)")
    assert benchmark.pedantic(run, rounds=ROUNDS * 4, warmup_rounds=1).replacements == 1


def test_edit_latency_fuzzy(benchmark, source_file):
    run = flipping_edit(
        Workspace(source_file),
        "value_1000 = compute(1000)\nvalue_1001 = compute(1001)",
        "value_1000 = compute(1000)\nvalue_1001 = compute(0)",
    )
    assert benchmark.pedantic(run, rounds=ROUNDS * 4, warmup_rounds=1).strategy == "trimmed_lines"


def test_edit_by_search_result_id(benchmark, source_file):
    ws = Workspace(source_file)

    def run():
        hit = ws.grep(r"compute\(1500\)").matches[0]
        ws.edit_result(hit.id, "compute(1500)")  # same text, but a real round trip
        return hit

    with pytest.raises(Exception, match="nothing to change"):
        run()
    hits = iter(ws.grep(r"value_\d+ =", max_matches=None).matches)

    def edit_next():
        return ws.edit_result(next(hits).id, "renamed =")

    assert benchmark.pedantic(edit_next, rounds=ROUNDS * 4, warmup_rounds=1).replacements == 1


def test_sandbox_checks(benchmark, tmp_path):
    root = tmp_path / "ws"
    (root / "a/b/c").mkdir(parents=True)
    (root / "a/b/c/file.txt").write_text("x")
    ws = Workspace(root)
    paths = ["a/b/c/file.txt", str(root / "a/b/c/file.txt"), "a/./b/../b/c/file.txt"] * 100

    def run():
        # The lexical half (Python) and the resolution beneath the root handle (engine).
        return [ws._real(p) for p in paths]

    resolved = benchmark.pedantic(run, rounds=ROUNDS, warmup_rounds=1)
    assert resolved == ["a/b/c/file.txt"] * 300
