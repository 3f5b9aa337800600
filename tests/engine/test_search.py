"""Workspace.search: a question in words answered by keywords (BM25F over path, definitions
and matching lines, times term coverage): the file whose definitions hold every term beats
one with many hits of one term; identifiers split; stop words dropped; tests below their
source; a question of stop words only is a clear error."""

from __future__ import annotations

from pathlib import Path

import pytest

from codesift import Workspace
from codesift.errors import InvalidArgumentError


def plant(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def order(result) -> list[str]:
    return [hit.file for hit in result.results]


def test_a_file_defining_every_term_beats_many_hits_of_one(tmp_path):
    root = plant(
        tmp_path,
        {
            # Many hits of one term, no other.
            "noise.py": "".join(f"retry_count_{i} = {i}  # retry\n" for i in range(40)),
            # Every term, in the names of its definitions.
            "session.py": "def retry_session_backoff(delay):\n    return delay * 2\n",
        },
    )
    result = Workspace(root).search("how does the session backoff retry")
    got = order(result)
    assert got[:2] == ["session.py", "noise.py"], f"expected session.py first, got {got}"
    best = result.results[0]
    assert best.symbols == ("retry_session_backoff",), best
    assert best.why.startswith("all 3 terms"), best.why
    assert "defines retry_session_backoff (function)" in best.why, best.why
    assert best.lines[0] == (1, "def retry_session_backoff(delay):"), best.lines
    assert result.results[1].why.startswith("1 of 3 terms"), result.results[1].why
    assert set(result.terms) == {"session", "backoff", "retry"}, result.terms


def test_terms_split_identifiers_and_drop_stop_words(tmp_path):
    root = plant(tmp_path, {"a.py": "x = 1\n"})
    result = Workspace(root).search("Where is the HTTPServerError raised for skipUnknown?")
    want = ["httpservererror", "http", "server", "error", "rais", "skipunknown", "skip", "unknown"]
    assert list(result.terms) == want, f"expected {want}, got {list(result.terms)}"


def test_a_term_matches_inside_identifiers(tmp_path):
    root = plant(
        tmp_path,
        {"walk.go": "package w\n\nfunc skipUnknownEntries() {}\n", "other.go": "package w\n"},
    )
    result = Workspace(root).search("skip unknown entries")
    assert order(result) == ["walk.go"], order(result)
    assert result.results[0].symbols == ("skipUnknownEntries",), result.results[0]


def test_a_test_file_ranks_below_its_source(tmp_path):
    body = "def parse_config(text):\n    return text\n"
    root = plant(tmp_path, {"tests/test_config.py": body, "zzz/config.py": body})
    result = Workspace(root).search("parse config")
    got = order(result)
    assert got == ["zzz/config.py", "tests/test_config.py"], f"expected source first: {got}"
    assert result.results[1].why.endswith("test file"), result.results[1].why


def test_ties_are_in_path_order_and_results_are_capped(tmp_path):
    root = plant(tmp_path, {f"d{i}.txt": "widget\n" for i in range(5)})
    result = Workspace(root).search("widget", max_results=3)
    assert order(result) == ["d0.txt", "d1.txt", "d2.txt"], order(result)
    assert result.files_searched == 5
    data = result.to_dict()
    assert data["terms"] == ["widget"] and len(data["results"]) == 3
    assert data["results"][0]["lines"] == [{"line": 1, "text": "widget"}]
    assert "3 files for 'widget'" in result.summary, result.summary


def test_include_and_type_narrow_the_files(tmp_path):
    root = plant(tmp_path, {"a.py": "widget = 1\n", "b.rs": "const WIDGET: u8 = 1;\n"})
    ws = Workspace(root)
    assert order(ws.search("widget", include="*.rs")) == ["b.rs"]
    assert order(ws.search("widget", type="py")) == ["a.py"]


@pytest.mark.parametrize("question", ["how is it", "what does the a do?", "", "   "])
def test_a_question_of_stop_words_only_is_a_clear_error(tmp_path, question):
    root = plant(tmp_path, {"a.py": "x = 1\n"})
    with pytest.raises(InvalidArgumentError) as raised:
        Workspace(root).search(question)
    message = str(raised.value)
    if question:
        assert "no words to search for" in message and "e.g." in message, message
    else:
        assert "question must not be empty" in message, message


def test_no_file_holds_a_term(tmp_path):
    root = plant(tmp_path, {"a.py": "x = 1\n"})
    result = Workspace(root).search("frobnitz")
    assert result.results == () and result.terms == ("frobnitz",)
    assert "No files match" in result.text()
