"""Adversarial race tests for the sandbox (DESIGN.md, "Paths and the sandbox": every access
resolves beneath one handle on the root, so a directory swapped for a symlink at any moment
can never make codesift read, list or write outside it) and for edits by several Workspaces
and processes on one file (an exclusive lock: no update is ever lost).

The swap: `d/` (a real directory inside the root) and `dl` (a symlink to a directory OUTSIDE
the root) are exchanged atomically with renameat2(RENAME_EXCHANGE) in a tight loop, by a
thread or by another process, while one operation is called over and over. Every call must
either succeed without showing anything of OUTSIDE or raise a `CodesiftError`.

`CODESIFT_STRESS=1` runs 20,000+ calls per operation; the default is a few hundred.
"""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from sandbox_helpers import STRESS, diff_snapshots, kill_group, snapshot

from codesift import CodesiftError, Workspace

AT_FDCWD = -100
RENAME_EXCHANGE = 2
SECRET = "OUTSIDE_SECRET"
INSIDE = "needle inside\n"
OUTSIDE_TEXT = "needle OUTSIDE_SECRET\n"

# Calls per operation (default: the whole file runs in well under a minute on 2 cores):
# whole-tree walks and writes (an fsync each) get fewer calls than single-file lookups.
CALLS_LIGHT = 20_000 if STRESS else 4_000
CALLS_WRITE = 20_000 if STRESS else 1_500
CALLS_HEAVY = 20_000 if STRESS else 800
# Upper bound of a swapper's life (it is stopped long before; this only keeps a forgotten
# swapper from running for ever).
SWAPPER_MAX_SECONDS = 3600 if STRESS else 300


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def exchange(libc: ctypes.CDLL, a: bytes, b: bytes) -> int:
    """renameat2(a, b, RENAME_EXCHANGE) on absolute byte paths; 0 or the errno."""
    if libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) == 0:
        return 0
    return ctypes.get_errno()


@dataclass
class SwapTree:
    root: Path
    outside: Path
    d: bytes = field(init=False)
    dl: bytes = field(init=False)

    def __post_init__(self) -> None:
        self.d = os.fsencode(self.root / "d")
        self.dl = os.fsencode(self.root / "dl")

    def restore(self) -> None:
        """Puts the real directory back at `d` (the swapper may stop in either state)."""
        if os.path.islink(self.d):
            assert exchange(_libc(), self.d, self.dl) == 0
        assert not os.path.islink(self.d) and os.path.islink(self.dl)


@pytest.fixture
def swap_tree(tmp_path: Path) -> SwapTree:
    outside = tmp_path / "OUTSIDE"
    outside.mkdir()
    (outside / "f.txt").write_text(OUTSIDE_TEXT)
    (outside / "outside_only.txt").write_text(OUTSIDE_TEXT)
    root = tmp_path / "root"
    (root / "d").mkdir(parents=True)
    (root / "d" / "f.txt").write_text(INSIDE)
    (root / "dl").symlink_to(outside)
    tree = SwapTree(root, outside)
    libc = _libc()
    if not hasattr(libc, "renameat2"):
        pytest.skip("libc has no renameat2")
    err = exchange(libc, tree.d, tree.dl)
    if err:
        pytest.skip(f"renameat2(RENAME_EXCHANGE) is not supported here: {os.strerror(err)}")
    assert exchange(libc, tree.d, tree.dl) == 0
    tree.restore()
    return tree


# -- swappers ------------------------------------------------------------------------------


class ThreadSwapper:
    def __init__(self, tree: SwapTree) -> None:
        self.tree = tree
        self.stop_event = threading.Event()
        self.swaps = 0
        self.failures: Counter[int] = Counter()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        libc = _libc()
        deadline = time.monotonic() + SWAPPER_MAX_SECONDS
        while not self.stop_event.is_set() and time.monotonic() < deadline:
            for _ in range(64):
                err = exchange(libc, self.tree.d, self.tree.dl)
                if err:
                    self.failures[err] += 1
                else:
                    self.swaps += 1

    def __enter__(self) -> ThreadSwapper:
        # A short switch interval lets the swapper run between the Python-level steps of an
        # operation, not only while the operation waits in a system call.
        self.old_interval = sys.getswitchinterval()
        sys.setswitchinterval(1e-5)
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop_event.set()
        self.thread.join(timeout=30)
        sys.setswitchinterval(self.old_interval)
        assert not self.thread.is_alive(), "the swapper thread did not stop"
        self.tree.restore()

    def report(self) -> str:
        return f"thread swapper: {self.swaps} exchanges, failures by errno {dict(self.failures)}"


_SWAPPER_SOURCE = textwrap.dedent(
    """
    import ctypes, os, sys, time
    libc = ctypes.CDLL(None, use_errno=True)
    a, b, stop = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2]), sys.argv[3]
    deadline = time.monotonic() + float(sys.argv[4])
    swaps = failures = 0
    print("ready", flush=True)
    while not os.path.exists(stop) and time.monotonic() < deadline:
        for _ in range(256):
            if libc.renameat2(-100, a, -100, b, 2) == 0:
                swaps += 1
            else:
                failures += 1
    print(swaps, failures, flush=True)
    """
)


class ProcessSwapper:
    def __init__(self, tree: SwapTree) -> None:
        self.tree = tree
        self.stop_file = tree.root.parent / "stop-swapper"
        self.swaps = self.failures = -1
        self.proc: subprocess.Popen[str] | None = None

    def __enter__(self) -> ProcessSwapper:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                _SWAPPER_SOURCE,
                os.fsdecode(self.tree.d),
                os.fsdecode(self.tree.dl),
                str(self.stop_file),
                str(SWAPPER_MAX_SECONDS),
            ],
            stdout=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            start_new_session=True,
        )
        assert self.proc.stdout is not None
        assert self.proc.stdout.readline().strip() == "ready"
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.proc is not None
        self.stop_file.touch()
        try:
            out, _ = self.proc.communicate(timeout=30)
            swaps, failures = out.split()
            self.swaps, self.failures = int(swaps), int(failures)
        except (subprocess.TimeoutExpired, ValueError):
            kill_group(self.proc)
        finally:
            self.stop_file.unlink(missing_ok=True)
        self.tree.restore()

    def report(self) -> str:
        return f"process swapper: {self.swaps} exchanges, {self.failures} failures"


SWAPPERS = {"thread": ThreadSwapper, "process": ProcessSwapper}


# -- operations ----------------------------------------------------------------------------
# Each takes (workspaces, call number) and returns what it saw of OUTSIDE (a list of
# violations); raising a CodesiftError is an allowed outcome.


@dataclass
class Workspaces:
    plain: Workspace
    follow: Workspace


Op = Callable[[Workspaces, int], list[str]]
# name (the test id) -> (operation, calls), in the order the operations are defined.
OPS: dict[str, tuple[Op, int]] = {}


def operation(name: str, calls: int) -> Callable[[Op], Op]:
    """Registers the decorated operation in `OPS` as `name`, called `calls` times a test."""

    def register(op: Op) -> Op:
        OPS[name] = (op, calls)
        return op

    return register


def _hit_violations(result) -> list[str]:
    bad = []
    for m in result.matches:
        shown = [m.content, m.text, *m.before, *m.after]
        if any(SECRET in s for s in shown) or "outside_only" in m.file:
            bad.append(f"grep hit {m.file}:{m.line} content={m.content!r} text={m.text!r}")
    return bad


def _glob_violations(result) -> list[str]:
    return [f"glob path {p!r}" for p in result.paths if "outside_only" in p]


@operation("grep_all", CALLS_HEAVY)
def op_grep_all(ws: Workspaces, i: int) -> list[str]:
    return _hit_violations(ws.plain.grep("needle", max_matches=None))


@operation("grep_all_follow_symlinks", CALLS_HEAVY)
def op_grep_all_follow(ws: Workspaces, i: int) -> list[str]:
    return _hit_violations(ws.follow.grep("needle", max_matches=None))


@operation("grep_file", CALLS_LIGHT)
def op_grep_file(ws: Workspaces, i: int) -> list[str]:
    return _hit_violations(ws.plain.grep("needle", path="d/f.txt"))


@operation("glob_all", CALLS_HEAVY)
def op_glob_all(ws: Workspaces, i: int) -> list[str]:
    return _glob_violations(ws.plain.glob("**"))


@operation("glob_all_follow_symlinks", CALLS_HEAVY)
def op_glob_all_follow(ws: Workspaces, i: int) -> list[str]:
    return _glob_violations(ws.follow.glob("**"))


@operation("glob_d", CALLS_HEAVY)
def op_glob_d(ws: Workspaces, i: int) -> list[str]:
    return _glob_violations(ws.plain.glob("d/*"))


@operation("list_dir_d", CALLS_LIGHT)
def op_list_d(ws: Workspaces, i: int) -> list[str]:
    entries = ws.plain.list_dir("d").entries
    return [f"list_dir entry {e!r}" for e in entries if "outside_only" in e]


@operation("read", CALLS_LIGHT)
def op_read(ws: Workspaces, i: int) -> list[str]:
    content = ws.plain.read("d/f.txt").content
    return [f"read content {content!r}"] if SECRET in content else []


@operation("write_new_file", CALLS_WRITE)
def op_write_new(ws: Workspaces, i: int) -> list[str]:
    ws.plain.write("d/sub/new.txt", "x")
    return []


@operation("write_existing_file", CALLS_WRITE)
def op_write_existing(ws: Workspaces, i: int) -> list[str]:
    # Overwrites d/f.txt with its own content: escaping would replace OUTSIDE/f.txt.
    ws.plain.write("d/f.txt", INSIDE)
    return []


def flip_edit(ws: Workspaces, i: int, first: str, second: str) -> list[str]:
    """Edits d/f.txt from `first` to `second` on even calls and back on odd ones."""
    old, new = (first, second) if i % 2 == 0 else (second, first)
    ws.plain.edit("d/f.txt", old, new)
    return []


@operation("edit", CALLS_WRITE)
def op_edit(ws: Workspaces, i: int) -> list[str]:
    return flip_edit(ws, i, "inside", "inside2")


@operation("edit_text_also_outside", CALLS_WRITE)
def op_edit_common_text(ws: Workspaces, i: int) -> list[str]:
    # "needle" is in OUTSIDE/f.txt too: an edit that escaped would change it.
    return flip_edit(ws, i, "needle", "Needle")


@pytest.mark.parametrize("swapper", sorted(SWAPPERS))
@pytest.mark.parametrize("op_name", list(OPS))
def test_swapped_directory_never_exposes_outside(swap_tree: SwapTree, swapper: str, op_name: str):
    op, calls = OPS[op_name]
    ws = Workspaces(Workspace(swap_tree.root), Workspace(swap_tree.root, follow_symlinks=True))
    before = snapshot(swap_tree.outside)
    outcomes: Counter[str] = Counter()
    violations: list[str] = []
    unexpected: list[str] = []
    with SWAPPERS[swapper](swap_tree) as swap:
        for i in range(calls):
            try:
                violations.extend(op(ws, i))
                outcomes["ok"] += 1
            except CodesiftError as exc:
                outcomes[type(exc).__name__] += 1
            except Exception as exc:
                outcomes[f"UNEXPECTED {type(exc).__name__}"] += 1
                if len(unexpected) < 5:
                    unexpected.append(f"{type(exc).__name__}: {exc}")
            if len(violations) >= 20:
                break  # enough evidence
    changes = diff_snapshots(before, snapshot(swap_tree.outside))
    report = (
        f"\n{op_name} with a {swapper} swapper: {sum(outcomes.values())} calls, outcomes "
        f"{dict(outcomes)}; {swap.report()}"
        f"\nexpected: no violations, no changes in OUTSIDE, only CodesiftError failures"
        f"\nviolations (what leaked from OUTSIDE): {violations[:20]}"
        f"\nchanges in OUTSIDE: {changes}"
        f"\nunexpected exceptions: {unexpected}"
    )
    assert swap.swaps != 0, "the swapper never exchanged the two entries" + report
    assert not violations, report
    assert not changes, report
    assert not unexpected, report


# -- lost updates ------------------------------------------------------------------------------

EDITS_THREADS = 5_000 if STRESS else 300
EDITS_PROCESSES = 2_000 if STRESS else 100
PROCESS_WRITERS = 8
STALE_RETRIES = 200  # per increment, for edit_result


def _slot_file(root: Path, writers: int) -> Path:
    path = root / "slots.txt"
    path.write_text("".join(f"slot{k} = 0\n" for k in range(writers)))
    return path


def _slot_values(path: Path) -> dict[int, int]:
    values = {}
    for line in path.read_text().splitlines():
        name, _, value = line.partition(" = ")
        values[int(name.removeprefix("slot"))] = int(value)
    return values


# One writer: increments its own slot `edits` times through `ws`, and reports what happened.
# The same source runs in threads (via exec) and in child processes.
_WRITER_SOURCE = textwrap.dedent(
    r"""
    import re
    from codesift import CodesiftError, StaleResultError

    def writer(ws, k, edits, mode, stale_retries):
        done = 0          # successful increments = the value the slot must hold
        errors = {}
        first_errors = []
        lost = []
        stale = 0

        def failed(exc):
            name = type(exc).__name__
            errors[name] = errors.get(name, 0) + 1
            if len(first_errors) < 5:
                first_errors.append(f"{name}: {exc}")

        for _ in range(edits):
            try:
                if mode == "edit":
                    ws.edit("slots.txt", f"slot{k} = {done}", f"slot{k} = {done + 1}")
                else:
                    for _attempt in range(stale_retries):
                        hits = ws.grep(f"slot{k} = \\d+", case_sensitive=True).matches
                        if len(hits) != 1:
                            raise AssertionError(f"expected 1 hit of slot{k}, got {hits}")
                        seen = int(hits[0].content.rpartition(" ")[2])
                        if seen != done:
                            lost.append(f"slot{k} read {seen}, expected {done}")
                            raise AssertionError(lost[-1])
                        try:
                            ws.edit_result(hits[0].id, f"slot{k} = {done + 1}")
                            break
                        except StaleResultError:
                            stale += 1
                    else:
                        raise AssertionError(f"still stale after {stale_retries} retries")
                done += 1
            except Exception as exc:
                failed(exc)
                break  # the writer's view of its slot may be wrong from here on
        return {"k": k, "done": done, "errors": errors, "first_errors": first_errors,
                "lost": lost, "stale_retries": stale}
    """
)


def _writer_function():
    scope: dict[str, object] = {}
    exec(_WRITER_SOURCE, scope)
    return scope["writer"]


def _check_writers(path: Path, results: list[dict], writers: int, mode: str) -> None:
    values = _slot_values(path)
    problems = []
    for r in sorted(results, key=lambda r: r["k"]):
        if values.get(r["k"]) != r["done"]:
            on_disk = values.get(r["k"])
            problems.append(f"slot{r['k']}: expected {r['done']} (successful edits), got {on_disk}")
        if r["errors"]:
            problems.append(f"slot{r['k']}: failed edits {r['errors']}: {r['first_errors']}")
        if r["lost"]:
            problems.append(f"slot{r['k']}: lost updates seen {r['lost']}")
    assert len(results) == writers, f"expected {writers} writer reports, got {results}"
    assert not problems, (
        f"{mode}: expected every slot == its writer's successful edits and no failed edit\n"
        + "\n".join(problems)
        + f"\nwriters: {results}\nfile: {values}"
    )


@pytest.mark.parametrize("mode", ["edit", "edit_result"])
def test_no_lost_update_two_workspaces_in_threads(tmp_path: Path, mode: str):
    root = tmp_path / "root"
    root.mkdir()
    path = _slot_file(root, 2)
    writer = _writer_function()
    results: list[dict] = []
    barrier = threading.Barrier(2, timeout=30)

    def run(k: int) -> None:
        ws = Workspace(root)  # one Workspace per writer: no shared in-process lock
        barrier.wait()
        results.append(writer(ws, k, EDITS_THREADS, mode, STALE_RETRIES))

    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        threads = [threading.Thread(target=run, args=(k,), daemon=True) for k in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=600)
    finally:
        sys.setswitchinterval(old_interval)
    assert not any(t.is_alive() for t in threads), "a writer thread did not finish in 600 s"
    _check_writers(path, results, 2, f"{mode}, two Workspaces in two threads")


_PROCESS_MAIN = textwrap.dedent(
    """
    import json, os, sys, time
    from codesift import Workspace
    root, k, edits, mode, retries, go = sys.argv[1:7]
    ws = Workspace(root)
    deadline = time.monotonic() + 60
    while not os.path.exists(go) and time.monotonic() < deadline:
        time.sleep(0.005)
    print(json.dumps(writer(ws, int(k), int(edits), mode, int(retries))))
    """
)


@pytest.mark.parametrize("mode", ["edit", "edit_result"])
def test_no_lost_update_across_processes(tmp_path: Path, mode: str):
    root = tmp_path / "root"
    root.mkdir()
    path = _slot_file(root, PROCESS_WRITERS)
    go = tmp_path / "go"
    source = _WRITER_SOURCE + _PROCESS_MAIN
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                source,
                str(root),
                str(k),
                str(EDITS_PROCESSES),
                mode,
                str(STALE_RETRIES),
                str(go),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            start_new_session=True,
        )
        for k in range(PROCESS_WRITERS)
    ]
    results, crashes = [], []
    try:
        time.sleep(0.3)  # let them import codesift and open their Workspace
        go.touch()
        deadline = time.monotonic() + (3600 if STRESS else 300)
        for proc in procs:
            try:
                out, err = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                kill_group(proc)
                crashes.append(f"pid {proc.pid} timed out")
                continue
            if proc.returncode != 0 or not out.strip():
                crashes.append(f"pid {proc.pid} exit {proc.returncode}: {err[-2000:]}")
            else:
                results.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for proc in procs:
            if proc.poll() is None:
                kill_group(proc)
    assert not crashes, f"writer processes crashed: {crashes}"
    _check_writers(path, results, PROCESS_WRITERS, f"{mode}, {PROCESS_WRITERS} processes")
