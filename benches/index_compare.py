"""codesift's persistent index beside a scan, ripgrep and codesearch, interleaved in one run.

    python benches/index_compare.py [--corpus DIR] [--rounds N] [--out DIR] [--quick]

Measures, on one tree:

1. Build: codesift's `index_build` (in a fresh worker process: wall time, peak RSS by wait4,
   index size) beside Debian's codesearch `cindex` (same), interleaved, `--build-rounds`
   times each after one rg pass that warms the page cache.
2. Queries: each round runs every tool once per query, in turn, after a warm-up round;
   medians are reported with the ratio to rg's full scan in the same run. Tools:
   - codesift-indexed: ONE long-lived worker process holding a `Workspace(index="auto",
     index_watch=True)` for the whole run (its first query catches up: walk, stat, inotify
     watches; it is reported apart and never timed as a round); later queries need no walk.
   - codesift-scan: a second long-lived worker with `index=False`, timed the same way.
     Both workers time `ws.grep(...)` plus touching every hit as a Python object, and digest
     the (file, byte_offset) list of every result (after the clock) so that each indexed
     result is checked to be exactly the scan's.
   - rg: `rg -n` + flags as a process writing to a pipe that is read (never /dev/null).
   - csearch: `csearch -n` with the same RE2 regex against the cindex index built in step 1
     (missing codesearch: skipped, with a note).
3. Edit, then search: in a real copy (shutil.copytree, not hard links) of a subtree, index
   it, then in the indexed worker edit one file through `ws.edit` and grep the token the
   edit introduced; then append a token to another file behind codesift's back (plain Python
   write) and grep again. Latency and "found" reported, beside a scan and rg on the copy.
4. Peak RSS: per query (VmHWM, reset before each query through /proc/self/clear_refs) and over
   the indexed worker's whole life (wait4), beside rg's.

Written to DIR: index.md (tables), index.json (raw), index.png (chart, log scale).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from compare import (  # noqa: E402  (benches/ is not a package)
    RG_FLAGS,
    _corpus_size,
    ready_to_run,
    rg_case_flags,
    rg_output,
    run_interleaved,
)

DEFAULT_CORPUS = Path(os.environ.get("CODESIFT_BENCH_CORPUS", "/work/corpus/linux"))
QUICK_CORPUS = Path(sysconfig.get_paths()["stdlib"]) / "email"


@dataclass
class Query:
    name: str
    pattern: str
    literal: bool = False
    ignore_case: bool = False
    max_matches: int | None = None
    target: float | None = None
    target_ref: str = "rg"  # the tool the target ratio is taken against
    expect_indexed: bool = True
    note: str = ""


QUERIES = [
    Query("rare literal", "PM_RESUME", literal=True, target=0.01),
    Query("common literal, all hits", "ERR_PTR", literal=True, target=0.15),
    Query("regex, all hits", r"\w+_resume\(", target=0.15),
    Query("case-insensitive, all hits", "irq_handler", literal=True, ignore_case=True, target=0.15),
    Query("first 100", "ERR_PTR", literal=True, max_matches=100, target=0.01),
    Query(
        "no trigram, first 500",
        r"[a-z]_[0-9]",
        max_matches=500,
        target=1.05,
        target_ref="codesift-scan",
        expect_indexed=False,
    ),
    Query(
        "no trigram, all hits",
        r"\w+_\d+\(",
        target=1.05,
        target_ref="codesift-scan",
        expect_indexed=False,
    ),
]


@dataclass
class Run:
    seconds: float
    maxrss_kb: int
    count: int
    extra: dict = field(default_factory=dict)


@dataclass
class Result:
    query: str
    tool: str
    unit: str
    runs: list[Run] = field(default_factory=list)
    error: str | None = None
    rss_kb: int | None = None  # external tools: from one extra run under GNU time
    back_to_back: list[float] = field(default_factory=list)  # codesift: see measure_queries

    @property
    def b2b(self) -> float:
        return statistics.median(self.back_to_back) if self.back_to_back else float("nan")

    @property
    def median(self) -> float:
        return statistics.median(r.seconds for r in self.runs) if self.runs else float("nan")

    @property
    def rss_mb(self) -> float:
        if self.rss_kb is not None:
            return self.rss_kb / 1024
        return max((r.maxrss_kb for r in self.runs), default=0) / 1024

    @property
    def count(self) -> int | None:
        return self.runs[-1].count if self.runs else None

    def json(self) -> dict:
        return {
            "query": self.query,
            "tool": self.tool,
            "unit": self.unit,
            "median": self.median,
            "rss_mb": self.rss_mb,
            "rss_kb_gnu_time": self.rss_kb,
            "back_to_back": self.back_to_back,
            "count": self.count,
            "error": self.error,
            "runs": [asdict(r) for r in self.runs],
        }


# -- processes ------------------------------------------------------------------------------


GNU_TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


def measured(
    cmd: list[str], cwd: Path | None = None, keep: bool = False, gnu_time: bool = False
) -> tuple[Run, bytes]:
    """Runs a process writing to a pipe that is read; wall time, peak RSS, lines.

    The peak RSS that wait4 reports to this process includes this (Python) process's own
    high-water mark: the child is spawned with vfork, and the kernel carries the pre-exec
    mm's peak over exec. So with `gnu_time` the command runs under GNU time, which forks
    from a process of a few hundred KiB, and its %M is taken instead."""
    rss_file = None
    if gnu_time and GNU_TIME:
        fd, rss_file = tempfile.mkstemp(prefix="codesift-bench-rss-")
        os.close(fd)
        cmd = [GNU_TIME, "-f", "%M", "-o", rss_file, *cmd]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    lines = 0
    kept = []
    for chunk in iter(lambda: proc.stdout.read(1 << 20), b""):
        lines += chunk.count(b"\n")
        if keep:
            kept.append(chunk)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0  # reaped above
    seconds = time.perf_counter() - start
    maxrss = usage.ru_maxrss
    if rss_file is not None:
        text = Path(rss_file).read_text().split()
        os.unlink(rss_file)
        maxrss = int(text[-1]) if text and text[-1].isdigit() else maxrss
    code = os.waitstatus_to_exitcode(status)  # 1: no match (rg, csearch); 2: rg's file errors
    if code < 0 or (code > 1 and not lines and not keep):
        raise RuntimeError(f"{cmd[0]} exited with {code}")
    return Run(seconds, maxrss, lines), b"".join(kept)


class Server:
    """A long-lived codesift worker (this file with --serve): JSON requests on stdin, one
    JSON answer line each on stdout."""

    def __init__(self, root: Path, index: str | bool) -> None:
        spec = json.dumps({"root": str(root), "index": index})
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--serve", spec],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.hello = self._read()
        self.lifetime_rss_kb = 0

    def _read(self) -> dict:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("codesift worker died (see stderr)")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(answer["error"])
        return answer

    def ask(self, **request) -> dict:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        return self._read()

    def grep(self, q: Query, pattern: str | None = None) -> dict:
        return self.ask(
            op="grep",
            pattern=pattern or q.pattern,
            literal=q.literal,
            case_sensitive=not q.ignore_case,
            max_matches=q.max_matches,
        )

    def close(self) -> int:
        """Ends the worker; returns its peak RSS over its whole life (KiB, from wait4)."""
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            _, _, usage = os.wait4(self.proc.pid, 0)
            self.proc.returncode = 0
            self.lifetime_rss_kb = usage.ru_maxrss
        return self.lifetime_rss_kb


def serve(spec: dict) -> None:
    """The worker side of Server (runs in its own process)."""
    from codesift import Workspace

    ws = Workspace(spec["root"], gitignore=False, index=spec["index"], index_watch=True)
    status = {k: v for k, v in ws.index_status().items() if k != "path"}
    print(json.dumps({"ready": True, "status": status}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            answer = handle(ws, request)
        except Exception as exc:  # reported to the parent, which records it
            answer = {"error": f"{type(exc).__name__}: {exc}"[:300]}
        print(json.dumps(answer), flush=True)


def _reset_peak() -> None:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # resets VmHWM to the current RSS
    except OSError:
        pass


def _status_kb(field: str) -> int:
    """A field of /proc/self/status in KiB (0 when unknown): RssAnon is the memory that is
    not a mapped file (the index's pages and the loaded libraries are RssFile)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _peak_kb() -> int:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def handle(ws, request: dict) -> dict:
    if request["op"] == "grep":
        _reset_peak()
        start = time.perf_counter()
        result = ws.grep(
            request["pattern"],
            literal=request["literal"],
            case_sensitive=request["case_sensitive"],
            max_matches=request["max_matches"],
        )
        searched = time.perf_counter()
        count = sum(1 for m in result.matches if m.file)  # every hit touched as an object
        end = time.perf_counter()
        digest = hashlib.sha1()
        for m in result.matches:
            digest.update(f"{m.file}\0{m.byte_offset}\n".encode())
        return {
            "seconds": end - start,
            "grep_seconds": searched - start,
            "touch_seconds": end - searched,
            "count": count,
            "total": result.total,
            "indexed": bool(result.indexed),
            "files_searched": result.files_searched,
            "digest": digest.hexdigest(),
            "peak_kb": _peak_kb(),
            "anon_kb": _status_kb("RssAnon:"),
        }
    if request["op"] == "glob":
        _reset_peak()
        start = time.perf_counter()
        result = ws.glob(request["pattern"], limit=10**7)
        count = sum(1 for f in result.files if f.path)  # every file touched as an object
        end = time.perf_counter()
        digest = hashlib.sha1("\n".join(f.path for f in result.files).encode()).hexdigest()
        return {"seconds": end - start, "count": count, "digest": digest, "peak_kb": _peak_kb()}
    if request["op"] == "edit":
        start = time.perf_counter()
        ws.edit(request["path"], request["old"], request["new"])
        return {"seconds": time.perf_counter() - start}
    if request["op"] == "status":
        return {k: v for k, v in ws.index_status().items()}
    raise ValueError(f"unknown op {request['op']!r}")


def build_worker(root: str) -> None:
    """Builds codesift's index of root from scratch (the clock covers index_build only)."""
    from codesift import Workspace

    ws = Workspace(root, gitignore=False)
    ws.index_drop()
    start = time.perf_counter()
    stats = ws.index_build()
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, **stats}))


def build_codesift(root: Path) -> Run:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--build", str(root)]
    run, out = measured(cmd, keep=True, gnu_time=True)
    data = json.loads(out)
    return Run(data.pop("seconds"), run.maxrss_kb, data["files"], {"wall": run.seconds, **data})


def build_cindex(root: Path, index_file: Path) -> Run:
    index_file.unlink(missing_ok=True)  # cindex would merge into an existing index
    run, _ = measured(["cindex", str(root)], gnu_time=True)
    return Run(run.seconds, run.maxrss_kb, 0, {"index_bytes": index_file.stat().st_size})


# -- the measurement ----------------------------------------------------------------------


def cpu_seconds() -> dict[str, float]:
    """Machine-wide busy and steal CPU seconds (/proc/stat), and this process tree's own."""
    import resource

    out = {"busy": 0.0, "steal": 0.0, "own": 0.0}
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
        tick = os.sysconf("SC_CLK_TCK")
        user, nice, system, idle, iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
        out["busy"] = (user + nice + system + irq + softirq) / tick
        out["steal"] = steal / tick
    except (OSError, ValueError):
        pass
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        out["own"] += usage.ru_utime + usage.ru_stime
    return out


def idle_penalty() -> tuple[float, float]:
    """Milliseconds to touch 64 MiB again (one byte a page) at once, and after 1 s asleep."""
    buf = bytearray(64 << 20)

    def touch() -> float:
        start = time.perf_counter()
        total = 0
        for i in range(0, len(buf), 4096):
            total += buf[i]
        return (time.perf_counter() - start) * 1000

    touch()
    warm = statistics.median(touch() for _ in range(3))
    time.sleep(1)
    return warm, touch()


def rg_command(q: Query, pattern: str | None = None) -> list[str]:
    flags = rg_case_flags(q)
    return ["rg", *RG_FLAGS, "-n", "--no-heading", *flags, "-e", pattern or q.pattern, "."]


def csearch_regex(q: Query, pattern: str | None = None) -> str:
    pattern = pattern or q.pattern
    return re.escape(pattern) if q.literal else pattern  # RE2 accepts Python's escapes


def csearch_command(q: Query) -> list[str]:
    return ["csearch", "-n", *(["-i"] if q.ignore_case else []), csearch_regex(q)]


def head(cmd: list[str], n: int) -> list[str]:
    import shlex

    return ["sh", "-c", " ".join(map(shlex.quote, cmd)) + f" | head -{n}"]


def measure_queries(
    queries: list[Query],
    corpus: Path,
    rounds: int,
    indexed: Server,
    scan: Server,
    csearch: bool,
) -> list[Result]:
    def from_server(server: Server, q: Query):
        def run(g: bool = False) -> Run:  # g (GNU time) is for external tools
            a = server.grep(q)
            return Run(a.pop("seconds"), a.pop("peak_kb"), a.pop("count"), a)

        return run

    plans = []
    for q in queries:
        tools = [
            ("codesift-indexed", "matches", from_server(indexed, q)),
            ("codesift-scan", "matches", from_server(scan, q)),
            ("rg", "lines", lambda q=q, g=False: measured(rg_command(q), corpus, gnu_time=g)[0]),
        ]
        if q.max_matches:
            n = q.max_matches
            tools.append(
                (
                    f"rg | head -{n}",
                    "lines",
                    lambda q=q, n=n, g=False: measured(head(rg_command(q), n), corpus, gnu_time=g)[
                        0
                    ],
                )
            )
        if csearch:
            if q.max_matches:
                n = q.max_matches
                tools.append(
                    (
                        f"csearch | head -{n}",
                        "lines",
                        lambda q=q, n=n, g=False: measured(
                            head(csearch_command(q), n), corpus, gnu_time=g
                        )[0],
                    )
                )
            else:
                tools.append(
                    (
                        "csearch",
                        "lines",
                        lambda q=q, g=False: measured(csearch_command(q), corpus, gnu_time=g)[0],
                    )
                )
        for tool, unit, runner in tools:
            plans.append((Result(q.name, tool, unit), runner))
    run_interleaved(plans, rounds, "queries: round")
    # Diagnostic, not in the medians: each codesift query again, back to back (the first of 4
    # dropped), so the worker's memory is warm. On this kind of VM memory a process has not
    # touched for a second costs far more to touch again; a long-lived worker that waits
    # between queries (here, while the other tools run) pays it on each query.
    for result, runner in plans:
        if result.tool.startswith("codesift") and result.runs:
            result.back_to_back = [runner().seconds for _ in range(4)][1:]
    if GNU_TIME:  # peak RSS of the external tools, untimed (see measured)
        for result, runner in plans:
            if not result.tool.startswith("codesift") and result.runs:
                result.rss_kb = runner(g=True).maxrss_kb
    return [r for r, _ in plans]


#: Globs timed from the indexed worker (the path table) beside the scanning worker (a walk)
#: and fd (`fd -u -t f -g`, a process writing to a pipe); target: 0.1 x fd.
GLOBS = [("*.c", "*.c", ""), ("drivers/**/*.h", "*.h", "drivers")]
GLOB_TARGET = 0.1


def measure_globs(corpus: Path, rounds: int, indexed: Server, scan: Server) -> list[Result]:
    fd = shutil.which("fdfind") or shutil.which("fd")
    plans = []
    for pattern, last, base in GLOBS:

        def worker(server: Server, pattern: str = pattern) -> Run:
            a = server.ask(op="glob", pattern=pattern)
            return Run(a.pop("seconds"), a.pop("peak_kb"), a.pop("count"), a)

        tools = [
            ("codesift-indexed", lambda w=worker: w(indexed)),
            ("codesift-scan", lambda w=worker: w(scan)),
        ]
        if fd:
            command = [fd, "-u", "-t", "f", "-g", last, str(corpus / base) if base else "."]
            tools.append(("fd", lambda c=command: measured(c, corpus)[0]))
        for tool, runner in tools:
            plans.append((Result(f"glob {pattern}", tool, "files"), runner))
    run_interleaved(plans, rounds, "globs: round")
    return [r for r, _ in plans]


def glob_table(results: list[Result]) -> list[str]:
    lines = [
        "## Glob",
        "",
        "| glob | tool | median s | ratio to fd | target | files | check |",
        "|---|---|---|---|---|---|---|",
    ]
    for pattern, _, _ in GLOBS:
        group = [r for r in results if r.query == f"glob {pattern}"]
        fd = next((r for r in group if r.tool == "fd" and r.runs), None)
        scan = next((r for r in group if r.tool == "codesift-scan" and r.runs), None)
        for r in group:
            if r.error or not r.runs:
                lines.append(f"| `{pattern}` | {r.tool} | - | - | | - | {r.error or ''} |")
                continue
            ratio = r.median / fd.median if fd else None
            target, check = "", ""
            if r.tool == "codesift-indexed":
                if ratio is not None:
                    met = "met" if ratio <= GLOB_TARGET else "MISSED"
                    target = f"≤ {GLOB_TARGET}× fd: {ratio:.3f}× {met}"
                if scan:
                    same = r.runs[-1].extra["digest"] == scan.runs[-1].extra["digest"]
                    check = "same files as the walk" if same else "DIFFERENT from the walk"
            ratio_cell = f"{ratio:.3f}" if ratio is not None else "-"
            lines.append(
                f"| `{pattern}` | {r.tool} | {fmt_s(r.median)} | {ratio_cell} | {target} | "
                f"{r.count} | {check} |"
            )
    lines.append("")
    return lines


def measure_builds(corpus: Path, rounds: int, index_file: Path | None) -> list[Result]:
    results = [Result("build", "codesift index_build", "files")]
    if index_file is not None:
        results.append(Result("build", "cindex", "files"))
    for round_no in range(1, rounds + 1):
        results[0].runs.append(build_codesift(corpus))
        if index_file is not None:
            try:
                results[1].runs.append(build_cindex(corpus, index_file))
            except Exception as exc:
                results[1].error = str(exc)[:200]
        print(f"builds: round {round_no}/{rounds} done", file=sys.stderr)
    return results


def pick_anchor(path: Path) -> str | None:
    """A line that occurs exactly once in the file (what ws.edit replaces)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return None
    if "\r" in text:
        return None
    for line in text.split("\n"):
        if len(line.strip()) >= 12 and line.isascii() and text.count(line) == 1:
            return line
    return None


def edit_scenario(corpus: Path, subdir: str, rounds: int) -> dict:
    """Index a real copy of corpus/subdir, then edit through codesift and behind its back,
    searching for what each edit introduced."""
    src = (corpus / subdir).resolve()
    tmp = Path(tempfile.mkdtemp(prefix="codesift-index-edit-"))
    copy = tmp / (src.name or "tree")
    try:
        shutil.copytree(src, copy, symlinks=True)
        files = sorted(
            p
            for p in copy.rglob("*")
            if p.is_file()
            and not p.is_symlink()
            and p.suffix in (".c", ".h", ".py", ".rs", ".txt", ".rst")
        )
        chosen = []
        for p in files:
            anchor = pick_anchor(p)
            if anchor:
                chosen.append((p, anchor))
            if len(chosen) == 2:
                break
        if len(chosen) < 2:
            return {"error": f"no two editable text files under {src}"}
        (edit_path, anchor), (write_path, _) = chosen
        n_files = sum(1 for p in copy.rglob("*") if p.is_file())
        n_bytes = sum(p.stat().st_size for p in copy.rglob("*") if p.is_file())
        time.sleep(2.1)  # past the index's racily-clean window (2 s) for the fresh copies
        build = build_codesift(copy)
        indexed = Server(copy, "auto")
        scan = Server(copy, False)
        try:
            probe = Query("edit token", "codesift_bench_warmup", literal=True, max_matches=None)
            catch_up = indexed.grep(probe)
            scan.grep(probe)
            steps: dict[str, Result] = {
                name: Result(step, name, "matches")
                for step, name in [
                    ("edit", "ws.edit"),
                    ("edit", "after ws.edit: codesift-indexed"),
                    ("edit", "after ws.edit: codesift-scan"),
                    ("edit", "after ws.edit: rg"),
                    ("write", "after plain write: codesift-indexed"),
                    ("write", "after plain write: codesift-scan"),
                    ("write", "after plain write: rg"),
                ]
            }
            found = {"edit": [], "write": [], "same": []}
            indexed_flags = []
            for round_no in range(rounds + 1):
                token = f"codesift_bench_edit_{os.getpid()}_{round_no}"
                q = Query("token", token, literal=True, max_matches=None)
                a = indexed.ask(
                    op="edit",
                    path=str(edit_path.relative_to(copy)),
                    old=anchor,
                    new=f"{anchor}\n/* {token} */",
                )
                edit_run = Run(a["seconds"], 0, 1)
                runs = {"ws.edit": edit_run}
                for label, path in (("after ws.edit", edit_path), ("after plain write", None)):
                    if path is None:
                        token = f"codesift_bench_write_{os.getpid()}_{round_no}"
                        q = Query("token", token, literal=True, max_matches=None)
                        with open(write_path, "a", encoding="utf-8") as f:
                            f.write(f"\n/* {token} */\n")
                    i = indexed.grep(q)
                    s = scan.grep(q)
                    r, _ = measured(rg_command(q), copy)
                    kind = "edit" if label == "after ws.edit" else "write"
                    found[kind].append(i["count"] == 1)
                    found["same"].append(i["digest"] == s["digest"])
                    indexed_flags.append(i["indexed"])
                    runs[f"{label}: codesift-indexed"] = Run(
                        i["seconds"], i["peak_kb"], i["count"], i
                    )
                    runs[f"{label}: codesift-scan"] = Run(s["seconds"], s["peak_kb"], s["count"], s)
                    runs[f"{label}: rg"] = r
                if round_no > 0:
                    for name, run in runs.items():
                        steps[name].runs.append(run)
            if GNU_TIME:  # rg's own peak RSS, untimed (see measured)
                for name in ("after ws.edit: rg", "after plain write: rg"):
                    steps[name].rss_kb = measured(rg_command(q), copy, gnu_time=True)[0].maxrss_kb
            return {
                "subdir": subdir,
                "files": n_files,
                "bytes": n_bytes,
                "edited": str(edit_path.relative_to(copy)),
                "written": str(write_path.relative_to(copy)),
                "build": asdict(build),
                "catch_up": catch_up,
                "found_edit": all(found["edit"]),
                "found_write": all(found["write"]),
                "same_as_scan": all(found["same"]),
                "indexed": all(indexed_flags),
                "steps": [r.json() for r in steps.values()],
                "_results": list(steps.values()),
            }
        finally:
            indexed.close()
            scan.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# -- checks and report ----------------------------------------------------------------------


def rg_match_count(q: Query, corpus: Path) -> int:
    out = rg_output(
        corpus, "--count-matches", "--no-filename", *rg_case_flags(q), "-e", q.pattern, "."
    )
    return sum(int(n) for n in out.split())


def rg_hit_files(q: Query, corpus: Path) -> list[str]:
    """The files rg finds a hit in, relative to the corpus."""
    return rg_output(corpus, "-l", *rg_case_flags(q), "-e", q.pattern, ".").splitlines()


def corpus_bytes(corpus: Path) -> int:
    total = 0
    for dirpath, _, names in os.walk(corpus):
        for name in names:
            try:
                st = os.lstat(os.path.join(dirpath, name))
            except OSError:
                continue
            if not os.path.islink(os.path.join(dirpath, name)):
                total += st.st_size
    return max(total, 1)


def hit_files(q: Query, corpus: Path) -> tuple[int, int]:
    """Files with a hit (rg -l) and their total size."""
    files = rg_hit_files(q, corpus)
    return len(files), sum(os.path.getsize(corpus / f) for f in files)


def csearch_difference(q: Query, corpus: Path) -> str:
    """Which files rg searches and csearch does not (or the other way), for a count note."""
    rg_files = {str((corpus / line).resolve()) for line in rg_hit_files(q, corpus)}
    cs = subprocess.run(
        ["csearch", "-l", *(["-i"] if q.ignore_case else []), csearch_regex(q)],
        capture_output=True,
        text=True,
        check=False,
    )
    cs_files = set(cs.stdout.splitlines())
    only_rg = sorted(rg_files - cs_files)
    only_cs = sorted(cs_files - rg_files)
    parts = []
    if only_rg:
        example = os.path.relpath(only_rg[0], corpus)
        parts.append(f"{len(only_rg)} file(s) with hits cindex left out, e.g. `{example}`")
    if only_cs:
        example = os.path.relpath(only_cs[0], corpus)
        parts.append(f"{len(only_cs)} file(s) only csearch reports, e.g. `{example}`")
    if not parts:
        parts.append("same files; RE2 vs Rust regex line differences")
    skips = "invalid UTF-8, a line over 2000 bytes, over 20000 distinct trigrams; dot files"
    return "; ".join(parts) + f" (cindex skips files with {skips})"


def check(
    q: Query, r: Result, group: list[Result], rg_matches: int, corpus: Path, csearch_notes: dict
) -> str:
    if r.error:
        return f"failed: {r.error}"
    if not r.runs:
        return ""
    rg = next((x for x in group if x.tool == "rg"), None)
    if r.tool == "codesift-indexed":
        scan = next((x for x in group if x.tool == "codesift-scan"), None)
        notes = []
        if scan and scan.runs:
            same = all(
                a.extra["digest"] == b.extra["digest"]
                for a, b in zip(r.runs, scan.runs, strict=False)
            )
            notes.append("same as scan" if same else "DIFFERENT from scan")
        flags = {run.extra["indexed"] for run in r.runs}
        notes.append(f"indexed={'/'.join(map(str, sorted(flags)))}")
        if flags != {q.expect_indexed}:
            notes.append(f"(expected indexed={q.expect_indexed})")
        notes.append(f"{r.runs[-1].extra['files_searched']} files searched")
        if q.max_matches is None:
            notes.append(
                "= rg --count-matches"
                if r.count == rg_matches
                else f"{r.count - rg_matches:+d} vs rg --count-matches"
            )
        return "; ".join(notes)
    if r.tool == "codesift-scan":
        note = f"{r.runs[-1].extra['files_searched']} files searched"
        if q.max_matches is None:
            note += "; " + (
                "= rg --count-matches"
                if r.count == rg_matches
                else f"{r.count - rg_matches:+d} vs rg --count-matches"
            )
        else:
            note += f"; first {q.max_matches} in order (rg: {rg_matches} in all)"
        return note
    if r.tool == "rg":
        return f"full scan ({rg_matches} matches)" if q.max_matches else "reference"
    if "| head" in r.tool:
        return (
            "first lines printed (unordered)"
            if r.tool.startswith("rg")
            else "first lines printed (path order)"
        )
    if r.tool == "csearch" and rg and rg.count is not None:
        if r.count == rg.count:
            return "same lines as rg"
        if q.name not in csearch_notes:
            csearch_notes[q.name] = csearch_difference(q, corpus)
        return f"{r.count - rg.count:+d} lines vs rg: {csearch_notes[q.name]}"
    return ""


def target_cell(q: Query, r: Result, group: list[Result]) -> tuple[str, float | None, bool | None]:
    if r.tool != "codesift-indexed" or q.target is None or not r.runs:
        return "", None, None
    ref = next((x for x in group if x.tool == q.target_ref and x.runs), None)
    if ref is None:
        return f"≤ {q.target:g}× {q.target_ref}: no reference", None, None
    ratio = r.median / ref.median
    met = ratio <= q.target
    return f"≤ {q.target:g}× {q.target_ref}: {ratio:.3f}× {'met' if met else 'MISSED'}", ratio, met


def fmt_s(seconds: float) -> str:
    return f"{seconds:.4f}" if seconds < 0.1 else f"{seconds:.3f}"


def report(
    args: argparse.Namespace,
    queries: list[Query],
    builds: list[Result],
    results: list[Result],
    catch_up: dict,
    lifetime: dict,
    edit: dict | None,
    notes: list[str],
    versions: dict,
) -> str:
    corpus: Path = args.corpus
    lines = [
        "# codesift index benchmark",
        "",
        f"Corpus: `{corpus}` ({_corpus_size(corpus)}); machine: {platform.machine()}, "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}; codesift "
        f"{versions.get('codesift', '?')}, {versions.get('rg', 'rg ?')}, codesearch "
        f"{versions.get('codesearch', 'missing')}. Queries: {args.rounds} round(s) after a "
        "warm-up round, tools interleaved, medians; builds: "
        f"{args.build_rounds} round(s) each, interleaved, after an rg pass over the tree.",
        "",
        f"Reproduce: `python benches/index_compare.py {'--quick ' if args.quick else ''}"
        f"--corpus {corpus} --rounds "
        f"{args.rounds} --build-rounds {args.build_rounds} --edit-subdir {args.edit_subdir}` "
        "(needs `rg`, GNU `time` for peak RSS, and `apt-get install codesearch` for "
        "cindex/csearch); indexes go to a fresh temporary `CODESIFT_CACHE_DIR` and "
        "`CSEARCHINDEX`, never the user's.",
        "",
    ]
    for note in notes:
        lines.append(f"- {note}")
    if notes:
        lines.append("")

    # Summary: the targets.
    by_query: dict[str, list[Result]] = {}
    for r in results:
        by_query.setdefault(r.query, []).append(r)
    lines += [
        "## Targets",
        "",
        "| query | pattern | codesift-indexed s | rg s | codesift-scan s | ratio | target | met "
        "| back to back |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    met_json = {}
    floors: dict[str, dict] = {}
    for q in queries:
        group = by_query.get(q.name, [])
        mine = next((x for x in group if x.tool == "codesift-indexed"), None)
        rg = next((x for x in group if x.tool == "rg"), None)
        scan = next((x for x in group if x.tool == "codesift-scan"), None)
        if mine is None or not mine.runs:
            continue
        _, ratio, met = target_cell(q, mine, group)
        ref = rg if q.target_ref == "rg" else scan
        ref_b2b = ref.median if q.target_ref == "rg" else ref.b2b  # rg: a fresh process anyway
        b2b = mine.b2b / ref_b2b if ref and ref.runs else float("nan")
        met_json[q.name] = {
            "ratio": ratio,
            "target": q.target,
            "ref": q.target_ref,
            "met": met,
            "ratio_back_to_back": b2b,
        }
        flags = ("-F " if q.literal else "") + ("-i " if q.ignore_case else "")
        limit = f", max {q.max_matches}" if q.max_matches else ", all hits"
        lines.append(
            f"| {q.name} | `{flags}{q.pattern}`{limit} | {fmt_s(mine.median)} | "
            f"{fmt_s(rg.median) if rg and rg.runs else '-'} | "
            f"{fmt_s(scan.median) if scan and scan.runs else '-'} | "
            f"{ratio:.3f}× {q.target_ref} | ≤ {q.target:g}× | {'yes' if met else '**no**'} | "
            f"{b2b:.3f}× ({fmt_s(mine.b2b)} s) |"
        )
    lines += [
        "",
        '"met" is judged on the interleaved medians. "back to back": the same codesift '
        "query repeated at once after the rounds (median of 3, after one more run), against "
        "rg's interleaved median (or codesift-scan's back-to-back median): the worker's "
        "memory is then warm. On this VM, memory a process has not touched for about a second "
        "costs much more to touch again, and an interleaved long-lived worker has always "
        'waited that long; see "Where the indexed worker\'s time goes".',
        "",
    ]

    # Builds.
    lines += [
        "## Build",
        "",
        "| tool | median s | peak RSS MiB | index MiB | files | bytes indexed | runs s |",
        "|---|---|---|---|---|---|---|",
    ]
    for b in builds:
        if b.error:
            lines.append(f"| {b.tool} | failed: {b.error} | | | | | |")
            continue
        if not b.runs:
            continue
        last = b.runs[-1].extra
        lines.append(
            f"| {b.tool} | {b.median:.2f} | {b.rss_mb:.0f} | "
            f"{last.get('index_bytes', 0) / 2**20:.0f} | "
            f"{last.get('files', '-')} ({last.get('indexed_files', '-')} with postings) | "
            f"{last.get('bytes_indexed', '-')} | "
            f"{', '.join(f'{r.seconds:.2f}' for r in b.runs)} |"
            if b.tool.startswith("codesift")
            else f"| {b.tool} | {b.median:.2f} | {b.rss_mb:.0f} | "
            f"{last.get('index_bytes', 0) / 2**20:.0f} | - | - | "
            f"{', '.join(f'{r.seconds:.2f}' for r in b.runs)} |"
        )
    lines += [
        "",
        "codesift: time inside a fresh worker around `index_build()` (after `index_drop()`), "
        "peak RSS of that process (wait4); cindex: the process's wall time and peak RSS, "
        "its index file removed before each run.",
        "",
    ]

    # Queries.
    lines += [
        "## Queries",
        "",
        "| query | tool | median s | ratio to rg | target | peak RSS MiB | count | check |",
        "|---|---|---|---|---|---|---|---|",
    ]
    csearch_notes: dict[str, str] = {}
    for q in queries:
        group = by_query.get(q.name, [])
        rg = next((x for x in group if x.tool == "rg" and x.runs), None)
        rg_matches = rg_match_count(q, corpus)
        for r in group:
            ratio = r.median / rg.median if rg and r.runs else float("nan")
            cell, _, _ = target_cell(q, r, group)
            lines.append(
                f"| {q.name} | {r.tool.replace('|', chr(92) + '|')} | {fmt_s(r.median)} | "
                f"{ratio:.3f} | {cell} | "
                f"{r.rss_mb:.0f} | {r.count if r.count is not None else '-'} {r.unit} | "
                f"{check(q, r, group, rg_matches, corpus, csearch_notes)} |"
            )
    lines += [
        "",
        "codesift rows: time inside a long-lived worker around `ws.grep(...)` plus touching "
        "every hit as a Python object (`max_matches=None` unless a limit is shown); peak RSS "
        "is that worker's VmHWM during the query (reset before it), which includes the pages "
        "of the mapped index it has touched. Other tools: processes writing to a pipe that is "
        "read; wait4's peak RSS. rg and csearch count lines, codesift matches (checked "
        'against `rg --count-matches`). "same as scan": the (file, byte_offset) list of '
        "every indexed result equals the scan's in the same round.",
        "",
        "Where the indexed worker's time goes (medians: inside `ws.grep`, then touching the "
        "hits; files searched). The last column is a floor for an index that chooses whole "
        "files: it must read at least the files with hits (rg -l, untimed), so at a scan's "
        "throughput its time is at least that fraction of a scan's.",
        "",
        "| query | grep s | touch s | back to back s (indexed / scan) | files searched "
        "(indexed / scan) | files with hits: bytes (share of the tree) |",
        "|---|---|---|---|---|---|",
    ]
    tree_bytes = corpus_bytes(corpus)
    for q in queries:
        group = by_query.get(q.name, [])
        mine = next((x for x in group if x.tool == "codesift-indexed" and x.runs), None)
        scan = next((x for x in group if x.tool == "codesift-scan" and x.runs), None)
        if mine is None:
            continue
        grep_s = statistics.median(r.extra["grep_seconds"] for r in mine.runs)
        touch_s = statistics.median(r.extra["touch_seconds"] for r in mine.runs)
        floor = "-"
        if q.max_matches is None:
            n_files, n_bytes = hit_files(q, corpus)
            floor = f"{n_files} files, {n_bytes / 2**20:.0f} MiB ({n_bytes / tree_bytes:.1%})"
            floors[q.name] = {"files": n_files, "bytes": n_bytes, "share": n_bytes / tree_bytes}
        lines.append(
            f"| {q.name} | {fmt_s(grep_s)} | {fmt_s(touch_s)} | "
            f"{fmt_s(mine.b2b)} / {fmt_s(scan.b2b) if scan else '-'} | "
            f"{mine.runs[-1].extra['files_searched']} / "
            f"{scan.runs[-1].extra['files_searched'] if scan else '-'} | {floor} |"
        )
    lines.append("")

    # Edit, then search.
    lines += ["## Edit a file, search again", ""]
    if edit is None:
        lines += ["(skipped)", ""]
    elif "error" in edit:
        lines += [f"failed: {edit['error']}", ""]
    else:
        lines += [
            f"A real copy (shutil.copytree) of `{edit['subdir']}`: {edit['files']} files, "
            f"{edit['bytes'] / 2**20:.0f} MiB, indexed in {edit['build']['seconds']:.2f} s; the "
            f"indexed worker's first query (catch-up: walk, stat, watches) took "
            f"{fmt_s(edit['catch_up']['seconds'])} s. Each round: `ws.edit` inserts a line "
            f"with a new token into `{edit['edited']}` and the token is searched; then a token "
            f"is appended to `{edit['written']}` with a plain Python write (behind codesift's "
            "back) and searched. Found: after ws.edit "
            f"{'yes' if edit['found_edit'] else '**NO**'}, after the plain write "
            f"{'yes' if edit['found_write'] else '**NO**'}; indexed result = scan's: "
            f"{'yes' if edit['same_as_scan'] else '**NO**'}; searches used the index: "
            f"{'yes' if edit['indexed'] else 'no'}.",
            "",
            "| step | median s | ratio to rg on the copy | peak RSS MiB | hits |",
            "|---|---|---|---|---|",
        ]
        steps = edit["_results"]
        for r in steps:
            rg = next(
                (x for x in steps if x.query == r.query and x.tool.endswith(": rg") and x.runs),
                None,
            )
            ratio = f"{r.median / rg.median:.3f}" if rg and r.tool != "ws.edit" else "-"
            edit_op = r.tool == "ws.edit"
            lines.append(
                f"| {r.tool} | {fmt_s(r.median)} | {ratio} | "
                f"{'-' if edit_op else f'{r.rss_mb:.0f}'} | {'-' if edit_op else r.count} |"
            )
        lines.append("")

    # Memory.
    rg_peak = max((r.rss_mb for r in results if r.tool.startswith("rg") and r.runs), default=0)
    cs_peak = max((r.rss_mb for r in results if r.tool.startswith("csearch") and r.runs), default=0)
    lines += [
        "## Peak RSS",
        "",
        "| process | peak RSS MiB |",
        "|---|---|",
        f"| codesift-indexed worker, whole life (open, catch-up, {len(queries)} queries × "
        f"{args.rounds + 1} rounds) | {lifetime.get('indexed', 0) / 1024:.0f} |",
        f"| codesift-scan worker, whole life | {lifetime.get('scan', 0) / 1024:.0f} |",
        f"| rg, largest of any query | {rg_peak:.0f} |",
    ]
    if cs_peak:
        lines.append(f"| csearch, largest of any query | {cs_peak:.0f} |")
    lines += [
        "",
        f"The indexed worker's first query (`{catch_up.get('pattern', '')}`, the catch-up: "
        f"walk + stat of every file, inotify watches) took {fmt_s(catch_up.get('seconds', 0))} s "
        f"(indexed={catch_up.get('indexed')}); it is not part of the medians.",
        "",
    ]
    text = "\n".join(lines)
    data = {
        "corpus": str(corpus),
        "corpus_stamp": _corpus_size(corpus),
        "machine": {
            "arch": platform.machine(),
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
        },
        "versions": versions,
        "rounds": args.rounds,
        "build_rounds": args.build_rounds,
        "notes": notes,
        "targets": met_json,
        "files_with_hits": floors,
        "builds": [b.json() for b in builds],
        "queries": [asdict(q) for q in queries],
        "results": [r.json() for r in results],
        "catch_up": catch_up,
        "lifetime_rss_kb": lifetime,
        "edit": {k: v for k, v in (edit or {}).items() if k != "_results"},
    }
    (args.out / "index.md").write_text(text)
    (args.out / "index.json").write_text(json.dumps(data, indent=1))
    chart(queries, by_query, edit, args.out / "index.png")
    return text


def chart(
    queries: list[Query], by_query: dict[str, list[Result]], edit: dict | None, path: Path
) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no chart", file=sys.stderr)
        return
    groups = []  # (label, {tool: ratio}, target or None)
    for q in queries:
        group = by_query.get(q.name, [])
        rg = next((x for x in group if x.tool == "rg" and x.runs), None)
        if rg is None:
            continue
        values = {}
        for r in group:  # "csearch | head -N" stands for csearch; rg's bar is its full scan
            if r.runs and not r.tool.startswith("rg |"):
                values[r.tool.split(" |")[0]] = r.median / rg.median
        target = None
        if q.target is not None:
            ref = next((x for x in group if x.tool == q.target_ref and x.runs), None)
            target = q.target * ref.median / rg.median if ref else None
        groups.append((q.name, values, target))
    if edit and "_results" in edit:
        for label in ("after ws.edit", "after plain write"):
            rows = {r.tool.split(": ")[1]: r for r in edit["_results"] if r.tool.startswith(label)}
            if "rg" in rows and rows["rg"].runs:
                groups.append(
                    (
                        f"{label}\n(copy of subtree)",
                        {t: r.median / rows["rg"].median for t, r in rows.items() if r.runs},
                        None,
                    )
                )
    # The tools' bars, in this order, and their colours.
    colors = {
        "codesift-indexed": "tab:green",
        "codesift-scan": "tab:blue",
        "rg": "tab:gray",
        "csearch": "tab:orange",
    }
    fig, ax = plt.subplots(figsize=(13, 5.5))
    width = 0.8 / len(colors)
    for i, (tool, color) in enumerate(colors.items()):
        xs = [x + i * width for x in range(len(groups))]
        values = [g[1].get(tool, 0) for g in groups]
        if any(values):
            ax.bar(xs, values, width, label=tool, color=color)
    for x, (_, _, target) in enumerate(groups):
        if target:
            ax.hlines(target, x - width / 2, x + width / 2, colors="red", linewidth=2)
    ax.plot([], [], color="red", linewidth=2, label="target (codesift-indexed)")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_ylim(top=4)  # room for the legend above rg's bars
    ax.set_ylabel("wall time / rg's full scan (log)")
    ax.set_xticks(
        [x + 0.3 for x in range(len(groups))], [g[0] for g in groups], rotation=15, fontsize=8
    )
    ax.legend(ncol=5, fontsize=8)
    ax.set_title(
        "codesift's index: time relative to ripgrep's scan "
        "(lower is faster; max-N queries: rg scans all)"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def versions() -> dict:
    out = {}
    try:
        rev = subprocess.run(
            ["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        out["codesift"] = f"@{rev}" if rev else "?"
    except OSError:
        pass
    rg = subprocess.run(["rg", "--version"], capture_output=True, text=True, check=False)
    out["rg"] = rg.stdout.split("\n")[0]
    if shutil.which("dpkg-query"):
        cs = subprocess.run(
            ["dpkg-query", "-W", "-f", "${Version}", "codesearch"],
            capture_output=True,
            text=True,
            check=False,
        )
        if cs.returncode == 0:
            out["codesearch"] = cs.stdout.strip()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=None)
    parser.add_argument("--rounds", type=int, default=None, help="query rounds (default 5)")
    parser.add_argument("--build-rounds", type=int, default=None, help="builds per tool (2)")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "index")
    parser.add_argument("--quick", action="store_true", help="smoke run: tiny corpus, 1 round")
    parser.add_argument("--edit-subdir", default=None, help="subtree copied for the edit test")
    parser.add_argument("--cache-dir", type=Path, default=None, help="(default: a temp dir)")
    parser.add_argument("--no-codesearch", action="store_true", help="leave cindex/csearch out")
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    parser.add_argument("--build", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve(json.loads(args.serve))
        return 0
    if args.build:
        build_worker(args.build)
        return 0

    if args.corpus is None:
        args.corpus = QUICK_CORPUS if args.quick else DEFAULT_CORPUS
    args.corpus = args.corpus.resolve()
    args.rounds = args.rounds if args.rounds is not None else (1 if args.quick else 5)
    args.build_rounds = args.build_rounds or (1 if args.quick else 2)
    if args.edit_subdir is None:
        args.edit_subdir = "." if args.quick else "sound"
    if not ready_to_run(args.corpus, args.out):
        return 2
    notes = []
    codesearch = not args.no_codesearch and bool(shutil.which("cindex") and shutil.which("csearch"))
    if not codesearch:
        notes.append(
            "codesearch (cindex/csearch) left out: "
            + (
                "--no-codesearch"
                if args.no_codesearch
                else "not installed (apt-get install codesearch)"
            )
        )
    own_cache = args.cache_dir is None
    cache = Path(tempfile.mkdtemp(prefix="codesift-index-bench-")) if own_cache else args.cache_dir
    cache.mkdir(parents=True, exist_ok=True)
    os.environ["CODESIFT_CACHE_DIR"] = str(cache)  # inherited by every worker
    index_file = cache / "csearchindex" if codesearch else None
    if index_file is not None:
        os.environ["CSEARCHINDEX"] = str(index_file)  # never ~/.csearchindex
    queries = QUERIES
    notes.append(f"load average at the start: {os.getloadavg()[0]:.2f} (1 min)")
    servers: list[Server] = []
    try:
        # Warm the page cache once, then the builds (the last ones are what the queries use).
        subprocess.run(
            ["rg", *RG_FLAGS, "-c", "zzzz_warmup", "."],
            cwd=args.corpus,
            capture_output=True,
            check=False,
        )
        builds = measure_builds(args.corpus, args.build_rounds, index_file)

        indexed = Server(args.corpus, "auto")
        servers.append(indexed)
        scan = Server(args.corpus, False)
        servers.append(scan)
        if not indexed.hello["status"].get("exists"):
            raise RuntimeError(f"the indexed worker found no index: {indexed.hello['status']}")
        catch_up = {"pattern": queries[0].pattern, **indexed.grep(queries[0])}
        cpu_before, wall_before = cpu_seconds(), time.perf_counter()
        results = measure_queries(queries, args.corpus, args.rounds, indexed, scan, codesearch)
        globs = measure_globs(args.corpus, args.rounds, indexed, scan)
        anon = {
            r.tool: max(run.extra.get("anon_kb", 0) for run in r.runs)
            for r in results
            if r.tool.startswith("codesift") and r.runs
        }
        status = indexed.ask(op="status")
        catch_up["status_after"] = {k: v for k, v in status.items() if k != "path"}
        lifetime = {"indexed": indexed.close(), "scan": scan.close()}
        cpu_after, wall = cpu_seconds(), time.perf_counter() - wall_before
        others = max(
            0.0, (cpu_after["busy"] - cpu_before["busy"]) - (cpu_after["own"] - cpu_before["own"])
        )
        steal = cpu_after["steal"] - cpu_before["steal"]
        notes.append(
            f"during the query rounds ({wall:.0f} s): other processes used about {others:.0f} "
            f"CPU-s ({others / wall:.2f} of a core on average), steal {steal:.1f} s; this "
            f"benchmark's processes {cpu_after['own'] - cpu_before['own']:.0f} CPU-s"
        )
        warm_ms, idle_ms = idle_penalty()
        notes.append(
            f"memory probe: touching 64 MiB again (a byte a page) took {warm_ms:.1f} ms at once "
            f"and {idle_ms:.1f} ms after 1 s asleep; a long-lived worker that waits between "
            "queries pays the second kind of cost on the memory each query touches"
        )
        notes.append(f"load average after the queries: {os.getloadavg()[0]:.2f} (1 min)")
        edit = edit_scenario(args.corpus, args.edit_subdir, args.rounds)
        text = report(args, queries, builds, results, catch_up, lifetime, edit, notes, versions())
        rg_rss = max((r.rss_kb or 0) for r in results if r.tool == "rg")
        extra = glob_table(globs) + [
            "## Query memory besides mapped files",
            "",
            "RssAnon (memory that is not a mapped file: the index's pages and the loaded "
            "libraries are not in it) of each codesift worker after its queries, largest "
            "over the rounds, beside rg's peak RSS (target: at most rg's + 50 MiB).",
            "",
            "| process | MiB |",
            "|---|---|",
            *[f"| {tool} worker, RssAnon | {kb / 1024:.0f} |" for tool, kb in anon.items()],
            f"| rg, peak RSS of any query | {rg_rss / 1024:.0f} |",
            "",
        ]
        text = text + "\n" + "\n".join(extra)
        (args.out / "index.md").write_text(text)
        results = results + globs
    finally:
        for s in servers:
            s.close()
        if own_cache:
            shutil.rmtree(cache, ignore_errors=True)
    print(text)
    failed = [r for r in results if r.tool.startswith("codesift") and (r.error or not r.runs)]
    wrong = (
        "DIFFERENT" in text
        or (edit and edit.get("error"))
        or (
            edit
            and not (
                edit.get("found_edit") and edit.get("found_write") and edit.get("same_as_scan")
            )
        )
    )
    return 1 if failed or wrong else 0


if __name__ == "__main__":
    sys.exit(main())
