"""The `codesift` profile's agent features, each through `Toolbox.call`: grep
output modes, offset paging, before/after, file types, per-call no_ignore/hidden, timeout;
glob types and ignore flags; list_dir trees; read by start_line/end_line; edit_many and
apply_patch tools; dry_run on every edit; and the skipped-entry hint in the text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tool_helpers import CODESIFT_TOOLS
from trees import tree_fixture

from codesift import Workspace
from codesift.remote import RemoteSettings
from codesift.tools import Toolbox

HINT_BUILD = '(1 gitignored path hidden: build/ — pass no_ignore=true or path="build")'


def ok(result: Any) -> str:
    assert not result.is_error, result.text
    return str(result.text)


def error(result: Any) -> str:
    assert result.is_error, f"expected an error, got: {result.text}"
    return str(result.text)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under `root` with its bytes (to prove a call wrote nothing)."""
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


# Three files with 3, 2 and 1 lines holding "hit".
hits = tree_fixture(
    {
        "a.txt": "hit 1\nhit 2\nmiss\nhit 3\n",
        "b.txt": "hit 4\nhit 5\n",
        "c.txt": "miss\nhit 6\n",
    }
)


# -- grep_search --------------------------------------------------------------------------


def test_grep_output_mode_files_with_matches_lists_one_path_per_line(hits):
    box = Toolbox(Workspace(hits))
    result = box.call(
        "grep_search", {"rank": False, "pattern": "hit", "output_mode": "files_with_matches"}
    )
    assert ok(result) == "Found 3 files with matches for /hit/ in .\na.txt\nb.txt\nc.txt"
    assert result.data["mode"] == "files" and result.data["files"] == ["a.txt", "b.txt", "c.txt"]
    assert result.data["total"] == 3


def test_grep_output_mode_count_gives_path_colon_count_lines(hits):
    box = Toolbox(Workspace(hits))
    result = box.call("grep_search", {"rank": False, "pattern": "hit", "output_mode": "count"})
    assert ok(result) == (
        "Found 3 files with matches for /hit/ in . (6 matches in the files listed)\n"
        "a.txt:3\nb.txt:2\nc.txt:1"
    )
    assert result.data["counts"] == [3, 2, 1] and result.data["mode"] == "count"


def test_grep_content_mode_is_the_default_and_unchanged(hits):
    box = Toolbox(Workspace(hits))
    result = box.call("grep_search", {"rank": False, "pattern": "hit [56]"})
    ids = [m["id"] for m in result.data["matches"]]
    assert ok(result) == (
        f"Found 2 matches for /hit [56]/ in .\n\nb.txt:2:1 [{ids[0]}] hit 5\n\n"
        f"c.txt:2:1 [{ids[1]}] hit 6"
    )


def test_grep_offset_pages_through_the_deterministic_order(hits):
    box = Toolbox(Workspace(hits))
    everything = box.call("grep_search", {"rank": False, "pattern": "hit"}).data["matches"]
    order = [(m["file"], m["line"]) for m in everything]
    assert len(order) == 6

    first = box.call("grep_search", {"rank": False, "pattern": "hit", "max_matches": 4})
    lines = ok(first).split("\n")
    assert (
        lines[0]
        == "Found 4 matches for /hit/ in . [TRUNCATED: reached limit 4 before completing search]"
    )
    assert lines[1] == "[results 1-4 shown; for the next page call again with offset=4]"

    second = box.call(
        "grep_search", {"rank": False, "pattern": "hit", "max_matches": 4, "offset": 4}
    )
    ids = [m["id"] for m in second.data["matches"]]
    assert ok(second) == (
        f"Found 6 matches for /hit/ in . [results 5-6]\n\nb.txt:2:1 [{ids[0]}] hit 5\n\n"
        f"c.txt:2:1 [{ids[1]}] hit 6"
    )
    paged = [(m["file"], m["line"]) for m in first.data["matches"] + second.data["matches"]]
    assert paged == order, (paged, order)

    past = box.call("grep_search", {"rank": False, "pattern": "hit", "offset": 50})
    assert ok(past).split("\n")[1] == (
        "[offset=50 is past the last result (6 results); pass a smaller offset]"
    )


def test_grep_offset_pages_files_in_the_files_mode(hits):
    box = Toolbox(Workspace(hits))
    args = {"rank": False, "pattern": "hit", "output_mode": "files_with_matches", "max_matches": 2}
    first = ok(box.call("grep_search", args))
    assert first.split("\n")[1:] == [
        "[results 1-2 shown; for the next page call again with offset=2]",
        "a.txt",
        "b.txt",
    ]
    second = ok(box.call("grep_search", {**args, "offset": 2}))
    assert second == "Found 3 files with matches for /hit/ in . [results 3-3]\nc.txt"


def test_grep_before_and_after_each_override_context_lines(tree):
    root = tree({"f.txt": "one\ntwo\nTARGET\nfour\nfive\n"})
    box = Toolbox(Workspace(root))
    result = box.call("grep_search", {"pattern": "TARGET", "before": 2, "after": 0})
    hit = result.data["matches"][0]
    assert ok(result) == (
        f"Found 1 match for /TARGET/ in .\n\nf.txt-1- one\nf.txt-2- two\n"
        f"f.txt:3:1 [{hit['id']}] TARGET"
    )
    assert hit["before"] == ["one", "two"] and hit["after"] == []
    mixed = box.call("grep_search", {"pattern": "TARGET", "context_lines": 2, "after": 1})
    assert mixed.data["matches"][0]["before"] == ["one", "two"]
    assert mixed.data["matches"][0]["after"] == ["four"]
    # Other agents' spellings of the same options.
    flags = box.call("grep_search", {"pattern": "target", "-B": 1, "-A": 1, "-i": True})
    assert flags.data["matches"][0]["before"] == ["two"]
    assert flags.data["matches"][0]["after"] == ["four"]


def test_grep_type_and_type_not_use_ripgrep_file_types(tree):
    root = tree({"a.py": "needle\n", "b.rs": "needle\n", "c.txt": "needle\n"})
    box = Toolbox(Workspace(root))
    files = {"pattern": "needle", "output_mode": "files_with_matches"}
    assert ok(box.call("grep_search", {**files, "type": "py"})).split("\n")[1:] == ["a.py"]
    assert ok(box.call("grep_search", {**files, "type": ["py", "rust"]})).split("\n")[1:] == [
        "a.py",
        "b.rs",
    ]
    assert ok(box.call("grep_search", {**files, "type_not": "py"})).split("\n")[1:] == [
        "b.rs",
        "c.txt",
    ]
    bad = error(box.call("grep_search", {**files, "type": "pyy"}))
    assert 'unknown file type "pyy"' in bad and "include=" in bad, bad


def test_grep_hint_names_gitignored_files_and_no_ignore_finds_them(tree):
    root = tree({".gitignore": "build/\n", "build/out.txt": "needle\n", "src/a.txt": "x\n"})
    box = Toolbox(Workspace(root))
    missed = box.call("grep_search", {"pattern": "needle"})
    assert ok(missed) == f"Found 0 matches for /needle/ in . {HINT_BUILD}"
    assert missed.data["hint"] == HINT_BUILD
    found = box.call("grep_search", {"pattern": "needle", "no_ignore": True})
    assert [m["file"] for m in found.data["matches"]] == ["build/out.txt"]
    assert "gitignored" not in ok(found)
    # The hint's other way in works too.
    assert box.call("grep_search", {"pattern": "needle", "path": "build"}).data["total"] == 1
    # The other output modes carry it as well.
    count = box.call("grep_search", {"pattern": "needle", "output_mode": "count"})
    assert ok(count) == f"Found 0 files with matches for /needle/ in . {HINT_BUILD}"


def test_grep_hidden_per_call(tree):
    root = tree({".env": "SECRET=needle\n", "a.txt": "x\n"})
    box = Toolbox(Workspace(root, hidden=False))
    missed = ok(box.call("grep_search", {"pattern": "needle"}))
    assert missed == (
        "Found 0 matches for /needle/ in . "
        '(1 hidden path skipped: .env — pass hidden=true or path=".env")'
    )
    found = box.call("grep_search", {"pattern": "needle", "hidden": True})
    assert [m["file"] for m in found.data["matches"]] == [".env"]
    shown = Toolbox(Workspace(root))  # a workspace that shows dot files, told not to
    hidden_off = shown.call("grep_search", {"pattern": "needle", "hidden": False})
    assert hidden_off.data["total"] == 0 and "hidden=true" in ok(hidden_off)


def test_grep_timeout_is_accepted_and_checked(hits):
    box = Toolbox(Workspace(hits))
    result = box.call("grep_search", {"pattern": "hit", "timeout": 60})
    assert result.data["total"] == 6 and result.data["timed_out"] is False, ok(result)
    bad = error(box.call("grep_search", {"pattern": "hit", "timeout": 0}))
    assert "timeout" in bad and "Parameters:" in bad, bad


def test_local_only_grep_and_glob_options_are_refused_with_host(hits):
    box = Toolbox(Workspace(hits), remote=RemoteSettings())
    refused = error(
        box.call("grep_search", {"pattern": "hit", "host": "h.invalid", "output_mode": "count"})
    )
    assert refused == (
        "Error: output_mode works on the local workspace only; leave it out to search with "
        "host, or leave host out"
    )
    refused = error(
        box.call("glob_search", {"pattern": "*", "host": "h.invalid", "type": "py", "hidden": True})
    )
    assert "type, hidden work on the local workspace only; leave them out" in refused


# -- glob_search ---------------------------------------------------------------------------


def test_glob_type_no_ignore_and_hidden(tree):
    root = tree(
        {
            ".gitignore": "build/\n",
            "build/gen.py": "",
            "src/a.py": "",
            "src/b.rs": "",
            ".tools/c.py": "",
        }
    )
    box = Toolbox(Workspace(root, hidden=False))
    typed = box.call("glob_search", {"pattern": "*", "type": "py"})
    assert [f["path"] for f in typed.data["files"]] == ["src/a.py"]
    missed = ok(box.call("glob_search", {"pattern": "gen.py"}))
    assert missed == (
        'Found 0 files matching "gen.py" in . (sorted by path) (1 gitignored path hidden: '
        'build/ — pass no_ignore=true or path="build"; 2 hidden paths skipped: .gitignore, '
        '.tools/ — pass hidden=true or path=".tools")'
    )
    found = box.call("glob_search", {"pattern": "*.py", "no_ignore": True, "hidden": True})
    assert ok(found) == (
        'Found 3 files matching "*.py" in . (sorted by path)\n.tools/c.py\nbuild/gen.py\nsrc/a.py'
    )
    not_rust = box.call("glob_search", {"pattern": "src/*", "type_not": "rust"})
    assert [f["path"] for f in not_rust.data["files"]] == ["src/a.py"]


# -- list_dir ------------------------------------------------------------------------------


nested = tree_fixture(
    {
        "a/b/deep.txt": "",
        "a/one.txt": "",
        "top.txt": "",
        "z/two.txt": "",
    }
)


def test_list_dir_recursive_is_an_indented_tree(nested):
    box = Toolbox(Workspace(nested))
    result = box.call("list_dir", {"recursive": True})
    assert ok(result) == "a/\n  b/\n    deep.txt\n  one.txt\nz/\n  two.txt\ntop.txt"
    assert result.data["entries"] == [
        "a/",
        "a/b/",
        "a/b/deep.txt",
        "a/one.txt",
        "z/",
        "z/two.txt",
        "top.txt",
    ]
    assert result.data["depth"] is None
    two = box.call("list_dir", {"path": "a", "depth": 2})
    assert ok(two) == "b/\n  deep.txt\none.txt"
    # Without recursive or depth: one directory, full names, as before.
    assert ok(box.call("list_dir", {})) == "a/\nz/\ntop.txt"


def test_list_dir_tree_caps_the_total_entries(nested):
    box = Toolbox(Workspace(nested))
    result = box.call("list_dir", {"recursive": True, "limit": 3})
    assert ok(result) == "a/\n  b/\n    deep.txt\n[TRUNCATED: first 3 items]"
    assert result.data["truncated"] is True and len(result.data["entries"]) == 3


def test_list_dir_says_what_ignore_rules_hid(tree):
    root = tree({".gitignore": "build/\n", "build/x.txt": "", "src/a.txt": ""})
    box = Toolbox(Workspace(root, hidden=False))
    listed = box.call("list_dir", {})
    assert ok(listed) == (
        'src/\n(1 gitignored path hidden: build/ — pass no_ignore=true or path="build"; '
        '1 hidden path skipped: .gitignore — pass hidden=true or path=".gitignore")'
    )
    everything = box.call("list_dir", {"no_ignore": True, "hidden": True})
    assert ok(everything) == "build/\nsrc/\n.gitignore"
    empty = tree({".gitignore": "*.log\n", "x.log": ""})
    assert ok(Toolbox(Workspace(empty)).call("list_dir", {})) == (
        '.gitignore\n(1 gitignored path hidden: x.log — pass no_ignore=true or path="x.log")'
    )


# -- read_file -----------------------------------------------------------------------------


def test_read_file_start_line_end_line(tree):
    root = tree({"f.txt": "".join(f"line {n}\n" for n in range(1, 8))})
    box = Toolbox(Workspace(root))
    part = box.call("read_file", {"path": "f.txt", "start_line": 3, "end_line": 4})
    assert ok(part) == (
        "     3\tline 3\n     4\tline 4\n\n"
        "Read lines 3-4 of f.txt [more lines follow; continue with start_line=5]"
    )
    assert (part.data["start_line"], part.data["end_line"]) == (3, 4)
    tail = box.call("read_file", {"path": "f.txt", "start_line": 6, "end_line": 99})
    assert ok(tail) == "     6\tline 6\n     7\tline 7"
    head = box.call("read_file", {"path": "f.txt", "end_line": 1})
    assert ok(head).split("\n")[0] == "     1\tline 1"


def test_read_file_refuses_two_ways_of_giving_lines(tree):
    box = Toolbox(Workspace(tree({"f.txt": "a\nb\n"})))
    both = error(box.call("read_file", {"path": "f.txt", "start_line": 1, "limit": 1}))
    assert both == (
        "Error: read_file: give the lines one way: start_line/end_line (inclusive) or "
        "offset/limit, not both"
    )
    backwards = error(box.call("read_file", {"path": "f.txt", "start_line": 2, "end_line": 1}))
    assert "end_line 1 is before start_line 2" in backwards
    past = error(box.call("read_file", {"path": "f.txt", "start_line": 9}))
    assert "start_line 9 is past the end of f.txt (2 lines)" in past


# -- dry_run on every edit -------------------------------------------------------------------


@pytest.fixture
def module(tree) -> Path:
    return tree({"m.py": "a = 1\nb = 2\nc = 3\n", "other.py": "x = 0\n"})


@pytest.fixture
def box(module: Path) -> Toolbox:
    """The `codesift` profile's tools on `module`."""
    return Toolbox(Workspace(module))


def test_edit_dry_run_returns_the_diff_and_writes_nothing(module, box):
    before = snapshot(module)
    result = box.call(
        "edit", {"path": "m.py", "old_string": "b = 2", "new_string": "b = 20", "dry_run": True}
    )
    assert ok(result) == (
        "Would edit m.py: 1 replacement at line 2 (dry run: nothing written)\n"
        "--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n a = 1\n-b = 2\n+b = 20\n c = 3"
    )
    assert result.data["dry_run"] is True
    assert snapshot(module) == before


def test_edit_by_search_result_id_dry_run_keeps_the_id_usable(module, box):
    hit = box.call("grep_search", {"pattern": "c = 3"}).data["matches"][0]["id"]
    before = snapshot(module)
    preview = box.call("edit", {"search_result_id": hit, "new_string": "c = 30", "dry_run": True})
    assert "-c = 3\n+c = 30" in ok(preview) and preview.data["dry_run"] is True
    assert snapshot(module) == before
    done = box.call("edit", {"search_result_id": hit, "new_string": "c = 30"})
    assert ok(done).startswith("Edited m.py: 1 replacement at line 3")
    assert (module / "m.py").read_text() == "a = 1\nb = 2\nc = 30\n"


def test_write_file_dry_run_shows_the_change_and_writes_nothing(module, box):
    before = snapshot(module)
    over = box.call("write_file", {"path": "m.py", "content": "a = 1\n", "dry_run": True})
    assert ok(over) == (
        "Would overwrite m.py (6 bytes) (dry run: nothing written)\n"
        "--- a/m.py\n+++ b/m.py\n@@ -1,3 +1 @@\n a = 1\n-b = 2\n-c = 3"
    )
    assert over.data["created"] is False and over.data["dry_run"] is True
    new = box.call("write_file", {"path": "pkg/new.py", "content": "y\n", "dry_run": True})
    assert ok(new) == (
        "Would create pkg/new.py (2 bytes) (dry run: nothing written)\n"
        "--- /dev/null\n+++ b/pkg/new.py\n@@ -0,0 +1 @@\n+y"
    )
    assert snapshot(module) == before and not (module / "pkg").exists()
    written = box.call("write_file", {"path": "m.py", "content": "z\n"})
    assert ok(written) == "Overwrote m.py (2 bytes)" and written.data["dry_run"] is False


# -- edit_many -------------------------------------------------------------------------------


def edit_many(box: Toolbox, *edits: tuple[str, str]) -> Any:
    """`box`'s edit_many call on m.py of `edits`, each (old_string, new_string)."""
    return box.call(
        "edit_many",
        {"path": "m.py", "edits": [{"old_string": old, "new_string": new} for old, new in edits]},
    )


def test_edit_many_applies_every_edit_or_none(module, box):
    result = edit_many(box, ("a = 1", "a = 10"), ("c = 3", "c = 30"))
    assert ok(result) == (
        "Edited m.py: 2 replacements at lines 1-3\n--- a/m.py\n+++ b/m.py\n"
        "@@ -1,3 +1,3 @@\n-a = 1\n+a = 10\n b = 2\n-c = 3\n+c = 30"
    )
    assert (module / "m.py").read_text() == "a = 10\nb = 2\nc = 30\n"
    before = snapshot(module)
    failed = edit_many(box, ("b = 2", "b = 20"), ("not there", "x"))
    assert error(failed).startswith("Error: edit 2 of 2: old_string was not found")
    assert snapshot(module) == before


def test_edit_many_dry_run_sequential_and_other_agents_names(module, box):
    before = snapshot(module)
    chained = box.call(
        "MultiEdit",
        {
            "file_path": "m.py",
            "edits": [
                {"old_string": "a = 1", "new_string": "a = 10"},
                {"oldText": "a = 10", "newText": "a = 11"},
            ],
            "sequential": True,
            "dry_run": True,
        },
    )
    assert ok(chained).startswith("Would edit m.py: 2 replacements at line 1 (dry run")
    assert "-a = 1\n+a = 11" in chained.text
    assert snapshot(module) == before
    # Matched against the original text by default: the second edit finds nothing there.
    apart = edit_many(box, ("a = 1", "a = 10"), ("a = 10", "a = 11"))
    assert "edit 2 of 2" in error(apart) and snapshot(module) == before
    shape = error(box.call("edit_many", {"path": "m.py", "edits": [{"old_string": "a"}]}))
    assert "'new_string' is required" in shape, shape


def test_edit_many_by_search_result_ids(module, box):
    ids = [m["id"] for m in box.call("grep_search", {"pattern": r"[ac] = \d"}).data["matches"]]
    result = box.call(
        "edit_many",
        {"path": "m.py", "edits": [{"search_result_id": i, "new_string": "_ = 0"} for i in ids]},
    )
    assert ok(result).startswith("Edited m.py: 2 replacements")
    assert (module / "m.py").read_text() == "_ = 0\nb = 2\n_ = 0\n"


# -- apply_patch -----------------------------------------------------------------------------


ENVELOPE = (
    "*** Begin Patch\n"
    "*** Update File: m.py\n"
    "@@\n"
    " a = 1\n"
    "-b = 2\n"
    "+b = 22\n"
    "*** Add File: docs/new.md\n"
    "+# New\n"
    "*** Delete File: other.py\n"
    "*** End Patch"
)


def test_apply_patch_envelope_updates_adds_and_deletes(module, box):
    result = box.call("apply_patch", {"patch": ENVELOPE})
    assert ok(result).split("\n")[:4] == [
        "Applied patch (apply_patch): changed 3 files",
        "M m.py (+1 -1)",
        "A docs/new.md (+1 -0)",
        "D other.py",
    ]
    assert [f["action"] for f in result.data["files"]] == ["update", "add", "delete"]
    assert snapshot(module) == {"docs/new.md": b"# New\n", "m.py": b"a = 1\nb = 22\nc = 3\n"}


def test_apply_patch_dry_run_and_refusal_leave_every_file_byte_identical(module, box):
    before = snapshot(module)
    checked = box.call("apply_patch", {"patch": ENVELOPE, "dry_run": True})
    assert ok(checked).startswith("Patch checked (apply_patch), nothing written: it would change")
    assert "+b = 22" in checked.text and checked.data["dry_run"] is True
    assert snapshot(module) == before
    # The second file's hunk does not match: the first file's valid hunk is not applied.
    bad = (
        "*** Begin Patch\n*** Update File: m.py\n@@\n-a = 1\n+a = 5\n"
        "*** Update File: other.py\n@@\n-x = 999\n+x = 1\n*** End Patch"
    )
    refused = error(box.call("apply_patch", {"patch": bad}))
    assert "other.py" in refused, refused
    assert snapshot(module) == before


def test_apply_patch_unified_diff_and_search_replace_blocks(module, box):
    unified = "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n a = 1\n-b = 2\n+b = 3\n"
    done = box.call("apply_patch", {"patch": unified})
    assert ok(done).split("\n")[:2] == ["Applied patch (unified): changed 1 file", "M m.py (+1 -1)"]
    assert (module / "m.py").read_text() == "a = 1\nb = 3\nc = 3\n"

    blocks = "<<<<<<< SEARCH\nc = 3\n=======\nc = 4\n>>>>>>> REPLACE\n"
    before = snapshot(module)
    needs_path = error(box.call("apply_patch", {"patch": blocks}))
    assert needs_path == "Error: SEARCH/REPLACE blocks edit one file: pass its path (path=...)"
    assert snapshot(module) == before
    # Cline's name for the blocks (diff) is accepted here too.
    applied = box.call("apply_patch", {"diff": blocks, "path": "m.py"})
    assert ok(applied).startswith("Applied patch (search_replace): changed 1 file")
    assert (module / "m.py").read_text() == "a = 1\nb = 3\nc = 4\n"


def test_new_tools_have_short_descriptions_with_the_flow_first(box):
    assert box.names == CODESIFT_TOOLS
    for name in box.names:
        assert len(box.description(name)) < 450, name
    assert box.description("grep_search").startswith("Search file contents")
    assert "search_result_id" in box.description("grep_search").split(". ")[3]
    assert not box.tool("edit_many").read_only and not box.tool("apply_patch").read_only


# -- search ---------------------------------------------------------------------------------


def test_search_tool_gives_a_block_per_file(tmp_path):
    (tmp_path / "session.py").write_text("def retry_session_backoff(delay):\n    return delay\n")
    (tmp_path / "noise.py").write_text("retry = 1\n")
    box = Toolbox(Workspace(tmp_path))
    result = box.call("search", {"question": "how does the session backoff retry"})
    text = ok(result)
    lines = text.splitlines()
    assert lines[0].startswith("2 files for 'how does the session backoff retry'"), text
    assert lines[2].startswith("session.py (") and "all 3 terms" in lines[2], text
    assert lines[3] == "  1: def retry_session_backoff(delay):", text
    assert lines[5].startswith("noise.py (") and "1 of 3 terms" in lines[5], text
    assert lines[6] == "  1: retry = 1", text
    assert [r["file"] for r in result.data["results"]] == ["session.py", "noise.py"]
    # Other agents' name for the question.
    assert not box.call("search", {"query": "session backoff"}).is_error


def test_search_tool_question_of_stop_words_is_an_error_saying_what_to_do(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    text = error(Toolbox(Workspace(tmp_path)).call("search", {"question": "how is it"}))
    assert "no words to search for" in text and "Traceback" not in text, text


@pytest.fixture
def calls(tmp_path: Path) -> Path:
    """A macro called from six files, each call inside a function whose head is above it."""
    for i in range(1, 7):
        (tmp_path / f"a{i}.c").write_text(
            f"static int caller_{i}(int value)\n{{\n\tint x = 0;\n\treturn frob(value);\n}}\n"
        )
    (tmp_path / "z.h").write_text("#define frob(x) ((x) + 1)\n")
    return tmp_path


def test_grep_budget_tokens_keeps_the_best_hits_under_their_heads(calls):
    box = Toolbox(Workspace(calls))
    result = box.call("grep_search", {"pattern": "frob", "budget_tokens": 40})
    text = ok(result)
    print(text)
    lines = text.split("\n")
    budget = result.data["budget"]
    assert budget["budget_tokens"] == 40 and budget["tokens"] <= 40
    kept = len(result.data["matches"])
    assert 1 < kept < 7 and budget["left_out"] == 7 - kept
    assert lines[0].endswith(
        f"[TRUNCATED: token budget: {budget['tokens']} of 40 tokens; {7 - kept} hits in "
        f"{7 - kept} files left out (./ {7 - kept})]"
    )
    # No page note: a budget answers at once.
    assert not any("offset=" in line for line in lines)
    assert "[definition: macro] #define frob(x) ((x) + 1)" in lines[2]
    # A call comes under the head of the function around it, shown as a context line.
    first_call = result.data["matches"][1]
    head = f"{first_call['file']}-1- static int caller_{first_call['file'][1]}(int value)"
    assert lines[4] == head, lines


def test_grep_budget_tokens_refuses_pages_path_order_and_other_modes(calls):
    box = Toolbox(Workspace(calls))
    for extra, says in (
        ({"offset": 2}, "drop offset, or drop budget_tokens"),
        ({"rank": False}, "drop rank=false or budget_tokens"),
        ({"output_mode": "count"}, "drop output_mode or budget_tokens"),
    ):
        text = error(box.call("grep_search", {"pattern": "frob", "budget_tokens": 40, **extra}))
        print(extra, text)
        assert says in text
        assert "stream" not in text
