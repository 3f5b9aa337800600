"""File names that are not UTF-8 through the tool layer: Python holds them as `str`
with `surrogateescape`; tool text shows them as `\\xNN`, `data` keeps the exact string (JSON
escapes it as `\\udcff`), and a path argument in the `\\xNN` form names the file."""

from __future__ import annotations

import json
import os

import pytest

from codesift import Workspace
from codesift.text.escapes import (
    escape_surrogates,
    json_escape_surrogates,
    json_safe,
    unescape_path,
)
from codesift.tools import Toolbox

NAME = os.fsdecode(b"t\xff.txt")  # "t\udcff.txt"
SHOWN = "t\\xff.txt"  # how tool text shows it


@pytest.fixture
def toolbox(tree):
    return Toolbox(Workspace(tree({"a.txt": "alpha\n"})))


def test_escape_and_unescape():
    assert NAME == "t\udcff.txt"
    assert escape_surrogates(NAME) == SHOWN
    assert escape_surrogates(NAME) == os.fsencode(NAME).decode("utf-8", "backslashreplace")
    assert escape_surrogates("a\ud800b") == "a\\ud800b"
    assert unescape_path(SHOWN) == NAME
    assert unescape_path("plain.txt") == "plain.txt"
    assert unescape_path("caf\\xc3\\xa9") == "café"  # escaped bytes that are UTF-8: same file
    assert unescape_path("a\\x41") == "a\\x41"  # bytes below 0x80 are never escaped
    assert json_safe({NAME: [NAME, 1, None]}) == {SHOWN: [SHOWN, 1, None]}
    encoded = json_escape_surrogates(json.dumps({"p": NAME, "q": "é"}, ensure_ascii=False))
    assert encoded == '{"p": "t\\udcff.txt", "q": "é"}'
    assert json.loads(encoded)["p"] == NAME


def test_write_file_with_a_non_utf8_name(toolbox):
    # Wrote the file but returned is_error=True (the text failed to encode).
    result = toolbox.call("write_file", {"path": NAME, "content": "x\n"})
    assert not result.is_error, result.text
    assert result.text == f"Created {SHOWN} (2 bytes)"
    result.text.encode("utf-8")  # what a model API will do with it
    assert result.data is not None and result.data["path"] == NAME  # exact in data
    assert json.loads(json.dumps(result.to_dict()))["data"]["path"] == NAME
    assert (toolbox.workspace.root / NAME).exists()
    assert os.path.exists(os.path.join(os.fsencode(toolbox.workspace.root), b"t\xff.txt"))


def test_the_escaped_form_names_the_file(toolbox):
    toolbox.call("write_file", {"path": NAME, "content": "hello\n"})
    read = toolbox.call("read_file", {"path": SHOWN})
    assert not read.is_error, read.text
    assert read.text == "     1\thello"
    edited = toolbox.call("edit", {"path": SHOWN, "old_string": "hello", "new_string": "bye"})
    assert not edited.is_error, edited.text
    assert f"Edited {SHOWN}" in edited.text and "+++ b/t\\xff.txt" in edited.text
    assert toolbox.call("read_file", {"path": NAME}).text == "     1\tbye"
    assert not toolbox.call("read_file", {"path": SHOWN + ":1-1"}).is_error
    written = toolbox.call("write_file", {"path": "sub/u\\xfe.txt", "content": "z"})
    assert not written.is_error
    assert os.path.exists(os.path.join(os.fsencode(toolbox.workspace.root), b"sub/u\xfe.txt"))


def test_an_existing_file_with_a_backslash_in_its_name_is_taken_literally(toolbox):
    root = toolbox.workspace.root
    (root / SHOWN).write_text("literal\n")  # a file really named t\xff.txt (backslash, x)
    toolbox.call("write_file", {"path": NAME, "content": "byte\n"})
    assert toolbox.call("read_file", {"path": SHOWN}).text == "     1\tliteral"
    assert toolbox.call("read_file", {"path": NAME}).text == "     1\tbyte"


def test_errors_about_such_names_are_escaped(toolbox):
    result = toolbox.call("read_file", {"path": "missing\\xff.txt"})
    assert result.is_error and "missing\\xff.txt" in result.text
    result.text.encode("utf-8")
    assert result.data is not None
    result.data["error"]["message"].encode("utf-8")


def test_lone_surrogates_that_no_file_name_has(toolbox):
    bad_path = toolbox.call("write_file", {"path": "u\ud800.txt", "content": "x"})
    assert bad_path.is_error and "not a possible file name" in bad_path.text
    assert "u\\ud800.txt" in bad_path.text
    bad_content = toolbox.call("write_file", {"path": "u.txt", "content": "x\ud800"})
    assert bad_content.is_error and "content holds the lone surrogate U+D800" in bad_content.text
    bad_new = toolbox.call("edit", {"path": "a.txt", "old_string": "alpha", "new_string": "\ud800"})
    assert bad_new.is_error and "new_string" in bad_new.text
    assert (toolbox.workspace.root / "a.txt").read_text() == "alpha\n"
    assert not (toolbox.workspace.root / "u.txt").exists()


def test_search_results_carry_the_exact_name_and_show_it_escaped(toolbox):
    toolbox.call("write_file", {"path": NAME, "content": "needle\n"})
    globbed = toolbox.call("glob", {"pattern": "t*.txt"})
    assert globbed.data is not None and globbed.data["files"][0]["path"] == NAME
    assert SHOWN in globbed.text.splitlines()
    grepped = toolbox.call("grep", {"pattern": "needle"})
    assert grepped.data is not None and grepped.data["matches"][0]["file"] == NAME
    assert f"{SHOWN}:1:1 [" in grepped.text
    listed = toolbox.call("list_dir", {})
    assert listed.data is not None and NAME in listed.data["entries"]
    assert SHOWN in listed.text.splitlines()
