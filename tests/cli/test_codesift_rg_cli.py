"""codesift-rg: ripgrep's command line, output and exit codes; the refusal without fallback."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

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
    full_env = {k: v for k, v in os.environ.items() if k != "RIPGREP_CONFIG_PATH"}
    full_env.update(env)
    return subprocess.run(
        [str(BIN), *args],
        cwd=cwd,
        env=full_env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


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
    got = rg(tree, "--pcre2", "foo", CODESIFT_RG_FALLBACK="never")
    expected = "codesift-rg: --pcre2 is not supported\n"
    assert (got.returncode, got.stderr) == (2, expected), f"expected {expected!r}, got {got}"


def test_unsupported_flag_runs_the_real_rg(tree: Path) -> None:
    real = shutil.which("rg")
    if real is None:
        pytest.skip("no real rg on PATH")
    got = rg(tree, "--version", CODESIFT_REAL_RG=real)
    assert got.returncode == 0 and got.stdout.startswith("ripgrep "), f"got {got}"


def test_real_rg_pointing_at_itself_is_never_executed(tree: Path) -> None:
    got = rg(tree, "--version", CODESIFT_REAL_RG=str(BIN), PATH=str(Path(BIN).parent))
    assert got.returncode == 2 and "not supported" in got.stderr, f"got {got}"
