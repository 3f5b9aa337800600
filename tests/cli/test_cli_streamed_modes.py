"""Piped `-c`, `--count-matches` and `--json` stream as content lines do: each prints the same
bytes as the whole search's output, file by file as the search settles them, and a closed pipe
stops the search and exits 0 without a word."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
from itertools import groupby
from pathlib import Path

import pytest
from cli_helpers import assert_a_closed_pipe_exits_0_quietly, numbered_tree, start_grep
from cli_helpers import codesift_grep_bytes as run

from codesift import Workspace
from codesift.cli import grep_json

RG = os.environ.get("CODESIFT_TEST_RG") or shutil.which("rg") or "/work/venv/bin/rg"


def mixed_tree(root: Path, files: int) -> Path:
    """Files with no hit, one, several on a line, several lines; one with a
    non-ASCII name and text."""
    for i in range(files):
        d = root / f"d{i // 100:03}"
        d.mkdir(parents=True, exist_ok=True)
        body = {
            0: "nothing here\n",
            1: "needle once\n",
            2: "needle needle on one line\nand needle again\n",
            3: "alpha\n" + "needle\n" * (i % 7 + 1),
        }[i % 4]
        (d / f"f{i:05}.txt").write_text(body)
    (root / "d000" / "été.txt").write_text("needle é needle\n")
    return root


def whole(root: Path, **options: object):
    ws = Workspace(root)
    options = {"max_matches": None, "case_sensitive": True, **options}
    return ws, ws.grep("needle", ".", **options)


def expected_counts(root: Path, per_line: bool) -> bytes:
    """What `-c` printed from the whole answer (before it streamed)."""
    _, result = whole(root)
    out = []
    for file, hits in groupby(result.matches, key=lambda m: m.file):
        group = list(hits)
        out.append(f"{file}:{len(group) if per_line else len({m.line for m in group})}\n")
    return "".join(out).encode()


def expected_json(root: Path, full: bool, **options: object) -> bytes:
    """What `--json` printed from the whole answer (before it streamed)."""
    ws, result = whole(root, **options)
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        grep_json.print_grep_json(ws, result, full)
    return buffer.getvalue().encode()


@pytest.mark.parametrize(("flags", "per_line"), [(["-c"], False), (["-c", "-o"], True)])
def test_count_lines_stream_the_same_bytes(tmp_path, flags, per_line):
    root = mixed_tree(tmp_path / "t", 300)
    proc = run(root, *flags, "needle")
    expected = expected_counts(root, per_line)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected, (proc.stdout[:300], expected[:300])
    assert proc.stderr == b""


def test_count_matches_stream_the_same_bytes(tmp_path):
    root = mixed_tree(tmp_path / "t", 300)
    proc = run(root, "--count-matches", "needle")
    _, result = whole(root, mode="count")
    expected = "".join(
        f"{m.file}:{c}\n" for m, c in zip(result.matches, result.counts, strict=True)
    ).encode()
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected, (proc.stdout[:300], expected[:300])


@pytest.mark.parametrize(
    ("flags", "options"),
    [
        (["--json"], {}),
        (["--json", "-c"], {"mode": "count"}),
        (["--json", "-l"], {"mode": "files"}),
        (["--json", "-m", "17"], {"max_matches": 17}),
        (["--json-full"], {}),
    ],
)
def test_json_streams_the_same_document(tmp_path, flags, options):
    root = mixed_tree(tmp_path / "t", 300)
    proc = run(root, "--root", str(root), *flags, "needle")
    expected = expected_json(root, "--json-full" in flags, **options)
    got = json.loads(proc.stdout)
    want = json.loads(expected)
    stdout = proc.stdout
    if "max_matches" in options:
        # Under a cap, how many files the threads had read when the stop reached them is
        # the engine's count of work done, not part of the answer: it varies run to run.
        assert got["files_searched"] >= got["files_with_matches"], got
        for document in (got, want):
            document.pop("files_searched")
        stdout = re.sub(rb'"files_searched": \d+', b'"files_searched": 0', stdout)
        expected = re.sub(rb'"files_searched": \d+', b'"files_searched": 0', expected)
    for key in want:
        if key == "matches":
            got[key] = [{**m, "id": ""} for m in got[key]]
            want[key] = [{**m, "id": ""} for m in want[key]]
        assert got[key] == want[key], (key, got[key], want[key])
    assert without_ids(stdout) == without_ids(expected), (stdout[-400:], expected[-400:])


def test_json_of_nothing_found_is_the_same_document(tmp_path):
    root = mixed_tree(tmp_path / "t", 10)
    proc = subprocess.run(
        [sys.executable, "-m", "codesift", "grep", "--root", str(root), "--json", "absent"],
        capture_output=True,
        timeout=120,
        check=False,
    )
    ws = Workspace(root)
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        grep_json.print_grep_json(
            ws, ws.grep("absent", ".", max_matches=None, case_sensitive=True), False
        )
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == buffer.getvalue().encode(), (proc.stdout, buffer.getvalue())


def without_ids(document: bytes) -> bytes:
    """Hit ids are drawn afresh by each process: everything else must be the same bytes."""
    return re.sub(rb'"id": "[^"]*"', b'"id": ""', document)


@pytest.mark.parametrize(
    ("flags", "first"),
    [
        (["-c"], b"d000/f00000.txt:2\n"),
        (["--count-matches"], b"d000/f00000.txt:2\n"),
        (["--json"], b'{"matches": [{'),
    ],
)
def test_the_first_file_comes_at_once_and_a_closed_pipe_exits_0_quietly(tmp_path, flags, first):
    # The reader takes one piece and closes the pipe: the search must have written its first
    # file without finishing the tree (it cannot while nobody reads), then stop quietly.
    root = numbered_tree(tmp_path / "t", 4000, "needle one\nneedle two\n")
    proc = start_grep(root, *flags, "needle")
    assert proc.stdout is not None
    got = proc.stdout.read(len(first))
    assert got == first, (got, first)
    assert_a_closed_pipe_exits_0_quietly(proc)


def with_a_big_file(root: Path) -> Path:
    """A file whose hits come in several pieces (lines with two hits among them)."""
    mixed_tree(root, 120)
    body = "".join("needle and needle\n" if i % 3 else "needle\n" for i in range(20_000))
    (root / "d000" / "big.txt").write_text(body)
    return root


@pytest.mark.parametrize("flags", [[], ["-o"], ["-c"], ["--count-matches"], ["--column"]])
def test_a_file_in_pieces_prints_what_rg_prints(tmp_path, flags):
    root = with_a_big_file(tmp_path / "t")
    proc = run(root, *flags, "needle")
    rg = subprocess.run(
        [RG, "-n", "--no-heading", "--sort", "path", *flags, "needle"],
        cwd=root,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert rg.returncode == 0, rg.stderr
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == rg.stdout, (len(proc.stdout), len(rg.stdout))


@pytest.mark.parametrize(
    ("flags", "options"), [(["--json"], {}), (["--json", "-c"], {"mode": "count"})]
)
def test_a_file_in_pieces_is_one_json_document(tmp_path, flags, options):
    root = with_a_big_file(tmp_path / "t")
    proc = run(root, "--root", str(root), *flags, "needle")
    expected = expected_json(root, False, **options)
    assert without_ids(proc.stdout) == without_ids(expected), (proc.stdout[-400:], expected[-400:])


@pytest.mark.parametrize("flag", ["--json", "--json-full"])
def test_a_json_search_that_fails_at_its_start_prints_one_error_document(tmp_path, flag):
    root = mixed_tree(tmp_path / "t", 3)
    (root / "sub" / ".git").mkdir(parents=True)
    (root / "sub" / ".git" / "config").write_text("needle\n")
    done = run(root, flag, "needle", "sub/.git")
    print(done.stdout, done.stderr)
    assert done.returncode == 2, done.returncode
    if flag == "--json-full":  # errors as a JSON document on stdout, and nothing else
        document = json.loads(done.stdout)
        assert document["error"]["type"] == "SandboxError", document
    else:  # one line on stderr, nothing half-written on stdout
        assert done.stdout == b"", done.stdout
        assert b"inside .git" in done.stderr, done.stderr
