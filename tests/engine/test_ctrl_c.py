"""Ctrl-C stops every blocking call of the library while it runs, not when it ends: a real
process runs a long call over a generated tree (25 MB of text), SIGINT is sent once the call
has started, and `KeyboardInterrupt` must come out of the call long before the call could
have finished, with nothing partial returned (the caller's `CancelToken` is left as it was:
the call stopped its own). That the call stopped rather than ended is told by what it did, not
by a clock: a stopped grep searched fewer than all files, a stopped index build published no
index; uninterrupted, the same calls search every file and publish one."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from daemon_helpers import daemon_env, run_daemon, serving, stop, use_runtime_dir
from processes import child

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")

#: How long after SIGINT the process must have left the call. Generous: cancelled, the calls
#: stop within tens of milliseconds.
STOPPED_WITHIN = 1.0
#: When SIGINT is sent, seconds into the call (uninterrupted, the calls run 1.4-2.5 s on a
#: quiet 2-core machine; the figures are printed).
SIGNAL_AFTER = 0.5
#: Files and size of the generated trees.
FILES, MEGABYTES = 2000, 25
#: The index build's tree: random text (many distinct trigrams, so the build is long).
RANDOM_MEGABYTES = 48

_CALL = r"""
import json, sys, time
from codesift import CancelToken, Workspace
mode, root = sys.argv[1], sys.argv[2]
ws = Workspace(root, index=(mode == "glob_daemon"))
token = CancelToken()
result = {"mode": mode}
print("started", flush=True)
started = time.monotonic()
try:
    if mode == "grep":
        ws.grep(r"\w", max_matches=None, cancel=token)
    elif mode == "grep_iter":
        for _ in ws.grep_iter(r"\w", max_matches=None, cancel=token):
            pass
    elif mode == "glob":
        ws.glob("**/*.txt", limit=10**6, cancel=token)
    elif mode == "glob_daemon":
        ws.glob("*.txt", limit=10**6, cancel=token)
    elif mode == "index_build":
        ws.index_build(cancel=token)
    result["interrupted"] = False
except KeyboardInterrupt:
    result["interrupted"] = True
result["seconds"] = round(time.monotonic() - started, 3)
result["files_searched"] = token.files_searched
result["token_cancelled"] = token.cancelled
result["index_exists"] = bool(ws.index_status()["exists"])
print(json.dumps(result), flush=True)
"""


def _tree(root: Path) -> Path:
    line = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu\n"
    size = MEGABYTES * 2**20 // FILES
    text = (line * (size // len(line) + 1))[:size]
    for i in range(FILES):
        folder = root / f"d{i // 100:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i}.txt").write_text(text)
    return root


def _random_tree(root: Path) -> Path:
    alphabet = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_ \n"
    table = bytes(alphabet[i % len(alphabet)] for i in range(256))
    size = RANDOM_MEGABYTES * 2**20 // FILES
    for i in range(FILES):
        folder = root / f"d{i // 100:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i}.txt").write_bytes(os.urandom(size).translate(table))
    return root


@pytest.fixture(scope="module")
def big_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _tree(tmp_path_factory.mktemp("ctrl-c") / "tree")


@pytest.fixture(scope="module")
def random_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _random_tree(tmp_path_factory.mktemp("ctrl-c") / "random")


def _tree_for(mode: str, request: pytest.FixtureRequest) -> Path:
    return request.getfixturevalue("random_tree" if mode == "index_build" else "big_tree")


def _interrupted(mode: str, root: Path, env: dict[str, str], after: float = SIGNAL_AFTER) -> dict:
    """Runs `mode` in a child process, sends SIGINT `after` seconds into the call; returns
    the child's report with `stopped_after` (seconds from the signal to the child's exit)."""
    argv = [sys.executable, "-c", _CALL, mode, str(root)]
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    with child(argv, env=env, text=True, **pipes) as process:
        assert process.stdout is not None
        assert process.stdout.readline() == "started\n", process.communicate()
        time.sleep(after)
        signalled = time.monotonic()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=120)
        stopped_after = time.monotonic() - signalled
    assert "Traceback" not in err, err
    report = json.loads(out.strip().splitlines()[-1])
    report["stopped_after"] = round(stopped_after, 3)
    print(report)
    return report


def _env(tmp_path: Path, daemon: bool = False) -> dict[str, str]:
    env = daemon_env()
    env["XDG_RUNTIME_DIR"] = str(tmp_path / "run")
    env["CODESIFT_CACHE_DIR"] = str(tmp_path / "cache")  # this test's own: no index at first
    if daemon:
        env.pop("CODESIFT_DAEMON", None)
    else:
        env["CODESIFT_DAEMON"] = "never"
    return env


@pytest.mark.parametrize("mode", ["grep", "grep_iter", "index_build"])
def test_ctrl_c_stops_a_long_call_while_it_runs(
    mode: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    (tmp_path / "run").mkdir(mode=0o700)
    report = _interrupted(mode, _tree_for(mode, request), _env(tmp_path))
    assert report["interrupted"], f"expected KeyboardInterrupt out of {mode}, got {report}"
    assert report["stopped_after"] < STOPPED_WITHIN, (
        f"{mode}: KeyboardInterrupt came {report['stopped_after']} s after SIGINT "
        f"(expected < {STOPPED_WITHIN} s: the call should stop, not run to its end): {report}"
    )
    if mode == "index_build":
        assert not report["index_exists"], f"the build ran to its end: {report}"
    else:
        assert report["files_searched"] < FILES, f"the search ran to its end: {report}"
    assert not report["token_cancelled"], "the caller's token is left as it was"


def test_ctrl_c_stops_a_glob_waiting_on_a_daemon_that_does_not_answer(
    big_tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_runtime_dir(monkeypatch, tmp_path / "run")
    daemon = run_daemon()
    try:
        serving(daemon)
        daemon.send_signal(signal.SIGSTOP)  # the glob's question waits for its time limit
        report = _interrupted("glob_daemon", big_tree, _env(tmp_path, daemon=True), after=0.5)
    finally:
        daemon.send_signal(signal.SIGCONT)
        stop(daemon)
    assert report["interrupted"], f"expected KeyboardInterrupt out of glob, got {report}"
    assert report["stopped_after"] < STOPPED_WITHIN, (
        f"glob: KeyboardInterrupt came {report['stopped_after']} s after SIGINT (the wait for "
        f"the daemon lasts 3 s): {report}"
    )


def test_uninterrupted_the_calls_do_what_the_ctrl_c_checks_say_was_stopped(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """The other side of the checks above: run to their end, the grep searches every file and
    the build publishes its index (so a Ctrl-C check that sees fewer files or no index saw a
    call that stopped)."""
    (tmp_path / "run").mkdir(mode=0o700)
    env = _env(tmp_path)
    for mode in ("grep", "index_build"):
        done = subprocess.run(
            [sys.executable, "-c", _CALL, mode, str(_tree_for(mode, request))],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        report = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"{mode} uninterrupted: {report}")
        assert not report["interrupted"], report
        if mode == "index_build":
            assert report["index_exists"], f"expected a published index: {report}"
        else:
            assert report["files_searched"] == FILES, f"expected {FILES} files: {report}"
