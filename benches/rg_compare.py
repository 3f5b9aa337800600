"""codesift-rg against the real rg, whole processes with the same argv, output through a pipe,
interleaved rounds, medians and ratios; outputs compared line for line (sorted, since neither
promises an order without --sort).

On a big tree codesift-rg answers from the host's index daemon (warmed first with
CODESIFT_RG_INDEX=force, then measured in the default `auto` mode); on a small tree (no
daemon) it scans. The daemon gets a private socket and cache directory and is stopped at the
end; its status (RSS beside the index size) is reported.

    python benches/rg_compare.py --corpus /work/corpus/linux --rounds 5 --out benches/results/rg
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

QUERIES = [
    ("rare literal", ["-F", "PM_RESUME"]),
    ("common literal, all hits", ["-F", "ERR_PTR"]),
    ("regex", [r"\w+_resume\("]),
    ("case-insensitive", ["-i", "irq_handler"]),
    ("files -g '*.c'", ["--files", "-g", "*.c"]),
    ("no usable trigram", [r"\w+_\d+\("]),
]


def codesift_rg() -> str:
    import codesift

    found = Path(codesift.__file__).parent / "bin" / "codesift-rg"
    if not found.exists():
        sys.exit(f"{found} is missing: pip install -e . builds it")
    return str(found)


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, bytes]:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"{argv} exited {done.returncode}")
    return elapsed, done.stdout


def small_tree(where: Path) -> Path:
    for i in range(200):
        path = where / f"pkg{i % 10}" / f"mod{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"def handler_{i}():\n    return compute({i})\n" * 20)
    return where


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rg", default=shutil.which("rg") or "rg")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--quick", action="store_true", help="two queries (a smoke run)")
    parser.add_argument(
        "--cli",
        default=None,
        help="the codesift console script to time (as a user installs it: a fresh venv's "
        "bin/codesift); default: this interpreter's `-m codesift`",
    )
    args = parser.parse_args()
    ours = codesift_rg()
    private = Path(tempfile.mkdtemp(prefix="rg-compare-"))
    env = {
        **os.environ,
        "XDG_RUNTIME_DIR": str(private / "run"),
        "CODESIFT_CACHE_DIR": str(private / "cache"),
        "CODESIFT_RG_FALLBACK": "never",
    }
    (private / "run").mkdir(mode=0o700)
    queries = QUERIES[:2] if args.quick else QUERIES
    corpus = args.corpus.resolve()
    # Warm the daemon: index the corpus synchronously once.
    start = time.perf_counter()
    run([ours, "-c", "x", "--", "."], corpus, {**env, "CODESIFT_RG_INDEX": "force"})
    warm_s = time.perf_counter() - start
    launcher = [args.cli] if args.cli else [sys.executable, "-m", "codesift"]
    cli = [*launcher, "grep", "--index", "--no-ignore"]
    if not args.quick:
        # The one-shot CLI asks the same daemon; its index (the CLI's own rules) is built on
        # its first call, in the background: wait until the daemon holds a second caught-up
        # root.
        subprocess.run([*cli, "-F", "x", "."], cwd=corpus, env=env, capture_output=True)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            shown = subprocess.run(
                [sys.executable, "-m", "codesift", "daemon", "status", "--json"],
                env=env,
                capture_output=True,
                text=True,
            ).stdout
            roots = json.loads(shown or "{}").get("roots", [])
            if sum(r["watch"].get("state") == "caught up" for r in roots) >= 2:
                break
            time.sleep(1)
    small = small_tree(private / "small")
    cases = [("big", corpus, name, q) for name, q in queries]
    if not args.quick:
        cases.append(("cli", corpus, "codesift grep --index (rg -uu -n)", ["-F", "PM_RESUME"]))
    cases.append(("small (no daemon)", small, "literal, 200-file tree", ["-F", "compute(7"]))
    times: dict[tuple[str, str], list[float]] = {}
    checks: dict[str, str] = {}
    for _ in range(args.rounds):
        for tree, cwd, name, q in cases:
            our_env = dict(env)
            if tree != "big":
                our_env["CODESIFT_RG_INDEX"] = "never"
            if tree == "cli":
                # Both print `./path:line:text`.
                t_rg, out_rg = run([args.rg, "-uu", "-n", *q, "."], cwd, env)
                t_ours, out_ours = run([*cli, *q, "."], cwd, our_env)
            else:
                t_rg, out_rg = run([args.rg, *q], cwd, env)
                t_ours, out_ours = run([ours, *q], cwd, our_env)
            times.setdefault((name, "rg"), []).append(t_rg)
            times.setdefault((name, "codesift-rg"), []).append(t_ours)
            same = sorted(out_rg.splitlines()) == sorted(out_ours.splitlines())
            checks[name] = "same lines" if same else "DIFFERENT"
    status = subprocess.run(
        [sys.executable, "-m", "codesift", "daemon", "status", "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    subprocess.run([sys.executable, "-m", "codesift", "daemon", "stop"], env=env, check=False)
    rows = ["| query | rg s | codesift-rg s | ratio | output |", "|---|---|---|---|---|"]
    for _, _, name, q in cases:
        rg_s = statistics.median(times[(name, "rg")])
        ours_s = statistics.median(times[(name, "codesift-rg")])
        shown = name + " `" + " ".join(q) + "`"
        rows.append(
            f"| {shown} | {rg_s:.4f} | {ours_s:.4f} | {ours_s / rg_s:.3f} | {checks[name]} |"
        )
    report = "\n".join(rows)
    print(
        f"corpus {corpus}, {args.rounds} interleaved rounds, medians; "
        f"warm-up (index) {warm_s:.1f} s"
    )
    print(report)
    print("daemon status:", status.strip()[:2000])
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "rg_compare.md").write_text(report + "\n")
        (args.out / "rg_compare.json").write_text(
            json.dumps({f"{k[0]}|{k[1]}": v for k, v in times.items()}, indent=1)
        )
    shutil.rmtree(private, ignore_errors=True)
    return 1 if "DIFFERENT" in checks.values() else 0


if __name__ == "__main__":
    raise SystemExit(main())
