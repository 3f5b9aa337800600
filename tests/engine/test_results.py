"""Result sequences and the views they hand out: list-like behaviour, fields read from the
store on access, glob metadata read on first access."""

from __future__ import annotations

import os
from collections.abc import Sequence

import pytest

from codesift import GlobMatch, GrepMatch, Workspace


@pytest.fixture
def hits(tree):
    root = tree({"a.txt": "x1 x2\nno\nx3\n", "b/c.txt": "x4\n", "d.bin": b"x\0"})
    return Workspace(root).grep("x", max_matches=None).matches


def fields(m: GrepMatch) -> tuple:
    return (m.file, m.line, m.column, m.end_line, m.byte_offset, m.content, m.text)


def test_grep_matches_behave_like_a_list(hits):
    expected = [
        ("a.txt", 1, 1, 1, 0, "x", "x1 x2"),
        ("a.txt", 1, 4, 1, 3, "x", "x1 x2"),
        ("a.txt", 3, 1, 3, 9, "x", "x3"),
        ("b/c.txt", 1, 1, 1, 0, "x", "x4"),
    ]
    assert isinstance(hits, Sequence)
    assert len(hits) == 4 and bool(hits)
    assert [fields(m) for m in hits] == expected
    assert [fields(hits[i]) for i in range(-4, 0)] == expected
    assert [fields(m) for m in hits[1:3]] == expected[1:3]
    assert [fields(m) for m in hits[::-2]] == [expected[3], expected[1]]
    assert isinstance(hits[1:3], list)
    assert [fields(m) for m in reversed(hits)] == expected[::-1]
    with pytest.raises(IndexError):
        hits[4]
    with pytest.raises(IndexError):
        hits[-5]
    with pytest.raises(TypeError):
        hits["0"]


def test_views_compare_by_value_not_identity(hits):
    assert hits[0] == hits[0] and hits[0] is not hits[0]
    assert hits[0] != hits[1]
    assert hash(hits[2]) == hash(hits[2])
    assert hits[3] in hits
    assert hits == list(hits) and list(hits) == hits
    assert hits != list(hits)[:3] and hits != "xxxx"
    assert hits + [] == list(hits) and [] + hits == list(hits)
    assert len(hits + hits) == 8
    assert repr(hits).startswith("[GrepMatch(id=") and repr(hits).count("GrepMatch(") == 4


def test_empty_results_equal_an_empty_list(tree):
    result = Workspace(tree({"a.txt": "a\n"})).grep("zzz")
    assert result.matches == [] and not result.matches and len(result.matches) == 0
    assert list(result.matches) == []


def test_every_view_reads_the_same_hit_data(tree):
    root = tree({"f.txt": "a\nneedle one\nb\nneedle two\nc\n"})
    result = Workspace(root).grep("needle", context_lines=1)
    first, second = result.matches
    assert (first.before, first.after) == (["a"], ["b"])
    assert (second.before, second.after) == (["b"], ["c"])
    assert first.to_dict() == result.matches[0].to_dict()
    assert first.id != second.id and first.id == result.matches[0].id
    assert first.unique is False and first.byte_length == len("needle")
    assert first.encoding == "utf-8" and first.file_size == len("a\nneedle one\nb\nneedle two\nc\n")


def test_hits_on_one_line_share_its_text_and_keep_their_own_content(tree):
    root = tree({"f.txt": "ab ab ab\r\nab\n"})
    matches = Workspace(root).grep("a(b)", max_matches=None).matches
    assert [(m.line, m.column, m.content, m.text) for m in matches] == [
        (1, 1, "ab", "ab ab ab"),
        (1, 4, "ab", "ab ab ab"),
        (1, 7, "ab", "ab ab ab"),
        (2, 1, "ab", "ab"),
    ]


def test_multiline_content_keeps_the_files_line_endings(tree):
    root = tree({"f.txt": "one\r\ntwo\r\n"})
    (m,) = Workspace(root).grep("one\ntwo").matches
    assert (m.content, m.text, m.line, m.end_line) == ("one\r\ntwo", "one", 1, 2)


def test_invalid_utf8_is_shown_lossily_with_exact_offsets(tree):
    root = tree({"f.txt": b"a\xff-x \xe9x\n"})
    matches = Workspace(root).grep("x", max_matches=None).matches
    shown = "a\ufffd-x \ufffdx"
    assert [(m.byte_offset, m.column, m.text) for m in matches] == [(3, 4, shown), (6, 7, shown)]


def test_match_built_from_python_round_trips():
    m = GrepMatch(
        "sr_given", "a.txt", 2, 3, 4, 10, "co\nnt", "text",
        before=["b"], after=["a1", "a2"], host="h1", byte_length=7, unique=True,
        file_size=99, file_mtime_ns=5, encoding="utf-16-le",
    )  # fmt: skip
    assert (m.id, m.file, m.line, m.column, m.end_line, m.byte_offset) == (
        "sr_given", "a.txt", 2, 3, 4, 10,
    )  # fmt: skip
    assert (m.content, m.text, m.before, m.after, m.host) == (
        "co\nnt",
        "text",
        ["b"],
        ["a1", "a2"],
        "h1",
    )
    assert (m.byte_length, m.unique, m.file_size, m.file_mtime_ns, m.encoding) == (
        7, True, 99, 5, "utf-16-le",
    )  # fmt: skip
    assert m.to_dict()["host"] == "h1"
    assert GrepMatch("sr_a", "f", 1, 1, 1, 0, "x", "x").byte_length == 1
    assert GrepMatch("sr_a", "f", 1, 1, 1, 0, "x", "x") == GrepMatch(
        "sr_a", "f", 1, 1, 1, 0, "x", "x"
    )
    assert GrepMatch("sr_a", "f", 1, 1, 1, 0, "x", "x") != GrepMatch(
        "sr_b", "f", 1, 1, 1, 0, "x", "x"
    )


def test_glob_files_behave_like_a_list(tree):
    root = tree({"a.py": "1", "b/c.py": "22", "d.txt": ""})
    files = Workspace(root).glob("*.py").files
    assert isinstance(files, Sequence) and len(files) == 2
    assert [f.path for f in files] == ["a.py", "b/c.py"] and files[-1].path == "b/c.py"
    assert [f.path for f in files[:1]] == ["a.py"]
    assert files == list(files) and files[0] == files[0]
    assert GlobMatch("x", 1, 2, host="h") == GlobMatch("x", 1, 2, host="h")
    assert GlobMatch("x", 1, 2, host="h") != GlobMatch("x", 1, 2)


def test_glob_metadata_is_read_on_first_access(tree):
    root = tree({"a.py": "1", "b.py": "22"})
    os.utime(root / "a.py", ns=(1_000_000_000_000, 1_500_000_123_000_000))
    files = Workspace(root).glob("*.py").files
    a, b = files
    assert (a.mtime_ms, a.size) == (1_500_000_123, 1)
    # Written after the search, before anyone asked: the first access sees it, then it stays.
    (root / "b.py").write_text("4444")
    assert b.size == 4
    (root / "b.py").write_text("55555")
    assert b.size == 4 and files[1].size == 4
    assert b.to_dict() == {"path": "b.py", "mtime_ms": b.mtime_ms, "size": 4}


def test_glob_file_deleted_before_access_reads_as_zero(tree):
    root = tree({"gone.py": "1"})
    (gone,) = Workspace(root).glob("*.py").files
    (root / "gone.py").unlink()
    assert (gone.path, gone.mtime_ms, gone.size) == ("gone.py", 0, 0)


def test_glob_sorted_by_mtime_keeps_the_walks_metadata(tree):
    root = tree({"old.py": "1", "new.py": "22"})
    os.utime(root / "old.py", ns=(0, 1_000_000_000_000_000))
    os.utime(root / "new.py", ns=(0, 2_000_000_000_000_000))
    files = Workspace(root).glob("*.py", sort="mtime").files
    (root / "new.py").unlink()
    assert [(f.path, f.mtime_ms, f.size) for f in files] == [
        ("new.py", 2_000_000_000, 2),
        ("old.py", 1_000_000_000, 1),
    ]
