"""Small helpers shared by the adversarial sandbox tests (test_sandbox_races.py and
test_sandbox_edges.py): running code in a subprocess with a deadline, running the CLI, and
snapshotting a directory tree."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

STRESS = os.environ.get("CODESIFT_STRESS", "") not in ("", "0")


@dataclass
class Isolated:
    """The outcome of `run_isolated`: `result` is what the snippet returned (decoded from
    JSON), or None when it timed out or crashed."""

    returncode: int | None
    timed_out: bool
    result: object
    stdout: str
    stderr: str

    def describe(self) -> str:
        return (
            f"returncode={self.returncode} timed_out={self.timed_out} result={self.result!r}\n"
            f"--- stdout ---\n{self.stdout[-3000:]}\n--- stderr ---\n{self.stderr[-3000:]}"
        )


# Prelude of every isolated snippet: `outcome(fn)` runs fn and reports either its value or
# the exception's class name (with its codesift-ness) and message.
_PRELUDE = """
import json, os, sys
import codesift

def outcome(fn):
    try:
        value = fn()
    except BaseException as exc:  # report everything, MemoryError included
        return {
            "ok": False,
            "type": type(exc).__name__,
            "codesift": isinstance(exc, codesift.CodesiftError),
            "message": str(exc)[:2000],
        }
    return {"ok": True, "value": value}
"""


def run_isolated(body: str, *, timeout: float = 20.0, cwd: Path | None = None) -> Isolated:
    """Runs `body` (Python source that must assign a JSON-able `RESULT`) in a fresh interpreter
    with codesift imported, killing it (its whole process group) after `timeout` seconds."""
    source = (
        _PRELUDE + "\n" + textwrap.dedent(body) + "\nprint('@@RESULT@@' + json.dumps(RESULT))\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", source],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        cwd=cwd,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        out, err = proc.communicate()
        return Isolated(None, True, None, out, err)
    result = None
    for line in out.splitlines():
        if line.startswith("@@RESULT@@"):
            result = json.loads(line[len("@@RESULT@@") :])
    return Isolated(proc.returncode, False, result, out, err)


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILLs a process started with start_new_session=True and everything it started."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def codesift_exe() -> list[str]:
    """The CLI of the codesift under test: `python -m codesift` with this interpreter, so a
    `codesift` of another installation earlier on PATH is never run by mistake."""
    return [sys.executable, "-m", "codesift"]


def run_cli(*args: str | bytes, timeout: float = 60.0, env: dict | None = None):
    """Runs the codesift CLI; returns the CompletedProcess (stdout/stderr as text, decoded with
    surrogateescape), or raises AssertionError on timeout."""
    cmd = [*codesift_exe(), *args]
    try:
        proc = subprocess.run(
            cmd,
            capture_output=True,
            check=False,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
        )
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"codesift {args!r} did not finish within {timeout}s") from exc
    proc.stdout = proc.stdout.decode("utf-8", "surrogateescape")
    proc.stderr = proc.stderr.decode("utf-8", "surrogateescape")
    return proc


def assert_no_traceback(proc, what: str = "") -> None:
    """The CLI contract: exit 0, 1 or 2 and one line on stderr, never a traceback."""
    args = list(proc.args)
    cli = codesift_exe()
    shown_args = args[len(cli) :] if args[: len(cli)] == cli else args
    shown = f"codesift {shown_args!r} {what}".strip()
    assert "Traceback" not in proc.stderr, f"{shown} printed a traceback:\n{proc.stderr}"
    assert proc.returncode in (0, 1, 2), (
        f"{shown}: expected exit code 0, 1 or 2, got {proc.returncode}\nstderr: {proc.stderr}"
    )


def snapshot(top: Path) -> dict[str, object]:
    """Every entry under `top` (not following links): directories as "<dir>", links as their
    target, files as their bytes."""
    found: dict[str, object] = {}
    for dirpath, dirnames, filenames in os.walk(top):
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, top)
            if os.path.islink(full):
                found[rel] = "-> " + os.readlink(full)
            elif os.path.isdir(full):
                found[rel] = "<dir>"
            else:
                with open(full, "rb") as f:
                    found[rel] = f.read()
    return found


def diff_snapshots(before: dict[str, object], after: dict[str, object]) -> list[str]:
    changes = []
    for key in sorted(set(before) | set(after)):
        if key not in after:
            changes.append(f"removed {key}")
        elif key not in before:
            changes.append(f"created {key} = {after[key]!r:.80}")
        elif before[key] != after[key]:
            changes.append(f"changed {key}: {before[key]!r:.80} -> {after[key]!r:.80}")
    return changes
