"""Leading blank lines of `old` that `new` lacks are not required (a model adds them
spuriously), but only when they cannot be what new text goes before."""

from __future__ import annotations

import pytest

from codesift import Workspace
from codesift.errors import CodesiftError


def edit_or_refuse(tree, original: str, old: str, new: str) -> str:
    root = tree({"f.txt": original})
    try:
        Workspace(root).edit("f.txt", old, new)
    except CodesiftError:
        pass
    return (root / "f.txt").read_text()


def test_text_inserted_before_blank_lines_never_lands_after_them(tree) -> None:
    original = "\n\n\n\nx\n    x\n\n\n\n"
    intended = "inserted_line()\n\n\n\n\nx\n    x\n\n\n\n"
    actual = edit_or_refuse(tree, original, "\n\n\n\nx\n\tx", "inserted_line()\n\n\n\n\nx\n\tx")
    assert actual in (original, intended), f"expected {intended!r} or no change, got {actual!r}"


@pytest.mark.parametrize("blanks", [1, 2])
def test_spurious_leading_blank_lines_are_not_required(tree, blanks: int) -> None:
    original = "a = 1\ndef f():\n    return 0\n"
    old = "\n" * blanks + "def f():\n\treturn 0"  # tabs for spaces: a fuzzy match
    actual = edit_or_refuse(tree, original, old, "def f():\n\treturn 1")
    expected = "a = 1\ndef f():\n    return 1\n"
    assert actual == expected, f"expected {expected!r}, got {actual!r}"


def test_blank_lines_the_file_has_before_the_match_are_not_guessed_away(tree) -> None:
    original = "\n\n\n    x\nx"
    intended = "\n\n    x\nx"  # old's first blank line deleted
    actual = edit_or_refuse(tree, original, "\n\tx\nx", "\tx\nx")
    assert actual in (original, intended), f"expected {intended!r} or no change, got {actual!r}"


def test_a_line_new_puts_after_a_blank_line_both_have_stays_after_it(tree) -> None:
    """`old` drops one of the file's blank lines but keeps another; a line `new` inserts
    right after the kept one goes after it in the file too (it went before it)."""
    original = "mod debug;\n\nuse syn::{Expr, Item};\n\n#[test]\nfn f() {\n}\n"
    old = "mod debug;\n\nuse syn::{Expr, Item};\n#[test]\nfn f() {"
    new = "mod debug;\n\nlet _checkpoint = ();\nuse syn::{Expr, Item};\n#[test]\nfn f() {"
    intended = (
        "mod debug;\n\nlet _checkpoint = ();\nuse syn::{Expr, Item};\n\n#[test]\nfn f() {\n}\n"
    )
    actual = edit_or_refuse(tree, original, old, new)
    assert actual == intended, f"expected {intended!r}, got {actual!r}"
