"""A command started with its standard output (or, for the commands that read it, its
standard input) closed says so in one line and exits 2: it is the caller's mistake, not a bug
to report."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from mcp_helpers import server_env


def run_closed(cwd: Path, closed: str, *args: str, stdin: bytes = b"") -> tuple[int, str, str]:
    """`codesift ARGS` in `cwd` with the file descriptor `closed` (`0` or `1`) closed, as the
    shell's `<&-` or `>&-` does. Stdout is captured unless it is the one closed."""
    redirect = {"0": "<&-", "1": ">&-"}[closed]
    proc = subprocess.run(
        ["/bin/sh", "-c", f'exec "$@" {redirect}', "sh", sys.executable, "-m", "codesift", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        env=server_env(),
        timeout=120,
        check=False,
    )
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.py").write_text("alpha = 1\n")
    return tmp_path


@pytest.mark.parametrize(
    "args",
    [("grep", "alpha"), ("glob", "*.py"), ("ls",), ("read", "a.py"), ("index", "status")],
)
def test_closed_stdout_is_a_one_line_error_not_a_bug(repo: Path, args: tuple[str, ...]) -> None:
    code, _, err = run_closed(repo, "1", *args)
    assert code == 2, f"expected exit 2, got {code}: {err!r}"
    assert len(err.strip().splitlines()) == 1, f"expected one line on stderr, got {err!r}"
    assert "standard output is closed" in err, f"expected the closed stdout named, got {err!r}"
    assert "unexpected" not in err and "report it" not in err, f"not a bug, got {err!r}"


def test_apply_hit_with_stdin_closed_says_it_reads_stdin(repo: Path) -> None:
    code, out, err = run_closed(repo, "0", "apply-hit")
    assert code == 2, f"expected exit 2, got {code}: {out!r} {err!r}"
    error = json.loads(out)["error"]
    assert "standard input is closed" in error["message"], f"got {error!r}"
    assert error["type"] != "InternalError", f"not a bug, got {error!r}"


def test_mcp_over_stdio_with_stdin_closed_says_so(repo: Path) -> None:
    code, _, err = run_closed(repo, "0", "mcp", "--root", str(repo))
    assert code == 2, f"expected exit 2, got {code}: {err!r}"
    assert len(err.strip().splitlines()) == 1, f"expected one line on stderr, got {err!r}"
    assert "standard input is closed" in err, f"expected the closed stdin named, got {err!r}"
    assert "--http" in err, f"expected the HTTP transport suggested, got {err!r}"
