"""`codesift grep` keeps ripgrep's habits: its flags and meanings, options anywhere, several
paths, case-sensitive by default, rg's piped lines byte for byte (compared with the real rg),
context separators, and no cap in a pipe."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import codesift_grep, on_a_terminal

from codesift import Workspace

RG = os.environ.get("CODESIFT_TEST_RG") or shutil.which("rg") or "/work/venv/bin/rg"

TREE = {
    "src/a.py": "import foo\nfoo = Foo()\n\nprint(FOO, foo_bar)\nx = 1\nfoo foo foo\n",
    "src/b.rs": "fn foo() {}\n// Foo here\nlet bar = 2;\n",
    "lib/c.txt": "nothing\na.b and (x\nfoobar\n-foo-\nlast foo\n",
    "lib/deep/d.py": "foo\n\n\n\n\nfoo\n",
    "lib/deep/e.md": "# Title\nno match here\n",
    "top.txt": "FOO\nFoo\nfoo\n",
}


def rg(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [RG, "--sort", "path", "--no-heading", "--color", "never", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        cwd=cwd,
    )


@pytest.fixture
def small(tree) -> Path:
    if not os.path.exists(RG):
        pytest.skip(f"ripgrep not found at {RG}")
    return tree(TREE)


DIFFERENTIAL = [
    ["-n", "foo"],
    ["-n", "-i", "foo"],
    ["-n", "-s", "FOO"],
    ["-n", "-S", "foo"],
    ["-n", "-S", "Foo"],
    ["-n", "-i", "-s", "foo"],
    ["-n", "-w", "foo"],
    ["-n", "-x", "foo"],
    ["-n", "-w", "-x", "foo"],
    ["-n", "-x", "-w", "foo"],
    ["-n", "-o", "foo"],
    ["-n", "-o", "-i", "fo+"],
    ["-n", "-v", "foo"],
    ["-l", "foo"],
    ["-l", "-v", "foo"],
    ["-c", "foo"],
    ["-c", "-i", "foo"],
    ["-c", "-v", "foo"],
    ["--count-matches", "foo"],
    # rg's output modes override each other: the last of -l, -c and --count-matches wins.
    ["-l", "-c", "foo"],
    ["-c", "-l", "foo"],
    ["-c", "--count-matches", "foo"],
    ["--count-matches", "-c", "foo"],
    ["-l", "--count-matches", "foo"],
    ["--count-matches", "-l", "foo"],
    ["-c", "-l", "foo", "src/a.py"],
    ["-n", "-e", "foo", "-e", "bar"],
    ["-n", "-F", "-e", "a.b", "-e", "(x"],
    ["-n", "-F", "(x"],
    ["-n", "-w", "-e", "foo", "-e", "let"],
    ["-n", "-t", "py", "foo"],
    ["-n", "-T", "py", "foo"],
    ["-n", "-t", "py", "-t", "rust", "-i", "foo"],
    ["-n", "-A", "1", "foo"],
    ["-n", "-B", "2", "foo"],
    ["-n", "-C", "1", "foo"],
    ["-n", "-C", "2", "-i", "title|foo"],
    ["-n", "-v", "-C", "1", "foo"],
    ["-n", "-o", "-A", "1", "foo"],
    ["-n", "--column", "foo"],
    ["-n", "--column", "-C", "1", "foo"],
    # --column and --vimgrep imply line numbers, but not against -N; -v has no column.
    ["--column", "-N", "foo"],
    ["-N", "--column", "-C", "1", "foo"],
    ["--vimgrep", "-N", "foo"],
    ["-n", "-v", "--column", "foo"],
    ["-v", "--column", "-N", "foo"],
    ["-n", "-g", "*.py", "foo"],
    ["-n", "-g", "!*.py", "foo"],
    ["-n", "foo", "src/a.py", "lib"],
    ["-n", "foo", "lib", "src/a.py"],
    ["-n", "foo", "src/a.py"],
    ["-n", "-C", "1", "foo", "src/a.py"],
    ["-c", "foo", "src/a.py"],
    ["-l", "foo", "src/a.py"],
    ["-n", "-H", "foo", "src/a.py"],
    ["-n", "-I", "foo"],
    ["-n", "-o", "foo", "top.txt", "lib/deep"],
    ["-n", "nomatch_zzz"],
]


@pytest.mark.parametrize("args", DIFFERENTIAL, ids=lambda a: " ".join(a))
def test_piped_output_is_ripgreps_byte_for_byte(small, args):
    expected = rg(small, *args)
    got = codesift_grep(small, *args)
    assert got.stdout == expected.stdout, (
        f"codesift grep {args}\nexpected (rg):\n{expected.stdout}\ngot:\n{got.stdout}\n"
        f"stderr: {got.stderr}"
    )
    assert got.returncode == expected.returncode, (args, expected.returncode, got.returncode)


def test_line_numbers_are_on_by_default_and_N_gives_rgs_plain_lines(small):
    """Decision: line numbers by default (what rg shows on a terminal, and what an agent
    needs), `-N` for rg's piped default; the column only with --column."""
    assert codesift_grep(small, "foo").stdout == rg(small, "-n", "foo").stdout
    plain = codesift_grep(small, "-N", "foo")
    assert plain.stdout == rg(small, "foo").stdout, plain.stdout


def test_options_anywhere_on_the_line(small):
    expected = rg(small, "-n", "-i", "foo", "src").stdout
    for args in (
        ["foo", "-i", "src"],
        ["foo", "src", "-i"],
        ["-i", "foo", "src"],
        ["foo", "-n", "src", "-i"],
    ):
        got = codesift_grep(small, *args)
        assert got.stdout == expected, (
            f"{args}: expected\n{expected}\ngot\n{got.stdout}{got.stderr}"
        )
    dashed = codesift_grep(small, "-n", "--", "-foo-", "lib")
    assert dashed.stdout == "lib/c.txt:4:-foo-\n", dashed.stdout + dashed.stderr


def test_case_sensitive_by_default_smart_case_and_last_flag_wins(small):
    exact = codesift_grep(small, "FOO", "top.txt")
    assert exact.stdout == "1:FOO\n", exact.stdout
    folded = codesift_grep(small, "-i", "FOO", "top.txt")
    assert folded.stdout == "1:FOO\n2:Foo\n3:foo\n", folded.stdout
    smart_lower = codesift_grep(small, "-S", "foo", "top.txt")
    assert smart_lower.stdout == "1:FOO\n2:Foo\n3:foo\n", smart_lower.stdout
    smart_upper = codesift_grep(small, "-S", "Foo", "top.txt")
    assert smart_upper.stdout == "2:Foo\n", smart_upper.stdout
    # \S is not an uppercase letter of the text: smart case stays case-insensitive.
    smart_class = codesift_grep(small, "-S", r"f\So", "top.txt")
    assert smart_class.stdout == "1:FOO\n2:Foo\n3:foo\n", smart_class.stdout
    last = codesift_grep(small, "-i", "-s", "FOO", "top.txt")
    assert last.stdout == "1:FOO\n", last.stdout


def test_the_library_and_tools_keep_case_insensitive_defaults(small):
    ws = Workspace(small)
    lines = {(m.file, m.line) for m in ws.grep("FOO", "top.txt").matches}
    assert lines == {("top.txt", 1), ("top.txt", 2), ("top.txt", 3)}, lines


def test_one_line_per_matching_line(small):
    got = codesift_grep(small, "foo foo", "src/a.py")
    assert got.stdout == "6:foo foo foo\n", got.stdout
    many = codesift_grep(small, "foo", "src/a.py")
    assert many.stdout.count("6:foo foo foo") == 1, many.stdout


def test_context_separators(small):
    got = codesift_grep(small, "-A", "1", "foo", "lib/deep/d.py", "top.txt")
    expected = "lib/deep/d.py:1:foo\nlib/deep/d.py-2-\n--\nlib/deep/d.py:6:foo\n--\ntop.txt:3:foo\n"
    assert got.stdout == expected, f"expected\n{expected}\ngot\n{got.stdout}"


def test_no_cap_in_a_pipe(tree):
    root = tree({"many.txt": "hit\n" * 2000, "more/x.txt": "hit\n" * 10})
    got = codesift_grep(root, "hit")
    lines = got.stdout.splitlines()
    assert len(lines) == 2010, f"expected 2010 lines, got {len(lines)}; stderr {got.stderr}"
    assert lines[1999] == "many.txt:2000:hit" and lines[-1] == "more/x.txt:10:hit", lines[-3:]
    assert "TRUNCATED" not in got.stderr and got.returncode == 0, got.stderr
    capped = codesift_grep(root, "hit", "-m", "5")
    assert len(capped.stdout.splitlines()) == 5, capped.stdout
    assert "TRUNCATED" in capped.stderr, capped.stderr


def test_a_terminal_is_capped_and_says_so(tree):
    root = tree({"many.txt": "hit\n" * 600})
    argv = [sys.executable, "-m", "codesift", "grep", "hit", "--no-index"]
    _, output = on_a_terminal(argv, cwd=root)
    text = output.decode("utf-8", "replace")
    assert "a terminal shows the first 500 matches" in text, text[-800:]
    assert "-m 0 shows them all" in text, text[-800:]


def test_several_paths_as_json_lines_and_version(small):
    got = codesift_grep(small, "foo", "top.txt", "--json", "src")
    objects = [json.loads(line) for line in got.stdout.splitlines()]
    assert [sorted({m["file"] for m in o["matches"]}) for o in objects] == [
        ["top.txt"],
        ["a.py", "b.rs"],
    ], got.stdout
    version = subprocess.run(
        [sys.executable, "-m", "codesift", "--version"], capture_output=True, text=True
    )
    assert version.returncode == 0 and version.stdout.startswith("codesift "), version
    in_grep = codesift_grep(small, "--version")
    assert in_grep.stdout == version.stdout, (in_grep.stdout, version.stdout)


def test_unsupported_combinations_and_missing_pattern_are_clear(small):
    inverted_json = codesift_grep(small, "-v", "foo", "--json")
    assert inverted_json.returncode == 2 and "drop --json" in inverted_json.stderr, inverted_json
    assert "Traceback" not in inverted_json.stderr
    nothing = codesift_grep(small)
    assert nothing.returncode == 2 and "required: pattern" in nothing.stderr, nothing


def test_dense_lines_equal_rgs_and_json_keeps_every_match(tree):
    # Piped lines are printed from one hit per matching line (the search skips the rest of a
    # line's matches past a file's first lines): the lines, columns and stderr must stay the
    # whole search's.
    dense = "".join(f"e{i} ee eee {'e' * (i % 7)} x\n" for i in range(300))
    root = tree({"a/dense.txt": dense, "b/few.txt": "one e\nnone\ntwo e e\n", "c/no.txt": "x\n"})
    for args in (["-n", "e"], ["-n", "--column", "e"], ["-n", "-i", "E+"], ["-n", "e", "b"]):
        expected = rg(root, *args)
        got = codesift_grep(root, *args)
        assert got.stdout == expected.stdout, (args, expected.stdout[:300], got.stdout[:300])
        assert got.stderr == "", (args, got.stderr)
    # The JSON answer (whole hit records) finds every match the lean lines stand for.
    full = json.loads(codesift_grep(root, "--json", "-m", "0", "e", "b").stdout)
    expected = [(1, 3), (1, 5), (2, 4), (3, 5), (3, 7)]
    assert [(m["line"], m["column"]) for m in full["matches"]] == expected, full
