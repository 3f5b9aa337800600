"""codesift-rg, the fallback forbidden, reports a bad flag value (not a number, not UTF-8, no
value, an unknown choice, a bad size or encoding) in ripgrep 15.2.0's words and exits 2, and
refuses the flags ripgrep itself does not know (`--colour`). The expected lines are what the
real rg prints; when a ripgrep 15 is on this machine the test asks it too."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from rg_helpers import BIN, NEEDS_CODESIFT_RG, real_rgs, run_rg

pytestmark = NEEDS_CODESIFT_RG

SIZE = (
    "which should be a non-empty sequence of digits followed by an optional 'K', 'M' or 'G' suffix"
)
DIGIT = "value is not a valid number: invalid digit found in string"
UTF8 = "value is not valid UTF-8"
ENCODING = "grep config error: unknown encoding: zz"


def bad(flag: str, why: str) -> str:
    return f"rg: error parsing flag {flag}: {why}"


def missing(flag: str) -> str:
    return f"rg: missing value for flag {flag}: missing argument for option '{flag}'"


CASES = [
    (["-m", "x", "a"], bad("-m", DIGIT)),
    (["--max-count=2.5", "a"], bad("--max-count", DIGIT)),
    (
        ["-j", "99999999999999999999", "a"],
        bad("-j", "value is not a valid number: number too large to fit in target type"),
    ),
    (["-C", "-1", "a"], bad("-C", DIGIT)),
    (["-A"], missing("-A")),
    (["--context-separator"], missing("--context-separator")),
    (["-e", "\udcff"], bad("-e", UTF8)),
    (["--sort", "\udcff", "a"], bad("--sort", UTF8)),
    (["--color", "x", "a"], bad("--color", "choice 'x' is unrecognized")),
    (["--sort", "bogus", "a"], bad("--sort", "choice 'bogus' is unrecognized")),
    (["--sortr=x", "a"], bad("--sortr", "choice 'x' is unrecognized")),
    (["--engine", "x", "a"], bad("--engine", "unrecognized regex engine 'x'")),
    (["-E", "zz", "a"], bad("-E", ENCODING)),
    (["--encoding", "zz", "a"], bad("--encoding", ENCODING)),
    (
        ["--max-filesize", "1Q", "a"],
        bad("--max-filesize", f"invalid size: invalid format for size '1Q', {SIZE}"),
    ),
    (
        ["--max-filesize", "+5", "a"],
        bad("--max-filesize", f"invalid size: invalid format for size '+5', {SIZE}"),
    ),
    (
        ["--max-filesize", "99999999999G", "a"],
        bad("--max-filesize", "invalid size: size too big in '99999999999G'"),
    ),
    (
        ["--dfa-size-limit=", "a"],
        bad("--dfa-size-limit", f"invalid size: invalid format for size '', {SIZE}"),
    ),
]


def run(binary: Path, cwd: Path, args: list[str], **env: str) -> subprocess.CompletedProcess[bytes]:
    return run_rg(binary, cwd, args, CODESIFT_RG_INDEX="never", **env)


@pytest.mark.parametrize(("args", "expected"), CASES)
def test_bad_flag_values_are_reported_as_ripgrep_reports_them(
    tmp_path: Path, args: list[str], expected: str
) -> None:
    (tmp_path / "a").write_text("a\n")
    got = run(BIN, tmp_path, args, CODESIFT_RG_FALLBACK="never")
    err = got.stderr.decode("utf-8", "replace")
    assert (got.returncode, err) == (2, expected + "\n"), (
        f"expected exit 2 and {expected!r}, got {got.returncode} and {err!r}"
    )
    real = [rg for rg, version in real_rgs() if version.startswith("15.")]
    if real:
        want = run(real[0], tmp_path, args)
        assert (got.returncode, got.stderr) == (want.returncode, want.stderr), (
            f"expected the real rg's {want.returncode} {want.stderr!r}, got "
            f"{got.returncode} {got.stderr!r}"
        )


def test_colour_is_not_a_flag_of_ripgrep(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("a\n")
    got = run(BIN, tmp_path, ["--colour", "never", "a"], CODESIFT_RG_FALLBACK="never")
    err = got.stderr.decode()
    assert (got.returncode, err) == (2, "codesift-rg: --colour is not supported\n"), (
        f"expected the refusal, got {got.returncode} {err!r} (stdout {got.stdout!r})"
    )
