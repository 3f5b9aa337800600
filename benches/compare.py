"""codesift beside every peer on the same queries, interleaved in one run.

    python benches/compare.py [--corpus DIR] [--rounds N] [--quick] [--out DIR]
    python benches/compare.py --index [index_compare.py's options]

`--index` runs the persistent-index comparison instead (codesift indexed vs codesift scan vs
rg vs codesearch, build time, index size, peak RSS, edit-then-search): see index_compare.py.

Peers: rg, GNU grep -rn, git grep (on a git-initialised hard-link copy), fd and find for
globbing, Python's glob.glob and pathlib.rglob, a pure-Python os.walk + re baseline, and the
Python bindings python-ripgrep and ripgrepy. `bash benches/setup.sh` installs them all.

Each round runs every tool once per query, in turn (A B C A B C ...), after a warm-up round,
so that the page cache and the machine's state are shared. Reported: median wall time, peak
RSS (wait4 for external tools; the worker's own maximum for Python tools, measured in a fresh
process per run), match counts (checked against rg, differences explained) and the ratio to
rg. Written to DIR: compare.md (table), compare.json (raw), compare.png (chart), and
scaling.png / scaling.md (time against tree size and thread count).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
WORKER = HERE / "_worker.py"
DEFAULT_CORPUS = Path(os.environ.get("CODESIFT_BENCH_CORPUS", "/work/corpus/linux"))
RG_FLAGS = ["--no-ignore", "--hidden", "--no-config", "-g", "!.git"]


@dataclass
class Query:
    name: str
    kind: str  # grep | glob
    pattern: str = ""
    literal: bool = False
    ignore_case: bool = False
    multiline: bool = False
    max_matches: int | None = None
    glob: str = ""
    note: str = ""


@dataclass
class Run:
    seconds: float
    maxrss_kb: int
    count: int


@dataclass
class Result:
    query: str
    tool: str
    runs: list[Run] = field(default_factory=list)
    unit: str = "matches"
    error: str | None = None

    @property
    def median(self) -> float:
        return statistics.median(r.seconds for r in self.runs) if self.runs else float("nan")

    @property
    def rss_mb(self) -> float:
        return max((r.maxrss_kb for r in self.runs), default=0) / 1024

    @property
    def count(self) -> int | None:
        return self.runs[-1].count if self.runs else None


QUERIES = [
    Query("rare literal", "grep", "EXPORT_SYMBOL_GPL", literal=True),
    Query("common literal", "grep", "static", literal=True),
    Query("regex", "grep", r"\w+_lock\(", note="word chars then _lock("),
    Query("case-insensitive", "grep", "mutex_lock", literal=True, ignore_case=True),
    Query("multiline", "grep", r"\}\n\nstatic int", multiline=True),
    Query(
        "first 500",
        "grep",
        "static",
        literal=True,
        max_matches=500,
        note="codesift: first 500 in sorted order; rg: full scan",
    ),
    Query("glob *.c", "glob", glob="*.c"),
    Query("glob drivers/**/*.h", "glob", glob="drivers/**/*.h"),
]
SLOW_TOOLS = {"pure-python"}
QUICK = {"rare literal", "common literal", "regex", "first 500", "glob *.c"}


def external(cmd: list[str], cwd: Path, count_lines: bool = True) -> Run:
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    lines = 0
    for chunk in iter(lambda: proc.stdout.read(1 << 20), b""):
        lines += chunk.count(b"\n")
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0  # reaped above
    seconds = time.perf_counter() - start
    return Run(seconds, usage.ru_maxrss, lines if count_lines else 0)


def worker(spec: dict) -> Run:
    out = subprocess.run(
        [sys.executable, str(WORKER), json.dumps(spec)], capture_output=True, text=True, check=False
    )
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip().splitlines()[-1] if out.stderr else "failed")
    data = json.loads(out.stdout)
    return Run(data["seconds"], data["maxrss_kb"], data["count"])


def grep_tools(q: Query, corpus: Path, git_copy: Path | None, threads: int | None):
    """(tool name, unit of its count, zero-argument runner) for a grep query."""
    spec = {
        "kind": "grep",
        "root": str(corpus),
        "pattern": q.pattern,
        "literal": q.literal,
        "ignore_case": q.ignore_case,
        "multiline": q.multiline,
        "max_matches": q.max_matches,
        "threads": threads,
    }
    flags = (["-F"] if q.literal else []) + (["-i"] if q.ignore_case else ["-s"])
    rg_cmd = ["rg", *RG_FLAGS, "-n", "--column", "--no-heading", *flags]
    if q.multiline:
        rg_cmd.append("-U")
    if threads:
        rg_cmd += ["-j", str(threads)]
    tools = [
        ("codesift", "matches", lambda: worker({**spec, "tool": "codesift"})),
        ("rg", "lines", lambda: external([*rg_cmd, "-e", q.pattern, "."], corpus)),
    ]
    if q.max_matches:
        tools.append(
            (
                "rg | head -500",
                "lines",
                lambda: external(
                    [
                        "sh",
                        "-c",
                        " ".join(
                            [*map(_quote, rg_cmd), "-e", _quote(q.pattern), ".", "| head -500"]
                        ),
                    ],
                    corpus,
                ),
            )
        )
        return tools
    if not q.multiline:
        grep_flags = ["-F"] if q.literal else ["-E"]
        grep_pattern = q.pattern.replace(r"\w", "[[:alnum:]_]")
        tools.append(
            (
                "grep -rn",
                "lines",
                lambda: external(
                    [
                        "grep",
                        "-rn",
                        "-I",
                        *grep_flags,
                        *(["-i"] if q.ignore_case else []),
                        "-e",
                        grep_pattern,
                        ".",
                    ],
                    corpus,
                ),
            )
        )
        if git_copy is not None:
            tools.append(
                (
                    "git grep",
                    "lines",
                    lambda: external(
                        [
                            "git",
                            "grep",
                            "-n",
                            "-I",
                            *(["-F"] if q.literal else ["-P"]),
                            *(["-i"] if q.ignore_case else []),
                            "-e",
                            q.pattern,
                        ],
                        git_copy,
                    ),
                )
            )
    tools += [
        ("python-ripgrep", "lines", lambda: worker({**spec, "tool": "python-ripgrep"})),
        ("ripgrepy", "matches", lambda: worker({**spec, "tool": "ripgrepy"})),
        ("pure-python", "matches", lambda: worker({**spec, "tool": "pure-python"})),
    ]
    return tools


def glob_tools(q: Query, corpus: Path, threads: int | None):
    name_only = "/" not in q.glob
    base = corpus / q.glob.split("/")[0] if not name_only else corpus
    last = q.glob.rsplit("/", 1)[-1]
    spec = {
        "kind": "glob",
        "root": str(corpus),
        "pattern": q.glob,
        "glob": last,
        "threads": threads,
    }
    fd = shutil.which("fdfind") or shutil.which("fd")
    tools = [
        ("codesift", "files", lambda: worker({**spec, "tool": "codesift"})),
        (
            "rg --files",
            "files",
            lambda: external(
                [
                    "rg",
                    *RG_FLAGS,
                    "--files",
                    "-g",
                    q.glob,
                    *(["-j", str(threads)] if threads else []),
                ],
                corpus,
            ),
        ),
    ]
    if fd:
        tools.append(
            ("fd", "files", lambda: external([fd, "-u", "-t", "f", "-g", last, str(base)], corpus))
        )
    tools.append(
        (
            "find",
            "files",
            lambda: external(["find", str(base), "-type", "f", "-name", last], corpus),
        )
    )
    sub = {**spec, "root": str(base)}
    tools += [
        ("glob.glob", "files", lambda: worker({**sub, "tool": "glob.glob"})),
        ("pathlib.rglob", "files", lambda: worker({**sub, "tool": "pathlib.rglob"})),
        ("python-ripgrep", "files", lambda: worker({**spec, "tool": "python-ripgrep"})),
    ]
    return tools


def _quote(text: str) -> str:
    import shlex

    return shlex.quote(text)


def ensure_git_copy(corpus: Path) -> Path | None:
    """A hard-link copy of the corpus with a git index (for git grep), made once."""
    if shutil.which("git") is None:
        return None
    copy = corpus.parent / f".{corpus.name}-git"
    if (copy / ".git" / "index").exists():
        return copy
    print(f"preparing {copy} for git grep (once) ...", file=sys.stderr)
    if copy.exists():
        shutil.rmtree(copy)
    subprocess.run(["cp", "-al", str(corpus), str(copy)], check=True)
    git = ["git", "-c", "core.autocrlf=false", "-C", str(copy)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A", "-f"], check=True)
    return copy


def ready_to_run(corpus: Path, out: Path) -> bool:
    """Whether the corpus and rg are there (saying what to do when not); makes the out folder."""
    if not corpus.is_dir():
        print(f"no corpus at {corpus}; run ../shared/bench/get_corpus.sh", file=sys.stderr)
        return False
    if shutil.which("rg") is None:
        print("rg missing: bash benches/setup.sh", file=sys.stderr)
        return False
    out.mkdir(parents=True, exist_ok=True)
    return True


def rg_case_flags(q: Query) -> list[str]:
    """rg's flags for a query's literal and case (shared with index_compare.py)."""
    return (["-F"] if q.literal else []) + (["-i"] if q.ignore_case else ["-s"])


def rg_output(corpus: Path, *args: str) -> str:
    """What rg prints over the corpus with the benches' flags (not timed)."""
    return subprocess.run(
        ["rg", *RG_FLAGS, *args], cwd=corpus, capture_output=True, text=True, check=False
    ).stdout


def rg_match_count(q: Query, corpus: Path) -> int:
    """Matches (not lines) by rg, for checking the tools that count matches (not timed)."""
    flags = rg_case_flags(q) + (["-U"] if q.multiline else [])
    out = rg_output(corpus, "--count-matches", "--no-filename", *flags, "-e", q.pattern, ".")
    return sum(int(n) for n in out.split())


def measure(
    queries: list[Query],
    corpus: Path,
    rounds: int,
    threads: int | None,
    git_copy: Path | None,
    only: set[str] | None = None,
) -> list[Result]:
    plans = []
    for q in queries:
        tools = (
            grep_tools(q, corpus, git_copy, threads)
            if q.kind == "grep"
            else glob_tools(q, corpus, threads)
        )
        for tool, unit, runner in tools:
            if only is None or tool in only:
                plans.append((Result(q.name, tool, unit=unit), runner))
    # The slow baselines (pure Python runs for up to 100 s) go last in each round: right after
    # one, this 2-core VM runs throttled for a while, and whichever tool came next paid for it.
    plans.sort(key=lambda plan: plan[0].tool in SLOW_TOOLS)
    run_interleaved(plans, rounds, "round")
    return [r for r, _ in plans]


def run_interleaved(plans: list[tuple[Any, Callable[[], Any]]], rounds: int, label: str) -> None:
    """Runs every plan once per round, in turn (A B C A B C ...), after a warm-up round, and
    appends each run to its result's `runs`; a runner that fails sets the result's `error`
    and is not run again (a peer that cannot run is reported, not fatal)."""
    for round_no in range(rounds + 1):  # round 0 warms up
        for result, runner in plans:
            if result.error:
                continue
            try:
                run = runner()
            except Exception as exc:
                result.error = str(exc)[:200]
                continue
            if round_no > 0:
                result.runs.append(run)
        print(f"{label} {round_no}/{rounds} done", file=sys.stderr)


def explain(q: Query, r: Result, reference: Result | None, rg_matches: int | None) -> str:
    if r.error:
        return f"failed: {r.error}"
    if reference is None or r.count is None or reference.count is None:
        return ""
    if r.tool.startswith("codesift") and q.max_matches:
        return "first 500 in order" + (f" (rg: {rg_matches} in all)" if rg_matches else "")
    if r.tool == "rg | head -500":
        return "first 500 lines rg prints (unordered)"
    if r.unit == "matches" and rg_matches is not None:
        if r.count == rg_matches:
            return "= rg --count-matches"
        reference = Result(q.name, "rg", [Run(0, 0, rg_matches)], unit="matches")
    elif r.unit != reference.unit:
        return f"counts {r.unit} (rg: {reference.unit})"
    if r.count == reference.count:
        return "same"
    notes = {
        "grep -rn": "GNU grep: -I skips binary files by its own test; BRE/ERE class differences",
        "git grep": "tracked files only; -P for regex",
        "python-ripgrep": "rg defaults: skips hidden files",
        "pure-python": "Python re on bytes: ASCII \\w, its own binary test",
        "ripgrepy": "rg --json counts",
        "glob.glob": "also returns directories matching the pattern",
        "pathlib.rglob": "follows pathlib's glob rules",
        "fd": "fd's glob rules",
        "find": "find's -name rules",
    }
    return f"{r.count - reference.count:+d} vs rg ({notes.get(r.tool, 'see notes')})"


def report(
    queries: list[Query],
    results: list[Result],
    corpus: Path,
    rounds: int,
    threads: int | None,
    out: Path,
) -> str:
    lines = [
        f"Corpus: `{corpus}` ({_corpus_size(corpus)}); machine: {platform.machine()}, "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}; {rounds} rounds after a "
        f"warm-up, tools interleaved; threads: {threads or 'default'}.",
        "",
        "| query | tool | median s | ratio to rg | peak RSS MiB | count | check |",
        "|---|---|---|---|---|---|---|",
    ]
    by_query: dict[str, list[Result]] = {}
    for r in results:
        by_query.setdefault(r.query, []).append(r)
    for q in queries:
        group = by_query.get(q.name, [])
        reference = next((r for r in group if r.tool in ("rg", "rg --files")), None)
        rg_matches = rg_match_count(q, corpus) if q.kind == "grep" else None
        for r in group:
            ratio = r.median / reference.median if reference and reference.runs else float("nan")
            lines.append(
                f"| {q.name} | {r.tool} | {r.median:.3f} | {ratio:.2f} | {r.rss_mb:.0f} | "
                f"{r.count if r.count is not None else '-'} {r.unit} | "
                f"{explain(q, r, reference, rg_matches)} |"
            )
    text = "\n".join(lines) + "\n"
    (out / "compare.md").write_text(text)
    (out / "compare.json").write_text(
        json.dumps(
            [
                {
                    "query": r.query,
                    "tool": r.tool,
                    "median": r.median,
                    "rss_mb": r.rss_mb,
                    "count": r.count,
                    "unit": r.unit,
                    "error": r.error,
                    "runs": [run.__dict__ for run in r.runs],
                }
                for r in results
            ],
            indent=1,
        )
    )
    chart(queries, by_query, out / "compare.png")
    return text


def chart(queries: list[Query], by_query: dict[str, list[Result]], path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no chart", file=sys.stderr)
        return
    names = [q.name for q in queries if q.name in by_query]
    tools = [
        "codesift",
        "rg",
        "rg --files",
        "grep -rn",
        "git grep",
        "fd",
        "python-ripgrep",
        "ripgrepy",
        "pure-python",
        "glob.glob",
    ]
    fig, ax = plt.subplots(figsize=(12, 5))
    width = 0.8 / len(tools)
    for i, tool in enumerate(tools):
        values = []
        for name in names:
            group = by_query[name]
            ref = next((r for r in group if r.tool in ("rg", "rg --files")), None)
            mine = next((r for r in group if r.tool == tool and r.runs), None)
            values.append(mine.median / ref.median if mine and ref and ref.runs else 0)
        if any(values):
            ax.bar([x + i * width for x in range(len(names))], values, width, label=tool)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_ylabel("wall time / rg's (log)")
    ax.set_xticks([x + 0.4 for x in range(len(names))], names, rotation=15)
    ax.legend(ncol=5, fontsize=8)
    ax.set_title("codesift and peers, time relative to ripgrep (lower is faster)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def scaling(corpus: Path, rounds: int, out: Path) -> str:
    """Time against tree size (1/4, 1/2, full: hard-link copies of a prefix of the sorted
    file list) and thread count (1, 2), codesift beside rg."""
    files = sorted(p for p in corpus.rglob("*") if p.is_file() and not p.is_symlink())
    rows = []
    sizes = {}
    for fraction in (0.25, 0.5, 1.0):
        if fraction == 1.0:
            tree = corpus
        else:
            tree = corpus.parent / f".{corpus.name}-{int(fraction * 100)}"
            if not tree.exists():
                for src in files[: int(len(files) * fraction)]:
                    dst = tree / src.relative_to(corpus)
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    os.link(src, dst)
        sizes[fraction] = sum(p.stat().st_size for p in files[: int(len(files) * fraction)])
        for threads in (1, 2):
            q = Query("regex", "grep", r"\w+_lock\(")
            for result in measure([q], tree, rounds, threads, None, only={"codesift", "rg"}):
                if result.tool in ("codesift", "rg"):
                    rows.append((fraction, threads, result.tool, result.median))
    text = ["| tree | bytes | threads | codesift s | rg s | ratio |", "|---|---|---|---|---|---|"]
    for fraction in (0.25, 0.5, 1.0):
        for threads in (1, 2):
            mine = next(r[3] for r in rows if r[:3] == (fraction, threads, "codesift"))
            rg = next(r[3] for r in rows if r[:3] == (fraction, threads, "rg"))
            text.append(
                f"| {fraction:g} | {sizes[fraction]} | {threads} | {mine:.3f} | "
                f"{rg:.3f} | {mine / rg:.2f} |"
            )
    md = "\n".join(text) + "\n"
    (out / "scaling.md").write_text(md)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7, 4))
        for tool, style in (("codesift", "o-"), ("rg", "s--")):
            for threads in (1, 2):
                xs = [sizes[f] / 1e9 for f in (0.25, 0.5, 1.0)]
                ys = [
                    next(r[3] for r in rows if r[:3] == (f, threads, tool))
                    for f in (0.25, 0.5, 1.0)
                ]
                ax.plot(xs, ys, style, label=f"{tool}, {threads} thread(s)")
        ax.set_xlabel("GB scanned")
        ax.set_ylabel("seconds")
        ax.set_title(r"grep \w+_lock\( : time against tree size and threads")
        ax.legend()
        fig.tight_layout()
        fig.savefig(out / "scaling.png", dpi=110)
    except ImportError:
        pass
    return md


def _corpus_size(corpus: Path) -> str:
    stamp = corpus.parent / f".{corpus.name}.corpus-stamp"
    if stamp.exists():
        return stamp.read_text().split("\n")[0]
    return "custom corpus"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--index" in argv:
        import index_compare  # benches/ is on sys.path when run as a script

        return index_compare.main([a for a in argv if a != "--index"])
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--quick", action="store_true", help="fewer queries (CI smoke run)")
    parser.add_argument("--no-git", action="store_true", help="skip git grep (no copy)")
    parser.add_argument("--scaling", action="store_true", help="also time size and threads")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument(
        "--queries", help="comma-separated query names to run (default: all), e.g. 'regex,glob *.c'"
    )
    parser.add_argument(
        "--tools", help="comma-separated tools to run (default: all), e.g. 'codesift,rg'"
    )
    args = parser.parse_args(argv)
    if not ready_to_run(args.corpus, args.out):
        return 2
    chosen = set(args.queries.split(",")) if args.queries else None
    queries = [
        q
        for q in QUERIES
        if (not args.quick or q.name in QUICK) and (chosen is None or q.name in chosen)
    ]
    tools = set(args.tools.split(",")) if args.tools else None
    wants_git = tools is None or "git grep" in tools
    git_copy = None if args.no_git or args.quick or not wants_git else ensure_git_copy(args.corpus)
    results = measure(queries, args.corpus, args.rounds, args.threads, git_copy, only=tools)
    print(report(queries, results, args.corpus, args.rounds, args.threads, args.out))
    if args.scaling:
        print(scaling(args.corpus, args.rounds, args.out))
    failed = [r for r in results if r.tool == "codesift" and (r.error or not r.runs)]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
