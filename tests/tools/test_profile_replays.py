"""Calls replayed as each agent makes them (shapes from the agents' public tool definitions),
through `Toolbox.call`, with the exact text each agent's prompts expect and the edits' outcome
on disk."""

from __future__ import annotations

import os
import time

import pytest

from codesift import Workspace
from codesift.tools import Toolbox

APP = "def alpha():\n    return beta()\n\n# TODO one\ndef beta():\n    return 1  # TODO two\n"
FILES = {"src/app.py": APP, "README.md": "TODO: docs\n", "src/sub/deep.txt": "deep\n"}


@pytest.fixture
def root(tree):
    root = tree(FILES)
    # README.md is the newest file, src/app.py the oldest: the mtime orders are known.
    now = time.time()
    os.utime(root / "src/app.py", (now - 300, now - 300))
    os.utime(root / "src/sub/deep.txt", (now - 200, now - 200))
    os.utime(root / "README.md", (now - 100, now - 100))
    return root


def box(root, profile):
    return Toolbox(Workspace(root), profile=profile)


def ok(result):
    assert not result.is_error, result.text
    return result.text


# -- Claude Code -------------------------------------------------------------------------


def test_claude_code_grep_modes(root):
    t = box(root, "claude-code")
    assert ok(t.call("Grep", {"pattern": "TODO", "output_mode": "files_with_matches"})) == (
        "Found 2 files\nREADME.md\nsrc/app.py"
    )
    assert ok(
        t.call("Grep", {"pattern": "todo", "-i": True, "output_mode": "content", "-n": True})
    ) == ("README.md:1:TODO: docs\nsrc/app.py:4:# TODO one\nsrc/app.py:6:    return 1  # TODO two")
    assert ok(t.call("Grep", {"pattern": "todo"})) == "No files found"  # case-sensitive
    assert ok(t.call("Grep", {"pattern": "TODO", "output_mode": "count"})) == (
        "README.md:1\nsrc/app.py:2\n\nFound 3 total occurrences across 2 files."
    )
    content = t.call(
        "Grep", {"pattern": "beta", "path": "src/app.py", "output_mode": "content", "-C": 1}
    )
    assert ok(content) == (
        "1-def alpha():\n2:    return beta()\n3-\n4-# TODO one\n5:def beta():\n"
        "6-    return 1  # TODO two"
    )
    paged = t.call(
        "Grep", {"pattern": "TODO", "output_mode": "content", "head_limit": 1, "offset": 1}
    )
    assert ok(paged) == (
        "src/app.py:4:# TODO one\n\n[Showing results with pagination = limit: 1, offset: 1]"
    )
    typed = t.call("Grep", {"pattern": "TODO", "type": "py"})
    assert ok(typed) == "Found 1 file\nsrc/app.py"
    assert (
        ok(t.call("Grep", {"pattern": "TODO", "glob": "*.md,*.txt"})) == "Found 1 file\nREADME.md"
    )
    assert t.call("Grep", {"pattern": "x", "type": "nosuchtype"}).text.startswith(
        "<tool_use_error>unrecognized file type: nosuchtype"
    )


def test_claude_code_glob_is_newest_first_with_absolute_paths(root):
    t = box(root, "claude-code")
    assert ok(t.call("Glob", {"pattern": "**/*"})) == "\n".join(
        str(root / p) for p in ("README.md", "src/sub/deep.txt", "src/app.py")
    )
    assert ok(t.call("Glob", {"pattern": "*.rs"})) == "No files found"


def test_claude_code_read(root):
    t = box(root, "claude-code")
    text = ok(t.call("Read", {"file_path": str(root / "src/app.py"), "offset": 2, "limit": 2}))
    assert text == "     2→    return beta()\n     3→"
    short = t.call("Read", {"file_path": str(root / "README.md"), "offset": 9})
    assert ok(short) == (
        "<system-reminder>Warning: the file exists but is shorter than the provided offset (9). "
        "The file has 1 lines.</system-reminder>"
    )


def test_claude_code_edit_multiedit_write(root):
    t = box(root, "claude-code")
    path = str(root / "src/app.py")
    text = ok(
        t.call("Edit", {"file_path": path, "old_string": "return 1", "new_string": "return 2"})
    )
    assert text == (
        f"The file {path} has been updated. Here's the result of running `cat -n` on a snippet "
        "of the edited file:\n     2→    return beta()\n     3→\n     4→# TODO one\n"
        "     5→def beta():\n     6→    return 2  # TODO two\n     7→"
    )
    ambiguous = t.call("Edit", {"file_path": path, "old_string": "TODO", "new_string": "DONE"})
    assert ambiguous.is_error and ambiguous.text.startswith("<tool_use_error>")
    assert "lines 4, 6" in ambiguous.text or "4" in ambiguous.text
    everywhere = t.call(
        "Edit", {"file_path": path, "old_string": "TODO", "new_string": "DONE", "replace_all": True}
    )
    assert ok(everywhere) == (
        f"The file {path} has been updated. All occurrences of 'TODO' were successfully "
        "replaced with 'DONE'."
    )
    multi = t.call(
        "MultiEdit",
        {
            "file_path": path,
            "edits": [
                {"old_string": "alpha", "new_string": "first"},
                {"old_string": "def first", "new_string": "async def first"},
            ],
        },
    )
    assert ok(multi) == (
        f'Applied 2 edits to {path}:\n1. Replaced "alpha" with "first"\n'
        '2. Replaced "def first" with "async def first"'
    )
    assert (root / "src/app.py").read_text().startswith("async def first():\n")
    failed = t.call(
        "MultiEdit",
        {
            "file_path": path,
            "edits": [
                {"old_string": "beta()", "new_string": "gamma()", "replace_all": True},
                {"old_string": "no such text", "new_string": "x"},
            ],
        },
    )
    assert failed.is_error
    assert "beta()" in (root / "src/app.py").read_text()  # all or nothing
    new = str(root / "docs/new.md")
    assert ok(t.call("Write", {"file_path": new, "content": "# New\n"})) == (
        f"File created successfully at: {new}"
    )
    assert ok(t.call("Write", {"file_path": new, "content": "a\nb"})) == (
        f"The file {new} has been updated. Here's the result of running `cat -n` on a snippet "
        "of the edited file:\n     1→a\n     2→b"
    )


# -- opencode -----------------------------------------------------------------------------


def test_opencode_search_list_read(root):
    t = box(root, "opencode")
    assert ok(t.call("grep", {"pattern": "TODO", "include": "*.py"})) == (
        f"Found 2 matches\n{root}/src/app.py:\n  Line 4: # TODO one\n"
        "  Line 6:     return 1  # TODO two"
    )
    assert ok(t.call("grep", {"pattern": "nothing here"})) == "No files found"
    assert ok(t.call("glob", {"pattern": "**/*.py"})) == f"{root}/src/app.py"
    assert ok(t.call("list", {"path": str(root)})) == (
        f"{root}/\n  src/\n    sub/\n      deep.txt\n    app.py\n  README.md\n"
    )
    assert ok(t.call("list", {"ignore": ["sub/"]})).count("deep.txt") == 0
    read = t.call("read", {"filePath": str(root / "src/app.py"), "offset": 5})
    assert ok(read) == (
        f"<path>{root}/src/app.py</path>\n<type>file</type>\n<content>\n5: def beta():\n"
        "6:     return 1  # TODO two\n\n(End of file - total 6 lines)\n</content>"
    )
    partial = ok(t.call("read", {"filePath": str(root / "src/app.py"), "limit": 1}))
    assert partial.endswith(
        "1: def alpha():\n\n(Showing lines 1-1 of 6. Use offset=2 to continue.)\n</content>"
    )
    directory = ok(t.call("read", {"filePath": str(root / "src")}))
    assert directory == (
        f"<path>{root}/src</path>\n<type>directory</type>\n<entries>\napp.py\nsub/\n\n"
        "(2 entries)\n</entries>"
    )


def test_opencode_edits(root):
    t = box(root, "opencode")
    path = str(root / "src/app.py")
    assert ok(
        t.call("edit", {"filePath": path, "oldString": "return 1", "newString": "return 2"})
    ) == ("Edit applied successfully.")
    same = t.call("edit", {"filePath": path, "oldString": "x", "newString": "x"})
    assert same.text == "Error: No changes to apply: oldString and newString are identical."
    multi = t.call(
        "multiedit",
        {
            "filePath": path,
            "edits": [
                {"filePath": path, "oldString": "alpha", "newString": "one"},
                {"filePath": path, "oldString": "TODO", "newString": "NOTE", "replaceAll": True},
            ],
        },
    )
    assert ok(multi) == "Edit applied successfully."
    assert (root / "src/app.py").read_text() == APP.replace("return 1", "return 2").replace(
        "alpha", "one"
    ).replace("TODO", "NOTE")
    assert ok(t.call("write", {"filePath": str(root / "w.txt"), "content": "w\n"})) == (
        "Wrote file successfully."
    )
    patch = (
        "*** Begin Patch\n*** Add File: docs/a.md\n+# A\n*** Update File: README.md\n@@\n"
        "-TODO: docs\n+Docs.\n*** Delete File: w.txt\n*** End Patch"
    )
    assert ok(t.call("apply_patch", {"patchText": patch})) == (
        "Success. Updated the following files:\nA docs/a.md\nM README.md\nD w.txt"
    )
    assert (root / "docs/a.md").read_text() == "# A\n"
    assert (root / "README.md").read_text() == "Docs.\n"
    assert not (root / "w.txt").exists()


# -- gemini-cli -----------------------------------------------------------------------------


def test_gemini_grep_search(root):
    t = box(root, "gemini-cli")
    found = t.call("grep_search", {"pattern": "todo", "dir_path": "src", "context": 0})
    assert ok(found) == (
        'Found 2 matches for pattern "todo" in path "src":\n---\nFile: app.py\n'
        "L4: # TODO one\nL6:     return 1  # TODO two\n---"
    )
    excluded = t.call(
        "grep_search", {"pattern": "TODO", "exclude_pattern": "two|docs", "before": 1}
    )
    assert ok(excluded) == (
        'Found 1 match for pattern "TODO" in path ".":\n---\nFile: src/app.py\nL3- \n'
        "L4: # TODO one\n---"
    )
    names = t.call(
        "grep_search", {"pattern": "TODO", "names_only": True, "include_pattern": "*.py"}
    )
    assert ok(names) == (
        'Found 1 files with matches for pattern "TODO" in path "." (filter: "*.py"):\nsrc/app.py'
    )
    limited = t.call("grep_search", {"pattern": "TODO", "total_max_matches": 1, "context": 0})
    assert ok(limited).startswith(
        'Found 1 match for pattern "TODO" in path "." (results limited to 1 matches for '
        "performance):"
    )
    auto = ok(t.call("grep_search", {"pattern": "docs"}))  # one hit: 50 lines of context
    assert (
        auto == 'Found 1 match for pattern "docs" in path ".":\n---\nFile: README.md\n'
        "L1: TODO: docs\n---"
    )
    assert ok(t.call("grep_search", {"pattern": "zzz"})) == (
        'No matches found for pattern "zzz" in path ".".'
    )


def test_gemini_glob_list_read_replace_write(root):
    t = box(root, "gemini-cli")
    assert ok(t.call("glob", {"pattern": "**/*.PY"})) == (
        f'Found 1 file(s) matching "**/*.PY" within {root}, sorted by modification time '
        f"(newest first):\n{root}/src/app.py"
    )
    assert ok(t.call("list_directory", {"dir_path": str(root / "src")})) == (
        f"Directory listing for {root}/src:\n[DIR] sub\napp.py ({len(APP)} bytes)"
    )
    read = ok(t.call("read_file", {"file_path": "src/app.py", "start_line": 5, "end_line": 5}))
    assert read.endswith("--- FILE CONTENT (truncated) ---\ndef beta():")
    assert "Status: Showing lines 5-5 of 6 total lines." in read
    assert ok(t.call("read_file", {"file_path": "README.md"})) == "TODO: docs"
    replaced = t.call(
        "replace",
        {
            "file_path": "src/app.py",
            "instruction": "Return 2 from beta.",
            "old_string": "return 1",
            "new_string": "return 2",
        },
    )
    assert ok(replaced) == f"Successfully modified file: {root}/src/app.py (1 replacements)."
    assert "return 2" in (root / "src/app.py").read_text()
    # An empty old_string creates a file; on one that exists it is refused, as gemini-cli
    # refuses it, and the file is left as it was.
    before = (root / "src/app.py").read_text()
    create = {"instruction": "Create it.", "old_string": "", "new_string": "x = 1\n"}
    refused = t.call("replace", {"file_path": "src/app.py", **create})
    assert refused.is_error, refused.text
    assert refused.text.endswith("File already exists, cannot create: src/app.py"), refused.text
    assert (root / "src/app.py").read_text() == before
    created = t.call("replace", {"file_path": "src/new.py", **create})
    assert ok(created) == f"Created new file: {root}/src/new.py with provided content."
    assert (root / "src/new.py").read_text() == "x = 1\n"
    assert ok(t.call("write_file", {"file_path": "n.txt", "content": "n\n"})) == (
        f"Successfully created and wrote to new file: {root}/n.txt."
    )


# -- Cline ------------------------------------------------------------------------------------


def test_cline_tools(root):
    t = box(root, "cline")
    assert ok(t.call("search_files", {"path": "src", "regex": "TODO", "file_pattern": "*.py"})) == (
        "Found 2 results.\n\napp.py\n│----\n│\n│# TODO one\n│def beta():\n│----\n│def beta():\n"
        "│    return 1  # TODO two\n│----"
    )
    assert ok(t.call("list_files", {"path": ".", "recursive": "true"})) == (
        "src/\nsrc/sub/\nsrc/sub/deep.txt\nsrc/app.py\nREADME.md"
    )
    assert ok(t.call("list_files", {"path": "."})) == "src/\nREADME.md"
    assert ok(t.call("read_file", {"path": "src/app.py", "start_line": "5"})) == (
        "5 | def beta():\n6 |     return 1  # TODO two\n\n(File has 6 lines total.)"
    )
    diff = (
        "------- SEARCH\n    return 1  # TODO two\n=======\n    return 2  # TODO two\n"
        "+++++++ REPLACE\n"
    )
    saved = ok(t.call("replace_in_file", {"path": "src/app.py", "diff": diff}))
    assert saved.startswith(
        "The content was successfully saved to src/app.py.\n\nHere is the full, updated content "
        'of the file that was saved:\n\n<final_file_content path="src/app.py">\n'
        + APP.replace("return 1", "return 2")
    )
    bad = t.call("replace_in_file", {"path": "src/app.py", "diff": diff})
    assert bad.is_error
    assert bad.text.startswith("The tool execution failed with the following error:\n<error>\n")
    assert "The file was reverted to its original state:" in bad.text
    written = ok(t.call("write_to_file", {"path": "new.txt", "content": "new\n"}))
    # The file's own final newline is part of the content Cline shows.
    assert '<final_file_content path="new.txt">\nnew\n\n</final_file_content>' in written


# -- Codex ------------------------------------------------------------------------------------


def test_codex_tools(root):
    t = box(root, "codex")
    assert ok(t.call("grep_files", {"pattern": "TODO"})) == f"{root}/README.md\n{root}/src/app.py"
    assert ok(t.call("grep_files", {"pattern": "zzz"})) == "No matches found."
    read = t.call("read_file", {"file_path": str(root / "src/app.py"), "offset": 4, "limit": 2})
    assert ok(read) == "L4: # TODO one\nL5: def beta():"
    assert ok(t.call("list_dir", {"dir_path": str(root), "depth": 3})) == (
        f"Absolute path: {root}\nREADME.md\nsrc/\n  app.py\n  sub/\n    deep.txt"
    )
    assert ok(t.call("list_dir", {"dir_path": str(root), "limit": 1})) == (
        f"Absolute path: {root}\nREADME.md\nMore than 1 entries found"
    )
    patch = (
        "*** Begin Patch\n*** Update File: src/app.py\n*** Move to: src/main.py\n@@ def beta():\n"
        "-    return 1  # TODO two\n+    return 2  # TODO two\n*** Add File: hello.txt\n"
        "+Hello world\n*** Delete File: src/sub/deep.txt\n*** End Patch\n"
    )
    assert ok(t.call("apply_patch", {"input": patch})) == (
        "Success. Updated the following files:\nA hello.txt\nM src/main.py\nD src/sub/deep.txt\n"
    )
    assert (root / "src/main.py").read_text() == APP.replace("return 1", "return 2")
    assert not (root / "src/app.py").exists() and not (root / "src/sub/deep.txt").exists()
    failing = t.call(
        "apply_patch",
        {"input": "*** Begin Patch\n*** Update File: src/main.py\n@@\n-nope\n+x\n*** End Patch"},
    )
    assert failing.is_error
    assert (root / "src/main.py").read_text() == APP.replace("return 1", "return 2")


# -- SWE-agent ------------------------------------------------------------------------------


def test_swe_agent_editor(root):
    t = box(root, "swe-agent")
    path = str(root / "src/app.py")

    def call(**args):
        return t.call("str_replace_editor", args)

    assert ok(call(command="view", path=path, view_range=[5, -1])) == (
        f"Here's the result of running `cat -n` on {path}:\n     5\tdef beta():\n"
        "     6\t    return 1  # TODO two\n     7\t\n"
    )
    assert ok(call(command="view", path=str(root))) == (
        f"Here's the files and directories up to 2 levels deep in {root}, excluding hidden "
        f"items:\n{root}\n{root}/README.md\n{root}/src\n{root}/src/app.py\n{root}/src/sub\n"
    )
    edited = ok(call(command="str_replace", path=path, old_str="return 1", new_str="return 2"))
    assert edited == (
        f"The file {path} has been edited. Here's the result of running `cat -n` on a snippet "
        f"of {path}:\n     1\tdef alpha():\n     2\t    return beta()\n     3\t\n"
        "     4\t# TODO one\n"
        "     5\tdef beta():\n     6\t    return 2  # TODO two\nReview the changes and make sure "
        "they are as expected. Edit the file again if necessary."
    )
    twice = call(command="str_replace", path=path, old_str="TODO", new_str="X")
    assert twice.text == (
        "No replacement was performed. Multiple occurrences of old_str `TODO` in lines [4, 6]. "
        "Please ensure it is unique"
    )
    inserted = ok(call(command="insert", path=path, insert_line=1, new_str="    '''Doc.'''"))
    assert "     2\t    '''Doc.'''" in inserted
    assert (root / "src/app.py").read_text().startswith("def alpha():\n    '''Doc.'''\n")
    undone = ok(call(command="undo_edit", path=path))
    assert undone.startswith(f"Last edit to {path} undone successfully. Here's the result")
    assert (root / "src/app.py").read_text() == APP.replace("return 1", "return 2")
    assert ok(call(command="create", path=str(root / "src/new.py"), file_text="x = 1\n")) == (
        f"File created successfully at: {root}/src/new.py"
    )
    again = call(command="create", path=str(root / "src/new.py"), file_text="y\n")
    assert again.text == (
        f"File already exists at: {root}/src/new.py. Cannot overwrite files using command `create`."
    )
    relative = call(command="view", path="src/app.py")
    assert relative.text.startswith("The path src/app.py is not an absolute path")


# -- MCP filesystem server ------------------------------------------------------------------


def test_mcp_filesystem_tools(root):
    t = box(root, "mcp-filesystem")
    read = t.call("read_text_file", {"path": "src/app.py", "head": 2})
    assert ok(read) == "def alpha():\n    return beta()"
    assert read.data["content"] == read.text
    assert ok(t.call("read_text_file", {"path": "README.md"})) == "TODO: docs\n"
    assert ok(t.call("read_multiple_files", {"paths": ["README.md", "missing.md"]})).startswith(
        "README.md:\nTODO: docs\n\n\n---\nmissing.md: Error - "
    )
    diff = ok(
        t.call(
            "edit_file",
            {"path": "src/app.py", "edits": [{"oldText": "return 1", "newText": "return 2"}]},
        )
    )
    shown = f"{root}/src/app.py"
    assert diff == (
        f"```diff\nIndex: {shown}\n{'=' * 67}\n--- {shown}\toriginal\n+++ {shown}\tmodified\n"
        "@@ -2,5 +2,5 @@\n     return beta()\n \n # TODO one\n def beta():\n"
        "-    return 1  # TODO two\n+    return 2  # TODO two\n```\n\n"
    )
    dry = ok(
        t.call(
            "edit_file",
            {
                "path": "src/app.py",
                "edits": [{"oldText": "return 2", "newText": "return 3"}],
                "dryRun": True,
            },
        )
    )
    assert "+    return 3  # TODO two" in dry
    assert "return 2" in (root / "src/app.py").read_text()
    assert ok(t.call("list_directory", {"path": "src"})) == "[DIR] sub\n[FILE] app.py"
    tree = ok(t.call("directory_tree", {"path": "src", "excludePatterns": ["app.py"]}))
    assert tree == (
        '[\n  {\n    "name": "sub",\n    "type": "directory",\n    "children": [\n      {\n'
        '        "name": "deep.txt",\n        "type": "file"\n      }\n    ]\n  }\n]'
    )
    assert ok(t.call("search_files", {"path": ".", "pattern": "**/*.txt"})) == (
        f"{root}/src/sub/deep.txt"
    )
    assert ok(t.call("search_files", {"path": ".", "pattern": "*.txt"})) == "No matches found"
    assert ok(t.call("create_directory", {"path": "build/out"})) == (
        "Successfully created directory build/out"
    )
    assert (root / "build/out").is_dir() and not any((root / "build/out").iterdir())
    assert ok(t.call("move_file", {"source": "README.md", "destination": "build/README.md"})) == (
        "Successfully moved README.md to build/README.md"
    )
    assert (root / "build/README.md").read_text() == "TODO: docs\n"
    info = ok(t.call("get_file_info", {"path": "build/README.md"}))
    assert info.startswith("size: 11\nmodified: ") and info.endswith(
        "isDirectory: false\nisFile: true"
    )
    assert ok(t.call("list_allowed_directories", {})) == f"Allowed directories:\n{root}"
    assert (
        ok(t.call("write_file", {"path": "w.txt", "content": "w"})) == "Successfully wrote to w.txt"
    )
    missing = t.call("edit_file", {"path": "w.txt", "edits": [{"oldText": "zzz", "newText": "y"}]})
    assert missing.is_error and not missing.text.startswith("Error:")
