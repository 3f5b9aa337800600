"""Patches and edits on large files: a hunk in a file of 16,000 equal lines, and a multi-line
edit or hunk that matches nothing in a 1 MB file, are answered correctly and with the usual
messages (their time is bounded by linear diffs and a bounded "most similar region"; this file
checks the results, not the time)."""

from __future__ import annotations

import pytest

from codesift import Workspace
from codesift.errors import MatchError
from codesift.text.linediff import opcodes, unified_diff

REPEATED = "same line\n" * 16_000


def big_source() -> str:
    return "".join(
        f"def f{i}(x):\n    return x + {i}  # padding padding padding\n\n" for i in range(16_000)
    )


def test_a_hunk_in_a_file_of_repeated_lines_changes_the_line_it_names(tree):
    root = tree({"rep.txt": REPEATED})
    patch = (
        "--- a/rep.txt\n+++ b/rep.txt\n@@ -8000,3 +8000,3 @@\n"
        " same line\n-same line\n+other line\n same line\n"
    )
    result = Workspace(root).apply_patch(patch)
    lines = (root / "rep.txt").read_text().split("\n")
    assert lines[8000] == "other line", lines[7998:8003]
    assert (root / "rep.txt").read_text().count("same line") == 15_999
    [change] = result.files
    assert (change.added_lines, change.removed_lines) == (1, 1), change
    assert "-same line\n+other line\n" in result.diff, result.diff


def test_a_whole_file_hunk_of_repeated_lines_applies(tree):
    root = tree({"rep.txt": REPEATED})
    body = " same line\n" * 7_999 + "-same line\n+other\n" + " same line\n" * 8_000
    patch = "--- a/rep.txt\n+++ b/rep.txt\n@@ -1,16000 +1,16000 @@\n" + body
    Workspace(root).apply_patch(patch)
    expected = "same line\n" * 7_999 + "other\n" + "same line\n" * 8_000
    assert (root / "rep.txt").read_text() == expected


def test_replace_all_in_a_file_of_repeated_lines(tree):
    root = tree({"rep.txt": REPEATED})
    result = Workspace(root).edit("rep.txt", "same line\n", "other line\n", replace_all=True)
    assert (root / "rep.txt").read_text() == "other line\n" * 16_000
    assert result.replacements == 16_000, result


def test_a_multiline_edit_that_matches_nothing_in_a_large_file_names_the_nearest_region(tree):
    source = big_source()
    assert len(source) > 1_000_000
    root = tree({"big.py": source})
    old = "".join(f"def g{i}(y):\n    return y * {i}\n" for i in range(40))
    with pytest.raises(MatchError) as caught:
        Workspace(root).edit("big.py", old, "x = 1\n")
    message = str(caught.value)
    assert message.startswith("old_string was not found in the file. The most similar region is"), (
        message[:300]
    )
    assert "def f" in message and "Copy the exact text" in message, message[:300]
    assert (root / "big.py").read_text() == source


def test_a_hunk_that_matches_nothing_in_a_large_file_names_the_nearest_lines(tree):
    source = big_source()
    root = tree({"big.py": source})
    old = "".join(f"def g{i}(y):\n    return y * {i}\n" for i in range(40))
    patch = "--- a/big.py\n+++ b/big.py\n@@ -1,80 +1,1 @@\n"
    patch += "".join("-" + line + "\n" for line in old.splitlines()) + "+x = 1\n"
    with pytest.raises(MatchError) as caught:
        Workspace(root).apply_patch(patch)
    message = str(caught.value)
    assert "its context and removed lines were not found in the file. The most similar lines" in (
        message
    ), message[:300]
    assert (root / "big.py").read_text() == source


def test_a_small_edit_that_matches_nothing_still_names_the_region_it_did_before(tree):
    root = tree({"a.py": "def alpha():\n    return 1\n\n\ndef beta():\n    return 2\n"})
    with pytest.raises(MatchError) as caught:
        Workspace(root).edit("a.py", "def beta():\n    return 3\n", "x\n")
    assert "The most similar region is lines 3-6" in str(caught.value), str(caught.value)


@pytest.mark.parametrize("seed", range(20))
def test_bounded_diff_turns_a_into_b(seed):
    import random

    rng = random.Random(seed)
    words = ["x\n", "y\n", *(f"{k}\n" for k in range(30))]
    a = [rng.choice(words) for _ in range(rng.randint(600, 2000))]
    b = list(a)
    for _ in range(rng.randint(0, 15)):
        p = rng.randint(0, len(b))
        b[p : p + rng.randint(0, 4)] = [rng.choice(["x\n", "new\n"])] * rng.randint(0, 3)
    out: list[str] = []
    for tag, i1, i2, j1, j2 in opcodes(a, b):
        if tag == "equal":
            assert a[i1:i2] == b[j1:j2], (tag, i1, i2, j1, j2)
            out += a[i1:i2]
        else:
            out += b[j1:j2]
    assert out == b
    import difflib

    small_a, small_b = a[:40], b[:45]
    expected = "".join(difflib.unified_diff(small_a, small_b, "a/f", "b/f", n=3))
    actual = "".join(unified_diff(small_a, small_b, "a/f", "b/f", n=3))
    assert actual == expected, (expected, actual)
