"""`\\ No newline at end of file` says that the line before it is the last of its side (old,
new, or both for a context line). A marker followed by another line of the same side
contradicts itself: the diff is refused with a message naming the line, and nothing changes
(as `git apply` refuses it), instead of being applied somewhere the marker suggests."""

from __future__ import annotations

import pytest
from patch_helpers import assert_applies

from codesift import Workspace
from codesift.tools import Toolbox

BEFORE = b"alpha\nbeta\ngamma\ndelta\nalpha\nbeta\n"
HEAD = "--- a/a.txt\n+++ b/a.txt\n"
MARK = "\\ No newline at end of file\n"

REFUSED = {
    "after-a-context-line-then-more-lines": HEAD
    + "@@ -1,2 +1,2 @@\n alpha\n"
    + MARK
    + "-beta\n+B\n",
    "after-a-context-line-mid-hunk": HEAD
    + "@@ -2,3 +2,3 @@\n beta\n"
    + MARK
    + "-gamma\n+G\n delta\n",
    "after-a-removed-line-then-context": HEAD + "@@ -2,2 +2,2 @@\n-beta\n" + MARK + "+B\n gamma\n",
    "after-an-added-line-then-another": HEAD + "@@ -3 +3,2 @@\n-gamma\n+G\n" + MARK + "+H\n",
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_misplaced_marker_is_refused_and_nothing_changes(tmp_path, name):
    (tmp_path / "a.txt").write_bytes(BEFORE)
    result = Toolbox(Workspace(tmp_path)).call("apply_patch", {"patch": REFUSED[name]})
    after = (tmp_path / "a.txt").read_bytes()
    assert result.is_error, f"expected a refusal, got: {result.text}\nfile: {after!r}"
    assert "No newline at end of file" in result.text, result.text
    assert after == BEFORE, f"expected the file unchanged, got {after!r}"


#: (file, diff, result): markers where they belong still work.
APPLIED = {
    "both-sides-end-without-newline": (
        b"a\nb",
        HEAD + "@@ -1,2 +1,2 @@\n a\n-b\n" + MARK + "+B\n" + MARK,
        b"a\nB",
    ),
    "old-side-marker-then-added-lines": (
        b"a\nb",
        HEAD + "@@ -2 +2,2 @@\n-b\n" + MARK + "+b\n+c\n",
        b"a\nb\nc\n",
    ),
    "new-side-marker-on-the-last-added-line": (
        b"a\nb\n",
        HEAD + "@@ -2 +2,2 @@\n-b\n+b\n+c\n" + MARK,
        b"a\nb\nc",
    ),
    "context-line-ends-both-sides": (
        b"a\nb",
        HEAD + "@@ -1,2 +1,3 @@\n a\n+x\n b\n" + MARK,
        b"a\nx\nb",
    ),
}


@pytest.mark.parametrize("name", sorted(APPLIED))
def test_markers_after_the_last_line_of_their_side_apply(tmp_path, name):
    assert_applies(tmp_path, "a.txt", *APPLIED[name])
