"""`codesift apply-patch`: a patch from a file or stdin, in the formats the library applies,
all or nothing; `--dry-run` prints the diff and writes nothing."""

from __future__ import annotations

import subprocess
import sys

from cli_helpers import codesift_run

UNIFIED = """--- a/a.py
+++ b/a.py
@@ -1,2 +1,2 @@
 x = 1
-y = 2
+y = 3
"""
ENVELOPE = """*** Begin Patch
*** Update File: a.py
@@
-y = 2
+y = 4
*** Add File: b.py
+z = 5
*** End Patch
"""


def apply_from_stdin(cwd, patch: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codesift", "apply-patch", *args],
        cwd=cwd,
        input=patch,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_unified_diff_on_stdin_is_applied_and_its_diff_printed(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\ny = 2\n")
    done = apply_from_stdin(tmp_path, UNIFIED)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "a.py").read_text() == "x = 1\ny = 3\n"
    assert done.stdout.startswith("Applied patch (unified)"), done.stdout
    assert "-y = 2\n+y = 3\n" in done.stdout, done.stdout


def test_dry_run_prints_the_diff_and_writes_nothing(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\ny = 2\n")
    (tmp_path / "p.patch").write_text(ENVELOPE)
    done = codesift_run(tmp_path, "apply-patch", "p.patch", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "a.py").read_text() == "x = 1\ny = 2\n", "a dry run wrote a.py"
    assert not (tmp_path / "b.py").exists(), "a dry run created b.py"
    assert "nothing written" in done.stdout and "+y = 4" in done.stdout, done.stdout
    applied = codesift_run(tmp_path, "apply-patch", "p.patch")
    assert applied.returncode == 0, applied.stderr
    assert (tmp_path / "a.py").read_text() == "x = 1\ny = 4\n"
    assert (tmp_path / "b.py").read_text() == "z = 5\n"


def test_search_replace_blocks_take_their_file_from_path(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\ny = 2\n")
    blocks = "<<<<<<< SEARCH\ny = 2\n=======\ny = 6\n>>>>>>> REPLACE\n"
    done = apply_from_stdin(tmp_path, blocks, "--path", "a.py", "--json")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "a.py").read_text() == "x = 1\ny = 6\n"
    assert '"root"' in done.stdout, done.stdout


def test_a_patch_that_does_not_apply_changes_nothing_and_says_why(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\ny = 9\n")
    done = apply_from_stdin(tmp_path, UNIFIED)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert (tmp_path / "a.py").read_text() == "x = 1\ny = 9\n"
    # Why, with the most similar lines as they are in the file (their line breaks kept).
    assert done.stderr.startswith("codesift: "), done.stderr
    assert "not found" in done.stderr and "     2\ty = 9\n" in done.stderr, done.stderr
    missing = codesift_run(tmp_path, "apply-patch", "no-such.patch")
    assert missing.returncode == 2 and "cannot read the patch" in missing.stderr, missing.stderr


def test_search_replace_blocks_without_a_file_ask_for_the_commands_path_flag(tmp_path):
    """The blocks name no file: the error names --path, the flag that gives it, not the
    library's `path=...`."""
    (tmp_path / "a.py").write_text("x = 1\ny = 2\n")
    blocks = "<<<<<<< SEARCH\ny = 2\n=======\ny = 3\n>>>>>>> REPLACE\n"
    for args in ((), ("--format", "search_replace")):
        done = apply_from_stdin(tmp_path, blocks, *args)
        assert done.returncode == 2, done.stderr
        expected = "codesift: SEARCH/REPLACE blocks edit one file: pass its path (--path FILE)\n"
        assert done.stderr == expected, f"{args}: expected {expected!r}, got {done.stderr!r}"
    applied = apply_from_stdin(tmp_path, blocks, "--path", "a.py")
    assert applied.returncode == 0, applied.stderr
    assert (tmp_path / "a.py").read_text() == "x = 1\ny = 3\n"
