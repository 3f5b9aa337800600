"""Piped `codesift grep` prints as it goes, as rg does: each file's lines as soon as the
search settles it, the same lines as a whole search would print, and a closed pipe stops
the search and exits 0 without a word."""

from __future__ import annotations

from pathlib import Path

from cli_helpers import (
    assert_a_closed_pipe_exits_0_quietly,
    codesift_grep,
    numbered_tree,
    start_grep,
)


def big_tree(root: Path, files: int) -> Path:
    return numbered_tree(root, files, "alpha\nneedle one\nbeta\nneedle two\n")


def test_streamed_lines_are_rgs_lines_in_path_order(tmp_path):
    root = big_tree(tmp_path / "t", 250)
    proc = codesift_grep(root, "-m", "0", "needle")
    assert proc.returncode == 0, proc.stderr
    expected = []
    for i in range(250):
        name = f"d{i // 100:03}/f{i:05}.txt"
        expected += [f"{name}:2:needle one", f"{name}:4:needle two"]
    assert proc.stdout.splitlines() == expected, proc.stdout[:500]
    assert proc.stderr == ""


def test_the_first_line_comes_before_the_search_ends(tmp_path):
    # The consumer does not read on: the search must have printed its first file without
    # waiting for the rest (which it cannot finish while the pipe is full).
    root = big_tree(tmp_path / "t", 3000)
    proc = start_grep(root, "-m", "0", "needle")
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first == b"d000/f00000.txt:2:needle one\n", first
        assert proc.poll() is None or proc.returncode == 0
    finally:
        proc.kill()
        proc.wait()


def test_a_closed_pipe_stops_the_search_and_exits_0_quietly(tmp_path):
    root = big_tree(tmp_path / "t", 3000)
    proc = start_grep(root, "-m", "0", "needle")
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    assert first.startswith(b"d000/f00000.txt:"), first
    assert_a_closed_pipe_exits_0_quietly(proc)


def test_files_with_matches_stream_the_same_names_in_path_order(tmp_path):
    root = big_tree(tmp_path / "t", 250)
    (root / "d001" / "f00150.txt").write_text("no match here\n")
    proc = codesift_grep(root, "-l", "needle")
    assert proc.returncode == 0, proc.stderr
    expected = [f"d{i // 100:03}/f{i:05}.txt" for i in range(250) if i != 150]
    assert proc.stdout.splitlines() == expected, proc.stdout[:500]
    assert proc.stderr == ""


def test_files_with_matches_stop_quietly_when_the_pipe_closes(tmp_path):
    root = big_tree(tmp_path / "t", 3000)
    proc = start_grep(root, "-l", "needle")
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    assert first == b"d000/f00000.txt\n", first
    assert_a_closed_pipe_exits_0_quietly(proc)
