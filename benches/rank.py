"""Ranked grep on a large tree (the Linux tree): is the definition first, and what does ranking
cost?

1. Definition first. Symbols defined exactly once, chosen without codesift's tagger: macros
   `#define NAME` of `include/linux/*.h` and functions of `kernel/**/*.c` whose head opens a
   line (`int name(...)` followed by a line `{`), each kept only when the same regexes find
   that one definition in the whole tree. For each, `grep(NAME, literal, case-sensitive)`
   with and without `rank=True`: the position of the definition's line among the hits.
2. Cost. The same searches with every hit (`max_matches=None`), plain and ranked, interleaved,
   warm, medians: the ratio is what ranking adds to a search. A window parsed once is
   remembered by its bytes, so the repeats do not parse again: the first ranked search of each
   pattern (its windows never parsed in the process) is shown apart, as "first".

    python benches/rank.py --corpus /work/corpus/linux --symbols 100 --rounds 5

`--no-ignore` is implied (the Linux tree's root .gitignore is `/*`). In-process index
(`CODESIFT_DAEMON=never` is set), built first if missing.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("CODESIFT_DAEMON", "never")

from codesift import Workspace  # noqa: E402

DEFINE = re.compile(r"^#define\s+([A-Za-z_]\w{5,})\b")
FUNCTION_HEAD = re.compile(r"^[A-Za-z_][^;(=]*?\b([a-z_]\w{5,})\([^;]*$")
COST_PATTERNS = ["ERR_PTR", "kmalloc", "irq_handler", "PM_RESUME", r"\w+_resume\("]


def candidates(root: Path, limit: int, rng: random.Random) -> list[tuple[str, str, int]]:
    """(name, file, line) of macros and function heads, shuffled, at most `limit` * 4."""
    found: list[tuple[str, str, int]] = []
    for path in sorted((root / "include/linux").glob("*.h")):
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            m = DEFINE.match(line)
            if m:
                found.append((m.group(1), str(path.relative_to(root)), n))
    for path in sorted((root / "kernel").rglob("*.c")):
        lines = path.read_text(errors="replace").splitlines()
        for n, line in enumerate(lines, 1):
            m = FUNCTION_HEAD.match(line)
            if m and n < len(lines) and lines[n] == "{":
                found.append((m.group(1), str(path.relative_to(root)), n))
    rng.shuffle(found)
    return found[: limit * 4]


def defined_once(ws: Workspace, name: str) -> bool:
    """The definition regexes find one definition of `name` in the whole tree."""
    escaped = re.escape(name)
    pattern = rf"^#define\s+{escaped}\b|^[A-Za-z_][^;(=]*\b{escaped}\([^;]*$"
    result = ws.grep(pattern, max_matches=None, case_sensitive=True)
    return result.total == 1


def position(result, file: str, line: int) -> int | None:
    for at, m in enumerate(result.matches, 1):
        if (m.file, m.line) == (file, line):
            return at
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, required=True, help="the Linux tree")
    parser.add_argument("--symbols", type=int, default=100, help="symbols to rank (100)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of each timed search (5)")
    parser.add_argument("--seed", type=int, default=1, help="the sample's seed (1)")
    parser.add_argument("--out", type=Path, help="write the report (markdown) here too")
    args = parser.parse_args()
    if not (args.corpus / "include/linux").is_dir():
        print(f"rank.py: {args.corpus} is not a Linux tree (no include/linux)", file=sys.stderr)
        return 2
    ws = Workspace(args.corpus, gitignore=False, index=True)
    ws.grep("ERR_PTR", max_matches=1)  # builds the index if missing, warms it
    rng = random.Random(args.seed)
    chosen = []
    for name, file, line in candidates(args.corpus, args.symbols, rng):
        if len(chosen) == args.symbols:
            break
        if any(name == c[0] for c in chosen) or not defined_once(ws, name):
            continue
        chosen.append((name, file, line))
    ranked_at, path_at, first_defs = [], [], 0
    for name, file, line in chosen:
        plain = ws.grep(name, literal=True, case_sensitive=True, max_matches=None)
        ranked = ws.grep(name, literal=True, case_sensitive=True, max_matches=None, rank=True)
        r, p = position(ranked, file, line), position(plain, file, line)
        if r is None or p is None:
            continue
        ranked_at.append(r)
        path_at.append(p)
        first_defs += r == 1
    lines = [
        f"# Ranked grep on {args.corpus.name} ({len(ranked_at)} symbols defined once)",
        "",
        "| order | definition first | median position | mean position |",
        "|---|---|---|---|",
    ]
    for label, at in (("path (rank=False)", path_at), ("ranked", ranked_at)):
        firsts = sum(1 for a in at if a == 1)
        lines.append(
            f"| {label} | {firsts}/{len(at)} ({firsts / max(len(at), 1):.0%}) | "
            f"{statistics.median(at) if at else 0:g} | {statistics.fmean(at) if at else 0:.1f} |"
        )
    lines += ["", "| pattern | hits | plain ms | ranked ms | ranked / plain | first ranked ms |"]
    lines += ["|---|---|---|---|---|---|"]
    for pattern in COST_PATTERNS:
        plain_t, ranked_t = [], []
        hits = 0
        for _ in range(args.rounds):
            start = time.perf_counter()
            hits = ws.grep(pattern, max_matches=None, case_sensitive=True).total
            plain_t.append(time.perf_counter() - start)
            start = time.perf_counter()
            ws.grep(pattern, max_matches=None, case_sensitive=True, rank=True)
            ranked_t.append(time.perf_counter() - start)
        p, r = statistics.median(plain_t), statistics.median(ranked_t)
        first = ranked_t[0]
        lines.append(
            f"| `{pattern}` | {hits} | {p * 1e3:.1f} | {r * 1e3:.1f} | {r / p:.2f} | "
            f"{first * 1e3:.1f} ({first / p:.2f}×) |"
        )
    lines.append("")
    lines.append(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    report = "\n".join(lines)
    print(report)
    if args.out:
        args.out.write_text(report + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
