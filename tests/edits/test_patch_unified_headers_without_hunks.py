"""A unified diff that adds or deletes a file says what the file holds: `--- /dev/null` /
`+++ b/P` headers with no hunk (a diff cut short after its headers) create no empty file, and
a deletion without the file's lines (plain headers, or git's header-only `deleted file mode`)
deletes only an empty file, as `git apply` does; otherwise the diff is refused and nothing
changes."""

from __future__ import annotations

import pytest

from codesift import Workspace
from codesift.tools import Toolbox

REFUSED = {
    "added-file-headers-only": "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n"
    "--- /dev/null\n+++ b/new.t",
    "deleted-file-headers-only": "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n"
    "--- a/full.txt\n+++ /dev/null\n",
    "git-header-only-deletion-of-a-file-with-lines": "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n"
    "-a\n+A\ndiff --git a/full.txt b/full.txt\ndeleted file mode 100644\nindex e69de29..0000000\n",
}


def tree(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"a\n")
    (tmp_path / "full.txt").write_bytes(b"keep\nme\n")
    (tmp_path / "empty.txt").write_bytes(b"")
    return {p.name: p.read_bytes() for p in tmp_path.iterdir()}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_diff_that_does_not_say_what_the_file_holds_is_refused(tmp_path, name):
    before = tree(tmp_path)
    result = Toolbox(Workspace(tmp_path)).call("apply_patch", {"patch": REFUSED[name]})
    after = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert result.is_error, f"expected a refusal, got: {result.text}"
    assert "Traceback" not in result.text, result.text
    assert after == before, f"expected nothing changed: before {before}, after {after}"


def test_git_header_only_diffs_of_empty_files_still_apply(tmp_path):
    tree(tmp_path)
    diff = (
        "diff --git a/empty.txt b/empty.txt\ndeleted file mode 100644\nindex e69de29..0000000\n"
        "diff --git a/made.txt b/made.txt\nnew file mode 100644\nindex 0000000..e69de29\n"
    )
    Workspace(tmp_path).apply_patch(diff)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["a.txt", "full.txt", "made.txt"], names
    assert (tmp_path / "made.txt").read_bytes() == b""
