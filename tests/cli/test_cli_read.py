"""`codesift read`: stderr says lines were left out only when they were: a range printed
whole (`FILE:START-END`) says nothing, `--limit` cutting a file says how to read on."""

from __future__ import annotations

import pytest
from cli_helpers import codesift_run

FILE = "".join(f"line {n}\n" for n in range(1, 11))


@pytest.mark.parametrize(
    ("argv", "stdout"),
    [
        (["f.txt:1-3"], "     1\tline 1\n     2\tline 2\n     3\tline 3\n"),
        (["f.txt:4"], "     4\tline 4\n"),
        (["f.txt:9-40"], "     9\tline 9\n    10\tline 10\n"),
        (["f.txt:2-3", "--limit", "1"], "     2\tline 2\n     3\tline 3\n"),
    ],
)
def test_a_range_printed_whole_says_nothing(tmp_path, argv, stdout):
    (tmp_path / "f.txt").write_text(FILE)
    done = codesift_run(tmp_path, "read", *argv)
    assert done.returncode == 0, done.stderr
    assert done.stdout == stdout, f"expected {stdout!r}, got {done.stdout!r}"
    assert done.stderr == "", f"expected nothing on stderr for {argv}, got {done.stderr!r}"


def test_a_limit_that_cuts_the_file_says_how_to_read_on(tmp_path):
    (tmp_path / "f.txt").write_text(FILE)
    done = codesift_run(tmp_path, "read", "f.txt", "--limit", "2")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "     1\tline 1\n     2\tline 2\n", done.stdout
    expected = "Read lines 1-2 of f.txt [TRUNCATED: more lines follow; continue with --offset 3]\n"
    assert done.stderr == expected, f"expected {expected!r}, got {done.stderr!r}"


def test_a_file_whose_name_looks_like_a_range_is_read_as_a_file(tmp_path):
    """`x:1-2` names a file when one has that name: its --limit cut is a real cut."""
    (tmp_path / "x:1-2").write_text(FILE)
    done = codesift_run(tmp_path, "read", "x:1-2", "--limit", "1")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "     1\tline 1\n", done.stdout
    assert "[TRUNCATED: more lines follow; continue with --offset 2]" in done.stderr, done.stderr


@pytest.mark.parametrize("path", ["f.txt:0-2", "f.txt:0"])
def test_a_range_from_line_0_is_refused_in_the_range_words(tmp_path, path):
    """The range typed is named, never `--offset`, which was not given."""
    (tmp_path / "f.txt").write_text(FILE)
    done = codesift_run(tmp_path, "read", path)
    assert done.returncode == 2, done.stderr
    written = path.split(":")[1]
    expected = f"codesift: line range {written} starts at line 0; lines are numbered from 1\n"
    assert done.stderr == expected, f"expected {expected!r}, got {done.stderr!r}"


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["f.txt:12-14"], "f.txt has 10 lines; nothing at line 12\n"),
        (["f.txt", "--offset", "12"], "f.txt has 10 lines; nothing at --offset 12\n"),
    ],
)
def test_reading_past_the_end_names_what_was_given(tmp_path, argv, expected):
    """Past the end, stderr names the line range's start or the --offset given (the tools'
    `offset` is no word of the command line)."""
    (tmp_path / "f.txt").write_text(FILE)
    done = codesift_run(tmp_path, "read", *argv)
    assert (done.returncode, done.stdout) == (0, ""), (done.returncode, done.stdout)
    assert done.stderr == expected, f"expected {expected!r}, got {done.stderr!r}"
