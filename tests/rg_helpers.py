"""Helpers for the tests of `codesift-rg`: the executable, a private index daemon (its own
socket and cache directories) with runs of codesift-rg against it, and the real ripgrep to
compare with."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from daemon_helpers import wait_for

ROOT = Path(__file__).resolve().parents[1]
BIN = ROOT / "python" / "codesift" / "bin" / "codesift-rg"
# The mark of every test that runs the executable: skipped where it is not built.
NEEDS_CODESIFT_RG = pytest.mark.skipif(not BIN.is_file(), reason="codesift-rg not built")
PYTHON_PATH = os.pathsep.join(p for p in sys.path if p)


class Env:
    """A private daemon (socket and cache directories of this test) and runs of codesift-rg."""

    def __init__(self, base: Path) -> None:
        run = base / "run"
        run.mkdir(mode=0o700)
        self.env = {k: v for k, v in os.environ.items() if k != "RIPGREP_CONFIG_PATH"}
        self.env.update(
            XDG_RUNTIME_DIR=str(run),
            CODESIFT_CACHE_DIR=str(base / "cache"),
            CODESIFT_PYTHON=sys.executable,
            PYTHONPATH=PYTHON_PATH,
            CODESIFT_RG_FALLBACK="never",
            CODESIFT_RG_DEBUG="index",
        )
        self.daemon: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.daemon = subprocess.Popen(
            [sys.executable, "-m", "codesift", "daemon", "run", "--foreground", "--idle", "120"],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for("the daemon answers", lambda: self.status() is not None)

    def __enter__(self) -> Env:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()

    def status(self) -> dict | None:
        out = subprocess.run(
            [sys.executable, "-m", "codesift", "daemon", "status", "--json"],
            env=self.env,
            capture_output=True,
            text=True,
        )
        return json.loads(out.stdout) if out.returncode == 0 else None

    def stop(self) -> None:
        subprocess.run(
            [sys.executable, "-m", "codesift", "daemon", "stop"], env=self.env, capture_output=True
        )
        if self.daemon is not None:
            try:
                self.daemon.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.daemon.kill()
                self.daemon.wait()

    def rg(self, cwd: Path, mode: str, *args: str, binary: Path = BIN, stdin: bytes | None = None):
        env = dict(self.env, CODESIFT_RG_INDEX=mode)
        return subprocess.run(
            [str(binary), *args],
            cwd=cwd,
            env=env,
            input=stdin,
            stdin=subprocess.DEVNULL if stdin is None else None,
            capture_output=True,
            timeout=120,
        )


def rg_version(path: Path) -> str | None:
    """The version a real ripgrep reports (`15.2.0`), or None for codesift-rg or no rg."""
    try:
        out = subprocess.run(
            [str(path), "--version"], capture_output=True, text=True, timeout=30
        ).stdout
    except OSError:
        return None
    if "codesift-rg" in out or not out.startswith("ripgrep "):
        return None
    return out.split()[1]


def real_rgs() -> list[tuple[Path, str]]:
    """The real ripgreps on this machine (never codesift-rg), ripgrep 15 first:
    `CODESIFT_REAL_RG`, the rg that scripts/rg_suite.sh built from ripgrep's crate (the test
    command runs it before pytest), the rgs on PATH, the Python environment's (pip's
    `ripgrep` package)."""
    suite = Path(os.environ.get("RG_SUITE_DIR") or ROOT / "target" / "rg-suite")
    candidates = [Path(p) for p in [os.environ.get("CODESIFT_REAL_RG")] if p]
    candidates.append(suite / "rg.real")
    candidates += [Path(d) / "rg" for d in os.environ.get("PATH", "").split(os.pathsep) if d]
    candidates.append(Path(sys.executable).parent / "rg")
    found: list[tuple[Path, str]] = []
    seen: set[Path] = set()
    for c in candidates:
        real = c.resolve()
        if real in seen or not c.is_file() or not os.access(c, os.X_OK):
            continue
        seen.add(real)
        version = rg_version(c)
        if version is not None:
            found.append((c, version))
    return sorted(found, key=lambda f: not f[1].startswith("15."))


def index_agrees(env: Env, cwd: Path, args: Sequence[str], what: str) -> bytes:
    """Asserts `args` through the index (force, auto) answer as a scan and the real ripgrep
    do, from `cwd`; returns the scan's output."""
    scan = env.rg(cwd, "never", *args)
    reals = real_rgs()
    if reals:
        real = env.rg(cwd, "never", *args, binary=reals[0][0])
        assert (real.returncode, real.stdout) == (scan.returncode, scan.stdout), (
            f"{what}: rg {' '.join(args)}: the scan differs from {reals[0][1]}\n"
            f"rg   {real.stdout!r}\nscan {scan.stdout!r}"
        )
    for mode in ("force", "auto"):
        got = env.rg(cwd, mode, *args)
        assert (got.returncode, got.stdout) == (scan.returncode, scan.stdout), (
            f"{what}: rg {' '.join(args)} ({mode})\nexpected {scan.stdout!r}\n"
            f"actual   {got.stdout!r}\n{got.stderr.decode()}"
        )
    return scan.stdout


def without_timings(line: str | bytes) -> dict[str, Any]:
    """One `--json` message without its timings (they differ from run to run)."""
    message = json.loads(line)
    data = message.get("data", {})
    data.pop("elapsed_total", None)
    data.get("stats", {}).pop("elapsed", None)
    return message


def json_without_timings(out: str | bytes) -> str:
    """`--json` output without its timings, each message's keys sorted: comparable."""
    return "\n".join(json.dumps(without_timings(line), sort_keys=True) for line in out.splitlines())


def run_rg(
    binary: Path, cwd: Path, args: Sequence[str], *, text: bool = False, **env: str
) -> subprocess.CompletedProcess[Any]:
    """`binary args` in `cwd` as a shell runs it (no ripgrep config file, an empty stdin),
    with `env` added to the environment."""
    full = {k: v for k, v in os.environ.items() if k != "RIPGREP_CONFIG_PATH"}
    full.update(env)
    return subprocess.run(
        [str(binary), *args],
        cwd=cwd,
        env=full,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=text,
        timeout=60,
        check=False,
    )
