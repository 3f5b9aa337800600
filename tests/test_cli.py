"""The installed `codesift` command: output, --json and grep-like exit codes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest


@pytest.fixture(scope="module")
def codesift() -> list[str]:
    exe = shutil.which("codesift")
    return [exe] if exe else [sys.executable, "-m", "codesift"]


def run(cmd: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*cmd, *args], capture_output=True, text=True, check=False)


def test_grep_found_nothing_and_error_exit_codes(tree, codesift):
    root = tree({"a.py": "def hello():\n    pass\n"})
    found = run(codesift, "grep", "hello", "--root", str(root))
    assert found.returncode == 0, found.stderr
    assert found.stdout == "a.py:1:5:def hello():\n"
    assert run(codesift, "grep", "absent", "--root", str(root)).returncode == 1
    bad = run(codesift, "grep", "foo(", "--root", str(root))
    assert bad.returncode == 2
    assert "invalid regex" in bad.stderr and "Traceback" not in bad.stderr


def test_json_output_and_glob(tree, codesift):
    root = tree({"src/a.ts": "x", "src/b.js": "x"})
    out = run(codesift, "glob", "*.ts", "--root", str(root), "--json")
    assert out.returncode == 0
    assert [f["path"] for f in json.loads(out.stdout)["files"]] == ["src/a.ts"]
    out = run(codesift, "grep", "x", "--root", str(root), "-g", "!*.js", "--json")
    data = json.loads(out.stdout)
    assert [m["file"] for m in data["matches"]] == ["src/a.ts"]
    assert data["matches"][0]["id"].startswith("sr_")
    outside = run(codesift, "glob", "*", "/", "--root", str(root))
    assert outside.returncode == 2 and "outside the workspace" in outside.stderr
