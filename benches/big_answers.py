"""Big answers through a pipe: `codesift grep -m 0 PATTERN` against `rg -n PATTERN` over a
corpus, each reading every byte of the other end of the pipe as `| wc -c` would. Prints wall
time, peak RSS (of that process alone, from wait4) and bytes out; the time to the first line;
and the time `| head -1` takes (the search must stop when the pipe closes).

    python benches/big_answers.py CORPUS [--pattern e] [--runs 3]

The Linux tree makes a good corpus (/work/shared/bench/get_corpus.sh DEST fetches it)."""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time


def run(cmd: list[str], cwd: str) -> dict[str, float]:
    """Runs `cmd` with its stdout drained; wall time, peak RSS (MB), bytes, first-line time."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    out, first = 0, None
    fd = proc.stdout.fileno()
    while chunk := os.read(fd, 1 << 16):
        if first is None:
            first = time.monotonic() - start
        out += len(chunk)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - start
    return {
        "seconds": wall,
        "first_line_ms": (first or wall) * 1000,
        "peak_mb": usage.ru_maxrss / 1024,
        "bytes": out,
        "code": proc.returncode,
    }


def head_one(cmd: list[str], cwd: str) -> float:
    """Seconds until `cmd | head -1` is over (the command sees the closed pipe and exits)."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    proc.stdout.readline()
    proc.stdout.close()
    proc.wait()
    return time.monotonic() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus")
    parser.add_argument("--pattern", default="e")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rg", default=shutil.which("rg") or "rg")
    parser.add_argument("--no-ignore", action="store_true", help="both: no ignore files")
    args = parser.parse_args()
    extra = ["--no-ignore"] if args.no_ignore else []
    commands = {
        "codesift": [sys.executable, "-m", "codesift", "grep", "-m", "0", *extra, args.pattern],
        "rg": [args.rg, "-n", *extra, args.pattern],
    }
    results: dict[str, list[dict[str, float]]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, cmd in commands.items():
            results[name].append(run(cmd, args.corpus))
    print(f"corpus {args.corpus}, pattern {args.pattern!r}, {args.runs} runs (median)")
    row = "{:<10} {:>9} {:>10} {:>9} {:>14} {:>10}"
    print(row.format("", "seconds", "first ms", "peak MB", "bytes out", "head -1 s"))
    medians = {}
    for name, runs in results.items():
        m = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        medians[name] = m
        head = head_one(commands[name], args.corpus)
        print(
            row.format(
                name,
                f"{m['seconds']:.2f}",
                f"{m['first_line_ms']:.0f}",
                f"{m['peak_mb']:.0f}",
                int(m["bytes"]),
                f"{head:.2f}",
            )
        )
    ratio = medians["codesift"]["seconds"] / medians["rg"]["seconds"]
    print(f"codesift/rg time: x{ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
