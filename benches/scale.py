"""The daemon at monorepo scale: N hard-linked copies of a corpus, beside ripgrep and
codesearch, in one run.

    python benches/scale.py --corpus DIR [--copies N] [--rounds R] [--out DIR] [--rg RG]
                            [--skip-cindex]

Builds DIR-sized copies with `cp -al` (hard links: N copies cost no disk) under a scratch
directory, then measures, with a daemon of its own (its own socket and cache directories):

1. Ready: wall time from the first `codesift-rg --no-ignore RARE` with `CODESIFT_RG_INDEX=force`
   (it starts the daemon, which builds the index and catches its watch up), until the daemon's
   status says the root's index is published and its watch caught up (the forced query
   itself gives up waiting after a minute and scans), the daemon's peak RSS (VmHWM) then,
   and the index size it reports; beside `cindex` over the same tree (wall time, peak RSS by wait4,
   index size). Page cache warmed by one `rg` pass first.
2. Serving: the daemon's RSS after the queries (steady).
3. Queries: each query run by codesift-rg (default `auto` mode: answered by the daemon), rg
   and csearch in turn (A B C A B C, after a warm-up round), `R` rounds; medians and ratios to
   rg. Output always read through a pipe; codesift-rg's lines are checked against rg's.
4. The library through the daemon (`--library`, or alone with `--library-only`): in a worker
   process, `Workspace(tree, gitignore=False, index="auto")` once the daemon serves the tree
   with those options (index built, watch caught up): `grep("ERR_PTR", case_sensitive=True)`
   (the library's default is case-insensitive: `rg -i`'s search, not `rg`'s) with every hit
   and with the first 100 (`max_matches=None` / `100`) beside `rg --no-ignore -n ERR_PTR`
   (the hits must fall on as many lines as rg prints), and
   `glob("**/*.c")` (no limit) beside `fdfind --no-ignore -e c`, interleaved, `R` rounds after
   a warm-up; medians and ratios. Each answer is checked to come from the index.

Missing codesearch (Debian's `codesearch`): its columns say so. The table goes to stdout and
DIR/scale.md, raw figures to DIR/scale.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "codesift"
CODESIFT_RG = PACKAGE / "bin" / "codesift-rg"

#: (label, rg argv after the flags every tool gets).
QUERIES: list[tuple[str, list[str]]] = [
    ("rare literal", ["-F", "zebraword_never_found_here"]),
    ("ERR_PTR", ["ERR_PTR"]),
    (r"\w+_resume\(", [r"\w+_resume\("]),
    ("-i", ["-i", "pm_runtime_get_sync"]),
    ("--files", ["--files"]),
]
#: Every tool sees every file (the Linux tree's root .gitignore is `/*`).
COMMON = ["--no-ignore", "--hidden"]

#: The library's worker (see the module doc, 4.): argv is the tree, the rounds, rg and fd;
#: prints the medians as JSON.
LIBRARY_WORKER = r"""
import json, os, statistics, subprocess, sys, time
from codesift import Workspace, daemon
tree, rounds, rg, fd = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
primer = Workspace(tree, gitignore=False, index=True, index_watch=False)
real = os.path.realpath(tree)
def served():
    # The library's own root: codesift-rg's (the queries before, `--library`) is another,
    # of other walk options (no access files), and serves the library nothing.
    status = daemon.status() or {"roots": []}
    return any(r["root"] == real and not r["options"]["gitignore"]
               and r["options"]["access_files"]
               and r["watch"]["state"] == "caught up" for r in status["roots"])
deadline = time.monotonic() + 900
while not served():
    if time.monotonic() > deadline:
        sys.exit("the daemon never caught up with the tree")
    primer.grep("zebraword_library_ready", max_matches=1)
    time.sleep(0.5)
ws = Workspace(tree, gitignore=False, index="auto")
def piped(argv):
    # No stdin: ripgrep given no path searches a piped stdin instead of the tree.
    return subprocess.run(
        argv, cwd=tree, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, check=False
    )
runs = {
    "grep all": lambda: ws.grep("ERR_PTR", case_sensitive=True, max_matches=None),
    "grep first 100": lambda: ws.grep("ERR_PTR", case_sensitive=True, max_matches=100),
    "rg": lambda: piped([rg, "--no-ignore", "-n", "ERR_PTR"]),
    "glob": lambda: ws.glob("**/*.c", limit=10**7),
    "fd": lambda: piped([fd, "--no-ignore", "-e", "c"]) if fd else None,
}
times = {name: [] for name in runs}
seen = {}
for round_no in range(rounds + 1):
    for name, run in runs.items():
        # The last call's result is let go first: freeing 16,000 hits is not the next
        # call's time (it was "first 100"'s, a third of it).
        result = None
        started = time.perf_counter()
        result = run()
        took = time.perf_counter() - started
        if round_no:
            times[name].append(took)
        if name.startswith("grep"):
            lines = len({(m.file, m.line) for m in result.matches})
            seen[name] = [len(result.matches), lines, result.indexed]
        elif name == "glob":
            seen[name] = [len(result.files), result.total]
        elif name == "rg":
            seen[name] = [result.stdout.count(b"\n")]
if seen["rg"][0] != seen["grep all"][1]:
    sys.exit(f"the library's hits are on {seen['grep all'][1]} lines, rg's {seen['rg'][0]}")
print(json.dumps({"medians": {k: statistics.median(v) for k, v in times.items() if v},
                  "seen": seen}))
"""


def library_queries(tree: Path, env: dict[str, str], rounds: int, rg: str) -> dict:
    """The library's grep and glob through the daemon beside rg and fd (module doc, 4.)."""
    fd = shutil.which("fdfind") or shutil.which("fd") or ""
    done = subprocess.run(
        [sys.executable, "-c", LIBRARY_WORKER, str(tree), str(rounds), rg, fd],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"the library worker failed: {done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def library_table(library: dict) -> list[str]:
    medians, seen = library["medians"], library["seen"]
    lines = [
        "",
        "| library call (daemon) | s | beside | s | ratio | answer |",
        "|---|---|---|---|---|---|",
    ]
    for name, other in [("grep all", "rg"), ("grep first 100", "rg"), ("glob", "fd")]:
        ours, theirs = medians[name], medians.get(other)
        lines.append(
            f"| `{name}` | {ours:.4f} | {other} | "
            f"{'—' if theirs is None else f'{theirs:.3f}'} | "
            f"{'—' if not theirs else f'{ours / theirs:.4f}'} | {seen.get(name)} |"
        )
    return lines


def proc_status_kib(pid: int, field: str) -> int:
    """A `/proc/PID/status` figure in KiB (`VmHWM`: peak RSS, `VmRSS`: now), 0 when gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def daemon_status(env: dict[str, str]) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "codesift", "daemon", "status", "--json"],
        env=env,
        capture_output=True,
        text=True,
    )
    try:
        return json.loads(done.stdout)
    except ValueError:
        return {}


def wait_until_served(
    env: dict[str, str], tree: Path, started: float, limit: float
) -> tuple[dict, dict]:
    """The daemon's status and its entry for `tree` once the tree's index is published and
    its watch caught up (polled every 0.5 s, for at most `limit` seconds from `started`)."""
    real = os.path.realpath(tree)
    while True:
        status = daemon_status(env)
        for root in status.get("roots", []):
            if (
                root["root"] == real
                and root["index"]["exists"]
                and root["watch"]["state"] == "caught up"
            ):
                return status, root
        if time.perf_counter() - started > limit:
            raise SystemExit(f"the daemon did not serve {tree} within {limit:.0f} s")
        time.sleep(0.5)


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, bytes, int]:
    """Wall time, stdout (read through a pipe) and peak RSS (KiB, wait4) of one command."""
    started = time.perf_counter()
    process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE)
    out = process.stdout.read() if process.stdout else b""
    _, _, usage = os.wait4(process.pid, 0)
    took = time.perf_counter() - started
    return took, out, usage.ru_maxrss


def make_tree(corpus: Path, copies: int, scratch: Path) -> tuple[Path, int, int]:
    tree = scratch / "tree"
    tree.mkdir()
    for i in range(copies):
        subprocess.run(["cp", "-al", str(corpus), str(tree / f"copy{i}")], check=True)
    files = sum(len(names) for _, _, names in os.walk(tree))
    return tree, files, copies * dir_bytes(corpus)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--copies", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rg", default=shutil.which("rg") or "rg")
    parser.add_argument("--out", type=Path, default=Path("benches/results/scale"))
    parser.add_argument("--scratch", type=Path, default=None, help="where the copies go")
    parser.add_argument(
        "--skip-cindex", action="store_true", help="no codesearch build (the largest trees)"
    )
    parser.add_argument(
        "--ready-limit", type=float, default=3600.0, help="seconds to wait for the index"
    )
    parser.add_argument("--library", action="store_true", help="also the library's calls")
    parser.add_argument("--library-only", action="store_true", help="only the library's calls (4.)")
    args = parser.parse_args(argv)
    if not CODESIFT_RG.is_file():
        print(f"codesift-rg is not built ({CODESIFT_RG}): pip install -e .", file=sys.stderr)
        return 2
    if not args.corpus.is_dir():
        print(f"no corpus at {args.corpus}: run ../shared/bench/get_corpus.sh", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="codesift-scale-", dir=args.scratch))
    daemon_pid = None
    env = dict(os.environ)
    try:
        tree, files, corpus_bytes = make_tree(args.corpus.resolve(), args.copies, scratch)
        made_at = time.monotonic()
        run = scratch / "run"
        run.mkdir(mode=0o700)
        env.update(
            XDG_RUNTIME_DIR=str(run),
            CODESIFT_CACHE_DIR=str(scratch / "cache"),
            CODESIFT_RG_FALLBACK="never",
            CODESIFT_DAEMON_IDLE="3600",
        )
        env.pop("RIPGREP_CONFIG_PATH", None)
        print(f"tree: {args.copies} copies, {files} files, {corpus_bytes / 1e9:.2f} GB", flush=True)
        timed([args.rg, *COMMON, "-c", "zebraword_warm"], tree, env)  # page cache warm
        # `cp -al` changes every inode's link count, so every file's ctime is the copying's:
        # a build started within the index's margin for coarse timestamps (2 s) of it counts
        # those files changed since the build and rebuilds at once, under the queries.
        time.sleep(max(0.0, made_at + 3.0 - time.monotonic()))
        if args.library_only:
            library = library_queries(tree, env, args.rounds, args.rg)
            table = "\n".join(library_table(library))
            print(table)
            (args.out / "scale-library.md").write_text(table + "\n")
            (args.out / "scale-library.json").write_text(json.dumps(library, indent=2) + "\n")
            return 0

        # 1. Ready: the forced query starts the daemon and has it index the tree; it waits a
        # bounded time and then scans, so readiness is read from the daemon's status: the
        # root's index published and its watch caught up.
        forced = dict(env, CODESIFT_RG_INDEX="force")
        started = time.perf_counter()
        timed([str(CODESIFT_RG), *COMMON, "-F", "zebraword_ready"], tree, forced)
        status, root = wait_until_served(env, tree, started, args.ready_limit)
        ready_s = time.perf_counter() - started
        daemon_pid = status["pid"]
        build_peak = proc_status_kib(daemon_pid, "VmHWM")
        index_bytes = root["index"]["bytes"]
        took, _, _ = timed([str(CODESIFT_RG), *COMMON, "-F", "zebraword_ready"], tree, forced)
        print(
            f"codesift ready in {ready_s:.1f} s, peak RSS {build_peak / 1024:.0f} MB, "
            f"index {index_bytes / 1e6:.0f} MB; a forced query then took {took:.3f} s",
            flush=True,
        )

        cindex = None if args.skip_cindex else shutil.which("cindex")
        cs: dict[str, float | int | None] = {"seconds": None, "peak_kib": None, "bytes": None}
        cs_env = dict(env, CSEARCHINDEX=str(scratch / "csearchindex"))
        if cindex:
            # At the priority the daemon builds at (docs/daemon.md), so that other work on a
            # shared machine weighs on both alike; on a quiet machine it changes nothing.
            background = ["nice", "-n", "19", "ionice", "-c", "2", "-n", "7"]
            took, _, peak = timed([*background, cindex, str(tree)], tree, cs_env)
            cs = {
                "seconds": took,
                "peak_kib": peak,
                "bytes": (scratch / "csearchindex").stat().st_size,
            }
            print(f"cindex in {took:.1f} s, peak RSS {peak / 1024:.0f} MB", flush=True)

        # 3. Queries, interleaved.
        csearch = shutil.which("csearch") if cs["seconds"] is not None else None
        results: dict[str, dict[str, list[float]]] = {}
        mismatches = []
        for label, query in QUERIES:
            tools: list[tuple[str, list[str], dict[str, str]]] = [
                ("codesift-rg", [str(CODESIFT_RG), *COMMON, *query], env),
                ("rg", [args.rg, *COMMON, *query], env),
            ]
            if csearch and query[0] != "--files":
                regex = query[-1] if query[0] != "-F" else query[-1].replace("_", "_")
                flags = ["-i"] if "-i" in query else []
                tools.append(("csearch", [csearch, "-n", *flags, regex], cs_env))
            times: dict[str, list[float]] = {name: [] for name, _, _ in tools}
            outputs: dict[str, bytes] = {}
            for round_no in range(args.rounds + 1):
                for name, argv_, tool_env in tools:
                    took, out, _ = timed(argv_, tree, tool_env)
                    if round_no:
                        times[name].append(took)
                    outputs[name] = out
            if sorted(outputs["codesift-rg"].splitlines()) != sorted(outputs["rg"].splitlines()):
                mismatches.append(label)
            results[label] = times
        steady = proc_status_kib(daemon_pid, "VmRSS")
        library = library_queries(tree, env, args.rounds, args.rg) if args.library else None
    finally:
        subprocess.run(
            [sys.executable, "-m", "codesift", "daemon", "stop"], env=env, capture_output=True
        )
        shutil.rmtree(scratch, ignore_errors=True)

    def median(values: list[float]) -> float:
        return statistics.median(values) if values else float("nan")

    lines = [
        f"Tree: {args.copies} hard-linked copies of the corpus, {files:,} files, "
        f"{corpus_bytes / 1e9:.2f} GB; {os.cpu_count()} cores; rg: `{args.rg}`.",
        "",
        "| build | codesift daemon | cindex | ratio |",
        "|---|---|---|---|",
    ]

    def ratio(a: float | int | None, b: float | int | None) -> str:
        return f"{a / b:.2f}" if a and b else "—"

    cs_s, cs_peak, cs_bytes = cs["seconds"], cs["peak_kib"], cs["bytes"]
    lines += [
        f"| ready (s) | {ready_s:.1f} | {cs_s if cs_s is None else f'{cs_s:.1f}'} | "
        f"{ratio(ready_s, cs_s)} |",
        f"| peak RSS (MB) | {build_peak / 1024:.0f} | "
        f"{'—' if cs_peak is None else f'{cs_peak / 1024:.0f}'} | {ratio(build_peak, cs_peak)} |",
        f"| index / corpus | {index_bytes / corpus_bytes:.3f} | "
        f"{'—' if cs_bytes is None else f'{cs_bytes / corpus_bytes:.3f}'} | "
        f"{ratio(index_bytes, cs_bytes)} |",
        f"| daemon RSS serving (MB) | {steady / 1024:.0f} | | |",
        "",
        "| query | rg s | codesift-rg s | codesift-rg / rg | csearch s | csearch / rg "
        "| same lines |",
        "|---|---|---|---|---|---|---|",
    ]
    for label, times in results.items():
        rg_s = median(times["rg"])
        cs_q = median(times.get("csearch", []))
        lines.append(
            f"| `{label}` | {rg_s:.3f} | {median(times['codesift-rg']):.3f} | "
            f"{median(times['codesift-rg']) / rg_s:.3f} | "
            f"{'—' if cs_q != cs_q else f'{cs_q:.3f}'} | "
            f"{'—' if cs_q != cs_q else f'{cs_q / rg_s:.3f}'} | "
            f"{'no' if label in mismatches else 'yes'} |"
        )
    if library is not None:
        lines += library_table(library)
    table = "\n".join(lines)
    print(table)
    (args.out / "scale.md").write_text(table + "\n")
    raw = {
        "copies": args.copies,
        "files": files,
        "corpus_bytes": corpus_bytes,
        "ready_seconds": ready_s,
        "build_peak_kib": build_peak,
        "index_bytes": index_bytes,
        "steady_rss_kib": steady,
        "cindex": cs,
        "queries": results,
        "mismatches": mismatches,
        "library": library,
    }
    (args.out / "scale.json").write_text(json.dumps(raw, indent=2) + "\n")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
