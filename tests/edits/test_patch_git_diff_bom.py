"""`git diff` of a file that starts with a UTF-8 byte-order mark shows the mark at the start of
the first line; codesift applies such a diff as `git apply` does (the mark kept, removed or
added as the diff says), through the Workspace and the agents' patch tools, and refuses one
whose first lines are not the file's first lines, changing nothing."""

from __future__ import annotations

import pytest
from patch_helpers import assert_applies

from codesift import Workspace
from codesift.tools import Toolbox

BOM = b"\xef\xbb\xbf"

#: (file bytes before, diff, bytes `git apply` writes)
CASES = {
    "first-line-changed-crlf": (
        BOM + b"one\r\ntwo\r\nthree\r\n",
        "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n-\ufeffone\r\n+\ufeffONE\r\n two\r\n three\r\n",
        BOM + b"ONE\r\ntwo\r\nthree\r\n",
    ),
    "mark-removed": (
        BOM + b"one\ntwo\n",
        "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n-\ufeffone\n+one\n two\n",
        b"one\ntwo\n",
    ),
    "mark-added": (
        b"one\ntwo\n",
        "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n-one\n+\ufeffone\n two\n",
        BOM + b"one\ntwo\n",
    ),
    "line-inserted-before-the-first": (
        BOM + b"one\ntwo\nthree\n",
        "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,4 @@\n-\ufeffone\n+\ufeffzero\n+one\n two\n three\n",
        BOM + b"zero\none\ntwo\nthree\n",
    ),
    "two-hunks-no-final-newline": (
        BOM + b"a\nb\nc\nd\ne\nf\ng\nh\ni\nj",
        "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n-\ufeffa\n+\ufeffA\n b\n"
        "@@ -9,2 +9,2 @@\n i\n-j\n\\ No newline at end of file\n+J\n\\ No newline at end of file\n",
        BOM + b"A\nb\nc\nd\ne\nf\ng\nh\ni\nJ",
    ),
    "file-of-the-mark-alone": (
        BOM,
        "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1,2 @@\n-\ufeff\n\\ No newline at end of file\n"
        "+\ufeffone\n+two\n\\ No newline at end of file\n",
        BOM + b"one\ntwo",
    ),
    "file-of-the-mark-alone-crlf-lines": (
        BOM,
        "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1,2 @@\n-\ufeff\n\\ No newline at end of file\n"
        "+\ufeffone\r\n+two\r\n",
        BOM + b"one\r\ntwo\r\n",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_git_diff_with_the_byte_order_mark_applies_as_git_does(tmp_path, name):
    assert_applies(tmp_path, "f.txt", *CASES[name])


@pytest.mark.parametrize("profile", ["codesift", "codex", "opencode"])
def test_the_agents_patch_tools_apply_it_too(tmp_path, profile):
    before, diff, expected = CASES["first-line-changed-crlf"]
    (tmp_path / "f.txt").write_bytes(before)
    key = {"codesift": "patch", "codex": "input", "opencode": "patchText"}[profile]
    args = {key: diff}
    result = Toolbox(Workspace(tmp_path), profile=profile).call("apply_patch", args)
    actual = (tmp_path / "f.txt").read_bytes()
    if profile == "codesift":
        assert not result.is_error, result.text
        assert actual == expected, f"expected {expected!r}, got {actual!r}"
    else:
        # These tools take apply_patch envelopes only: a unified diff is a clear refusal.
        assert result.is_error == (actual == before), (result.text, actual)


def test_a_marked_line_that_is_not_the_files_first_line_is_refused(tmp_path):
    before = BOM + b"header\none\ntwo\n"
    (tmp_path / "f.txt").write_bytes(before)
    diff = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n-\ufeffone\n+one\n two\n"
    result = Toolbox(Workspace(tmp_path)).call("apply_patch", {"patch": diff})
    assert result.is_error, result.text
    assert "re-read the file" in result.text.lower(), result.text
    actual = (tmp_path / "f.txt").read_bytes()
    assert actual == before, f"expected the file unchanged ({before!r}), got {actual!r}"
