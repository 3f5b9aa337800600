"""codesift-rg: ripgrep's command line, output and exit codes; the refusal without fallback."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from rg_helpers import run_rg

ROOT = Path(__file__).resolve().parents[2]


def _binary() -> Path | None:
    candidates = [
        ROOT / "python" / "codesift" / "bin" / "codesift-rg",
        ROOT / "target" / "release" / "codesift-rg",
        ROOT / "target" / "debug" / "codesift-rg",
    ]
    found = shutil.which("codesift-rg")
    if found:
        candidates.insert(0, Path(found))
    return next((c for c in candidates if c.is_file() and os.access(c, os.X_OK)), None)


BIN = _binary()
pytestmark = pytest.mark.skipif(
    BIN is None, reason="codesift-rg not built (cargo build --bin codesift-rg)"
)


def rg(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    assert BIN is not None
    return run_rg(BIN, cwd, args, text=True, **env)


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("import os\nfoo = 1\n")
    (tmp_path / "b.txt").write_text("foo bar\nbaz\n")
    (tmp_path / ".gitignore").write_text("ignored.txt\n")
    (tmp_path / "ignored.txt").write_text("foo\n")
    (tmp_path / ".git").mkdir()
    return tmp_path


def test_implicit_path_prints_paths_without_dot_slash_and_skips_ignored(tree: Path) -> None:
    got = rg(tree, "-n", "--sort", "path", "foo")
    expected = "b.txt:1:foo bar\nsrc/a.py:2:foo = 1\n"
    assert (got.returncode, got.stdout) == (0, expected), f"expected {expected!r}, got {got}"


def test_explicit_dot_keeps_the_prefix_and_no_ignore_searches_ignored(tree: Path) -> None:
    got = rg(tree, "-l", "--sort", "path", "--no-ignore", "foo", ".")
    expected = "./b.txt\n./ignored.txt\n./src/a.py\n"
    assert got.stdout == expected, f"expected {expected!r}, got {got}"


def test_no_match_exits_1_and_count_and_type_filter(tree: Path) -> None:
    none = rg(tree, "nothing-here")
    assert (none.returncode, none.stdout) == (1, ""), f"got {none}"
    counted = rg(tree, "-c", "-t", "py", "o")
    assert (counted.returncode, counted.stdout) == (0, "src/a.py:2\n"), f"got {counted}"


def test_bad_regex_exits_2_with_rg_message(tree: Path) -> None:
    got = rg(tree, "foo(")
    assert got.returncode == 2 and got.stderr.startswith("rg: regex parse error"), f"got {got}"


def test_unsupported_flag_is_refused_without_fallback(tree: Path) -> None:
    got = rg(tree, "--generate", "man", "foo", CODESIFT_RG_FALLBACK="never")
    expected = "codesift-rg: --generate is not supported\n"
    assert (got.returncode, got.stderr) == (2, expected), f"expected {expected!r}, got {got}"


@pytest.mark.parametrize(
    ("args", "flag"), [(["->name", "."], "->"), (["-y", "foo"], "-y"), (["-é"], "-é")]
)
def test_a_short_flag_ripgrep_does_not_have_is_its_usage_error(tree: Path, args, flag) -> None:
    # An agent passing a pattern that starts with '-' positionally gets ripgrep's own
    # message (ripgrep 15's parser), even with no real rg to hand over to.
    got = rg(tree, *args, CODESIFT_RG_FALLBACK="never")
    expected = f"rg: unrecognized flag {flag}\n"
    assert (got.returncode, got.stdout, got.stderr) == (2, "", expected), f"got {got}"


def test_unsupported_flag_runs_the_real_rg(tree: Path) -> None:
    real = shutil.which("rg")
    if real is None:
        pytest.skip("no real rg on PATH")
    # --generate is not served here (and --version alone is): the real rg answers.
    got = rg(tree, "--generate", "man", "--version", CODESIFT_REAL_RG=real)
    assert got.returncode == 0 and got.stdout.startswith("ripgrep "), f"got {got}"


def test_real_rg_pointing_at_itself_is_never_executed(tree: Path) -> None:
    got = rg(
        tree,
        "--generate",
        "man",
        "--version",
        CODESIFT_REAL_RG=str(BIN),
        PATH=str(Path(BIN).parent),
    )
    assert got.returncode == 2 and "not supported" in got.stderr, f"got {got}"


def fake_rg(where: Path, name: str = "rg") -> Path:
    """A stand-in for the real ripgrep that says it ran and with what."""
    where.mkdir(parents=True, exist_ok=True)
    path = where / name
    path.write_text('#!/bin/sh\necho "real rg ran with: $*"\n')
    path.chmod(0o755)
    return path


def link_to_self(where: Path, name: str = "rg") -> Path:
    where.mkdir(parents=True, exist_ok=True)
    link = where / name
    link.symlink_to(BIN)
    return link


def test_version_prints_ripgreps_first_line_and_names_codesift_rg(tree: Path) -> None:
    long = rg(tree, "--version", CODESIFT_RG_FALLBACK="never")
    lines = long.stdout.splitlines()
    assert long.returncode == 0 and lines[0] == "ripgrep 15.2.0", f"got {long}"
    assert lines[-1].startswith("codesift-rg "), f"last line should name codesift-rg: {lines}"
    short = rg(tree, "-V", CODESIFT_RG_FALLBACK="never")
    assert (short.returncode, short.stdout) == (0, "ripgrep 15.2.0\n"), f"got {short}"


def test_unsupported_flag_runs_the_first_other_rg_on_path(tree: Path, tmp_path: Path) -> None:
    link_to_self(tmp_path / "shim")
    fake_rg(tmp_path / "real")
    path = f"{tmp_path / 'shim'}:{tmp_path / 'real'}"
    got = rg(tree, "--generate", "man", "foo", PATH=path)
    expected = "real rg ran with: --generate man foo\n"
    assert (got.returncode, got.stdout) == (0, expected), f"expected {expected!r}, got {got}"


def test_path_holding_only_links_to_itself_ends_with_exit_2(tree: Path, tmp_path: Path) -> None:
    link_to_self(tmp_path / "a")
    link_to_self(tmp_path / "b")
    got = rg(tree, "--generate", "man", "foo", PATH=f"{tmp_path / 'a'}:{tmp_path / 'b'}")
    assert got.returncode == 2, f"expected exit 2, got {got}"
    assert "no real rg was found" in got.stderr and "CODESIFT_REAL_RG" in got.stderr, got.stderr


def test_a_link_to_another_copy_of_codesift_rg_is_skipped(tree: Path, tmp_path: Path) -> None:
    copy = tmp_path / "other-env" / "codesift-rg"
    copy.parent.mkdir()
    shutil.copy2(BIN, copy)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "rg").symlink_to(copy)
    fake_rg(tmp_path / "real")
    got = rg(tree, "--generate", "man", "foo", PATH=f"{tmp_path / 'other'}:{tmp_path / 'real'}")
    assert got.stdout == "real rg ran with: --generate man foo\n", f"got {got}"


def test_a_wrapper_script_running_codesift_rg_again_does_not_loop(
    tree: Path, tmp_path: Path
) -> None:
    wrapper = tmp_path / "wrap" / "rg"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\nexec "{BIN}" "$@"\n')
    wrapper.chmod(0o755)
    got = rg(tree, "--generate", "man", "foo", PATH=f"{wrapper.parent}:/usr/bin:/bin")
    assert got.returncode == 2 and "no real rg was found" in got.stderr, f"got {got}"


def test_real_rg_variable_that_is_not_executable_is_named(tree: Path, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "rg"
    got = rg(tree, "--generate", "man", "foo", CODESIFT_REAL_RG=str(missing))
    assert got.returncode == 2, f"got {got}"
    assert f"CODESIFT_REAL_RG={missing} is not an executable file" in got.stderr, got.stderr


def run_with_path(cwd: Path, path: str, *command: str) -> subprocess.CompletedProcess[str]:
    """COMMAND in `cwd` with PATH the only variable of its environment."""
    return subprocess.run(
        list(command), cwd=cwd, env={"PATH": path}, capture_output=True, text=True, timeout=60
    )


def test_the_shims_record_of_the_ripgrep_package_is_the_last_resort(
    tree: Path, tmp_path: Path
) -> None:
    shim = tmp_path / "shim"
    link_to_self(shim)
    (shim / ".real-rg").symlink_to(fake_rg(tmp_path / "venv" / "bin"))
    through_path = run_with_path(tree, f"{shim}:/nonexistent", "rg", "--generate", "man", "foo")
    assert through_path.stdout == "real rg ran with: --generate man foo\n", f"got {through_path}"
    # Run by its full path (as agents that resolve `rg` first do), PATH not holding it.
    by_path = run_with_path(tree, "/nonexistent", str(shim / "rg"), "--generate", "man", "foo")
    assert by_path.stdout == "real rg ran with: --generate man foo\n", f"got {by_path}"


def test_the_rg_of_the_environment_holding_codesift_rg_is_found(tree: Path, tmp_path: Path) -> None:
    package_bin = tmp_path / "env" / "lib" / "python3.12" / "site-packages" / "codesift" / "bin"
    package_bin.mkdir(parents=True)
    installed = package_bin / "codesift-rg"
    shutil.copy2(BIN, installed)
    fake_rg(tmp_path / "env" / "bin")
    got = run_with_path(tree, "/nonexistent", str(installed), "--generate", "man", "foo")
    assert got.stdout == "real rg ran with: --generate man foo\n", f"got {got}"


def test_index_variable_accepts_its_three_values_and_names_a_wrong_one(tree: Path) -> None:
    for value in ("never", "auto", "force"):
        got = rg(tree, "-c", "-t", "py", "o", CODESIFT_RG_INDEX=value)
        assert (got.returncode, got.stdout) == (0, "src/a.py:2\n"), f"{value}: got {got}"
    bad = rg(tree, "foo", CODESIFT_RG_INDEX="sometimes")
    expected = "codesift-rg: CODESIFT_RG_INDEX=sometimes is not one of never, auto, force\n"
    assert (bad.returncode, bad.stderr) == (2, expected), f"expected {expected!r}, got {bad}"
