"""codesift-rg walks and types files as the real ripgrep 15.2.0 it is held to (built with the
same `ignore` and `globset` crates: scripts/rg_suite.sh builds it so, and the test command
runs that first): the same type table, and the same answer where the crates' versions differ
(a broken symlink that a glob leaves out, under `--follow`)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from rg_helpers import BIN, real_rgs, run_rg


def real_rg_15() -> Path:
    found = [rg for rg, version in real_rgs() if version.startswith("15.")]
    if not found:
        pytest.skip("no real ripgrep 15 on this machine (scripts/rg_suite.sh builds one)")
    return found[0]


def run(binary: Path, cwd: Path, args: list[str]) -> subprocess.CompletedProcess[bytes]:
    return run_rg(binary, cwd, args, CODESIFT_RG_INDEX="never", CODESIFT_RG_FALLBACK="never")


def test_the_type_table_is_the_real_rgs(tmp_path: Path) -> None:
    real = real_rg_15()
    want = run(real, tmp_path, ["--type-list"])
    got = run(BIN, tmp_path, ["--type-list"])
    assert want.returncode == 0, want.stderr
    missing = set(want.stdout.splitlines()) ^ set(got.stdout.splitlines())
    assert got.stdout == want.stdout, f"lines that differ from {real}: {sorted(missing)[:10]}"


def test_a_broken_link_a_glob_leaves_out_is_walked_past_as_the_real_rg_does(
    tmp_path: Path,
) -> None:
    real = real_rg_15()
    (tmp_path / "a.md").write_text("needle\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "b.md").write_text("needle\n")
    (tmp_path / "alias.rs").symlink_to("missing.rs")
    for args in (
        ["--files", "--follow", "--glob=*.md", "--sort", "path"],
        ["--follow", "--glob=*.md", "--sort", "path", "needle"],
        ["--files", "--follow", "--sort", "path"],
    ):
        want = run(real, tmp_path, args)
        got = run(BIN, tmp_path, args)
        assert (got.returncode, got.stdout, got.stderr) == (
            want.returncode,
            want.stdout,
            want.stderr,
        ), f"{args}: expected {want}, got {got}"
