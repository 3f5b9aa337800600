"""Start-up cost: `import codesift` and a whole `codesift grep` process, beside a bare
interpreter and ripgrep, interleaved.

    python benches/startup.py [--rounds N] [--files N] [--importtime N] [--no-compile] [--rg RG]

Generates a small repository (`--files` Python files, 200 by default, in a few directories,
a `git init` if git is installed) and times, as fresh processes each round (in a shuffled
order, after a warm-up round):

- `python -c pass` and `python -S -c pass`: the bare interpreter, with and without `site`
  (a virtualenv's `.pth` files can cost more than codesift itself);
- `python -c "import codesift"`, `python -c "from codesift import Workspace"`, and the
  same with `-S`: what the package adds is the difference to the bare interpreter run with
  the same flags;
- `codesift grep PATTERN` in the repository, its output read through a pipe: the console
  script's own code (`from codesift.cli import main; sys.exit(main())`) run by this
  interpreter, so that it measures the package this interpreter imports (and the same
  with `-S`: a piped grep needs nothing from site-packages);
- `codesift grep PATTERN` through the console script pip wrote beside this interpreter
  (`bin/codesift`, when there is one): what a user who installed codesift runs, its launcher's
  own imports included;
- `rg -n PATTERN` in the same repository (`--rg`, else ripgrep beside this interpreter, else
  from PATH: a PATH `rg` may be a version manager's shell-script shim, which would time the
  shell), through a pipe as well.

Every run imports the codesift this interpreter finds (its parent directory is put on
PYTHONPATH, so `-S` finds it too). Its bytecode is compiled first (`compileall`) unless
`--no-compile`: with PYTHONDONTWRITEBYTECODE set nothing else would, and every run would
recompile the package. Reported: the median and minimum wall time of each and its median
CPU time (user + system, which a loaded machine disturbs less), what codesift adds over the
bare interpreter, and codesift grep's ratio to rg. With `--importtime N`, the modules that
cost most in `python -X importtime` of `from codesift import Workspace` (with -S) and of the
grep (own time, the minimum of N runs each) follow: a dataclass's definition counts in the
own time of the module that defines it.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.util import find_spec
from pathlib import Path

PATTERN = "needle"
CLI = "import sys; from codesift.cli import main; sys.exit(main())"


def make_repo(root: Path, files: int) -> None:
    """`files` Python files of 40 lines, in ten directories; every third holds PATTERN."""
    for i in range(files):
        path = root / f"pkg{i % 10}" / f"module_{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [f"def function_{i}_{n}(value):\n    return value + {n}\n" for n in range(20)]
        if i % 3 == 0:
            lines[7] = f'def {PATTERN}_{i}():\n    return "{PATTERN}"\n'
        path.write_text("".join(lines))
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(root)], check=True)


def package_parent() -> str:
    spec = find_spec("codesift")
    if spec is None or spec.origin is None:
        sys.exit("codesift is not importable by this interpreter")
    return str(Path(spec.origin).parent.parent)


def find_rg() -> str | None:
    beside = Path(sys.executable).parent / "rg"
    return str(beside) if beside.exists() else shutil.which("rg")


def find_script() -> str | None:
    """The `codesift` console script installed with this interpreter, if any."""
    script = Path(sys.executable).parent / "codesift"
    return str(script) if script.exists() else None


BARE, IMPORT, WORKSPACE = (
    "python -c pass",
    "python -c 'import codesift'",
    "python -c 'from codesift import Workspace'",
)
BARE_S, IMPORT_S, WORKSPACE_S = (
    name.replace("python ", "python -S ") for name in (BARE, IMPORT, WORKSPACE)
)
GREP, GREP_S, SCRIPT, RG = (
    f"codesift grep {PATTERN}",
    f"python -S codesift grep {PATTERN}",
    f"bin/codesift grep {PATTERN}",
    f"rg -n {PATTERN}",
)


def commands(rg: str | None, script: str | None) -> dict[str, list[str]]:
    py = sys.executable
    runs = {
        BARE: [py, "-c", "pass"],
        IMPORT: [py, "-c", "import codesift"],
        WORKSPACE: [py, "-c", "from codesift import Workspace"],
        BARE_S: [py, "-S", "-c", "pass"],
        IMPORT_S: [py, "-S", "-c", "import codesift"],
        WORKSPACE_S: [py, "-S", "-c", "from codesift import Workspace"],
        GREP: [py, "-c", CLI, "grep", PATTERN],
        GREP_S: [py, "-S", "-c", CLI, "grep", PATTERN],
    }
    if script is not None:
        runs[SCRIPT] = [script, "grep", PATTERN]
    if rg is not None:
        runs[RG] = [rg, "-n", PATTERN]
    return runs


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, bytes]:
    """Wall seconds, CPU seconds (user + system, every thread) and stdout of one run."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        sys.exit(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stderr.decode()[-500:]}")
    cpu = after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime
    return elapsed, cpu, proc.stdout


def importtime(
    argv: list[str], bare: list[str], cwd: Path, env: dict[str, str], runs: int
) -> list[str]:
    """The modules whose own import time (`-X importtime`'s "self", the minimum over `runs`)
    is largest, leaving out those the `bare` interpreter imports too: the 15 first, with
    their cumulative time, and the total of them all."""
    best: dict[str, tuple[int, int]] = {}
    bare_x = [bare[0], "-X", "importtime", *bare[1:]]
    baseline = subprocess.run(bare_x, cwd=cwd, env=env, capture_output=True, text=True).stderr
    skip = {line.split("|")[-1].strip() for line in baseline.splitlines() if "|" in line}
    for _ in range(runs):
        argv_x = [argv[0], "-X", "importtime", *argv[1:]]
        err = subprocess.run(argv_x, cwd=cwd, env=env, capture_output=True, text=True).stderr
        for line in err.splitlines():
            if not line.startswith("import time:") or "[us]" in line:
                continue
            own, cumulative, name = line.split(":", 1)[1].split("|")
            key = name.strip()
            if key in skip:
                continue
            seen = best.get(key, (int(own), int(cumulative)))
            best[key] = (min(seen[0], int(own)), min(seen[1], int(cumulative)))
    rows = sorted(((own, cumulative, key) for key, (own, cumulative) in best.items()), reverse=True)
    total = sum(own for own, _, _ in rows)
    lines = [f"{o / 1000:8.1f} {c / 1000:8.1f}  {k}" for o, c, k in rows[:15]]
    return [*lines, f"{total / 1000:8.1f}           (all {len(rows)} modules beyond {bare[1:]})"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=30, help="timed rounds (default 30)")
    parser.add_argument("--files", type=int, default=200, help="files in the repository")
    parser.add_argument(
        "--importtime", type=int, default=0, metavar="N", help="also list import costs (N runs)"
    )
    parser.add_argument("--no-compile", action="store_true", help="do not compile bytecode")
    parser.add_argument("--rg", default=None, help="the ripgrep executable to time")
    args = parser.parse_args()

    parent = package_parent()
    if not args.no_compile:
        compiled = subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(Path(parent) / "codesift")],
            capture_output=True,
        )
        if compiled.returncode:  # e.g. a read-only install: timings then include compiling
            print(f"note: compileall failed, bytecode may be missing: {compiled.stdout[-300:]!r}")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (parent, env.get("PYTHONPATH")) if p)
    rg = args.rg or find_rg()
    script = find_script()
    runs = commands(rg, script)
    times: dict[str, list[float]] = {name: [] for name in runs}
    cpu: dict[str, list[float]] = {name: [] for name in runs}
    with tempfile.TemporaryDirectory(prefix="codesift-startup-") as tmp:
        repo = Path(tmp)
        make_repo(repo, args.files)
        outputs = {name: run(argv, repo, env)[2] for name, argv in runs.items()}  # warm-up
        if rg is not None and sorted(outputs[GREP].splitlines()) != sorted(
            outputs[RG].splitlines()
        ):
            sys.exit("codesift grep and rg -n printed different lines")
        order = list(runs)
        shuffle = random.Random(0).shuffle
        for _ in range(args.rounds):
            shuffle(order)
            for name in order:
                wall, used, _ = run(runs[name], repo, env)
                times[name].append(wall)
                cpu[name].append(used)
        hits = len(outputs[GREP].splitlines())
        profiles = {}
        if args.importtime:
            for label, bare in ((WORKSPACE_S, BARE_S), (GREP, BARE)):
                profiles[label] = importtime(runs[label], runs[bare], repo, env, args.importtime)

    median = {name: statistics.median(t) * 1000 for name, t in times.items()}
    median_cpu = {name: statistics.median(t) * 1000 for name, t in cpu.items()}
    print(
        f"{sys.executable} (Python {sys.version.split()[0]}), {os.cpu_count()} CPUs; "
        f"codesift from {parent}; {args.files} files, {hits} matching lines; "
        f"{args.rounds} rounds after a warm-up, interleaved"
    )
    if rg is None:
        print("rg not found: ripgrep left out")
    else:
        print(f"rg: {rg}")
    if script is None:
        print("no console script beside the interpreter: bin/codesift left out")
    print()
    print("| command | median ms | min ms | median CPU ms |")
    print("|---|---|---|---|")
    for name, t in times.items():
        print(f"| `{name}` | {median[name]:.1f} | {min(t) * 1000:.1f} | {median_cpu[name]:.1f} |")
    print()
    print(
        f"{'(medians; CPU: user + system time, less sensitive to load)':55} {'wall':>9} {'CPU':>9}"
    )
    over = {
        "import codesift over python -c pass": (IMPORT, BARE),
        "import codesift over python -S -c pass": (IMPORT_S, BARE_S),
        "from codesift import Workspace over python -c pass": (WORKSPACE, BARE),
        "from codesift import Workspace over python -S -c pass": (WORKSPACE_S, BARE_S),
        "codesift grep over python -c pass": (GREP, BARE),
        "codesift grep with -S over python -S -c pass": (GREP_S, BARE_S),
    }
    for label, (what, base) in over.items():
        wall, used = median[what] - median[base], median_cpu[what] - median_cpu[base]
        print(f"{label + ':':55} {wall:+6.1f} ms {used:+6.1f} ms")
    if script is not None:
        wall, used = median[SCRIPT] - median[BARE], median_cpu[SCRIPT] - median_cpu[BARE]
        print(f"{'bin/codesift grep over python -c pass:':55} {wall:+6.1f} ms {used:+6.1f} ms")
    if rg is not None:
        for what in (GREP, SCRIPT) if script is not None else (GREP,):
            wall, used = median[what] / median[RG], median_cpu[what] / median_cpu[RG]
            print(f"{what.split(' grep')[0] + ' grep / rg:':55} {wall:7.1f}x {used:7.1f}x")
    for label, rows in profiles.items():
        print(f"\n-X importtime of {label} (min of {args.importtime}; self ms, cumulative ms):")
        print("\n".join(rows))


if __name__ == "__main__":
    main()
