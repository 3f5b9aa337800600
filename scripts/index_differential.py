"""The index differential test, long run on demand: random trees, changes and queries, every
indexed answer against a scan (see tests/index/index_differential.py).

    python scripts/index_differential.py --seed 1 --hours 2 --out /tmp/diffs
    python scripts/index_differential.py --seed 7 --iterations 50 --kinds watched,cli

Seeds run from --seed upwards, one tree each. Each difference (the first of each kind of
cause) is reduced and written under --out as a directory with repro.py; the run reports the
number of comparisons and the differences by cause. Exit code 1 when any were found.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "index"))

import index_differential as diff_test  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    parser.add_argument("--iterations", type=int, default=None, help="number of seeds")
    parser.add_argument("--hours", type=float, default=None, help="run this long")
    parser.add_argument("--out", default="index-differences", help="where reductions go")
    parser.add_argument(
        "--kinds",
        default=",".join(diff_test.KINDS),
        help="comma-separated: " + ", ".join(diff_test.KINDS),
    )
    parser.add_argument("--rounds", type=int, default=6, help="rounds of changes per tree")
    parser.add_argument("--reduce-seconds", type=float, default=240.0)
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()
    kinds = tuple(k for k in args.kinds.split(",") if k)
    unknown = sorted(set(kinds) - set(diff_test.KINDS))
    if unknown:
        parser.error(f"unknown kinds {unknown}; choose from {', '.join(diff_test.KINDS)}")
    if args.iterations is None and args.hours is None:
        args.iterations = 10
    deadline = time.monotonic() + args.hours * 3600 if args.hours is not None else None
    work = Path(tempfile.mkdtemp(prefix="codesift-differential-"))
    os.environ.setdefault("CODESIFT_CACHE_DIR", str(work / "cache"))
    # A daemon of this run's own (never the user's), asked only by the `daemon` kind.
    (work / "run").mkdir(mode=0o700)
    os.environ["XDG_RUNTIME_DIR"] = str(work / "run")
    os.environ["CODESIFT_DAEMON"] = "never"
    run = diff_test.Run(
        out=Path(args.out).resolve(),
        kinds=kinds,
        rounds=args.rounds,
        reduce_budget=args.reduce_seconds,
        log=(lambda _t: None) if args.quiet else (lambda text: print(text, flush=True)),
    )
    seed, done = args.seed, 0
    started = time.monotonic()
    while True:
        if args.iterations is not None and done >= args.iterations:
            break
        if deadline is not None and time.monotonic() >= deadline:
            break
        run.seed(seed, work / "trees")
        done += 1
        print(
            f"seed {seed}: {run.comparisons} comparisons ({run.daemon_comparisons} through the "
            f"daemon), {sum(run.signatures.values())} "
            f"differences ({len(run.signatures)} causes), {time.monotonic() - started:.0f}s",
            flush=True,
        )
        seed += 1
    if "daemon" in kinds:
        from codesift import daemon

        daemon.stop()
    print(
        f"\n{done} seeds ({args.seed}..{seed - 1}), {run.comparisons} comparisons "
        f"({run.daemon_comparisons} through the daemon)"
    )
    for sig, count in sorted(run.signatures.items(), key=lambda kv: -kv[1]):
        where = next((d.directory for d in run.differences if d.signature == sig), "")
        print(f"  {count:5} x {sig}\n          {where}")
    return 1 if run.signatures else 0


if __name__ == "__main__":
    raise SystemExit(main())
