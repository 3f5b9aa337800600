"""`git diff` output of a small generated history, replayed through codesift's unified-diff
path, gives the same bytes as `git apply`: CRLF files, a file ending in a lone carriage
return, files without a final newline, line-ending conversions, adds, deletes and renames."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from codesift import Workspace

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

#: Each step: path -> new bytes (None deletes); ("rename", old, new) entries move a file.
HISTORY: list[dict[str, bytes | None]] = [
    {
        "lf.txt": b"one\ntwo\nthree\nfour\nfive\nsix\nseven\n",
        "crlf.txt": b"alpha\r\nbeta\r\ngamma\r\ndelta\r\nepsilon\r\n",
        "lone_cr.txt": b"first\nsecond\nthird\r",
        "no_eol.txt": b"a\nb\nc",
        "mixed.txt": b"x\r\ny\nz\r\n",
        "gone.txt": b"to be deleted\n",
        "rename_me.py": b"def f():\n    return 1\n\n\ndef g():\n    return 2\n",
        "empty.txt": b"",
    },
    {
        "lf.txt": b"one\ntwo\nTHREE\nfour\nfive\nsix\nseven\n",
        "crlf.txt": b"alpha\r\nbeta\r\nGAMMA\r\ndelta\r\nepsilon\r\n",
        "lone_cr.txt": b"first\nsecond\nthird changed\r",
        "no_eol.txt": b"a\nb\nc\nd",
        "mixed.txt": b"x\r\ny changed\nz\r\n",
        "gone.txt": None,
        "new_crlf.txt": b"n1\r\nn2\r\n",
        "new_no_eol.txt": b"only line",
        "new_lone_cr.txt": b"cr at end\r",
        "empty.txt": b"now\r\nfilled\r\n",
    },
    {
        "lf.txt": b"one\r\ntwo\r\nTHREE\r\nfour\r\nfive\r\nsix\r\nseven\r\n",
        "crlf.txt": b"alpha\nbeta\nGAMMA\ndelta\nepsilon\n",
        "lone_cr.txt": b"first\nsecond\nthird changed\r\n",
        "no_eol.txt": b"a\nb\nc\nd\n",
        "new_no_eol.txt": b"only line\r",
        "rename_me.py": None,
        "renamed.py": b"def f():\n    return 1\n\n\ndef g():\n    return 2\n",
        "new_lone_cr.txt": b"cr at end\r\r",
    },
    {
        "renamed.py": b"def f():\n    return 10\n\n\ndef g():\n    return 2\n",
        "lone_cr.txt": b"first\nsecond\rthird changed",
        "mixed.txt": b"x\r\ny changed\r\nz\n",
        "crlf.txt": b"alpha\nbeta\nGAMMA\ndelta\nepsilon",
        "new_crlf.txt": b"n1\r\nn2\r\nn3\r",
        "empty.txt": b"",
    },
]


def git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    done = subprocess.run(
        ["git", "-c", "core.autocrlf=false", *args],
        cwd=cwd,
        env=env,
        check=True,
        capture_output=True,
    )
    return done.stdout.decode("utf-8", "surrogateescape")


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


@pytest.fixture
def history(tmp_path: Path) -> tuple[Path, list[str]]:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    commits = []
    for step in HISTORY:
        for rel, data in step.items():
            if data is None:
                (repo / rel).unlink()
            else:
                (repo / rel).write_bytes(data)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "--allow-empty", "-m", "step")
        commits.append(git(repo, "rev-parse", "HEAD").strip())
    return repo, commits


def checkout(repo: Path, commit: str, into: Path) -> None:
    into.mkdir()
    archive = subprocess.run(
        ["git", "archive", "--format=tar", commit], cwd=repo, check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)


@pytest.mark.parametrize("step", range(1, len(HISTORY)))
@pytest.mark.parametrize("renames", [True, False], ids=["renames", "no-renames"])
def test_codesift_applies_git_diff_output_as_git_apply_does(history, tmp_path, step, renames):
    repo, commits = history
    diff = git(repo, "diff", "-M" if renames else "--no-renames", commits[step - 1], commits[step])
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    checkout(repo, commits[step - 1], ours)
    checkout(repo, commits[step - 1], theirs)
    (tmp_path / "p.diff").write_bytes(diff.encode("utf-8", "surrogateescape"))
    git(theirs, "apply", "--whitespace=nowarn", str(tmp_path / "p.diff"))
    Workspace(ours).apply_patch(diff, format="unified")
    expected, actual = snapshot(theirs), snapshot(ours)
    for rel in sorted(expected.keys() | actual.keys()):
        assert actual.get(rel) == expected.get(rel), (
            f"{rel}: git apply wrote {expected.get(rel)!r}, codesift {actual.get(rel)!r}\n{diff}"
        )


def test_a_file_ending_in_a_lone_carriage_return_keeps_it(tree):
    root = tree({"a.txt": b"first\nsecond\r"})
    diff = (
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n first\n-second\r\n"
        "\\ No newline at end of file\n+SECOND\r\n\\ No newline at end of file\n"
    )
    Workspace(root).apply_patch(diff)
    assert (root / "a.txt").read_bytes() == b"first\nSECOND\r"


def test_a_diff_sent_with_crlf_line_endings_still_applies_to_an_lf_file(tree):
    root = tree({"a.txt": b"one\ntwo\nthree\n"})
    diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
    Workspace(root).apply_patch(diff.replace("\n", "\r\n"))
    assert (root / "a.txt").read_bytes() == b"one\nTWO\nthree\n"


def test_a_diff_without_carriage_returns_still_applies_to_a_crlf_file(tree):
    root = tree({"a.txt": b"one\r\ntwo\r\nthree\r\n"})
    diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
    Workspace(root).apply_patch(diff)
    assert (root / "a.txt").read_bytes() == b"one\r\nTWO\r\nthree\r\n"
