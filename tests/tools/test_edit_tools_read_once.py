"""Every profile's edit, write, insert, patch and undo tool shows what it shows from the edit's
result: once the file is written, the tool reads nothing more from the workspace (no second
read of the file, no grep, no existence check), and its text is what reading the file again
would have shown."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tool_helpers import edit_args

from codesift import Workspace
from codesift.errors import BinaryFileError
from codesift.tools import Toolbox
from codesift.tools.lines import edited_lines, edited_text, full_text, written_text

LONG = "".join(f"line {k}\n" for k in range(1, 41))

# What each tool's call writes in a tree holding `a.txt` (LONG): (profile, tool, arguments).
# Paths that the agent sends absolute are written `{root}/...`.
CALLS: list[tuple[str, str, dict[str, Any]]] = [
    (
        "claude-code",
        "Edit",
        {"file_path": "a.txt", "old_string": "line 20\n", "new_string": "twenty\n"},
    ),
    # new_string ends with more newlines than the lines it writes: the snippet Claude Code
    # shows reaches past the lines around the change.
    (
        "claude-code",
        "Edit",
        {"file_path": "a.txt", "old_string": "line 20", "new_string": "twenty" + "\n" * 9},
    ),
    (
        "claude-code",
        "Edit",
        {
            "file_path": "a.txt",
            "old_string": "line 2\n",
            "new_string": "two\n",
            "replace_all": True,
        },
    ),
    (
        "claude-code",
        "MultiEdit",
        {"file_path": "a.txt", "edits": [{"old_string": "line 3\n", "new_string": "three\n"}]},
    ),
    ("claude-code", "Write", {"file_path": "a.txt", "content": "new\n"}),
    ("claude-code", "Write", {"file_path": "b.txt", "content": "new\n"}),
    (
        "swe-agent",
        "str_replace_editor",
        {
            "command": "str_replace",
            "path": "{root}/a.txt",
            "old_str": "line 20\n",
            "new_str": "x\ny\n",
        },
    ),
    (
        "swe-agent",
        "str_replace_editor",
        {"command": "insert", "path": "{root}/a.txt", "insert_line": 5, "new_str": "inserted"},
    ),
    (
        "swe-agent",
        "str_replace_editor",
        {"command": "create", "path": "{root}/n.txt", "file_text": "fresh\n"},
    ),
    (
        "cline",
        "replace_in_file",
        {"path": "a.txt", "diff": "------- SEARCH\nline 7\n=======\nseven\n+++++++ REPLACE\n"},
    ),
    ("cline", "write_to_file", {"path": "a.txt", "content": "all\r\nnew\n"}),
    (
        "mcp-filesystem",
        "edit_file",
        {"path": "a.txt", "edits": [{"oldText": "line 9", "newText": "nine"}]},
    ),
    (
        "mcp-filesystem",
        "edit_file",
        {"path": "a.txt", "dryRun": True, "edits": [{"oldText": "line 9", "newText": "nine"}]},
    ),
    ("mcp-filesystem", "write_file", {"path": "a.txt", "content": "x\n"}),
    (
        "codex",
        "apply_patch",
        {
            "input": "*** Begin Patch\n*** Update File: a.txt\n@@\n-line 4\n"
            "+four\n*** Add File: n.txt\n+n\n*** End Patch"
        },
    ),
    (
        "gemini-cli",
        "replace",
        {"file_path": "a.txt", "instruction": "i", "old_string": "line 5", "new_string": "five"},
    ),
    (
        "gemini-cli",
        "replace",
        {"file_path": "n.txt", "instruction": "i", "old_string": "", "new_string": "five"},
    ),
    ("gemini-cli", "write_file", {"file_path": "a.txt", "content": "x\n"}),
    (
        "opencode",
        "edit",
        {"filePath": "a.txt", "oldString": "line 5", "newString": "five"},
    ),
    (
        "opencode",
        "multiedit",
        {"filePath": "a.txt", "edits": [{"oldString": "line 5", "newString": "five"}]},
    ),
    ("opencode", "write", {"filePath": "a.txt", "content": "x\n"}),
    (
        "opencode",
        "apply_patch",
        {"patchText": "*** Begin Patch\n*** Update File: a.txt\n@@\n-line 4\n+four\n*** End Patch"},
    ),
    (
        "simple-coder",
        "replace",
        edit_args("a.txt", "line 33", "x"),
    ),
    (
        "ace",
        "filesystem-edit_search",
        {"filePath": "a.txt", "searchContent": "line 5", "replaceContent": "five"},
    ),
    (
        "openlink",
        "edit",
        edit_args("a.txt", "line 5", "five"),
    ),
    ("openlink", "write_file", {"path": "a.txt", "content": "x\n"}),
    (
        "codesift",
        "edit",
        edit_args("a.txt", "line 5", "five"),
    ),
    (
        "codesift",
        "edit_many",
        {"path": "a.txt", "edits": [{"old_string": "line 5", "new_string": "five"}]},
    ),
    (
        "codesift",
        "apply_patch",
        {"patch": "*** Begin Patch\n*** Update File: a.txt\n@@\n-line 4\n+four\n*** End Patch"},
    ),
    ("codesift", "write_file", {"path": "a.txt", "content": "x\n"}),
]

#: Workspace methods that write (or, with dry_run, plan a write): the tool's edit.
EDITS = ("edit", "edit_many", "edit_result", "insert", "write", "apply_patch", "undo_edit")


class EngineSpy:
    """The workspace's engine, with every call after the edit recorded."""

    def __init__(self, engine: Any, log: list[str]) -> None:
        self._engine, self._log = engine, log

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._engine, name)
        if not callable(value):
            return value

        def call(*args: Any, **kwargs: Any) -> Any:
            self._log.append(f"engine.{name}")
            return value(*args, **kwargs)

        return call


def spied(workspace: Workspace) -> list[str]:
    """The log of `workspace`: each edit as `edit:<method>` (once it returned), each engine
    call, each `Workspace.read` / `lines` / `grep` / `glob` / `list_dir` as `read:<method>`."""
    log: list[str] = []
    workspace._engine = EngineSpy(workspace._engine, log)
    for name in EDITS:
        _logged(workspace, name, log, f"edit:{name}", after=True)
    for name in ("read", "lines", "grep", "glob", "list_dir"):
        _logged(workspace, name, log, f"read:{name}", after=False)
    return log


def _logged(workspace: Workspace, name: str, log: list[str], entry: str, *, after: bool) -> None:
    method = getattr(workspace, name)

    def call(*args: Any, **kwargs: Any) -> Any:
        if not after:
            log.append(entry)
        result = method(*args, **kwargs)
        if after:
            log.append(entry)
        return result

    setattr(workspace, name, call)


def _after_edit(log: list[str]) -> list[str]:
    edits = [k for k, entry in enumerate(log) if entry.startswith("edit:")]
    assert edits, f"the tool made no edit: {log}"
    return log[edits[0] + 1 :]


def _call(root: Path, profile: str, tool: str, args: dict[str, Any]) -> Any:
    workspace = Workspace(root)
    log = spied(workspace)
    given = {
        k: v.replace("{root}", str(root)) if isinstance(v, str) else v for k, v in args.items()
    }
    result = Toolbox(workspace, profile=profile).call(tool, given)
    return result, log


@pytest.mark.parametrize(
    ("profile", "tool", "args"),
    CALLS,
    ids=[f"{p}-{t}-{k}" for k, (p, t, _) in enumerate(CALLS)],
)
def test_edit_tool_reads_nothing_after_its_edit(tree, profile, tool, args):
    result, log = _call(tree({"a.txt": LONG}), profile, tool, args)
    assert not result.is_error, result.text
    after = _after_edit(log)
    assert after == [], (
        f"{profile} {tool} read after writing: expected no call, got {after} (log: {log})"
    )


def test_swe_agent_undo_reads_nothing_after_the_undo(tree):
    root = tree({"a.txt": LONG})
    workspace = Workspace(root)
    box = Toolbox(workspace, profile="swe-agent")
    edit = {
        "command": "str_replace",
        "path": f"{root}/a.txt",
        "old_str": "line 3\n",
        "new_str": "three\n",
    }
    assert not box.call("str_replace_editor", edit).is_error
    log = spied(workspace)
    result = box.call("str_replace_editor", {"command": "undo_edit", "path": f"{root}/a.txt"})
    assert not result.is_error, result.text
    after = _after_edit(log)
    assert after == [], f"undo_edit read after the undo: expected no call, got {after}"
    assert "     3\tline 3\n" in result.text, result.text
    assert result.text.endswith("    40\tline 40\n    41\t\n"), result.text


# -- the text shown from the result is the text a read shows --------------------------------

CONTENTS: list[bytes] = [
    b"",
    b"\n",
    b"MARK",
    b"MARK\n",
    b"a\r\nMARK\r\nb\r\n",
    b"a\rMARK\r\r\nb\r",
    b"\xef\xbb\xbfMARK\nbom\n",
    b"\xef\xbb\xbf\xef\xbb\xbfMARK\n",
    b"latin \xe9\xff\nMARK\n",
    b"form\x0cfeed\x1c\xe2\x80\xa8sep\nMARK\n\n\n",
    b"x" * 2500 + b"\n" + "é".encode() * 2100 + b"\nMARK",
    "MARK\r\nutf16\r\n".encode("utf-16"),
]
NEW = ["", "\n", "X", "X\r\n", "two\nlines\n", "\r", "ü\n\n"]


@pytest.mark.parametrize("content", [c for c in CONTENTS if b"M\x00" in c or b"MARK" in c])
@pytest.mark.parametrize("new", NEW)
def test_shown_text_of_an_edit_is_what_reading_the_file_shows(tree, content, new):
    root = tree({})
    (root / "f.txt").write_bytes(content)
    workspace = Workspace(root)
    before = full_text(workspace, "f.txt")
    result = workspace.edit("f.txt", "MARK", new, fuzzy=False)
    after = full_text(workspace, "f.txt")
    assert edited_text(result.old_text, result.path) == before, (before, result.old_text)
    assert edited_text(result.new_text, result.path) == after, (after, result.new_text)
    rows = after.split("\n")
    for start in range(0, len(rows) + 2):
        for end in (start, start + 1, start + 3, len(rows), len(rows) + 4):
            expected = rows[start:end]
            actual = edited_lines(workspace, "f.txt", result, start, end)
            assert actual == expected, f"[{start}:{end}] {expected!r} != {actual!r}"


@pytest.mark.parametrize("content", CONTENTS, ids=range(len(CONTENTS)))
def test_shown_text_of_a_write_is_what_reading_the_file_shows(tree, content):
    workspace = Workspace(tree({}))
    text = content.decode("utf-8", "surrogateescape")
    result = workspace.write("w.txt", text)
    assert written_text(text, result.path) == full_text(workspace, "w.txt"), repr(content)


def test_shown_text_of_a_binary_write_is_the_read_error(tree):
    workspace = Workspace(tree({}))
    result = workspace.write("w.bin", "a\x00b")
    with pytest.raises(BinaryFileError) as read:
        full_text(workspace, "w.bin")
    with pytest.raises(BinaryFileError) as shown:
        written_text("a\x00b", result.path)
    assert str(shown.value) == str(read.value), (str(read.value), str(shown.value))


@pytest.mark.parametrize(
    ("profile", "tool", "args"),
    [
        (
            "mcp-filesystem",
            "edit_file",
            {"path": "bin", "edits": [{"oldText": "a", "newText": "b"}]},
        ),
        (
            "cline",
            "replace_in_file",
            {"path": "bin", "diff": "------- SEARCH\na\n=======\nb\n+++++++ REPLACE\n"},
        ),
    ],
)
def test_edit_of_an_unreadable_file_fails_as_reading_it_does(tree, profile, tool, args):
    root = tree({})
    (root / "bin").write_bytes(b"a\x00b")
    result = Toolbox(Workspace(root), profile=profile).call(tool, args)
    expected = "bin is a binary file (it contains NUL bytes); it cannot be read as text"
    assert result.is_error and expected in result.text, (expected, result.text)
