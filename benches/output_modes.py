"""`codesift grep`'s piped output modes against rg's fastest equivalent argv: whole processes,
output through a pipe, interleaved rounds (a warm-up round first), medians and ratios; the
outputs compared line for line (sorted: rg without `--sort` prints in any order; JSON
documents of different shapes by their hit count).

    python benches/output_modes.py --corpus /work/corpus/linux --pattern '\\w+_lock'
    python benches/output_modes.py --corpus /work/corpus/linux/kernel/sched --pattern '\\w'
    python benches/output_modes.py --corpus "$stdlib/email" --pattern 'def \\w+' --smoke

Both search everything under the corpus (`--no-ignore` and hidden files for codesift, `-uu`
for rg: a tree's own ignore files, such as the Linux tree's root `.gitignore` of `/*`, would
hide it all), with no daemon or index for codesift (`--no-index`, `CODESIFT_DAEMON=never`).
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

#: (name, codesift's flags, rg's flags, how the outputs are compared)
MODES: list[tuple[str, list[str], list[str], str]] = [
    ("plain (`-n`, the default)", [], ["-n"], "lines"),
    ("`-N`", ["-N"], [], "lines"),
    ("`-o`", ["-o"], ["-n", "-o"], "lines"),
    ("`-c`", ["-c"], ["-c"], "lines"),
    ("`-l`", ["-l"], ["-l"], "lines"),
    ("`--vimgrep`", ["--vimgrep"], ["--vimgrep"], "lines"),
    ("`--json` (rg: `--json`)", ["--json"], ["--json"], "json"),
]


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, bytes]:
    start = time.perf_counter()
    done = subprocess.run(
        argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False
    )
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"{argv} exited {done.returncode}")
    return elapsed, done.stdout


def hits_of_json(output: bytes, ours: bool) -> int:
    """The matches a JSON output reports: codesift's documents' hits, rg's submatches."""
    if ours:
        return sum(len(json.loads(doc)["matches"]) for doc in output.splitlines() if doc)
    found = 0
    for line in output.splitlines():
        message = json.loads(line)
        if message["type"] == "match":
            found += len(message["data"]["submatches"])
    return found


def same(kind: str, ours: bytes, theirs: bytes) -> str:
    if kind == "json":
        a, b = hits_of_json(ours, True), hits_of_json(theirs, False)
        return "same hits" if a == b else f"DIFFERENT ({a} vs {b} hits)"
    if sorted(ours.splitlines()) == sorted(theirs.splitlines()):
        return "same lines"
    return "DIFFERENT"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--pattern", default=r"\w+_lock")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rg", action="append", default=None, help="rg binaries (repeatable)")
    parser.add_argument("--smoke", action="store_true", help="one round, no warm-up (CI)")
    parser.add_argument("--out", type=Path, default=None, help="write output_modes.md there")
    args = parser.parse_args()
    rgs = args.rg or [shutil.which("rg") or "rg"]
    rounds = 1 if args.smoke else args.rounds
    corpus = args.corpus.resolve()
    private = Path(tempfile.mkdtemp(prefix="output-modes-"))
    (private / "run").mkdir(mode=0o700)
    env = {
        **os.environ,
        "XDG_RUNTIME_DIR": str(private / "run"),
        "CODESIFT_CACHE_DIR": str(private / "cache"),
        "CODESIFT_DAEMON": "never",
    }
    ours = [sys.executable, "-m", "codesift", "grep", "--no-ignore", "--no-index"]
    tools = [("codesift", None)] + [(f"rg {Path(rg).name}#{i}", rg) for i, rg in enumerate(rgs)]
    times: dict[tuple[str, str], list[float]] = {}
    checks: dict[tuple[str, str], str] = {}
    for round_no in range(rounds + (0 if args.smoke else 1)):  # round 0 warms up
        for name, our_flags, rg_flags, kind in MODES:
            outputs = {}
            for tool, rg in tools:
                if rg is None:
                    argv = [*ours, *our_flags, args.pattern, "."]
                else:
                    argv = [rg, "-uu", "--no-config", *rg_flags, args.pattern, "."]
                took, outputs[tool] = run(argv, corpus, env)
                if round_no > 0 or args.smoke:
                    times.setdefault((name, tool), []).append(took)
            for tool, _rg in tools[1:]:
                checks[(name, tool)] = same(kind, outputs["codesift"], outputs[tool])
        print(f"round {round_no}/{rounds} done", file=sys.stderr)
    header = "| mode | codesift s | " + " | ".join(
        f"{tool} s | ratio | output" for tool, _ in tools[1:]
    )
    rows = [header + " |", "|---|---|" + "---|---|---|" * (len(tools) - 1)]
    for name, _our_flags, _rg_flags, _ in MODES:
        ours_s = statistics.median(times[(name, "codesift")])
        cells = [name, f"{ours_s:.3f}"]
        for tool, _rg in tools[1:]:
            rg_s = statistics.median(times[(name, tool)])
            cells += [f"{rg_s:.3f}", f"{ours_s / rg_s:.2f}", checks[(name, tool)]]
        rows.append("| " + " | ".join(cells) + " |")
    report = "\n".join(rows)
    versions = ", ".join(
        subprocess.run([rg, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
        for _, rg in tools[1:]
    )
    print(
        f"corpus {corpus}, pattern `{args.pattern}`, {rounds} interleaved rounds, medians; "
        f"{versions}"
    )
    print(report)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "output_modes.md").write_text(report + "\n")
    shutil.rmtree(private, ignore_errors=True)
    return 1 if any(c.startswith("DIFFERENT") for c in checks.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
