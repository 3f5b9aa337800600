"""A unified diff whose lines carry carriage returns was made from the files' bytes (`git
diff`): its hunks without any are LF lines too, and are applied byte for byte as `git apply`
does (zero-context hunks of CRLF and mixed files, a last line without a newline). A diff with
no carriage return at all still takes the file's line endings."""

from __future__ import annotations

import pytest

from codesift import Workspace
from codesift.tools import Toolbox

HEAD = "diff --git a/f.txt b/f.txt\nindex 893223b..c1eb942 100644\n--- a/f.txt\n+++ b/f.txt\n"

#: (file bytes before, `git diff -U0` output, bytes `git apply --unidiff-zero` writes)
CASES = {
    "lines-added-after-an-unterminated-last-line": (
        b"a\r\nb\r\nc\r\nd",
        HEAD
        + "@@ -1 +1 @@\n-a\r\n+A\r\n"
        + "@@ -4 +4,2 @@ c\n-d\n\\ No newline at end of file\n+d\n+e\n",
        b"A\r\nb\r\nc\r\nd\ne\n",
    ),
    "lf-lines-inserted-between-crlf-lines": (
        b"a\r\nb\r\nc\r\nd\r\n",
        HEAD + "@@ -1 +1 @@\n-a\r\n+A\r\n@@ -2,0 +3,2 @@ b\n+x\n+y\n",
        b"A\r\nb\r\nx\ny\nc\r\nd\r\n",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_byte_exact_diff_applies_as_git_apply_does(tmp_path, name):
    before, diff, expected = CASES[name]
    (tmp_path / "f.txt").write_bytes(before)
    result = Toolbox(Workspace(tmp_path)).call("apply_patch", {"patch": diff})
    assert not result.is_error, result.text
    actual = (tmp_path / "f.txt").read_bytes()
    assert actual == expected, f"expected {expected!r}, got {actual!r}"


def test_a_diff_without_carriage_returns_takes_the_files_line_endings(tmp_path):
    (tmp_path / "f.txt").write_bytes(b"a\r\nb\r\nc\r\nd")
    diff = "--- a/f.txt\n+++ b/f.txt\n@@ -4 +4,2 @@\n-d\n\\ No newline at end of file\n+d\n+e\n"
    Workspace(tmp_path).apply_patch(diff)
    actual = (tmp_path / "f.txt").read_bytes()
    assert actual == b"a\r\nb\r\nc\r\nd\r\ne\r\n", f"got {actual!r}"
