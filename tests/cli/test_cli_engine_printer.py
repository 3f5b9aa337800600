"""Piped `codesift grep` is printed by the engine (`_core.GrepPrinter`), straight to stdout:
no Python object per hit, `--vimgrep` and `--null` as ripgrep prints them, and Ctrl-C and a
closed pipe end every mode as they ended the lines that Python printed."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_helpers import assert_a_closed_pipe_exits_0_quietly, numbered_tree, start_grep

RG = os.environ.get("CODESIFT_TEST_RG") or shutil.which("rg") or "/work/venv/bin/rg"


def planted(root: Path) -> Path:
    """Several matches on a line, a non-ASCII line (byte columns differ from characters),
    context groups, a nested directory. (No CRLF line: codesift prints a line's text
    without its CR, which rg keeps.)"""
    files = {
        "a.txt": "spin_lock(&a); spin_lock(&b)\nnone\n  é wide ünï_lock x_lock\n",
        "b.txt": "first_lock\nplain\nsecond_lock\n",
        "sub/ctx.py": "".join(
            f"line {n} a_lock\n" if n in (3, 4, 9) else f"line {n}\n" for n in range(1, 14)
        ),
        "sub/deeper/last.c": "int x_lock;\n",
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode())
    return root


def run(cwd: Path, argv: list[str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(argv, cwd=cwd, capture_output=True, timeout=120, check=False)


@pytest.mark.skipif(not Path(RG).exists() and shutil.which(RG) is None, reason="no rg")
@pytest.mark.parametrize(
    ("flags", "paths"),
    [
        (["--vimgrep"], ["."]),
        (["--vimgrep"], []),
        (["--vimgrep", "-o"], ["."]),
        (["--vimgrep"], ["a.txt"]),
        (["--vimgrep", "-C", "1"], ["sub"]),
        (["--vimgrep", "--null"], ["."]),
        (["--null"], ["."]),
        (["--null", "-l"], ["."]),
        (["--null", "-c"], ["."]),
        (["--null", "-o", "--column"], ["sub", "b.txt"]),
    ],
)
def test_vimgrep_and_null_print_what_rg_prints(tmp_path, flags, paths):
    root = planted(tmp_path / "t")
    pattern = r"\w+_lock"
    ours = run(root, [sys.executable, "-m", "codesift", "grep", *flags, pattern, *paths])
    theirs = run(root, [RG, "-n", "--no-heading", "--sort", "path", *flags, pattern, *paths])
    assert ours.stderr == b"", ours.stderr
    if ours.stdout != theirs.stdout:
        print("rg:      ", theirs.stdout)
        print("codesift:", ours.stdout)
    assert ours.stdout == theirs.stdout
    assert ours.returncode == theirs.returncode == 0


#: Run in a child: the CLI with every Python renderer of hits made to fail (the engine's
#: stream handing a file's hits to Python, the line records, the JSON hits). Whatever the
#: engine printed is on stdout.
NO_PYTHON_PER_HIT = """
import sys
from codesift import cli
from codesift.results import streams
from codesift.cli import grep, lines

def refuse(*args, **kwargs):
    raise AssertionError("a Python renderer of hits ran")

streams.GrepIter.next_piece = refuse
streams.GrepIter.__next__ = refuse
grep.content_records = refuse
grep.stream_grep_json = refuse
lines.Lines.file = refuse
sys.exit(cli.main(sys.argv[1:]))
"""


@pytest.mark.parametrize(
    "flags",
    [
        [],
        ["-o"],
        ["--json"],
        ["--json", "--json-full"],
        ["-c"],
        ["--count-matches"],
        ["-l"],
        ["--vimgrep"],
        ["-o", "-C", "1"],
        ["-c", "-o"],
    ],
)
def test_many_hits_are_printed_without_a_python_object_per_hit(tmp_path, flags):
    root = tmp_path / "t"
    # 40,000 hits: files of 400 matches on 200 lines, and one file past a stream's piece.
    numbered_tree(root, 50, "n_lock m_lock\n" * 200)
    (root / "big.txt").write_text("k_lock\n" * 20_000)
    argv = ["grep", *flags, r"\w_lock", "."]
    engine = run(root, [sys.executable, "-c", NO_PYTHON_PER_HIT, *argv])
    plain = run(root, [sys.executable, "-m", "codesift", *argv])
    assert engine.stderr == b"", engine.stderr.decode(errors="replace")[-3000:]
    assert engine.returncode == plain.returncode == 0
    if "--json" in flags:  # the hits' ids differ between two runs: compare the rest
        import json

        got, expected = json.loads(engine.stdout), json.loads(plain.stdout)
        for doc in (got, expected):
            for hit in doc["matches"]:
                hit.pop("id")
        assert got == expected
    else:
        assert engine.stdout == plain.stdout
    per_file = {"-c", "-l", "--count-matches"}.intersection(flags)
    assert len(engine.stdout) > (500 if per_file else 100_000)


def test_a_match_spanning_lines_is_still_printed_with_the_lines_it_spans(tmp_path):
    """The one file the engine hands back (its lines are the file's): printed between the
    engine's, in path order, with context separators across both."""
    root = tmp_path / "t"
    (root / "a").mkdir(parents=True)
    (root / "a" / "1.txt").write_text("x\nfoo\nbar\n")
    (root / "a" / "2.txt").write_text("foo end\nfoo\nbar tail\n")
    (root / "a" / "3.txt").write_text("foo\n")
    done = run(
        root, [sys.executable, "-m", "codesift", "grep", "-U", "-C", "1", r"foo(\nbar)?", "a"]
    )
    expected = (
        b"a/1.txt-1-x\na/1.txt:2:foo\na/1.txt:3:bar\n--\n"
        b"a/2.txt:1:foo end\na/2.txt:2:foo\na/2.txt:3:bar tail\n--\n"
        b"a/3.txt:1:foo\n"
    )
    assert done.stdout == expected, done.stdout
    assert done.returncode == 0


MODES = [[], ["-o"], ["--json"], ["-c"], ["-l"], ["--vimgrep"], ["-C", "1"]]
#: The modes whose output fills the pipe long before the search ends.
PER_HIT = [m for m in MODES if m not in (["-c"], ["-l"])]


@pytest.mark.parametrize("flags", PER_HIT, ids=[" ".join(m) or "lines" for m in PER_HIT])
def test_ctrl_c_stops_each_mode_with_exit_130(tmp_path, flags):
    root = tmp_path / "t"
    numbered_tree(root, 3000, "needle\n" * 20)
    proc = start_grep(root, *flags, "needle")
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.read(1)  # under way; then the pipe fills up (or the search goes on)
    time.sleep(0.2)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    code = proc.wait(timeout=60)
    took = time.monotonic() - sent
    err = proc.stderr.read().decode()
    print(f"{flags}: exited {took * 1000:.0f} ms after SIGINT")
    assert code == 130, f"expected exit 130, got {code}: {err}"
    assert err == "", err


@pytest.mark.parametrize("flags", MODES, ids=[" ".join(m) or "lines" for m in MODES])
def test_a_closed_pipe_ends_each_mode_quietly(tmp_path, flags):
    root = tmp_path / "t"
    numbered_tree(root, 3000, "needle\n" * 20)
    proc = start_grep(root, *flags, "needle")
    assert proc.stdout is not None
    assert proc.stdout.read(1)
    assert_a_closed_pipe_exits_0_quietly(proc)
