"""benches/semble.py on a planted repository and annotations in semble's format: the figures
it reports are semble's NDCG@10 of the ranks the planted files must get."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benches" / "semble.py"
SECOND_PLACE = 1 / math.log2(3)  # one relevant file, found second: NDCG@10 = 1/log2(3)


def planted(tmp_path: Path) -> tuple[Path, Path]:
    """semble's layout: benchmarks/{repos.json, annotations/planted.json}, and a checkout
    repos/planted whose benchmark root is src/."""
    src = tmp_path / "repos" / "planted" / "src"
    src.mkdir(parents=True)
    # "PlantedWidget": alpha (3 lines) then beta (1 line), both targets: NDCG 1.
    (src / "alpha.py").write_text("class PlantedWidget:\n    pass\n" + "# PlantedWidget\n" * 2)
    (src / "beta.py").write_text("from alpha import PlantedWidget\n")
    # "helper_routine": its one target, gamma, has fewer matching lines than delta, and comes
    # after it in path order: second for rg --count and for a path-order grep alike.
    (src / "delta.py").write_text("helper_routine()\n" * 3)
    (src / "gamma.py").write_text("def helper_routine():\n    return 1\n")
    # "Zeta_Marker" is found only case-insensitively (semble's rg passes --ignore-case).
    (src / "zeta.py").write_text("zeta_marker = 1\n")
    # Outside the benchmark root: must not be searched.
    (tmp_path / "repos" / "planted" / "outside.py").write_text("PlantedWidget\n" * 9)

    bench = tmp_path / "benchmarks"
    (bench / "annotations").mkdir(parents=True)
    repos = [
        {
            "name": "planted",
            "language": "python",
            "url": "https://example.invalid/planted.git",
            "revision": "0" * 40,
            "benchmark_root": "src",
        }
    ]
    (bench / "repos.json").write_text(json.dumps(repos))
    tasks = [
        {
            "query": "PlantedWidget",
            "relevant": ["src/alpha.py"],
            "secondary": ["src/beta.py"],
            "category": "symbol",
        },
        # No category: semble infers "symbol" (no space in the query).
        {"query": "helper_routine", "relevant": ["src/gamma.py"], "secondary": []},
        {
            "query": "Zeta_Marker",
            "relevant": [{"path": "src/zeta.py", "start_line": 1, "end_line": 1}],
            "secondary": [],
            "category": "symbol",
        },
        # No category, starts with "how ": architecture; the phrase occurs nowhere.
        {"query": "how the widget is wired", "relevant": ["src/alpha.py"], "secondary": []},
    ]
    (bench / "annotations" / "planted.json").write_text(json.dumps(tasks))
    return bench, tmp_path / "repos"


def run_bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        timeout=300,
    )


def table_rows(markdown: str) -> dict[str, list[str]]:
    rows: dict[str, list[str]] = {}
    for line in markdown.splitlines():
        if line.startswith("| ") and not line.startswith("| method") and "---" not in line:
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            rows.setdefault(cells[0], cells[1:])
    return rows


def test_planted_ranks_give_semble_figures(tmp_path: Path) -> None:
    rg = shutil.which("rg")
    if not rg:
        pytest.skip("rg missing: pip install 'ripgrep>=15.1'")
    bench, repos = planted(tmp_path)
    out = tmp_path / "semble.md"
    methods = "rg-count,codesift,codesift-rank,codesift-search"
    done = run_bench(
        "--annotations", str(bench), "--repos", str(repos), "--methods", methods,
        "--runs", "1", "--out", str(out), "--rg", rg, "--verbose",
    )  # fmt: skip
    assert done.returncode == 0, f"exit {done.returncode}\nstdout:\n{done.stdout}\n{done.stderr}"
    markdown = out.read_text()
    rows = table_rows(markdown)
    # symbol: (1 + 1/log2(3) + 1) / 3; architecture: 0; all: (1 + 1/log2(3) + 1 + 0) / 4.
    expected = {
        "symbol": f"{(2 + SECOND_PLACE) / 3:.3f}",
        "semantic": "—",
        "architecture": "0.000",
        "all queries": f"{(2 + SECOND_PLACE) / 4:.3f}",
        "repo mean": f"{(2 + SECOND_PLACE) / 4:.3f}",
        "queries": "4",
    }
    columns = ["symbol", "semantic", "architecture", "all queries", "repo mean"]
    for method in ("rg-count", "codesift"):
        got = dict(zip(columns, rows[method][:5], strict=True))
        got["queries"] = rows[method][-1]
        assert got == expected, f"{method}: expected {expected}\nactual {got}\n{markdown}"
    for method in ("codesift-rank", "codesift-search"):
        assert method in rows, f"no row for {method}:\n{markdown}"
    # Each query's own score, as semble computes it, from the --verbose lines.
    per_query = {
        line.split(" q=")[1].split(" top-5=")[0]: line.split("ndcg@10=")[1].split()[0]
        for line in done.stderr.splitlines()
        if line.startswith("rg-count ")
    }
    assert per_query == {
        "'PlantedWidget'": "1.000",
        "'helper_routine'": f"{SECOND_PLACE:.3f}",
        "'Zeta_Marker'": "1.000",
        "'how the widget is wired'": "0.000",
    }, done.stderr


def test_bad_input_is_told_without_traceback(tmp_path: Path) -> None:
    bench, repos = planted(tmp_path)
    cases = {
        "not in repos.json": ["--repo", "nosuch"],
        "unknown method": ["--methods", "grep-magic"],
    }
    for expected, extra in cases.items():
        done = run_bench("--annotations", str(bench), "--repos", str(repos), *extra)
        assert done.returncode != 0 and expected in done.stderr, (expected, done.stderr)
        assert "Traceback" not in done.stderr, done.stderr
    done = run_bench("--annotations", str(tmp_path / "nowhere"), "--repos", str(repos))
    assert done.returncode != 0 and "no repos.json" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
