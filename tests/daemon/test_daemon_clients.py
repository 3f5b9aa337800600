"""Clients asking the host's index daemon: `codesift grep --index` and short-lived
`Workspace(index=...)` searches answered from the daemon's selection equal a scan, field by
field, before and after another process changes the tree; a daemon killed with SIGKILL while
in use costs nothing but speed; with no daemon, the first search scans, starts one without
waiting for it, and later searches are served by it."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import daemon_helpers as helpers
import pytest
from daemon_helpers import daemon_env, prime, root_status, run_daemon, serving, wait_for
from trees import write_tree

from codesift import Workspace, daemon

#: Dropped from both sides: whether the index answered, how many files were opened, hit ids.
DROPPED = ("indexed", "files_searched")

TREE = {
    ".gitignore": "build/\n*.log\n",
    "src/main.c": "int main() { PM_RESUME(); return 0; }\n" * 3,
    "src/util.c": "static void helper(void) {}\n/* PM_RESUME here */\n",
    "src/deep/x.h": "#define PM_RESUME 1\n#define OTHER 2\n",
    "docs/a.md": "resume the PM_resume thing\nPm_Resume\n",
    "build/out.c": "PM_RESUME in an ignored dir\n",
    "trace.log": "PM_RESUME ignored by glob rule\n",
    "bin/blob.dat": b"PM_RESUME\x00binary\n",
    "many/" + "a" * 8 + ".txt": "nothing here\n",
}

#: (options, [pattern, path...]) of `codesift grep`.
QUERIES: list[tuple[list[str], list[str]]] = [
    ([], ["PM_RESUME"]),
    (["-F", "-i"], ["PM_RESUME"]),
    (["-s"], ["PM_RE[S]UME"]),
    (["-g", "*.c"], ["PM_RESUME"]),
    (["-g", "!src/deep/**"], ["PM_RESUME"]),
    (["-C", "1", "-s"], ["PM_RESUME"]),
    (["-m", "2", "-s"], ["PM_RESUME"]),
    (["--count-total", "-m", "1", "-s"], ["PM_RESUME"]),
    (["-s"], ["PM_RESUME", "src"]),
    (["-s"], ["\\w+"]),  # the index narrows nothing: the daemon says scan
    (["-s"], ["not_there_anywhere"]),
]


def grep(root: Path, query: tuple[list[str], list[str]], *extra: str, index: bool) -> str:
    """`codesift grep`'s output (options before `--`, then the pattern and path)."""
    options, words = query
    command = [sys.executable, "-m", "codesift", "grep", *extra, "--root", str(root)]
    command += ["--index" if index else "--no-index", "--color", "never", *options, "--", *words]
    done = subprocess.run(
        command, capture_output=True, text=True, env=daemon_env(), timeout=120, check=False
    )
    assert done.returncode in (0, 1), f"{command}: exit {done.returncode}\n{done.stderr}"
    return done.stdout


def cli(root: Path, query: tuple[list[str], list[str]], *, index: bool) -> dict[str, Any]:
    """`codesift grep --json-full`, less what differs between the index and a scan."""
    data = json.loads(grep(root, query, "--json-full", index=index))
    for key in DROPPED:
        data.pop(key, None)
    for hit in data.get("matches", []):
        hit.pop("id", None)
    return data


def library(ws: Workspace, pattern: str) -> dict[str, Any]:
    result = ws.grep(pattern, case_sensitive=True)
    data = result.to_dict()
    for key in DROPPED:
        data.pop(key, None)
    data["matches"] = [{k: v for k, v in m.to_dict().items() if k != "id"} for m in result.matches]
    return data


@pytest.fixture
def indexed_tree(tmp_path: Path) -> Path:
    root = write_tree(tmp_path / "ws", TREE)
    Workspace(root, index=True, index_watch=False).index_build()
    return root


def change_in_another_process(root: Path) -> None:
    """Writes, appends, renames, deletes and makes a new directory, from another process."""
    changes = {"docs/a.md": "PM_RESUME rewritten\n"}
    helpers.change_in_another_process(root, "PM_RESUME appended\n", "PM_RESUME new\n", changes)


def test_the_cli_with_a_warm_daemon_equals_a_scan_before_and_after_changes(
    served: subprocess.Popen[bytes], indexed_tree: Path
) -> None:
    prime(indexed_tree)
    for phase in ("before", "after"):
        if phase == "after":
            change_in_another_process(indexed_tree)
        after = assert_asked_equals_scan(indexed_tree, QUERIES, cli, phase)
        assert after["watch"]["state"] == "caught up", after["watch"]


def piped(root: Path, query: tuple[list[str], list[str]], *, index: bool) -> str:
    """`codesift grep` as a pipe reads it: the streamed lines."""
    return grep(root, query, index=index)


def assert_asked_equals_scan(
    root: Path, queries: list[Any], run: Callable[..., Any], phase: str
) -> dict[str, Any]:
    """Each query run with the index (the daemon asked) equals it run as a scan, and the
    daemon was asked each time; returns the root's status after."""
    before = root_status(root)
    assert before is not None
    for query in queries:
        scan = run(root, query, index=False)
        asked = run(root, query, index=True)
        assert asked == scan, f"{phase} {query}:\nscan  {scan!r}\nindex {asked!r}"
    after = root_status(root)
    assert after is not None
    asked_count = after["queries"] - before["queries"]
    assert asked_count >= len(queries), (
        f"{phase}: expected the daemon asked {len(queries)} times, was {asked_count}"
    )
    return after


def test_a_streamed_cli_search_asks_the_daemon_too(
    served: subprocess.Popen[bytes], indexed_tree: Path
) -> None:
    prime(indexed_tree)
    change_in_another_process(indexed_tree)
    streamed = [q for q in QUERIES if "--count-total" not in q[0]]
    assert_asked_equals_scan(indexed_tree, streamed, piped, "streamed")


def test_a_daemon_killed_mid_use_costs_speed_not_results(indexed_tree: Path) -> None:
    process = run_daemon()
    scan = library(Workspace(indexed_tree), "PM_RESUME")
    answers: list[dict[str, Any]] = []
    errors: list[BaseException] = []
    killed = threading.Event()

    def search() -> None:
        try:
            # Short-lived workspaces, as one-shot processes make them.
            while not killed.is_set() or len(answers) < 40:
                answers.append(library(Workspace(indexed_tree, index="auto"), "PM_RESUME"))
        except BaseException as exc:  # reported below
            errors.append(exc)

    try:
        serving(process)
        prime(indexed_tree)
        worker = threading.Thread(target=search)
        worker.start()
        wait_for("some searches through the daemon", lambda: len(answers) >= 10)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        killed.set()
        worker.join(timeout=120)
        assert not worker.is_alive(), "the searches did not finish"
        assert not errors, f"a search failed: {errors[0]!r}"
        differing = [i for i, answer in enumerate(answers) if answer != scan]
        assert not differing, f"answers {differing} differ from the scan {scan}"
        # The CLI too, while whatever daemon there is (a new one may be starting) serves.
        for query in QUERIES[:4]:
            assert cli(indexed_tree, query, index=True) == cli(indexed_tree, query, index=False)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()


def test_no_daemon_the_first_search_scans_and_starts_one_later_ones_use_it(
    indexed_tree: Path,
) -> None:
    assert daemon.ping() is None, "no daemon runs yet"
    scan = library(Workspace(indexed_tree), "PM_RESUME")
    first = library(Workspace(indexed_tree, index="auto"), "PM_RESUME")
    # Right after the first search returned, the daemon it started has not answered for this
    # root (it may not even answer yet): the search did not wait for it.
    status = daemon.status()
    assert status is None or root_status(indexed_tree) is None, (
        f"the first search waited for the daemon: {status}"
    )
    assert first == scan, f"the first search (a scan meanwhile):\n{first}\nscan:\n{scan}"
    running = serving()
    prime(indexed_tree)
    for round_number in range(3):
        queries_before = daemon.status()["queries"]
        root_before = root_status(indexed_tree)["queries"]
        answer = library(Workspace(indexed_tree, index="auto"), "PM_RESUME")
        assert answer == scan, f"round {round_number}:\n{answer}\nscan:\n{scan}"
        status = daemon.status()
        assert status["pid"] == running["pid"], "the same daemon serves"
        assert status["queries"] > queries_before, (
            f"queries served did not grow: {queries_before} -> {status['queries']}"
        )
        assert root_status(indexed_tree)["queries"] == root_before + 1


def test_never_turns_the_daemon_off(indexed_tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODESIFT_DAEMON", "never")
    scan = library(Workspace(indexed_tree), "PM_RESUME")
    for _ in range(3):
        assert library(Workspace(indexed_tree, index=True), "PM_RESUME") == scan
    query: tuple[list[str], list[str]] = ([], ["PM_RESUME"])
    assert cli(indexed_tree, query, index=True) == cli(indexed_tree, query, index=False)
    socket_dir = _daemon_dir()
    assert socket_dir is None or not (Path(socket_dir) / "daemon.lock").exists(), (
        "a daemon was started although CODESIFT_DAEMON=never"
    )


def _daemon_dir() -> str | None:
    from codesift import _core

    found = _core.daemon_dir()
    return None if found is None else str(found)
