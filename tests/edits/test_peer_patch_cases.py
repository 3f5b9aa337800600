"""Patch cases from the test suites of the agents whose formats codesift reads (Codex's
apply_patch fixtures and tests, Aider's unified-diff and SEARCH/REPLACE tests, Cline's diff
tests, opencode's apply_patch tests): each patch the peer applies is applied to the same
bytes, and the Codex profile's success text names files as Codex does."""

from __future__ import annotations

import pytest

from codesift import Workspace
from codesift.errors import ConflictError
from codesift.tools import Toolbox


def envelope(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"]) + "\n"


# name -> (files before, patch, files after); None deletes.
CODEX = {
    "add_file": (
        {},
        envelope("*** Add File: bar.md", "+This is a new file"),
        {"bar.md": "This is a new file\n"},
    ),
    "multiple_operations": (
        {"delete.txt": "obsolete\n", "modify.txt": "line1\nline2\n"},
        envelope(
            "*** Add File: nested/new.txt",
            "+created",
            "*** Delete File: delete.txt",
            "*** Update File: modify.txt",
            "@@",
            "-line2",
            "+changed",
        ),
        {"nested/new.txt": "created\n", "delete.txt": None, "modify.txt": "line1\nchanged\n"},
    ),
    "multiple_chunks": (
        {"multi.txt": "line1\nline2\nline3\nline4\n"},
        envelope(
            "*** Update File: multi.txt",
            "@@",
            "-line2",
            "+changed2",
            "@@",
            "-line4",
            "+changed4",
        ),
        {"multi.txt": "line1\nchanged2\nline3\nchanged4\n"},
    ),
    "move_to_new_directory": (
        {"old/name.txt": "old content\n", "old/other.txt": "unrelated\n"},
        envelope(
            "*** Update File: old/name.txt",
            "*** Move to: renamed/dir/name.txt",
            "@@",
            "-old content",
            "+new content",
        ),
        {"old/name.txt": None, "renamed/dir/name.txt": "new content\n", "old/other.txt": None},
    ),
    # Codex also adds a final newline the file lacked; codesift keeps the file's final newline
    # (or its absence), as the README states.
    "update_file_appends_trailing_newline": (
        {"no_newline.txt": "no newline at end"},
        envelope(
            "*** Update File: no_newline.txt",
            "@@",
            "-no newline at end",
            "+first line",
            "+second line",
        ),
        {"no_newline.txt": "first line\nsecond line"},
    ),
    "pure_addition_update_chunk": (
        {"input.txt": "line1\nline2\n"},
        envelope("*** Update File: input.txt", "@@", "+added line 1", "+added line 2"),
        {"input.txt": "line1\nline2\nadded line 1\nadded line 2\n"},
    ),
    "whitespace_padded_hunk_header": (
        {"foo.txt": "old\n"},
        envelope("  *** Update File: foo.txt", "@@", "-old", "+new"),
        {"foo.txt": "new\n"},
    ),
    "whitespace_padded_patch_markers": (
        {"file.txt": "one\n"},
        " *** Begin Patch\n*** Update File: file.txt\n@@\n-one\n+two\n*** End Patch \n",
        {"file.txt": "two\n"},
    ),
    "whitespace_padded_patch_marker_lines": (
        {"file.txt": "one\n"},
        "*** Begin Patch \n*** Update File: file.txt\n@@\n-one\n+two\n *** End Patch\n",
        {"file.txt": "two\n"},
    ),
    "unicode_simple": (
        {"foo.txt": "line one\nli\u00f1e dos\nline three\n"},
        envelope("*** Update File: foo.txt", "@@", " line one", "-li\u00f1e dos", "+line two"),
        {"foo.txt": "line one\nline two\nline three\n"},
    ),
    "delete_file_success": (
        {"obsolete.txt": "old\n", "keep.txt": "keep\n"},
        envelope("*** Delete File: obsolete.txt"),
        {"obsolete.txt": None, "keep.txt": "keep\n"},
    ),
    "update_file_deletion_only": (
        {"lines.txt": "line1\nline2\nline3\n"},
        envelope("*** Update File: lines.txt", "@@", " line1", "-line2", " line3"),
        {"lines.txt": "line1\nline3\n"},
    ),
    "update_file_end_of_file_marker": (
        {"tail.txt": "first\nsecond\n"},
        envelope(
            "*** Update File: tail.txt", "@@", "-second", "+second updated", "*** End of File"
        ),
        {"tail.txt": "first\nsecond updated\n"},
    ),
    "interleaved_changes": (
        {"f.txt": "a\nb\nc\nd\ne\nf\n"},
        envelope(
            "*** Update File: f.txt",
            "@@",
            " a",
            "-b",
            "+B",
            "@@",
            " c",
            " d",
            "-e",
            "+E",
            "@@",
            " f",
            "+g",
            "*** End of File",
        ),
        {"f.txt": "a\nB\nc\nd\nE\nf\ng\n"},
    ),
    "pure_addition_chunk_followed_by_removal": (
        {"panic.txt": "line1\nline2\nline3\n"},
        envelope(
            "*** Update File: panic.txt",
            "@@",
            "+after-context",
            "+second-line",
            "@@",
            " line1",
            "-line2",
            "-line3",
            "+line2-replacement",
        ),
        {"panic.txt": "line1\nline2-replacement\nafter-context\nsecond-line\n"},
    ),
    "unicode_dash_matched_by_ascii": (
        {"u.py": "import asyncio  # local import \u2013 avoids top\u2011level dep\n"},
        envelope(
            "*** Update File: u.py",
            "@@",
            "-import asyncio  # local import - avoids top-level dep",
            "+import asyncio  # HELLO",
        ),
        {"u.py": "import asyncio  # HELLO\n"},
    ),
    "heredoc_wrapper": (
        {"a.txt": "x\n"},
        "<<'EOF'\n" + envelope("*** Update File: a.txt", "@@", "-x", "+y") + "EOF\n",
        {"a.txt": "y\n"},
    ),
}
# The fixture moves name.txt only; other.txt stays.
CODEX["move_to_new_directory"][2]["old/other.txt"] = "unrelated\n"

OPENCODE = {
    "bom_file_keeps_its_bom": (
        {"example.cs": "\ufeffusing System;\n\nclass Test {}\n"},
        envelope("*** Update File: example.cs", "@@", " class Test {}", "+class Next {}"),
        {"example.cs": "\ufeffusing System;\n\nclass Test {}\nclass Next {}\n"},
    ),
    "insert_only_hunk": (
        {"insert_only.txt": "alpha\nomega\n"},
        envelope("*** Update File: insert_only.txt", "@@", " alpha", "+beta", " omega"),
        {"insert_only.txt": "alpha\nbeta\nomega\n"},
    ),
    "end_of_file_anchor_matches_the_last_place": (
        {"eof_anchor.txt": "start\nmarker\nmiddle\nmarker\nend\n"},
        envelope(
            "*** Update File: eof_anchor.txt",
            "@@",
            "-marker",
            "-end",
            "+marker-changed",
            "+end",
            "*** End of File",
        ),
        {"eof_anchor.txt": "start\nmarker\nmiddle\nmarker-changed\nend\n"},
    ),
    "change_context_disambiguated_by_at_at_header": (
        {"multi_ctx.txt": "fn a\nx=10\ny=2\nfn b\nx=10\ny=20\n"},
        envelope("*** Update File: multi_ctx.txt", "@@ fn b", "-x=10", "+x=11"),
        {"multi_ctx.txt": "fn a\nx=10\ny=2\nfn b\nx=11\ny=20\n"},
    ),
    "heredoc_without_cat_adds_a_file": (
        {},
        "<<EOF\n*** Begin Patch\n*** Add File: heredoc_no_cat.txt\n+no cat prefix\n"
        "*** End Patch\nEOF",
        {"heredoc_no_cat.txt": "no cat prefix\n"},
    ),
    "cat_heredoc_adds_a_file": (
        {},
        "cat <<'EOF'\n*** Begin Patch\n*** Add File: heredoc_test.txt\n+heredoc content\n"
        "*** End Patch\nEOF",
        {"heredoc_test.txt": "heredoc content\n"},
    ),
    "trailing_whitespace_differences": (
        {"trailing_ws.txt": "line1  \nline2\nline3   \n"},
        envelope("*** Update File: trailing_ws.txt", "@@", "-line2", "+changed"),
        {"trailing_ws.txt": "line1  \nchanged\nline3   \n"},
    ),
    "leading_whitespace_differences": (
        {"leading_ws.txt": "  line1\nline2\n  line3\n"},
        envelope("*** Update File: leading_ws.txt", "@@", "-line2", "+changed"),
        {"leading_ws.txt": "  line1\nchanged\n  line3\n"},
    ),
    "unicode_punctuation_differences": (
        {"unicode.txt": "He said \u201chello\u201d\nsome\u2014dash\nend\n"},
        envelope("*** Update File: unicode.txt", "@@", '-He said "hello"', '+He said "hi"'),
        {"unicode.txt": 'He said "hi"\nsome\u2014dash\nend\n'},
    ),
    "cat_heredoc": (
        {"a.txt": "one\ntwo\n"},
        "cat <<'EOF'\n" + envelope("*** Update File: a.txt", "@@", " one", "-two", "+2") + "EOF",
        {"a.txt": "one\n2\n"},
    ),
    "apply_patch_heredoc_unquoted": (
        {"a.txt": "one\n"},
        "apply_patch <<EOF\n" + envelope("*** Update File: a.txt", "@@", "-one", "+1") + "EOF\n",
        {"a.txt": "1\n"},
    ),
    "heredoc_with_another_word": (
        {"a.txt": "one\n"},
        'cat <<"PATCH"\n' + envelope("*** Update File: a.txt", "@@", "-one", "+1") + "PATCH",
        {"a.txt": "1\n"},
    ),
}

AIDER_UDIFF = {
    "bare_hunk_header_in_a_fence": (
        {"file.txt": "Original\n"},
        "Some text...\n\n```diff\n--- file.txt\n+++ file.txt\n@@ ... @@\n-Original\n"
        "+Modified\n```\n",
        {"file.txt": "Modified\n"},
    ),
    "bare_hunk_header_dirname_with_spaces": (
        {"dir name with spaces/file.txt": "a\nOriginal\nb\n"},
        "```diff\n--- dir name with spaces/file.txt\n+++ dir name with spaces/file.txt\n"
        "@@ ... @@\n-Original\n+Modified\n```\n",
        {"dir name with spaces/file.txt": "a\nModified\nb\n"},
    ),
    "new_file_from_dev_null": (
        {},
        "```diff\n--- /dev/null\n+++ new.txt\n@@ ... @@\n+hello\n```\n",
        {"new.txt": "hello\n"},
    ),
    "two_files_in_one_fence": (
        {
            "pkg/versioncheck.py": "try:\n    x()\n    except Exception as err:\n"
            '        print_cmd(f"Error: {err}")\n',
            "pkg/main.py": '    other_group.add_argument(\n        "--version",\n    )\n',
        },
        "Here are the diffs:\n\n```diff\n--- pkg/versioncheck.py\n+++ pkg/versioncheck.py\n"
        "@@ ... @@\n     except Exception as err:\n"
        '         print_cmd(f"Error: {err}")\n+        return False\n\n'
        "--- pkg/main.py\n+++ pkg/main.py\n@@ ... @@\n     other_group.add_argument(\n"
        '         "--version",\n     )\n+    other_group.add_argument("--check-update")\n'
        "```\n\nThese changes add the option.\n",
        {
            "pkg/versioncheck.py": "try:\n    x()\n    except Exception as err:\n"
            '        print_cmd(f"Error: {err}")\n        return False\n',
            "pkg/main.py": '    other_group.add_argument(\n        "--version",\n    )\n'
            '    other_group.add_argument("--check-update")\n',
        },
    ),
    "bare_double_at_sign": (
        {"f.py": "def a():\n    return 1\n"},
        "--- f.py\n+++ f.py\n@@\n def a():\n-    return 1\n+    return 2\n",
        {"f.py": "def a():\n    return 2\n"},
    ),
}


def run_case(tmp_path, before, patch, after, **kwargs):
    root = tmp_path / "ws"
    root.mkdir()
    for rel, text in before.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(text.encode())
    Workspace(root).apply_patch(patch, **kwargs)
    for rel, text in after.items():
        path = root / rel
        if text is None:
            assert not path.exists(), f"{rel} should be gone"
        else:
            assert path.read_bytes() == text.encode(), (
                f"{rel}: expected {text!r}, got {path.read_bytes()!r}"
            )


@pytest.mark.parametrize("name", sorted(CODEX))
def test_codex_cases(tmp_path, name):
    run_case(tmp_path, *CODEX[name])


@pytest.mark.parametrize("name", sorted(OPENCODE))
def test_opencode_cases(tmp_path, name):
    run_case(tmp_path, *OPENCODE[name])


@pytest.mark.parametrize("name", sorted(AIDER_UDIFF))
def test_aider_unified_diff_cases(tmp_path, name):
    run_case(tmp_path, *AIDER_UDIFF[name])


CLINE = {
    "replace_then_delete_the_last_line": (
        "line1\nline2\nline3\nline4",
        "------- SEARCH\nline2\n=======\nreplaced\n+++++++ REPLACE\n\n"
        "------- SEARCH\nline4\n=======\n+++++++ REPLACE",
        "line1\nreplaced\nline3\n",
    ),
    "delete_then_replace": (
        "line1\nline2\nline3\nline4",
        "------- SEARCH\nline1\n=======\n+++++++ REPLACE\n\n"
        "------- SEARCH\nline3\n=======\nreplaced\n+++++++ REPLACE",
        "line2\nreplaced\nline4",
    ),
    "multiple_ordered_replacements": (
        "First\nSecond\nThird\nFourth",
        "------- SEARCH\nFirst\n=======\n1st\n+++++++ REPLACE\n\n"
        "------- SEARCH\nThird\n=======\n3rd\n+++++++ REPLACE",
        "1st\nSecond\n3rd\nFourth",
    ),
    "out_of_order_replacements": (
        "one\ntwo\nthree\nfour\nfive\n",
        "------- SEARCH\nfour\n=======\nfourth\n+++++++ REPLACE\n"
        "------- SEARCH\ntwo\n=======\nsecond\n+++++++ REPLACE\n"
        "------- SEARCH\nfive\n=======\nfifth\n+++++++ REPLACE",
        "one\nsecond\nthree\nfourth\nfifth\n",
    ),
    "out_of_order_replacements_with_indentation": (
        "function test() {\n\tconst a = 1;\n\tconst b = 2;\n\tconst c = 3;\n\n}",
        "------- SEARCH\n\tconst c = 3;\n=======\n\tconst c = 30;\n+++++++ REPLACE\n"
        "------- SEARCH\n\tconst a = 1;\n=======\n\tconst a = 10;\n+++++++ REPLACE",
        "function test() {\n\tconst a = 10;\n\tconst b = 2;\n\tconst c = 30;\n\n}",
    ),
    "out_of_order_replacements_with_empty_lines": (
        "header\n\nbody\n\nfooter\n",
        "------- SEARCH\nfooter\n=======\nnew footer\n+++++++ REPLACE\n"
        "------- SEARCH\n\nbody\n\n=======\nnew body content\n+++++++ REPLACE",
        "header\nnew body content\nnew footer\n",
    ),
    "empty_file": ("", "------- SEARCH\n=======\nnew content\n+++++++ REPLACE", "new content\n"),
    "delete_the_last_line_of_a_file_without_final_newline": (
        "a\nb\nc",
        "------- SEARCH\nc\n=======\n+++++++ REPLACE\n",
        "a\nb\n",
    ),
    "delete_the_last_two_lines_without_final_newline": (
        "a\nb\nc",
        "------- SEARCH\nb\nc\n=======\n+++++++ REPLACE\n",
        "a\n",
    ),
    "replace_the_last_line_without_final_newline": (
        "a\nb\nc",
        "------- SEARCH\nc\n=======\nC\n+++++++ REPLACE\n",
        "a\nb\nC",
    ),
    "aider_markers_replace_last_line_without_final_newline": (
        "x = 1\ny = 2",
        "<<<<<<< SEARCH\ny = 2\n=======\ny = 3\n>>>>>>> REPLACE\n",
        "x = 1\ny = 3",
    ),
    "crlf_file_delete_the_last_line_without_final_newline": (
        "a\r\nb\r\nc",
        "------- SEARCH\nc\n=======\n+++++++ REPLACE\n",
        "a\r\nb\r\n",
    ),
}


@pytest.mark.parametrize("name", sorted(CLINE))
def test_cline_search_replace_cases(tmp_path, name):
    before, blocks, after = CLINE[name]
    root = tmp_path / "ws"
    root.mkdir()
    (root / "f.txt").write_bytes(before.encode())
    Workspace(root).apply_patch(blocks, path="f.txt")
    actual = (root / "f.txt").read_bytes()
    assert actual == after.encode(), f"expected {after!r}, got {actual!r}"


def test_a_search_block_for_the_last_line_does_not_match_a_longer_line(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "f.txt").write_bytes(b"a\nxc")
    with pytest.raises(Exception, match="not found|SEARCH"):
        Workspace(root).apply_patch("------- SEARCH\nc\n=======\n+++++++ REPLACE\n", path="f.txt")
    assert (root / "f.txt").read_bytes() == b"a\nxc"


def test_codex_success_text_names_paths_as_the_patch_gives_them(tmp_path):
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "u.txt").write_text("x\n")
    (root / "sub" / "d.txt").write_text("gone\n")
    (root / "sub" / "m.txt").write_text("m\n")
    box = Toolbox(Workspace(root), profile="codex")
    patch = envelope(
        "*** Add File: ./sub/new.txt",
        "+n",
        f"*** Add File: {root}/abs.txt",
        "+a",
        "*** Update File: sub/u.txt",
        "@@",
        "-x",
        "+y",
        "*** Update File: sub/m.txt",
        "*** Move to: moved/m.txt",
        "@@",
        "-m",
        "+M",
        "*** Delete File: sub/d.txt",
    )
    result = box.call("apply_patch", {"input": patch})
    expected = (
        "Success. Updated the following files:\n"
        f"A ./sub/new.txt\nA {root}/abs.txt\nM sub/u.txt\nM moved/m.txt\nD sub/d.txt\n"
    )
    assert result.text == expected, f"expected {expected!r}, got {result.text!r}"


def test_add_of_an_existing_file_is_refused_as_the_readme_states(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "dup.txt").write_text("kept\n")
    with pytest.raises(ConflictError, match="already exists"):
        Workspace(root).apply_patch(envelope("*** Add File: dup.txt", "+new"))
    assert (root / "dup.txt").read_text() == "kept\n"


AIDER_EDITBLOCK = {
    "missing_leading_whitespace": (
        "    line1\n    line2\n    line3\n",
        "line1\nline2\n",
        "new_line1\nnew_line2\n",
        "    new_line1\n    new_line2\n    line3\n",
    ),
    "missing_varied_leading_whitespace": (
        "\n    line1\n    line2\n        line3\n    line4\n",
        "line2\n    line3\n",
        "new_line2\n    new_line3\n",
        "\n    line1\n    new_line2\n        new_line3\n    line4\n",
    ),
    "just_some_missing_leading_whitespace": (
        "    line1\n    line2\n    line3\n",
        " line1\n line2\n",
        " new_line1\n     new_line2\n",
        "    new_line1\n        new_line2\n    line3\n",
    ),
    "missing_leading_whitespace_including_blank_line": (
        "    line1\n    line2\n    line3\n",
        "\n  line1\n  line2\n",
        "  new_line1\n  new_line2\n",
        "    new_line1\n    new_line2\n    line3\n",
    ),
    "full_edit": ("one\ntwo\nthree\n", "two\n", "new\n", "one\nnew\nthree\n"),
}


@pytest.mark.parametrize("name", sorted(AIDER_EDITBLOCK))
def test_aider_editblock_cases(tmp_path, name):
    whole, search, replace, expected = AIDER_EDITBLOCK[name]
    root = tmp_path / "ws"
    root.mkdir()
    (root / "f.txt").write_text(whole)
    blocks = f"f.txt\n```\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n```\n"
    Workspace(root).apply_patch(blocks, path="f.txt")
    actual = (root / "f.txt").read_text()
    assert actual == expected, f"expected {expected!r}, got {actual!r}"


def test_aider_empty_search_creates_a_new_file(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    blocks = "newfile.txt\n<<<<<<< SEARCH\n=======\ncreating a new file\n>>>>>>> REPLACE\n"
    Workspace(root).apply_patch(blocks, path="newfile.txt")
    assert (root / "newfile.txt").read_text() == "creating a new file\n"
