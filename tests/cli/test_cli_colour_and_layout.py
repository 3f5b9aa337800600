"""Colour and layout are independent: the layout follows whether stdout is a terminal (or
grep's `--heading` / `--no-heading`), the colour follows `--color` alone. Checked through a
pty, as a person sees it."""

from __future__ import annotations

import re
import sys

from cli_helpers import codesift_grep, on_a_terminal

ESCAPE = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")
GROUPED = re.compile(rb"^a\.py\r?\n\s+2:1\s+needle = 2\r?$", re.M)


def tree(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.py").write_text("x = 1\nneedle = 2\n")
    return tmp_path


def test_colour_never_on_a_terminal_keeps_the_terminal_layout_without_colour(tmp_path):
    root = tree(tmp_path)
    argv = [sys.executable, "-m", "codesift", "grep", "--color", "never", "needle"]
    code, output = on_a_terminal(argv, cwd=root)
    assert code == 0, output
    assert ESCAPE.search(output) is None, f"expected no escape sequence, got {output!r}"
    assert GROUPED.search(output), f"expected the hits grouped under a.py, got {output!r}"
    assert b"a.py:2:needle" not in output, f"expected no piped line, got {output!r}"


def test_colour_auto_on_a_terminal_is_the_same_layout_in_colour(tmp_path):
    root = tree(tmp_path)
    code, output = on_a_terminal([sys.executable, "-m", "codesift", "grep", "needle"], cwd=root)
    assert code == 0, output
    assert ESCAPE.search(output), f"expected colour, got {output!r}"
    assert GROUPED.search(ESCAPE.sub(b"", output)), f"expected the grouped view, got {output!r}"


def test_no_heading_on_a_terminal_prints_lines_whatever_the_colour(tmp_path):
    root = tree(tmp_path)
    for colour in ("never", "always"):
        argv = [sys.executable, "-m", "codesift", "grep", "--no-heading", "--color", colour]
        code, output = on_a_terminal([*argv, "needle"], cwd=root)
        assert code == 0, output
        assert b"a.py:2:needle = 2" in ESCAPE.sub(b"", output), f"{colour}: got {output!r}"


def test_heading_in_a_pipe_groups_the_hits_and_colour_never_keeps_them_plain(tmp_path):
    root = tree(tmp_path)
    done = codesift_grep(root, "--heading", "--color", "never", "needle")
    assert done.returncode == 0, done.stderr
    assert "\x1b[" not in done.stdout, f"expected no colour, got {done.stdout!r}"
    assert GROUPED.search(done.stdout.encode()), f"expected the grouped view: {done.stdout!r}"
    piped = codesift_grep(root, "--color", "never", "needle")
    assert piped.stdout == "a.py:2:needle = 2\n", piped.stdout
