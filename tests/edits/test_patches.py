"""Every edit format through one engine: apply_patch envelopes, unified diffs, SEARCH/REPLACE
blocks, sequential multi-edits, str_replace, insert, undo — with the examples the agents' own
docs and tests use, and the guarantees (all or nothing, unique matches, byte-faithful)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from codesift import (
    CodesiftError,
    ConflictError,
    InvalidArgumentError,
    MatchError,
    NotFoundError,
    SandboxError,
    Workspace,
)
from codesift.edits.history import EditHistory
from codesift.errors import PatchFormatError
from codesift.patches import detect_format, parse_patch

Tree = Callable[[dict[str, Any]], Path]
NO_NL = "\\ No newline at end of file\n"


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def assert_unchanged(root: Path, before: dict[str, bytes]) -> None:
    after = snapshot(root)
    assert after == before, f"files changed:\nexpected {before}\nactual   {after}"


# -- apply_patch (Codex / opencode) --------------------------------------------------------

CODEX_PROGRESS_PATCH = """\
*** Begin Patch
*** Add File: docs/release-notes.md
+# Release notes
+
+## CLI
+- Surface apply_patch progress while arguments stream.
*** Update File: src/config.rs
@@ impl Config
-    pub apply_patch_progress: bool,
+    pub stream_apply_patch_progress: bool,
     pub include_diagnostics: bool,
@@ fn default_progress_interval()
-    Duration::from_millis(500)
+    Duration::from_millis(250)
*** Delete File: src/legacy_patch_progress.rs
*** Update File: crates/cli/src/main.rs
*** Move to: crates/cli/src/bin/codex.rs
@@ fn run()
-    let args = Args::parse();
-    dispatch(args)
+    let cli = Cli::parse();
+    dispatch(cli)
*** Update File: README.md
@@ Development workflow
 Build the Rust workspace before opening a pull request.
+When touching streamed tool calls, include parser coverage for partial input.
*** End Patch"""

CONFIG_RS = """\
pub struct Config {
    pub apply_patch_progress: bool,
    pub include_diagnostics: bool,
}

impl Config {
    pub apply_patch_progress: bool,
    pub include_diagnostics: bool,
}

fn default_progress_interval() -> Duration {
    Duration::from_millis(500)
}
"""


def test_the_codex_multi_file_example_applies_every_operation(tree: Tree) -> None:
    root = tree(
        {
            "src/config.rs": CONFIG_RS,
            "src/legacy_patch_progress.rs": "// old\n",
            "crates/cli/src/main.rs": "fn run() {\n    let args = Args::parse();\n"
            "    dispatch(args)\n}\n",
            "README.md": "# Project\n\n## Development workflow\n\n"
            "Build the Rust workspace before opening a pull request.\n",
        }
    )
    result = Workspace(root).apply_patch(CODEX_PROGRESS_PATCH)
    assert [(f.action, f.path, f.new_path) for f in result.files] == [
        ("add", "docs/release-notes.md", None),
        ("update", "src/config.rs", None),
        ("delete", "src/legacy_patch_progress.rs", None),
        ("move", "crates/cli/src/main.rs", "crates/cli/src/bin/codex.rs"),
        ("update", "README.md", None),
    ]
    assert (root / "docs/release-notes.md").read_text() == (
        "# Release notes\n\n## CLI\n- Surface apply_patch progress while arguments stream.\n"
    )
    # The anchor picks the second block (the first has the same two lines).
    assert (root / "src/config.rs").read_text() == CONFIG_RS.replace(
        "impl Config {\n    pub apply_patch_progress",
        "impl Config {\n    pub stream_apply_patch_progress",
    ).replace("500", "250")
    assert not (root / "src/legacy_patch_progress.rs").exists()
    assert not (root / "crates/cli/src/main.rs").exists()
    assert (root / "crates/cli/src/bin/codex.rs").read_text() == (
        "fn run() {\n    let cli = Cli::parse();\n    dispatch(cli)\n}\n"
    )
    readme = (root / "README.md").read_text()
    assert readme.endswith(
        "request.\nWhen touching streamed tool calls, include parser coverage for partial input.\n"
    )
    assert "A docs/release-notes.md" in result.summary
    assert "R crates/cli/src/main.rs -> crates/cli/src/bin/codex.rs" in result.summary


def test_codex_interleaved_chunks_and_end_of_file(tree: Tree) -> None:
    # codex-rs/apply-patch tests: test_update_file_hunk_interleaved_changes
    root = tree({"interleaved.txt": "a\nb\nc\nd\ne\nf\n"})
    patch = (
        "*** Begin Patch\n*** Update File: interleaved.txt\n@@\n a\n-b\n+B\n@@\n c\n d\n-e\n+E\n"
        "@@\n f\n+g\n*** End of File\n*** End Patch"
    )
    Workspace(root).apply_patch(patch)
    assert (root / "interleaved.txt").read_text() == "a\nB\nc\nd\nE\nf\ng\n"


def test_an_end_of_file_hunk_matching_only_elsewhere_says_so(tree: Tree) -> None:
    root = tree({"f.txt": "a\nb\na\nb\nc\n"})
    before = snapshot(root)
    patch = (
        "*** Begin Patch\n*** Update File: f.txt\n@@\n a\n-b\n+B\n*** End of File\n*** End Patch"
    )
    with pytest.raises(MatchError) as caught:
        Workspace(root).apply_patch(patch)
    expected = "match 2 places, starting at lines 1, 3, none of them at the end of the file"
    assert expected in str(caught.value), f"expected {expected!r} in {caught.value}"
    assert_unchanged(root, before)


def test_codex_parser_grammar_details() -> None:
    parsed = parse_patch(
        "<<'EOF'\n*** Begin Patch\n*** Update File: file2.py\n import foo\n+bar\n"
        "*** Add File: x.txt\n+one\n*** End Patch\nEOF"
    )
    update, add = parsed.ops
    assert parsed.format == "apply_patch"
    assert update.hunks[0].old_lines == ("import foo",)
    assert update.hunks[0].new_lines == ("import foo", "bar")
    assert add.content == "one\n"
    stacked = parse_patch(
        "*** Begin Patch\n*** Update File: a.py\n@@ class A\n@@     def f(self):\n-x\n+y\n"
        "*** End Patch"
    )
    assert stacked.ops[0].hunks[0].anchors == ("class A", "def f(self):")
    with pytest.raises(PatchFormatError, match="End Patch"):
        parse_patch("*** Begin Patch\n*** Add File: a\n+x\n")
    with pytest.raises(PatchFormatError, match="not a file section header"):
        parse_patch("*** Begin Patch\n*** Frobnicate: a\n*** End Patch")
    with pytest.raises(PatchFormatError, match="has no hunks"):
        parse_patch("*** Begin Patch\n*** Update File: test.py\n*** End Patch")


def test_anchors_disambiguate_and_a_wrong_anchor_is_refused(tree: Tree) -> None:
    code = (
        "class A:\n    def f(self):\n        return 1\n\n"
        "class B:\n    def f(self):\n        return 1\n"
    )
    root = tree({"m.py": code})
    ws = Workspace(root)
    ws.apply_patch(
        "*** Begin Patch\n*** Update File: m.py\n@@ class B:\n     def f(self):\n"
        "-        return 1\n+        return 2\n*** End Patch"
    )
    assert (root / "m.py").read_text() == code[: code.rindex("1")] + "2\n"
    before = snapshot(root)
    with pytest.raises(MatchError, match="occurs again at line"):
        ws.apply_patch(
            "*** Begin Patch\n*** Update File: m.py\n@@ def f(self):\n-        return 2\n"
            "+        return 3\n*** End Patch"
        )
    assert_unchanged(root, before)


def test_an_ambiguous_hunk_lists_every_candidate_and_writes_nothing(tree: Tree) -> None:
    root = tree({"a.txt": "one\n", "b.txt": "x = 1\ny\nx = 1\ny\nx = 1\ny\n"})
    before = snapshot(root)
    patch = (
        "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n"
        "*** Update File: b.txt\n@@\n-x = 1\n+x = 2\n y\n*** End Patch"
    )
    with pytest.raises(MatchError) as caught:
        Workspace(root).apply_patch(patch)
    message = str(caught.value)
    assert "Update File: b.txt" in message and "hunk 1" in message
    assert "match 3 places" in message and "lines 1, 3, 5" in message
    assert_unchanged(root, before)


@pytest.mark.parametrize(
    ("patch", "path", "expected"),
    [
        (
            "--- a/gone.txt\n+++ b/gone.txt\n@@ -1 +1 @@\n-x\n+y\n",
            None,
            "gone.txt does not exist; check the path",
        ),
        (
            "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+y\n",
            None,
            "a.txt already exists; use a diff of it to change it, or delete it first",
        ),
        (
            "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-nope\n+y\n",
            None,
            "hunk 1 (patch line 3) of a.txt: its context and removed lines were not found",
        ),
        (
            "<<<<<<< SEARCH\nnope\n=======\ny\n>>>>>>> REPLACE\n",
            "a.txt",
            "block 1 (line 1) of a.txt: the SEARCH section was not found",
        ),
    ],
)
def test_a_diff_or_blocks_error_speaks_its_formats_words(
    tree: Tree, patch: str, path: str | None, expected: str
) -> None:
    root = tree({"a.txt": "one\n"})
    with pytest.raises(CodesiftError) as caught:
        Workspace(root).apply_patch(patch, path=path)
    message = str(caught.value)
    print("message:", message)
    assert message.startswith(expected), f"expected {expected!r} first, got {message!r}"
    assert "File" not in message, f"an apply_patch envelope's header in {message!r}"


def test_a_missing_context_shows_the_nearest_lines(tree: Tree) -> None:
    root = tree({"s.py": "".join(f"line {i}\n" for i in range(1, 60))})
    before = snapshot(root)
    with pytest.raises(MatchError) as caught:
        Workspace(root).apply_patch(
            "*** Begin Patch\n*** Update File: s.py\n@@\n line 40\n-line 41 changed\n+new\n"
            " line 42\n*** End Patch"
        )
    message = str(caught.value)
    assert "not found" in message and "Re-read the file" in message
    assert "    41\tline 41" in message
    assert_unchanged(root, before)


def test_fuzzy_hunks_are_reindented_like_edit_many(tree: Tree) -> None:
    code = "def f():\n\tif x:\n\t\treturn 1\n\treturn 2\n"
    root = tree({"t.py": code})
    result = Workspace(root).apply_patch(
        "*** Begin Patch\n*** Update File: t.py\n@@\n if x:\n-    return 1\n+    y = 1\n"
        "+    return y\n*** End Patch"
    )
    assert (root / "t.py").read_text() == "def f():\n\tif x:\n\t\ty = 1\n\t\treturn y\n\treturn 2\n"
    assert result.files[0].strategy == "trimmed"
    assert "[matched: trimmed]" in result.summary


def test_trailing_whitespace_and_typographic_punctuation_levels(tree: Tree) -> None:
    root = tree({"a.txt": "keep   \nsay \u201chi\u201d \u2014 ok\n"})
    ws = Workspace(root)
    first = ws.apply_patch(
        "*** Begin Patch\n*** Update File: a.txt\n@@\n-keep\n+kept\n*** End Patch"
    )
    assert first.files[0].strategy == "trailing_whitespace"
    second = ws.apply_patch(
        '*** Begin Patch\n*** Update File: a.txt\n@@\n-say "hi" - ok\n+said\n*** End Patch'
    )
    assert second.files[0].strategy == "punctuation"
    assert (root / "a.txt").read_text() == "kept\nsaid\n"


def test_add_delete_and_move_refuse_what_is_in_the_way(tree: Tree) -> None:
    root = tree({"a.txt": "a\n", "b.txt": "b\n"})
    ws = Workspace(root)
    before = snapshot(root)
    with pytest.raises(ConflictError, match="already exists"):
        ws.apply_patch("*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch")
    with pytest.raises(NotFoundError, match="does not exist"):
        ws.apply_patch("*** Begin Patch\n*** Delete File: nope.txt\n*** End Patch")
    with pytest.raises(ConflictError, match="destination b.txt already exists"):
        ws.apply_patch(
            "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-a\n+A\n*** End Patch"
        )
    with pytest.raises(InvalidArgumentError, match="one section only"):
        ws.apply_patch(
            "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Delete File: a.txt\n"
            "*** End Patch"
        )
    assert_unchanged(root, before)


@pytest.mark.parametrize(
    "patch",
    [
        "*** Begin Patch\n*** Add File: ../escape.txt\n+x\n*** End Patch",
        "*** Begin Patch\n*** Add File: /etc/codesift-escape\n+x\n*** End Patch",
        "*** Begin Patch\n*** Update File: a.txt\n*** Move to: ../moved.txt\n@@\n-a\n+A\n"
        "*** End Patch",
        "*** Begin Patch\n*** Delete File: ../outside.txt\n*** End Patch",
        "--- a/a.txt\n+++ b/../b.txt\n@@ -1 +1 @@\n-a\n+A\n",
    ],
)
def test_paths_outside_the_root_are_refused(tree: Tree, patch: str) -> None:
    root = tree({"ws/a.txt": "a\n", "outside.txt": "keep\n"}) / "ws"
    before = snapshot(root.parent)
    with pytest.raises(SandboxError):
        Workspace(root).apply_patch(patch)
    assert_unchanged(root.parent, before)


def test_a_patch_cannot_write_access_ignore_files_or_git(tree: Tree) -> None:
    root = tree({".clineignore": "secret/\n", "a.txt": "a\n", ".git/config": "x\n"})
    before = snapshot(root)
    for patch in (
        "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Add File: secret/x\n+x\n"
        "*** End Patch",
        "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Add File: .git/hooks/x\n+x\n"
        "*** End Patch",
        "*** Begin Patch\n*** Delete File: .clineignore\n*** End Patch",
    ):
        with pytest.raises(SandboxError):
            Workspace(root).apply_patch(patch)
    assert_unchanged(root, before)


def test_crlf_files_keep_crlf_and_missing_final_newlines_stay_missing(tree: Tree) -> None:
    root = tree({"w.txt": b"one\r\ntwo\r\nthree\r\n", "n.txt": b"a\nb"})
    Workspace(root).apply_patch(
        "*** Begin Patch\n*** Update File: w.txt\n@@\n one\n-two\n+2\n+2b\n"
        "*** Update File: n.txt\n@@\n a\n-b\n+B\n+C\n*** End Patch"
    )
    assert (root / "w.txt").read_bytes() == b"one\r\n2\r\n2b\r\nthree\r\n"
    assert (root / "n.txt").read_bytes() == b"a\nB\nC"


def test_bytes_outside_the_hunks_are_untouched(tree: Tree) -> None:
    data = b"caf\xe9 latin-1\nchange me\nmixed\r\nend\n"
    root = tree({"l.txt": data})
    Workspace(root).apply_patch(
        "*** Begin Patch\n*** Update File: l.txt\n@@\n-change me\n+changed\n*** End Patch"
    )
    assert (root / "l.txt").read_bytes() == data.replace(b"change me", b"changed")


def test_dry_run_writes_nothing_and_returns_the_diff(tree: Tree) -> None:
    root = tree({"a.txt": "a\nb\n", "gone.txt": "x\n"})
    before = snapshot(root)
    result = Workspace(root).apply_patch(
        "*** Begin Patch\n*** Update File: a.txt\n@@\n a\n-b\n+B\n*** Delete File: gone.txt\n"
        "*** Add File: new.txt\n+n\n*** End Patch",
        dry_run=True,
    )
    assert_unchanged(root, before)
    assert result.dry_run and "nothing written" in result.summary
    assert "-b\n+B\n" in result.diff and "+++ /dev/null" in result.diff
    assert "--- /dev/null\n+++ b/new.txt" in result.diff
    assert result.to_dict()["files"][0]["action"] == "update"


# -- unified diffs ----------------------------------------------------------------------------

GIT_DIFF = """\
diff --git a/src/app.py b/src/app.py
index 3b18e51..a9c2d1f 100644
--- a/src/app.py
+++ b/src/app.py
@@ -1,4 +1,4 @@
 import os
-print("hello")
+print("hello, world")
 x = 1
 y = 2
diff --git a/docs/new.md b/docs/new.md
new file mode 100644
index 0000000..e69de29
--- /dev/null
+++ b/docs/new.md
@@ -0,0 +1,2 @@
+# New
+text
diff --git a/old.txt b/old.txt
deleted file mode 100644
index 1111111..0000000
--- a/old.txt
+++ /dev/null
@@ -1,2 +0,0 @@
-old
-lines
diff --git a/a.txt b/b.txt
similarity index 100%
rename from a.txt
rename to b.txt
"""


def test_a_git_diff_with_add_delete_and_rename(tree: Tree) -> None:
    root = tree(
        {
            "src/app.py": 'import os\nprint("hello")\nx = 1\ny = 2\n',
            "old.txt": "old\nlines\n",
            "a.txt": "moved as is\n",
        }
    )
    assert detect_format(GIT_DIFF) == "unified"
    result = Workspace(root).apply_patch(GIT_DIFF)
    assert [(f.action, f.path) for f in result.files] == [
        ("update", "src/app.py"),
        ("add", "docs/new.md"),
        ("delete", "old.txt"),
        ("move", "a.txt"),
    ]
    assert (root / "src/app.py").read_text() == 'import os\nprint("hello, world")\nx = 1\ny = 2\n'
    assert (root / "docs/new.md").read_text() == "# New\ntext\n"
    assert not (root / "old.txt").exists() and not (root / "a.txt").exists()
    assert (root / "b.txt").read_text() == "moved as is\n"


def test_header_only_git_diffs_are_recognised_as_unified(tree: Tree) -> None:
    # What `git diff` prints for a pure rename and for deleting an empty file: no ---/+++.
    root = tree({"old.txt": "same\n", "empty.txt": ""})
    diff = (
        "diff --git a/old.txt b/new.txt\nsimilarity index 100%\nrename from old.txt\n"
        "rename to new.txt\ndiff --git a/empty.txt b/empty.txt\ndeleted file mode 100644\n"
    )
    assert detect_format(diff) == "unified"
    Workspace(root).apply_patch(diff)
    assert snapshot(root) == {"new.txt": b"same\n"}, f"actual {snapshot(root)}"


def test_unified_line_numbers_pick_among_identical_places(tree: Tree) -> None:
    text = "".join(f"{'x' if i % 10 == 5 else i}\n" for i in range(1, 31))
    root = tree({"r.txt": text})
    diff = "--- a/r.txt\n+++ b/r.txt\n@@ -15,1 +15,1 @@\n-x\n+X\n"
    Workspace(root).apply_patch(diff)
    lines = (root / "r.txt").read_text().split("\n")
    assert lines[4] == "x" and lines[14] == "X" and lines[24] == "x"


def test_unified_no_newline_markers_add_and_remove_the_final_newline(tree: Tree) -> None:
    root = tree({"a.txt": "a\nb", "c.txt": "c\nd\n"})
    ws = Workspace(root)
    ws.apply_patch(
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"
    )
    assert (root / "a.txt").read_bytes() == b"a\nb\n"
    ws.apply_patch(
        "--- a/c.txt\n+++ b/c.txt\n@@ -1,2 +1,2 @@\n c\n-d\n+d\n\\ No newline at end of file\n"
    )
    assert (root / "c.txt").read_bytes() == b"c\nd"


def test_an_empty_last_line_without_newline_keeps_the_final_newline(tree: Tree) -> None:
    # Found by the property test: an empty last context line marked "\ No newline at end of
    # file" is no line at all; the file ends right after the line before, which keeps its "\n".
    root = tree({"d1/f1.txt": b"x = 1\n" * 7})
    diff = (
        "--- a/d1/f1.txt\n+++ b/d1/f1.txt\n@@ -6,3 +6,3 @@\n x = 1\n-x = 1\n+new_0_0\n \n"
        "\\ No newline at end of file\n"
    )
    Workspace(root).apply_patch(diff)
    expected = b"x = 1\n" * 6 + b"new_0_0\n"
    actual = (root / "d1/f1.txt").read_bytes()
    assert actual == expected, f"expected {expected!r}, actual {actual!r}"


@pytest.mark.parametrize(
    ("before", "diff_body", "after"),
    [
        # Lines appended after the empty last line: it becomes a real blank line.
        (b"a\nb\n", "@@ -1,3 +1,4 @@\n a\n b\n-\n" + NO_NL + "+\n+z\n" + NO_NL, b"a\nb\n\nz"),
        # The last line loses its newline: the empty line goes, the marker moves onto b.
        (b"a\nb\n", "@@ -1,3 +1,2 @@\n a\n-b\n-\n" + NO_NL + "+b\n" + NO_NL, b"a\nb"),
        # The last line gains one: written as an empty new last line.
        (b"a\nb", "@@ -1,2 +1,3 @@\n a\n-b\n" + NO_NL + "+b\n+\n" + NO_NL, b"a\nb\n"),
        # CRLF files keep their line endings.
        (b"a\r\nb\r\n", "@@ -2,2 +2,2 @@\n-b\n+B\n \n" + NO_NL, b"a\r\nB\r\n"),
        # An empty file written as one empty line without newline: lines inserted into it.
        (b"", "@@ -1 +1,2 @@\n-\n" + NO_NL + "+\n+new\n" + NO_NL, b"\nnew"),
    ],
)
def test_an_empty_last_line_without_newline_is_the_end_of_the_previous_line(
    tree: Tree, before: bytes, diff_body: str, after: bytes
) -> None:
    root = tree({"f.txt": before})
    Workspace(root).apply_patch("--- a/f.txt\n+++ b/f.txt\n" + diff_body)
    actual = (root / "f.txt").read_bytes()
    assert actual == after, f"expected {after!r}, actual {actual!r}"


def test_an_empty_new_last_line_in_a_file_without_final_newline_is_kept(tree: Tree) -> None:
    # No markers: the file still ends without a newline, so the added empty line is the
    # "\n" after b (removing two line endings here once left the file unchanged).
    root = tree({"f.txt": b"a\nb"})
    Workspace(root).apply_patch("--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,3 @@\n a\n b\n+\n")
    expected, actual = b"a\nb\n", (root / "f.txt").read_bytes()
    assert actual == expected, f"expected {expected!r}, actual {actual!r}"


def test_a_marker_on_a_dropped_blank_separator_line_leaves_the_final_newline(tree: Tree) -> None:
    # The whitespace-only last context line is not in the file and is dropped; its marker
    # must not take the newline of the line before.
    root = tree({"f.txt": b"x\ny\n"})
    Workspace(root).apply_patch(
        "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n x\n-y\n+Y\n   \n" + NO_NL
    )
    expected, actual = b"x\nY\n", (root / "f.txt").read_bytes()
    assert actual == expected, f"expected {expected!r}, actual {actual!r}"


def test_deleting_a_file_listed_with_an_empty_last_line_without_newline(tree: Tree) -> None:
    root = tree({"f.txt": b"a\nb\n", "e.txt": b""})
    Workspace(root).apply_patch(
        "--- a/f.txt\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-a\n-b\n-\n"
        + NO_NL
        + "--- a/e.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-\n"
        + NO_NL
    )
    assert snapshot(root) == {}, f"expected no files, actual {snapshot(root)}"


def test_adding_a_file_written_with_an_empty_last_line_without_newline(tree: Tree) -> None:
    root = tree({"keep.txt": b"k\n"})
    Workspace(root).apply_patch("--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+a\n+\n" + NO_NL)
    assert (root / "n.txt").read_bytes() == b"a\n"


def test_miscounted_hunks_are_read_to_the_next_header(tree: Tree) -> None:
    root = tree({"a.txt": "1\n2\n3\n4\n", "b.txt": "b\n"})
    diff = (
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n 1\n-2\n+two\n 3\n-4\n+four\n"
        "--- a/b.txt\n+++ b/b.txt\n@@ -1,7 +1,9 @@\n-b\n+B\n"
    )
    Workspace(root).apply_patch(diff)
    assert (root / "a.txt").read_text() == "1\ntwo\n3\nfour\n"
    assert (root / "b.txt").read_text() == "B\n"


def test_a_patch_result_diff_applies_back_exactly(tree: Tree) -> None:
    files = {"a.txt": b"x\r\ny\r\nz\r\n", "b.txt": b"no\nnewline", "c.txt": b"gone\n"}
    first = tree(files)
    second = tree(files)
    result = Workspace(first).apply_patch(
        "*** Begin Patch\n*** Update File: a.txt\n@@\n x\n-y\n+Y\n*** Update File: b.txt\n@@\n"
        "-newline\n+end\n*** Delete File: c.txt\n*** Add File: d.txt\n+d\n*** End Patch"
    )
    Workspace(second).apply_patch(result.diff, format="unified")
    assert snapshot(second) == snapshot(first)


def test_a_deleting_diff_must_list_the_files_lines(tree: Tree) -> None:
    root = tree({"d.txt": "actual\ncontent\n"})
    before = snapshot(root)
    with pytest.raises(MatchError, match="differ"):
        Workspace(root).apply_patch("--- a/d.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-other\n-text\n")
    assert_unchanged(root, before)


# -- SEARCH/REPLACE (Cline, Aider) ------------------------------------------------------------

# Cline's replace_in_file example (src/core/prompts/system.ts): add an import, move a function.
CLINE_DIFF = """\
------- SEARCH
import React from 'react';
=======
import React, { useState } from 'react';
+++++++ REPLACE

------- SEARCH
function handleSubmit() {
  saveData();
  setLoading(false);
}

=======
+++++++ REPLACE

------- SEARCH
return (
  <div>
=======
function handleSubmit() {
  saveData();
  setLoading(false);
}

return (
  <div>
+++++++ REPLACE
"""

APP_JS = """\
import React from 'react';

function handleSubmit() {
  saveData();
  setLoading(false);
}

return (
  <div>
  </div>
);
"""


def test_the_cline_example_moves_a_function(tree: Tree) -> None:
    root = tree({"src/App.js": APP_JS})
    result = Workspace(root).apply_patch(CLINE_DIFF, format="search_replace", path="src/App.js")
    assert (root / "src/App.js").read_text() == (
        "import React, { useState } from 'react';\n\nfunction handleSubmit() {\n  saveData();\n"
        "  setLoading(false);\n}\n\nreturn (\n  <div>\n  </div>\n);\n"
    )
    assert result.format == "search_replace" and result.files[0].action == "update"


def test_aider_blocks_with_fences_and_the_block_order(tree: Tree) -> None:
    root = tree({"app.py": "from flask import Flask\n\nx = 1\nprint(x)\n\nx = 1\nprint(x)\n"})
    diff = (
        "app.py\n```python\n<<<<<<< SEARCH\nfrom flask import Flask\n=======\nimport math\n"
        "from flask import Flask\n>>>>>>> REPLACE\n```\n\n```python\n<<<<<<< SEARCH\nx = 1\n"
        "print(x)\n=======\nx = 2\nprint(x)\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nx = 1\n=======\n"
        "x = 3\n>>>>>>> REPLACE\n```\n"
    )
    ws = Workspace(root)
    assert detect_format(diff) == "search_replace"
    # Block 2 matches twice: it is refused, since no earlier block says where.
    before = snapshot(root)
    with pytest.raises(MatchError, match="block 2"):
        ws.apply_patch(diff.split("<<<<<<< SEARCH\nx = 1\n=======")[0], path="app.py")
    assert_unchanged(root, before)
    # With a first block that edits line 3, the second place is the only one after it.
    ordered = (
        "------- SEARCH\nx = 1\nprint(x)\n\n=======\nx = 2\nprint(x)\n\n+++++++ REPLACE\n"
        "------- SEARCH\nx = 1\n=======\nx = 3\n+++++++ REPLACE\n"
    )
    ws.apply_patch(ordered, path="app.py")
    assert (root / "app.py").read_text() == (
        "from flask import Flask\n\nx = 2\nprint(x)\n\nx = 3\nprint(x)\n"
    )


def test_search_replace_edge_cases(tree: Tree) -> None:
    root = tree({"empty.txt": "", "w.txt": b"a\r\nb\r\n"})
    ws = Workspace(root)
    ws.apply_patch("------- SEARCH\n=======\nfilled\n+++++++ REPLACE\n", path="empty.txt")
    assert (root / "empty.txt").read_text() == "filled\n"
    created = ws.apply_patch("<<<<<<< SEARCH\n=======\nnew\n>>>>>>> REPLACE\n", path="d/n.txt")
    assert created.files[0].action == "add" and (root / "d/n.txt").read_text() == "new\n"
    ws.apply_patch("------- SEARCH\nb\n=======\nB\n+++++++ REPLACE", path="w.txt")
    assert (root / "w.txt").read_bytes() == b"a\r\nB\r\n"
    with pytest.raises(InvalidArgumentError, match="SEARCH section is empty"):
        ws.apply_patch("------- SEARCH\n=======\nall\n+++++++ REPLACE\n", path="w.txt")
    with pytest.raises(PatchFormatError, match="no '\\+\\+\\+\\+\\+\\+\\+ REPLACE' line"):
        ws.apply_patch("------- SEARCH\na\n=======\nA\n", path="w.txt")
    with pytest.raises(InvalidArgumentError, match="pass its path"):
        ws.apply_patch("------- SEARCH\na\n=======\nA\n+++++++ REPLACE\n")
    assert (root / "w.txt").read_bytes() == b"a\r\nB\r\n"


# -- MultiEdit, edit_file, str_replace, insert -------------------------------------------------


def test_multiedit_is_sequential_and_all_or_nothing(tree: Tree) -> None:
    root = tree({"m.py": "def old():\n    return 1\n\nold()\n"})
    ws = Workspace(root)
    before = snapshot(root)
    with pytest.raises(MatchError, match="edit 2 of 2"):
        ws.edit_many(
            "m.py",
            [
                {"old_string": "return 1", "new_string": "return 2"},
                {"old_string": "missing", "new_string": "x"},
            ],
            sequential=True,
        )
    assert_unchanged(root, before)
    # Claude Code's MultiEdit: the second edit sees what the first wrote.
    result = ws.edit_many(
        "m.py",
        [
            {"old_string": "old", "new_string": "new", "replace_all": True},
            {"old_string": "def new():\n    return 1", "new_string": "def new():\n    return 2"},
        ],
        sequential=True,
    )
    assert (root / "m.py").read_text() == "def new():\n    return 2\n\nnew()\n"
    assert result.replacements == 3


def test_mcp_filesystem_edit_file_shape_with_dry_run(tree: Tree) -> None:
    root = tree({"n.md": "# Title\nbody\n"})
    ws = Workspace(root)
    edits = [
        {"oldText": "# Title", "newText": "# New title"},
        {"oldText": "body", "newText": "text"},
    ]
    preview = ws.edit_many("n.md", edits, sequential=True, dry_run=True)
    assert (root / "n.md").read_text() == "# Title\nbody\n"
    assert preview.dry_run and "nothing written" in preview.summary
    assert preview.diff.startswith("--- a/n.md\n+++ b/n.md\n")
    assert "-# Title\n-body\n+# New title\n+text\n" in preview.diff
    ws.edit_many("n.md", edits, sequential=True)
    assert (root / "n.md").read_text() == "# New title\ntext\n"


def test_edit_dry_run_writes_nothing(tree: Tree) -> None:
    root = tree({"a.txt": "alpha\n"})
    ws = Workspace(root)
    result = ws.edit("a.txt", "alpha", "beta", dry_run=True)
    assert (root / "a.txt").read_text() == "alpha\n"
    assert "-alpha\n+beta\n" in result.diff and result.summary.startswith("Would edit")
    assert ws.edit_many("a.txt", [("alpha", "gamma")], dry_run=True).dry_run
    assert (root / "a.txt").read_text() == "alpha\n"


def test_str_replace_must_match_exactly_once(tree: Tree) -> None:
    root = tree({"s.py": "x = 1\ny = 2\nx = 1\n"})
    ws = Workspace(root)
    with pytest.raises(MatchError, match="lines 1, 3"):
        ws.edit("s.py", "x = 1", "x = 3", fuzzy=False)
    with pytest.raises(MatchError):
        ws.edit("s.py", "  y = 2", "y = 3", fuzzy=False)
    ws.edit("s.py", "y = 2", "y = 3", fuzzy=False)
    assert (root / "s.py").read_text() == "x = 1\ny = 3\nx = 1\n"


@pytest.mark.parametrize(
    ("content", "line", "text", "expected"),
    [
        (b"a\nb\n", 0, "top", b"top\na\nb\n"),
        (b"a\nb\n", 1, "mid\nmid2\n", b"a\nmid\nmid2\nb\n"),
        (b"a\nb\n", 2, "end", b"a\nb\nend\n"),
        (b"a\nb", 2, "end", b"a\nb\nend"),
        (b"a\r\nb\r\n", 1, "x\ny", b"a\r\nx\r\ny\r\nb\r\n"),
        (b"", 0, "first", b"first\n"),
    ],
)
def test_insert_after_a_line(
    tree: Tree, content: bytes, line: int, text: str, expected: bytes
) -> None:
    root = tree({"f.txt": content})
    result = Workspace(root).insert("f.txt", line, text)
    assert (root / "f.txt").read_bytes() == expected
    assert result.first_line == line + 1 and result.summary.startswith("Inserted")


def test_insert_out_of_range_and_dry_run(tree: Tree) -> None:
    root = tree({"f.txt": "a\nb\n"})
    ws = Workspace(root)
    with pytest.raises(InvalidArgumentError, match="from 0 \\(top\\) to 2"):
        ws.insert("f.txt", 3, "x")
    result = ws.insert("f.txt", 1, "x", dry_run=True)
    assert (root / "f.txt").read_text() == "a\nb\n" and "+x\n" in result.diff


# -- undo ----------------------------------------------------------------------------------------


def test_undo_walks_back_through_versions(tree: Tree) -> None:
    root = tree({"u.txt": "v1\n"})
    ws = Workspace(root)
    ws.edit("u.txt", "v1", "v2")
    ws.insert("u.txt", 1, "extra")
    ws.write("u.txt", "v4\n")
    assert ws.undo_edit("u.txt").action == "restored"
    assert (root / "u.txt").read_text() == "v2\nextra\n"
    assert ws.undo_edit("u.txt").remaining == 1
    assert (root / "u.txt").read_text() == "v2\n"
    ws.undo_edit("u.txt")
    assert (root / "u.txt").read_text() == "v1\n"
    with pytest.raises(NotFoundError, match="no edit of u.txt to undo"):
        ws.undo_edit("u.txt")


def test_undo_refuses_when_the_file_changed_since(tree: Tree) -> None:
    root = tree({"u.txt": "mine\n"})
    ws = Workspace(root)
    ws.edit("u.txt", "mine", "codesift")
    (root / "u.txt").write_text("someone else\n")
    with pytest.raises(ConflictError, match="changed since codesift last wrote it"):
        ws.undo_edit("u.txt")
    assert (root / "u.txt").read_text() == "someone else\n"


def test_undo_of_created_and_deleted_files(tree: Tree) -> None:
    root = tree({"keep.txt": "k\n"})
    ws = Workspace(root)
    ws.write("made.txt", "new\n")
    result = ws.undo_edit("made.txt")
    assert result.action == "deleted" and not (root / "made.txt").exists()
    ws.apply_patch("*** Begin Patch\n*** Delete File: keep.txt\n*** End Patch")
    assert ws.undo_edit("keep.txt").action == "recreated"
    assert (root / "keep.txt").read_text() == "k\n"


def test_history_is_bounded() -> None:
    history = EditHistory(versions=2, files=2, max_bytes=10)
    for i in range(3):
        history.record("a", b"%d" % i, b"x")
    assert history.count("a") == 2 and history.last("a") is not None
    history.record("b", b"b", b"x")
    history.record("c", b"c", b"x")
    assert history.count("a") == 0 and history.count("b") == 1 and history.count("c") == 1
    history.record("d", b"0123456789", b"x")
    assert history.count("b") == 0 and history.count("d") == 1
    history.record("e", b"x" * 11, b"x")
    assert history.count("e") == 0


# -- all or nothing when a write fails midway -------------------------------------------------


class FailingEngine:
    """The real engine, except that `create` fails after `fail_after` calls, optionally after
    `meanwhile()` ran (someone else writing a file)."""

    def __init__(
        self,
        engine: Any,
        fail_after: int | None,
        meanwhile: Callable[[], None] | None = None,
    ):
        self._engine = engine
        self._left = fail_after
        self._meanwhile = meanwhile

    def create(self, *args: Any) -> Any:
        if self._meanwhile and self._left in (0, None):
            self._meanwhile()
            self._meanwhile = None
        if self._left == 0:
            raise CodesiftError("simulated: no space left on the device")
        if self._left is not None:
            self._left -= 1
        return self._engine.create(*args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)


ROLLBACK_PATCH = (
    "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Delete File: b.txt\n"
    "*** Add File: new1.txt\n+1\n*** Add File: new2.txt\n+2\n*** End Patch"
)


def test_a_failure_midway_rolls_back_every_file(tree: Tree) -> None:
    root = tree({"a.txt": "a\n", "b.txt": "b\n"})
    before = snapshot(root)
    ws = Workspace(root)
    ws._engine = FailingEngine(ws._engine, fail_after=1)  # type: ignore[assignment]
    with pytest.raises(CodesiftError, match="nothing was changed"):
        ws.apply_patch(ROLLBACK_PATCH)
    assert_unchanged(root, before)
    with pytest.raises(NotFoundError):
        ws.undo_edit("a.txt")


def test_a_rollback_never_overwrites_someone_elses_change(tree: Tree) -> None:
    root = tree({"a.txt": "a\n", "b.txt": "b\n"})
    ws = Workspace(root)

    def someone_writes() -> None:
        (root / "a.txt").write_text("theirs\n")

    ws._engine = FailingEngine(ws._engine, fail_after=1, meanwhile=someone_writes)  # type: ignore[assignment]
    with pytest.raises(CodesiftError) as caught:
        ws.apply_patch(ROLLBACK_PATCH)
    message = str(caught.value)
    assert "restored except: a.txt" in message and "changed on disk" in message
    assert (root / "a.txt").read_text() == "theirs\n"
    assert (root / "b.txt").read_text() == "b\n"
    assert not (root / "new1.txt").exists()


def test_fuzzy_insert_after_a_last_line_without_newline_keeps_lines_apart(tree: Tree) -> None:
    # edit_many's fuzzy strategy used to glue an added line onto a last line without "\n".
    root = tree({"f.py": "def f():\n    x = 1\n    return x"})
    Workspace(root).edit("f.py", "  x = 1\n  return x", "  x = 1\n  return x\n  # done")
    assert (root / "f.py").read_text() == "def f():\n    x = 1\n    return x\n    # done"


def test_a_delete_refused_midway_brings_back_the_files_deleted_before(tree: Tree) -> None:
    root = tree({"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n"})
    ws = Workspace(root)

    def someone_writes_c() -> None:
        (root / "c.txt").write_text("theirs\n")

    ws._engine = FailingEngine(ws._engine, fail_after=None, meanwhile=someone_writes_c)  # type: ignore[assignment]
    patch = (
        "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Add File: new.txt\n+n\n"
        "*** Delete File: b.txt\n*** Delete File: c.txt\n*** End Patch"
    )
    with pytest.raises(ConflictError) as caught:
        ws.apply_patch(patch)
    assert "c.txt changed on disk" in str(caught.value)
    assert "nothing was changed" in str(caught.value)
    assert snapshot(root) == {"a.txt": b"a\n", "b.txt": b"b\n", "c.txt": b"theirs\n"}


def test_engine_create_remove_and_a_lock_that_survives_replace(tree: Tree) -> None:
    root = tree({"a.txt": "one"})
    engine = Workspace(root)._engine
    with engine.lock("a.txt", 1 << 20) as lock:
        lock.replace(b"two")
        lock.replace(b"one again")  # the same lock, now on the new file
        assert (root / "a.txt").read_bytes() == b"one again"
        with pytest.raises(ConflictError, match="already exists"):
            engine.create("a.txt", b"x")
        lock.remove()
        assert not (root / "a.txt").exists()
        with pytest.raises(NotFoundError):
            lock.replace(b"too late")
    created = engine.create("sub/new.txt", b"hi", 0o600)
    assert (root / "sub/new.txt").read_bytes() == b"hi" and created.mode & 0o777 == 0o600
    created.remove()
    created.release()
    assert not (root / "sub/new.txt").exists()
    with pytest.raises(SandboxError):
        engine.create("../out.txt", b"x")
