"""Summaries an LLM reads: nouns in the right number ("1 directory", "0 directories")."""

from __future__ import annotations

import re

import pytest

from codesift import Workspace
from codesift.results.files import ListResult, ReadResult
from codesift.results.matches import plural
from codesift.tools import Toolbox

# Words a naive "+s" plural gets wrong, and counts before singular nouns other than 1.
WRONG = re.compile(
    r"directorys|entrys|matchs|\b(?:[02-9]|\d\d+) (?:item|file|line|entry|byte|match)\b"
    r"|(?<![\d.])1 (?:items|files|lines|entries|bytes|matches|directories)\b"
)


def test_plural():
    assert plural(1, "directory", "directories") == "1 directory"
    assert plural(0, "directory", "directories") == "0 directories"
    assert plural(2, "file") == "2 files"
    assert plural(1, "match", "matches") == "1 match"


def test_list_dir_summary_counts_directories(tree):
    ws = Workspace(tree({"a.txt": "x", "b.txt": "y"}))
    assert ws.list_dir().summary == "Listed 2 entries in . (0 directories, 2 files shown)"
    ws = Workspace(tree({"d/a.txt": "x", "e/b.txt": "y", "f.txt": "z"}))
    assert ws.list_dir().summary == "Listed 3 entries in . (2 directories, 1 file shown)"
    ws = Workspace(tree({"d/a.txt": "x"}))
    assert ws.list_dir().summary == "Listed 1 entry in . (1 directory, 0 files shown)"


def test_truncation_of_one_item(tree):
    ws = Workspace(tree({"a.txt": "x", "b.txt": "y"}))
    result = ws.list_dir(limit=1)
    assert result.text.splitlines()[-1] == "[TRUNCATED: first 1 item]"
    assert result.summary.endswith("(0 directories, 1 file shown) [TRUNCATED: first 1 item]")


def test_read_of_one_line(tree):
    ws = Workspace(tree({"a.txt": "one\ntwo\n"}))
    assert ws.read("a.txt", limit=1).summary.startswith("Read line 1 of a.txt [TRUNCATED")
    assert ws.read("a.txt").summary == "Read lines 1-2 of a.txt (2 lines)"


@pytest.mark.parametrize("count", [0, 1, 2, 11])
def test_no_summary_has_a_wrong_plural(tree, count):
    files = {f"d{k}/x.txt": "hit\n" for k in range(count)}
    files.update({f"f{k}.txt": "hit\n" * count for k in range(count)})
    root = tree(files)
    ws = Workspace(root)
    summaries = [
        ws.list_dir().summary,
        ws.list_dir(limit=max(1, count - 1)).summary,
        ws.glob("*.txt").summary,
        ws.glob("*.txt", limit=1).summary,
        ws.grep("hit").summary,
        ws.grep("hit", max_matches=1).summary,
        ws.write("w.txt", "x" * count).summary,
        ListResult(".", ["a/"] * count, count, False).summary,
        ReadResult("a", "", 1, count, False, count, long_lines=count).summary,
    ]
    if count:
        summaries.append(ws.read("f0.txt").summary)
        summaries.append(ws.edit("f0.txt", "hit", "HIT", replace_all=True).summary)
    for summary in summaries:
        assert not WRONG.search(summary), summary


def test_spill_note_of_a_single_oversized_line(tree, tmp_path):
    ws = Workspace(tree({}))
    toolbox = Toolbox(ws, spill_dir=tmp_path / "spill", max_output_bytes=1000)
    deep = "/".join(["n" * 200] * 6) + "/f.txt"
    result = toolbox.call("write_file", {"path": deep, "content": "x"})
    assert not result.is_error, result.text
    assert "[TRUNCATED: output was 1 line (" in result.text
    assert "its first line alone is over the size cap" in result.text
    assert not WRONG.search(result.text), result.text
    assert result.data is not None and result.data["spill_file"]
