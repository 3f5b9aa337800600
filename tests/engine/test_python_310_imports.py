"""The package declares Python 3.10 (pyproject's requires-python): no module imports at run
time a `typing` name that only 3.11 has (`Self`, `Unpack`, ...). Under `if TYPE_CHECKING:`
they are fine: annotations are not evaluated (every module has `from __future__ import
annotations`)."""

from __future__ import annotations

import ast
from pathlib import Path

import codesift

NEWER_THAN_310 = {
    "Self",
    "Unpack",
    "Never",
    "LiteralString",
    "NotRequired",
    "Required",
    "TypeVarTuple",
    "assert_never",
    "assert_type",
    "reveal_type",
    "dataclass_transform",
}


def runtime_typing_imports(tree: ast.Module) -> list[tuple[int, str]]:
    """`from typing import X` statements that run when the module is imported."""
    found = []

    def visit(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                visit(node.orelse)
                continue
            if isinstance(node, ast.ImportFrom) and node.module == "typing":
                found.extend((node.lineno, alias.name) for alias in node.names)
            for field in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(node, field, None)
                if isinstance(inner, list):
                    visit([n for n in inner if isinstance(n, ast.stmt)])

    visit(tree.body)
    return found


def test_no_module_needs_a_newer_typing_than_it_declares() -> None:
    package = Path(codesift.__file__).parent
    problems = []
    for module in sorted(package.rglob("*.py")):
        tree = ast.parse(module.read_text(), str(module))
        for line, name in runtime_typing_imports(tree):
            if name in NEWER_THAN_310:
                problems.append(f"{module.relative_to(package)}:{line}: typing.{name}")
    assert not problems, f"expected none, found: {problems}"
