"""Many hits on one very long line: codesift beside ripgrep, interleaved.

    python benches/long_lines.py [--rounds N] [--size BYTES] [--hits N] [--threads N] [--dir DIR]

Builds one file that is a single line of `--size` bytes (4 MB by default, with some
multibyte characters) holding `--hits` occurrences of "return" (4,000 by default), plus a
minified-style "id<number>" token per hit, and times:

- codesift: `Workspace.grep(pattern, max_matches=None)` through the Python API, returning every
  hit (the clock covers the call; "+touch" also reads `line` and `column` of every hit);
- rg: `rg --count-matches` and `rg -o --column -n` (a fresh process each, output through a
  pipe).

Each round runs every tool once per query in turn (A B C A B C ...) after a warm-up round.
Reported: median seconds per tool and codesift's ratio to the faster rg run. Building a hit
must not cost the length of its line: with a per-hit cost proportional to the line this file
took seconds where rg takes milliseconds.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

QUERIES = [
    # (name, pattern, literal, case_sensitive)
    ("literal", "return", True, True),
    ("literal, case-insensitive (the default)", "return", True, False),
    ("regex, distinct hits", r"id\d+", False, True),
]


def make_tree(root: Path, size: int, hits: int) -> None:
    filler = "const x=a+b;/* é ü */ "
    chunk = max(1, size // hits)
    parts: list[str] = []
    for i in range(hits):
        pad = chunk - len("return id;") - len(str(i))
        parts.append("return id" + str(i) + ";" + (filler * (pad // len(filler) + 1))[:pad])
    (root / "min.js").write_text("".join(parts) + "\n", encoding="utf-8")


def find_rg() -> str | None:
    """The rg binary itself: a pyenv shim on PATH adds tens of milliseconds per run."""
    candidates = [Path(sys.executable).parent / "rg", Path(sys.base_prefix) / "bin" / "rg"]
    found = shutil.which("rg")
    if found:
        candidates.append(Path(found))
    for candidate in candidates:
        try:
            with open(candidate, "rb") as f:
                if f.read(4) == b"\x7fELF":
                    return str(candidate)
        except OSError:
            continue
    return found


def timed(fn: Callable[[], int]) -> tuple[float, int]:
    start = time.perf_counter()
    count = fn()
    return time.perf_counter() - start, count


def rg_runner(rg: str, root: Path, args: list[str], pattern: str) -> Callable[[], int]:
    def run() -> int:
        out = subprocess.run(
            [rg, "--no-config", *args, "-e", pattern, "min.js"],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            check=False,
        ).stdout
        if "--count-matches" in args:
            return int(out.strip() or 0)
        return out.count(b"\n")

    return run


def codesift_runner(
    root: Path, pattern: str, literal: bool, case_sensitive: bool, touch: bool, threads: int | None
) -> Callable[[], int]:
    from codesift import Workspace

    ws = Workspace(root, gitignore=False, cache_size=1, threads=threads)

    def run() -> int:
        result = ws.grep(pattern, literal=literal, case_sensitive=case_sensitive, max_matches=None)
        if touch:
            return sum(1 for m in result.matches if m.line and m.column)
        return len(result.matches)

    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--size", type=int, default=4_000_000)
    parser.add_argument("--hits", type=int, default=4_000)
    parser.add_argument("--threads", type=int, default=None, help="codesift's threads")
    parser.add_argument("--dir", type=Path, default=None, help="where to build the file")
    args = parser.parse_args()
    rg = find_rg()
    if rg is None:
        print("rg not found: pip install --only-binary :all: ripgrep", file=sys.stderr)
        return 2
    status = 0
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        root = Path(tmp)
        make_tree(root, args.size, args.hits)
        for name, pattern, literal, case_sensitive in QUERIES:
            flags = ([] if case_sensitive else ["-i"]) + (["-F"] if literal else [])
            tools: dict[str, Callable[[], int]] = {
                "codesift": codesift_runner(
                    root, pattern, literal, case_sensitive, False, args.threads
                ),
                "codesift+touch": codesift_runner(
                    root, pattern, literal, case_sensitive, True, args.threads
                ),
                "rg --count-matches": rg_runner(rg, root, [*flags, "--count-matches"], pattern),
                "rg -o --column -n": rg_runner(rg, root, [*flags, "-o", "--column", "-n"], pattern),
            }
            times: dict[str, list[float]] = {tool: [] for tool in tools}
            counts: dict[str, int] = {}
            for round_no in range(args.rounds + 1):  # round 0 warms up
                for tool, fn in tools.items():
                    seconds, counts[tool] = timed(fn)
                    if round_no:
                        times[tool].append(seconds)
            medians = {tool: statistics.median(ts) for tool, ts in times.items()}
            rg_best = min(medians["rg --count-matches"], medians["rg -o --column -n"])
            print(f"\n{name}: /{pattern}/ on one {args.size:,}-byte line, {args.rounds} rounds")
            for tool, median in medians.items():
                print(
                    f"  {tool:20} {median * 1000:9.2f} ms  ratio to rg {median / rg_best:6.2f}"
                    f"  ({counts[tool]} hits)"
                )
            if len(set(counts.values())) != 1:
                print(f"  counts differ: {counts}", file=sys.stderr)
                status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
