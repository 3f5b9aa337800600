"""codesift-rg counts `-u`/`--unrestricted` as ripgrep does: each one adds the next step (no
ignore files, then hidden files, then binary files) whatever other flags say, a fourth is
ripgrep's usage error; and its errors come in ripgrep's order (a flag's bad value while
parsing, then a missing pattern, then an unknown file type)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rg_helpers import BIN, NEEDS_CODESIFT_RG, real_rgs, run_rg

pytestmark = NEEDS_CODESIFT_RG


def run(binary: Path, cwd: Path, *args: str) -> tuple[int, str, str]:
    got = run_rg(
        binary, cwd, args, text=True, CODESIFT_RG_INDEX="never", CODESIFT_RG_FALLBACK="never"
    )
    return got.returncode, got.stdout, got.stderr


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("ignored.txt\n")
    (tmp_path / "ignored.txt").write_text("alpha\n")
    (tmp_path / "plain.txt").write_text("alpha\n")
    (tmp_path / ".hidden.txt").write_text("alpha\n")
    (tmp_path / "bin.dat").write_bytes(b"\x00alpha\n")
    return tmp_path


SPEC = (
    "invalid color spec format: 'bad'. "
    "Valid format is '(path|line|column|match|highlight):(fg|bg|style):(value)'."
)
FOURTH = "flag can only be repeated up to 3 times"
CASES = [
    # (argv, exit code, stdout, stderr)
    (["--no-ignore", "-u", "-l", "alpha"], 0, "ignored.txt\nplain.txt\n", ""),
    (
        ["--hidden", "--no-ignore", "-u", "-l", "alpha"],
        0,
        ".hidden.txt\nignored.txt\nplain.txt\n",
        "",
    ),
    (["-uu", "-l", "alpha"], 0, ".hidden.txt\nignored.txt\nplain.txt\n", ""),
    (["-uuu", "-l", "alpha"], 0, ".hidden.txt\nbin.dat\nignored.txt\nplain.txt\n", ""),
    (["--unrestricted", "-uuu", "alpha"], 2, "", f"rg: error parsing flag -u: {FOURTH}\n"),
    (
        ["-uuu", "--unrestricted", "alpha"],
        2,
        "",
        f"rg: error parsing flag --unrestricted: {FOURTH}\n",
    ),
    (["-t", "zz"], 2, "", "rg: ripgrep requires at least one pattern to execute a search\n"),
    (
        ["-t", "zz", "-f", "nonexist"],
        2,
        "",
        "rg: nonexist: No such file or directory (os error 2)\n",
    ),
    (["--colors", "bad", "-t", "zz", "alpha"], 2, "", f"rg: error parsing flag --colors: {SPEC}\n"),
]


@pytest.mark.parametrize(("args", "code", "out", "err"), CASES)
def test_unrestricted_steps_and_error_order_are_ripgreps(
    tree: Path, args: list[str], code: int, out: str, err: str
) -> None:
    argv = ["--sort", "path", *args]
    got = run(BIN, tree, *argv)
    assert got == (code, out, err), f"expected {(code, out, err)!r}, got {got!r}"
    real = [rg for rg, version in real_rgs() if version.startswith("15.")]
    if real:
        want = run(real[0], tree, *argv)
        assert got == want, f"expected the real rg's {want!r}, got {got!r}"
