"""The index differential test, short run: a few seeded random trees, changes behind the
back and through the API, and random queries; every indexed workspace kind (watched, strict,
unwatched, index="auto", a second process, the CLI, the daemon) must answer exactly as a scan does.
The long run is scripts/index_differential.py; the machinery is index_differential.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import index_differential as diff_test
import pytest

from codesift import Workspace

SEEDS = (11, 12, 13)


def test_indexed_answers_equal_the_scan_on_random_trees(tmp_path: Path) -> None:
    out = tmp_path / "differences"
    run = diff_test.Run(
        out=out,
        rounds=3,
        queries_per_round=5,
        cli_every=3,
        reduce_budget=20.0,
        max_reductions=1,
    )
    for seed in SEEDS:
        run.seed(seed, tmp_path / "trees")
    report = "\n\n".join(d.short() for d in run.differences)
    assert run.comparisons > 100, f"expected > 100 comparisons, ran {run.comparisons}"
    assert run.daemon_comparisons > 20, (
        f"expected > 20 comparisons through the daemon, ran {run.daemon_comparisons}"
    )
    assert run.daemon_glob_answers > 0, (
        f"expected globs answered by the daemon; it was asked {run.daemon_glob_queries} "
        f"and answered {run.daemon_glob_answers}"
    )
    if run.signatures:
        pytest.fail(
            f"{sum(run.signatures.values())} differences in {run.comparisons} comparisons "
            f"(written under {out}):\n{report}",
            pytrace=False,
        )


def test_a_difference_is_reduced_into_a_runnable_reproduction(tmp_path: Path) -> None:
    """The reduction drops what the difference does not need and writes a script that shows
    it; checked on a difference planted in the comparison (the engine has none to offer)."""
    rng_entries = [
        {"kind": "file", "path": f"ws/f{i}.txt", "data": diff_test._b64(b"value\n")}
        for i in range(6)
    ] + [{"kind": "file", "path": "ws/needle.txt", "data": diff_test._b64(b"zebra_unique\n")}]
    steps = [
        {"op": "append", "path": "f1.txt", "data": diff_test._b64(b"more\n")},
        {"op": "write", "path": "needle.txt", "data": diff_test._b64(b"zebra_unique twice\n")},
        {"query": {"kind": "grep", "args": {"pattern": "value"}}},
    ]
    query = {
        "kind": "grep",
        "args": {"pattern": "zebra_unique", "literal": True, "context_lines": 1, "path": "."},
    }
    original = diff_test.run_query

    def planted(ws, q):
        """An indexed answer that loses the hit when needle.txt says "twice"."""
        data = original(ws, q)
        indexed = getattr(ws, "_engine", None) is not None and ws.index_status()["mode"] != "off"
        if indexed and q is not None and "matches" in data:
            data["matches"] = [m for m in data["matches"] if "twice" not in m["text"]]
        return data

    diff = diff_test.Difference(
        seed=0,
        kind="watched",
        query=query,
        fields=["matches"],
        expected={},
        actual={},
        entries=rng_entries,
        steps=steps,
    )
    diff.signature = "planted"
    try:
        diff_test.run_query = planted
        diff_test.reduce(diff, budget=60.0)
    finally:
        diff_test.run_query = original
    assert diff.reduced, "the planted difference was not reproduced by the reduction"
    kept = [e["path"] for e in diff.entries]
    # The write creates needle.txt: no file of the tree is needed.
    assert kept == [], f"expected no file of the tree to be needed, kept {kept}"
    assert [s.get("op") for s in diff.steps] == ["write"], f"kept steps {diff.steps}"
    assert diff.query["args"] == {"pattern": "zebra_unique"}, f"kept {diff.query}"
    directory = diff_test.write_out(diff, tmp_path / "out")
    scenario = json.loads((directory / "scenario.json").read_text())
    assert scenario["query"] == diff.query
    # The script runs on its own; without the planted fault the engine agrees with the scan.
    done = subprocess.run(
        [sys.executable, str(directory / "repro.py")],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        check=False,
        timeout=120,
    )
    assert done.returncode == 0 and done.stdout.strip().endswith("same"), (
        f"repro.py: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_generated_queries_run_on_the_scan(tmp_path: Path, seed: int) -> None:
    """Every generated query is one the API accepts (or rejects with codesift's own error),
    so that a difference is never a harness mistake."""
    import random

    rng = random.Random(seed)
    diff_test.build_tree(str(tmp_path), diff_test.random_tree(rng))
    root = tmp_path / "ws"
    for _ in range(40):
        query = diff_test.run_query(Workspace(root), diff_test.random_query(rng, root))
        assert "error" not in query or query["error"].endswith("Error"), query
