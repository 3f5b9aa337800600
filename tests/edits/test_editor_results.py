"""An edit's result carries the file's lines around the change (as `read` shows them), so that
tools show the edited region without reading the file again; `Workspace.lines` gives typed
lines; every diff is made one way (split on `\\n`, with 'No newline' markers)."""

from __future__ import annotations

import pytest

from codesift import Workspace
from codesift.tools import Toolbox
from codesift.tools.lines import edited_lines

LONG = "y" * 2500

# (file bytes, old, new): each edit's snippet window is compared with the text read back.
CASES = [
    (b"a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n", "f", "F"),
    (b"a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n", "f\n", "F\nG\n\n\n\n\n\n"),
    (b"a\nb\nc", "c", "C"),
    (b"one\r\ntwo\r\nthree\r\n", "two", "2\n2"),
    (b"x\n", "x\n", ""),
    (b"x\ny\n", "x", ""),
    (b"keep\n" + LONG.encode() + b"\nafter\n", "keep", "kept"),
    (b"bad \xff byte\nnext\n", "next", "then"),
    (b"\xef\xbb\xbfbom\nline\n", "line", "LINE"),
    ("wide\nutf16\n".encode("utf-16"), "utf16", "UTF16\n\n"),
    (b"\n".join(b"l%d" % i for i in range(40)) + b"\n", "l20\nl21\n", "m\n" * 9),
    (b"fuzzy:\n    a = 1\n    b = 2\n", "  a = 1\n  b = 2", "  a = 1\n\n\n  b = 2\n  c = 3"),
]


def full_text_lines(ws: Workspace, path: str) -> list[str]:
    """What the file shows when read whole, split on newlines (the old way tools got it)."""
    lines = ws.lines(path)
    text = "\n".join(lines.texts)
    return (text + "\n" if text and lines.ends_with_newline else text).split("\n")


@pytest.mark.parametrize("data,old,new", CASES)
def test_the_snippet_of_an_edit_is_the_text_read_back(tree, data, old, new):
    root = tree({})
    (root / "f.txt").write_bytes(data)
    ws = Workspace(root)
    result = ws.edit("f.txt", old, new)
    whole = full_text_lines(ws, "f.txt")
    for start in range(0, max(1, result.first_line - 1) + 1):
        for end in range(start, len(whole) + 3):
            expected = whole[start:end]
            actual = edited_lines(ws, "f.txt", result, start, end)
            assert actual == expected, (start, end, expected, actual)
    assert result.total_lines == ws.lines("f.txt").total, (result.total_lines, ws.lines("f.txt"))
    numbers = [line.number for line in result.snippet]
    assert numbers == list(range(numbers[0], numbers[-1] + 1)) if numbers else True, numbers


def test_claude_code_edit_shows_the_snippet_without_searching(tree):
    root = tree({"f.py": "".join(f"line{i}\n" for i in range(1, 21))})
    toolbox = Toolbox(Workspace(root), profile="claude-code")
    ws = toolbox.workspace
    calls = []
    original = ws.grep
    ws.grep = lambda *a, **k: calls.append(a) or original(*a, **k)  # type: ignore[method-assign]
    result = toolbox.call(
        "Edit", {"file_path": "f.py", "old_string": "line10", "new_string": "ten"}
    )
    assert not result.is_error, result.text
    expected = "\n".join(
        f"{n:6}\u2192{text}"
        for n, text in [(6, "line6"), (7, "line7"), (8, "line8"), (9, "line9"), (10, "ten")]
        + [(11, "line11"), (12, "line12"), (13, "line13"), (14, "line14")]
    )
    assert expected in result.text, (expected, result.text)
    assert calls == [], calls


def test_lines_are_typed_and_counted_without_keeping_the_rest(tree):
    root = tree({"f.txt": "a\n" + "b" * 2100 + "\nc\nd"})
    ws = Workspace(root)
    got = ws.lines("f.txt", 2, 2)
    assert [(x.number, len(x.text), x.cut_from) for x in got.lines] == [(2, 2000, 2100)], got
    assert (got.total, got.ends_with_newline, got.more) == (4, False, True), got
    everything = ws.lines("f.txt")
    assert everything.texts == ["a", "b" * 2000, "c", "d"], everything.texts
    assert ws.lines("f.txt", 9).lines == () and ws.lines("f.txt", 9).total == 4
    (root / "g.txt").write_text("x\n")
    assert ws.lines("g.txt").ends_with_newline is True


def test_an_edit_diff_marks_a_last_line_without_newline(tree):
    root = tree({"f.txt": "a\nb"})
    result = Workspace(root).edit("f.txt", "b", "c")
    expected = (
        "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n"
        "+c\n\\ No newline at end of file\n"
    )
    assert result.diff == expected, (expected, result.diff)
    # The diff applies back exactly: on the old text it makes the new one.
    (root / "f.txt").write_text("a\nb")
    Workspace(root).apply_patch(result.diff, format="unified")
    assert (root / "f.txt").read_bytes() == b"a\nc", (root / "f.txt").read_bytes()
