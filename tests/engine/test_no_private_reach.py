"""No module of the package reaches into another object's or module's private parts: callers
use public methods (`Workspace.read_bytes`, `GrepIter.pieces`, ...) and public keywords
(`Workspace.grep(one_hit_per_line=...)`), and an underscore name is touched only through
`self` or `cls` inside the class that owns it. A public function takes no underscore
parameter: any caller can pass it, so it is public in all but name."""

from __future__ import annotations

import ast
from pathlib import Path

import codesift

PACKAGE = Path(codesift.__file__).parent

# Underscore names that are public by their owner's design, each with the reason.
ALLOWED_ATTRIBUTES = {
    # namedtuple's own API: the underscore only keeps it clear of field names
    "_replace": "namedtuple API",
    "_asdict": "namedtuple API",
    "_fields": "namedtuple API",
    "_make": "namedtuple API",
}
ALLOWED_QUALIFIED = {
    ("sys", "_getframe"): "stdlib function, documented",
    ("os", "_exit"): "stdlib function, documented",
}
ALLOWED_IMPORTS = {
    # The Rust extension: the Python modules exist to wrap it.
    "_core": "the package's own extension module",
}
OWNERS = {"self", "cls"}
ATTRIBUTE_FUNCTIONS = {"getattr", "setattr", "hasattr", "delattr"}


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def owned(function: ast.expr) -> bool:
    """A call of the caller's own method (`self.x(...)`, `cls.x(...)`)."""
    return (
        isinstance(function, ast.Attribute)
        and isinstance(function.value, ast.Name)
        and function.value.id in OWNERS
    )


def offences(source: str, filename: str) -> list[str]:
    """Each reach into private parts in `source`, as `file:line: code`."""
    tree = ast.parse(source, filename)
    found: list[str] = []

    def report(node: ast.AST, what: str) -> None:
        found.append(f"{filename}:{getattr(node, 'lineno', '?')}: {what}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and is_private(node.attr):
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in OWNERS:
                continue
            if node.attr in ALLOWED_ATTRIBUTES:
                continue
            if isinstance(owner, ast.Name) and (owner.id, node.attr) in ALLOWED_QUALIFIED:
                continue
            report(node, ast.unparse(node))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ATTRIBUTE_FUNCTIONS
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and is_private(node.args[1].value)
        ):
            owner = node.args[0]
            if not (isinstance(owner, ast.Name) and owner.id in OWNERS):
                report(node, ast.unparse(node))
        elif isinstance(node, ast.Call) and not owned(node.func):
            for keyword in node.keywords:
                if keyword.arg is not None and is_private(keyword.arg):
                    report(node, f"{ast.unparse(node.func)}(..., {keyword.arg}=...)")
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not is_private(node.name):
            arguments = node.args
            for argument in arguments.posonlyargs + arguments.args + arguments.kwonlyargs:
                if is_private(argument.arg):
                    report(node, f"def {node.name}(..., {argument.arg})")
        elif isinstance(node, ast.ImportFrom) and (
            node.level > 0 or (node.module or "").split(".")[0] == "codesift"
        ):
            for alias in node.names:
                if is_private(alias.name) and alias.name not in ALLOWED_IMPORTS:
                    report(node, f"imports {alias.name} from {'.' * node.level}{node.module or ''}")
    return found


def test_no_module_reaches_into_private_parts():
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 20, f"expected the package's modules under {PACKAGE}, got {modules}"
    found: list[str] = []
    for path in modules:
        found += offences(path.read_text(encoding="utf-8"), str(path.relative_to(PACKAGE)))
    assert not found, (
        "expected no access to another object's or module's private names (give the owner "
        "a public method), found:\n" + "\n".join(found)
    )


def test_the_check_sees_each_kind_of_reach():
    source = """
import os, sys
from . import _core
from .cache import _helper
from .streams import by_file

class Owner:
    def own(self, other, point):
        self._kept = sys._getframe(0)
        point._replace(x=1)
        cls = type(self)
        cls._shared
        other._secret
        self.stream._next_piece()
        getattr(other, "_hidden", None)
        getattr(self, "_stream", None)
        os._exit
        self.__class__
        self.grep("x", _lines=True)
        other.grep("x", _lines=True, lines=True)
        by_file(_fast=1)

    def _inner(self, _depth=0):
        pass

def public(a, *, _hidden=False):
    pass
"""
    found = offences(source, "m.py")
    expected = [
        "m.py:4: imports _helper from .cache",
        "m.py:13: other._secret",
        "m.py:14: self.stream._next_piece",
        "m.py:15: getattr(other, '_hidden', None)",
        "m.py:20: other.grep(..., _lines=...)",
        "m.py:21: by_file(..., _fast=...)",
        "m.py:26: def public(..., _hidden)",
    ]
    assert sorted(found) == sorted(expected), f"expected {expected}, got {found}"
