"""semble's code-retrieval benchmark (MinishLab/semble, `benchmarks/`), scored exactly as
semble scores it, for ripgrep (semble's own baseline) and codesift's searches.

    python benches/semble.py --annotations ~/semble/benchmarks --repos /work/semble-repos \
        --methods rg-count,codesift --out benches/results/semble.md

What semble's benchmark is
--------------------------
- `repos.json`: a list of `{name, language, url, revision, benchmark_root}`. Each repository is
  cloned at `revision` into a directory named `name`; the tools search `benchmark_root` inside
  it (`null`: the whole checkout), e.g. aiohttp's `aiohttp/`, fastapi's `fastapi/`.
- `annotations/NAME.json`: a list of tasks `{query, relevant, secondary, category}` (an item's
  `repo` key, when present, overrides the file's name). `relevant` and `secondary` are lists of
  targets, each a path relative to the checkout's root (`"aiohttp/client.py"`) or a mapping
  `{path, start_line, end_line}`. `seed` and `related` keys serve another of semble's
  benchmarks and are ignored here, as semble's loader ignores them.
- `category`: `symbol` (a named entity, e.g. `ClientSession`), `semantic` (a behaviour, e.g.
  "connection pooling and TCP connector") or `architecture` (e.g. "how the async HTTP client
  session works"). A task without one gets semble's `infer_category`: no space in the query
  -> `symbol`; else starting with "how " -> `architecture`; else `semantic`.

How semble scores (`benchmarks/metrics.py`, `benchmarks/baselines/ripgrep.py`)
-----------------------------------------------------------------------------
- Relevance is binary and by FILE for file-level tools: the targets are `relevant + secondary`
  together (both gain 1; the line span of a target is not used by a tool that returns files,
  semble's `file_rank` looks at the path alone). A target's rank is the 1-based position of the
  first returned path that matches it, where a path matches when it equals the target or
  either ends with "/" + the other (`path_matches`; the tools return absolute paths under the
  checkout, so the suffix rule is what matches them).
- NDCG@10: gains[rank-1] = 1 for each target rank within 1..10 (two targets on one file set
  one position once); DCG = sum(gain_i / log2(i + 2)) over positions i = 0..9; the ideal is
  DCG of min(10, number of targets) ones; a task with no target scores 0.
- The ripgrep baseline ("ripgrep", `run_ripgrep_count`): the whole query is ONE pattern,
  `rg --count --no-heading --ignore-case --hidden --glob '!.git' --fixed-strings QUERY DIR`
  with DIR the benchmark root: literal, case-insensitive, hidden files searched, ignore files
  honoured. Files are ordered by their count of matching lines, descending (a stable sort of
  rg's output, so ties keep the order rg printed them in, which depends on its threads), and
  cut to the first 10. A natural-language query thus matches only where that exact phrase
  occurs, which is why the baseline scores low on `semantic` and `architecture` tasks.
- Latency: each query runs 3 times, its median is kept; a repository's p50 is the median of
  those. A repository's NDCG@10 is the mean over its tasks; semble's ripgrep script reports
  the mean of the repositories' means (`avg_ndcg10`) and per category the mean over
  repositories of each repository's category mean; its README's headline figure is called
  "averaged across all queries". This script reports both: "all queries" (the mean over every
  task, and per category over that category's tasks) and "repo mean" (semble's `avg_ndcg10`).
- semble ranks chunks (file, line span) for its own index, and a span target then needs an
  overlapping chunk; for ripgrep, and for every method here, the ranking is of files, as semble
  scores its ripgrep baseline, so spans are ignored.

How a query becomes each method's search (like for like with semble's rg call)
-----------------------------------------------------------------------------
- `rg-count`: semble's command above, verbatim, with the `rg` on PATH (or `--rg`).
- `codesift`: `Workspace(checkout).grep(query, benchmark_root, literal=True,
  case_sensitive=False, max_matches=None)`: the same single literal, case-insensitive pattern,
  every hit, the workspace's defaults for the rest (hidden files searched, `.gitignore`
  honoured, `.git` skipped), as rg's flags ask. The ranked files are the files of the hits in
  hit order, each at its first occurrence: path order, the plain grep's order.
- `codesift-rank`: the same call with `rank=True` (definitions of the searched identifier
  first, then scores); the files in the ranked hits' order, first occurrence.
- `codesift-search`: `Workspace(checkout).search(query, path=benchmark_root)`, the keyword
  (BM25F) mode, given the query as typed; the files of its results in order.
A method whose API this codesift lacks is reported as "not available" (with why), not run.

Latency is warm: rg's first query of a repository and codesift's (one `Workspace` per
repository, kept open) run once untimed; then each query runs `--runs` times (3, as semble)
and its median is kept; the table gives p50 and p95 over all queries of a method.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TOP_K = 10
METHODS = ("rg-count", "codesift", "codesift-rank", "codesift-search")
CATEGORIES = ("symbol", "semantic", "architecture")


class BenchError(Exception):
    """A problem with the benchmark's input, told to the user without a traceback."""


@dataclass(frozen=True)
class Target:
    path: str
    start_line: int | None = None
    end_line: int | None = None


@dataclass(frozen=True)
class RepoSpec:
    name: str
    language: str
    revision: str
    benchmark_root: str | None


@dataclass(frozen=True)
class Task:
    repo: str
    query: str
    relevant: tuple[Target, ...]
    secondary: tuple[Target, ...]
    category: str

    @property
    def all_relevant(self) -> tuple[Target, ...]:
        return self.relevant + self.secondary


@dataclass
class TaskScore:
    task: Task
    ndcg10: float
    ranks: list[int]
    latency_ms: float
    top: list[str]


@dataclass
class MethodRun:
    method: str
    unavailable: str | None = None
    scores: list[TaskScore] = field(default_factory=list)


# --- semble's scoring, transcribed ----------------------------------------------------------


def infer_category(query: str) -> str:
    """semble's category for a task without one."""
    if " " not in query.strip():
        return "symbol"
    lowered = query.lower()
    if lowered.startswith("how "):
        return "architecture"
    return "semantic"


def path_matches(file_path: str, target_path: str) -> bool:
    """semble's `path_matches`: equal, or either is a "/"-suffix of the other."""
    norm_file = file_path.replace("\\", "/")
    norm_target = target_path.replace("\\", "/")
    return (
        norm_file == norm_target
        or norm_file.endswith(f"/{norm_target}")
        or norm_target.endswith(f"/{norm_file}")
    )


def file_rank(file_paths: Sequence[str], target_path: str) -> int | None:
    """1-based rank of the first path matching the target, or None."""
    for index, path in enumerate(file_paths, 1):
        if path_matches(path, target_path):
            return index
    return None


def dcg(relevances: Sequence[int]) -> float:
    return sum(rel / math.log2(i + 2) for i, rel in enumerate(relevances))


def ndcg_at_k(relevant_ranks: Sequence[int], n_relevant: int, k: int = TOP_K) -> float:
    """semble's `ndcg_at_k`: binary gains at the given 1-based ranks."""
    if n_relevant == 0:
        return 0.0
    relevances = [0] * k
    for rank in relevant_ranks:
        if 1 <= rank <= k:
            relevances[rank - 1] = 1
    ideal = dcg([1] * min(k, n_relevant))
    return dcg(relevances) / ideal if ideal > 0 else 0.0


def score_files(task: Task, files: Sequence[str]) -> tuple[float, list[int]]:
    ranks = [r for t in task.all_relevant if (r := file_rank(files, t.path)) is not None]
    return ndcg_at_k(ranks, len(task.all_relevant)), ranks


# --- semble's data ----------------------------------------------------------------------------


def _target(raw: object, where: str) -> Target:
    if isinstance(raw, str):
        return Target(path=raw)
    if isinstance(raw, dict) and isinstance(raw.get("path"), str):
        start, end = raw.get("start_line"), raw.get("end_line")
        return Target(
            path=raw["path"],
            start_line=int(start) if start is not None else None,
            end_line=int(end) if end is not None else None,
        )
    raise BenchError(f"{where}: a target is a path or {{path, start_line, end_line}}: {raw!r}")


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise BenchError(f"cannot read {path}: {error.strerror}") from None
    except json.JSONDecodeError as error:
        raise BenchError(f"{path} is not JSON: {error}") from None


def annotation_dir(annotations: Path) -> Path:
    """The directory of NAME.json files: `annotations/` inside semble's benchmarks directory,
    or the given directory itself."""
    inner = annotations / "annotations"
    return inner if inner.is_dir() else annotations


def load_repo_specs(annotations: Path) -> dict[str, RepoSpec]:
    for candidate in (annotations / "repos.json", annotations.parent / "repos.json"):
        if candidate.is_file():
            raw = _read_json(candidate)
            break
    else:
        raise BenchError(
            f"no repos.json in {annotations} (nor its parent): give --annotations semble's "
            "benchmarks directory (the one holding repos.json and annotations/)"
        )
    if not isinstance(raw, list):
        raise BenchError(f"{candidate}: expected a list of repositories")
    specs: dict[str, RepoSpec] = {}
    for item in raw:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise BenchError(f"{candidate}: each repository needs a name: {item!r}")
        specs[item["name"]] = RepoSpec(
            name=item["name"],
            language=str(item.get("language", "?")),
            revision=str(item.get("revision", "?")),
            benchmark_root=item.get("benchmark_root"),
        )
    return specs


def load_tasks(annotations: Path, specs: dict[str, RepoSpec]) -> list[Task]:
    """Every task of every annotation file whose repository is in `specs`, in semble's order
    (files sorted by name, tasks in file order)."""
    tasks: list[Task] = []
    for path in sorted(annotation_dir(annotations).glob("*.json")):
        if path.stem not in specs:
            continue
        raw = _read_json(path)
        if not isinstance(raw, list):
            raise BenchError(f"{path}: expected a list of tasks")
        for number, item in enumerate(raw, 1):
            where = f"{path} task {number}"
            if not isinstance(item, dict) or not isinstance(item.get("query"), str):
                raise BenchError(f"{where}: a task needs a query string")
            repo = item.get("repo", path.stem)
            if repo not in specs:
                continue
            category = item.get("category")
            tasks.append(
                Task(
                    repo=repo,
                    query=item["query"],
                    relevant=tuple(_target(t, where) for t in item.get("relevant", [])),
                    secondary=tuple(_target(t, where) for t in item.get("secondary", [])),
                    category=category
                    if isinstance(category, str)
                    else infer_category(item["query"]),
                )
            )
    return tasks


# --- the methods ----------------------------------------------------------------------------

#: A method bound to one repository: query -> ranked file paths (absolute, at most TOP_K).
Searcher = Callable[[str], list[str]]


def rg_count_files(rg: str, query: str, directory: Path) -> list[str]:
    """semble's `run_ripgrep_count`, verbatim: files by matching-line count, descending."""
    argv = [rg, "--count", "--no-heading", "--ignore-case", "--hidden", "--glob", "!.git"]
    argv += ["--fixed-strings", query, str(directory)]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        return []
    if done.returncode not in (0, 1):
        return []
    entries: list[tuple[str, int]] = []
    for line in done.stdout.splitlines():
        line = line.strip()
        if not line:
            continue
        *path_parts, count = line.split(":")
        try:
            entries.append((":".join(path_parts), int(count)))
        except ValueError:
            continue
    entries.sort(key=lambda entry: -entry[1])
    return [path for path, _ in entries[:TOP_K]]


def files_in_hit_order(root: Path, hits: Any) -> list[str]:
    """The files of the hits in hit order, each at its first occurrence, absolute."""
    seen: dict[str, None] = {}
    for hit in hits:
        name = getattr(hit, "file", None) or getattr(hit, "path", None)
        if name is None:
            continue
        seen.setdefault(str(root / name), None)
        if len(seen) == TOP_K:
            break
    return list(seen)


def _search_hits(result: Any) -> Any:
    """The ranked items of a `Workspace.search` result, whatever it names them."""
    for name in ("results", "hits", "matches", "files"):
        items = getattr(result, name, None)
        if items is not None:
            return items
    return result


def availability(method: str, rg: str | None) -> str | None:
    """Why `method` cannot run here, or None."""
    if method == "rg-count":
        return None if rg else "no rg on PATH (pip install ripgrep, or give --rg)"
    try:
        import codesift
        from codesift.arguments import options
    except ImportError as error:
        return f"codesift does not import ({error}): pip install -e ."
    if method == "codesift-rank" and "rank" not in options.GREP_OPTIONS:
        return "this codesift's Workspace.grep has no rank option"
    if method == "codesift-search" and not hasattr(codesift.Workspace, "search"):
        return "this codesift has no Workspace.search"
    return None


def benchmark_dir(repos_dir: Path, spec: RepoSpec) -> Path:
    """The directory semble's tools search: the checkout's `benchmark_root`."""
    checkout = repos_dir / spec.name
    return checkout / spec.benchmark_root if spec.benchmark_root else checkout


def searcher(method: str, rg: str | None, checkout: Path, spec: RepoSpec) -> Searcher:
    directory = benchmark_dir(checkout.parent, spec)
    if method == "rg-count":
        assert rg is not None
        return lambda query: rg_count_files(rg, query, directory)
    from codesift import Workspace

    workspace = Workspace(checkout)
    path = spec.benchmark_root or "."
    if method == "codesift":
        return lambda query: files_in_hit_order(
            checkout,
            workspace.grep(
                query, path, literal=True, case_sensitive=False, max_matches=None
            ).matches,
        )
    if method == "codesift-rank":
        options: dict[str, Any] = {"rank": True}
        return lambda query: files_in_hit_order(
            checkout,
            workspace.grep(
                query, path, literal=True, case_sensitive=False, max_matches=None, **options
            ).matches,
        )
    search: Callable[..., Any] = getattr(workspace, "search")  # noqa: B009 (may not exist)
    return lambda query: files_in_hit_order(checkout, _search_hits(search(query, path=path)))


# --- running --------------------------------------------------------------------------------


def run_method(
    method: str,
    rg: str | None,
    repos_dir: Path,
    specs: dict[str, RepoSpec],
    tasks_by_repo: dict[str, list[Task]],
    runs: int,
    verbose: bool,
) -> MethodRun:
    run = MethodRun(method, unavailable=availability(method, rg))
    if run.unavailable:
        return run
    for repo, tasks in tasks_by_repo.items():
        search = searcher(method, rg, repos_dir / repo, specs[repo])
        try:
            search(tasks[0].query)  # warm-up, untimed: page cache, workspace
        except Exception as error:  # an API that changed under us: say so, run the rest
            run.unavailable = f"{method} failed on {repo}: {type(error).__name__}: {error}"
            run.scores.clear()
            return run
        for task in tasks:
            latencies: list[float] = []
            files: list[str] = []
            for _ in range(runs):
                started = time.perf_counter()
                files = search(task.query)
                latencies.append((time.perf_counter() - started) * 1000)
            ndcg, ranks = score_files(task, files)
            score = TaskScore(task, ndcg, ranks, statistics.median(latencies), files)
            run.scores.append(score)
            if verbose:
                shown = [Path(f).name for f in files[:5]]
                print(
                    f"{method} {repo} ndcg@10={ndcg:.3f} ranks={ranks} "
                    f"n_rel={len(task.all_relevant)} q={task.query!r} top-5={shown}",
                    file=sys.stderr,
                )
    return run


def mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def fmt(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def repo_means(run: MethodRun) -> dict[str, float]:
    by_repo: dict[str, list[float]] = defaultdict(list)
    for score in run.scores:
        by_repo[score.task.repo].append(score.ndcg10)
    return {repo: sum(v) / len(v) for repo, v in by_repo.items()}


def load_published(path: Path | None) -> dict[str, float]:
    """Per-repository NDCG@10 from one of semble's results files (`{"repos": [{repo,
    ndcg10}]}`), to compare with."""
    if path is None:
        return {}
    raw = _read_json(path)
    repos = raw.get("repos") if isinstance(raw, dict) else None
    if not isinstance(repos, list):
        raise BenchError(f"{path}: expected semble's results format, {{'repos': [...]}}")
    return {
        str(item["repo"]): float(item["ndcg10"])
        for item in repos
        if isinstance(item, dict) and "repo" in item and "ndcg10" in item
    }


def report(
    runs: list[MethodRun],
    specs: dict[str, RepoSpec],
    repos_dir: Path,
    tasks: list[Task],
    published: dict[str, float],
    rg: str | None,
    runs_per_query: int,
) -> str:
    repos = sorted({task.repo for task in tasks})
    lines = [
        "# semble's retrieval benchmark",
        "",
        f"{len(tasks)} queries over {len(repos)} repositories; NDCG@10 scored as semble "
        "scores it (binary relevance by file, relevant + secondary targets).",
        "",
        "| method | symbol | semantic | architecture | all queries | repo mean "
        "| p50 ms | p95 ms | queries |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for run in runs:
        if run.unavailable:
            lines.append(f"| {run.method} | not available: {run.unavailable} |||||||| 0 |")
            continue
        by_category = [
            mean([s.ndcg10 for s in run.scores if s.task.category == category])
            for category in CATEGORIES
        ]
        latencies = [s.latency_ms for s in run.scores]
        repo_mean = mean(list(repo_means(run).values()))
        lines.append(
            f"| {run.method} | "
            + " | ".join(fmt(v) for v in by_category)
            + f" | {fmt(mean([s.ndcg10 for s in run.scores]))} | {fmt(repo_mean)}"
            + f" | {fmt(percentile(latencies, 0.5), 1)} | {fmt(percentile(latencies, 0.95), 1)}"
            + f" | {len(run.scores)} |"
        )
    counts = {c: sum(1 for t in tasks if t.category == c) for c in CATEGORIES}
    lines += [
        "",
        "Queries by category: " + ", ".join(f"{c} {n}" for c, n in counts.items()) + ".",
        "",
        "## By repository (NDCG@10)",
        "",
    ]
    available = [run for run in runs if not run.unavailable]
    header = ["repository", "language", "commit", "queries"] + [r.method for r in available]
    if published:
        header.append("semble's published rg")
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    means = [repo_means(run) for run in available]
    for repo in repos:
        spec = specs[repo]
        row = [repo, spec.language, _commit_of(repos_dir / repo, spec.revision)]
        row.append(str(sum(1 for t in tasks if t.repo == repo)))
        row += [fmt(m.get(repo)) for m in means]
        if published:
            row.append(fmt(published.get(repo)))
        lines.append("| " + " | ".join(row) + " |")
    if published:
        shared = [repo for repo in repos if repo in published]
        lines += [
            "",
            f"semble's published rg over these {len(shared)} repositories (mean of repository "
            f"means): {fmt(mean([published[r] for r in shared]))}.",
        ]
    lines += [
        "",
        f"rg: {_rg_version(rg)}; latencies warm, each query's median of {runs_per_query} "
        "runs, then p50 and p95 over the queries.",
        "",
    ]
    return "\n".join(lines)


def _commit_of(checkout: Path, pinned: str) -> str:
    """The checkout's commit, short, marked when it is not the one semble pins."""
    done = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    head = done.stdout.strip() if done.returncode == 0 else ""
    if not head:
        return "not a git checkout"
    return head[:12] if head == pinned else f"{head[:12]} (semble pins {pinned[:12]})"


def _is_script(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            return file.read(2) == b"#!"
    except OSError:
        return False


def _rg_version(rg: str | None) -> str:
    if not rg:
        return "none"
    done = subprocess.run([rg, "--version"], capture_output=True, text=True)
    return done.stdout.splitlines()[0] if done.returncode == 0 and done.stdout else rg


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--annotations",
        type=Path,
        required=True,
        help="semble's benchmarks directory (repos.json and annotations/NAME.json) or a copy",
    )
    parser.add_argument(
        "--repos",
        type=Path,
        required=True,
        help="directory with one checkout per repository, named as repos.json names them",
    )
    parser.add_argument(
        "--methods",
        default="rg-count,codesift",
        help=f"comma-separated, any of {', '.join(METHODS)} (default: rg-count,codesift)",
    )
    parser.add_argument(
        "--repo",
        action="append",
        default=[],
        help="only this repository (repeatable; default: every one with a checkout)",
    )
    parser.add_argument("--out", type=Path, help="write the markdown table here too")
    parser.add_argument(
        "--runs", type=int, default=3, help="timed runs per query, median kept (3, as semble)"
    )
    parser.add_argument("--rg", default=shutil.which("rg"), help="the rg to run (PATH's)")
    parser.add_argument(
        "--published",
        type=Path,
        help="one of semble's results files (e.g. its ripgrep-fixed-strings-*.json) to "
        "compare with, per repository",
    )
    parser.add_argument("--verbose", action="store_true", help="each query's score on stderr")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    unknown = [m for m in methods if m not in METHODS]
    if unknown or not methods:
        raise BenchError(f"unknown method {unknown or methods}: choose from {', '.join(METHODS)}")
    if args.runs < 1:
        raise BenchError("--runs must be at least 1")
    if not args.repos.is_dir():
        raise BenchError(f"--repos {args.repos} is not a directory")
    specs = load_repo_specs(args.annotations)
    missing = [name for name in args.repo if name not in specs]
    if missing:
        raise BenchError(f"{', '.join(missing)} not in repos.json; it names {', '.join(specs)}")
    wanted = args.repo or list(specs)
    present = {
        name: specs[name] for name in wanted if benchmark_dir(args.repos, specs[name]).is_dir()
    }
    absent = [name for name in args.repo if name not in present]
    if absent:
        raise BenchError(
            f"no checkout of {', '.join(absent)} under {args.repos} (each repository is "
            "checked out at its repos.json revision into a directory of its name)"
        )
    tasks = load_tasks(args.annotations, present)
    if not tasks:
        raise BenchError(
            f"no task to run: no repository of repos.json has both a checkout under "
            f"{args.repos} and an annotation file in {annotation_dir(args.annotations)}"
        )
    tasks_by_repo: dict[str, list[Task]] = defaultdict(list)
    for task in tasks:
        tasks_by_repo[task.repo].append(task)
    published = load_published(args.published)
    if args.rg and "rg-count" in methods and _is_script(Path(args.rg)):
        print(
            f"semble.py: warning: {args.rg} is a script (a pyenv or asdf shim?): rg-count's "
            "latencies include it; give --rg the rg binary itself",
            file=sys.stderr,
        )
    runs = [
        run_method(m, args.rg, args.repos, present, tasks_by_repo, args.runs, args.verbose)
        for m in methods
    ]
    text = report(runs, present, args.repos, tasks, published, args.rg, args.runs)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BenchError as error:
        sys.exit(f"semble.py: {error}")
