"""Every kind of error whose advice names an option by concept, raised for real (by the engine
or the Python layer) in a tree of its own; and what checking a rendered hint against the names
a surface has takes: the hint's own words, and the identifiers in a text."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from codesift import Workspace
from codesift.errors import CodesiftError, Concept, hints_of, problem_of

FILES = {
    "a.py": "def f():\n    x  =\t1\n    return x\n",
    "b.py": "x = 1\nx = 1\n",
    "src/c.py": "print(1)\n",
}


def _caught(name: str, call: Callable[[], Any]) -> CodesiftError:
    try:
        call()
    except CodesiftError as exc:
        return exc
    raise AssertionError(f"{name}: expected a codesift error, got none")


def hinted_errors(root: Path) -> dict[str, CodesiftError]:
    """Each error kind with a hint, raised in `root` (written with `FILES` first)."""
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    ws = Workspace(root)
    patch = "*** Begin Patch\n*** Update File: gone.py\n@@\n-x\n+y\n*** End Patch\n"
    calls: dict[str, Callable[[], Any]] = {
        "regex that does not compile": lambda: ws.grep("foo("),
        "regex too large once compiled": lambda: ws.grep(r"(?:\w{200}){200}"),
        "newline in a pattern without multiline": lambda: ws.grep("x\ny", multiline=False),
        "path that does not exist": lambda: ws.read("gone.py"),
        "path through a file": lambda: ws.read("a.py/inner.py"),
        "directory read as a file": lambda: ws.read("src"),
        "file listed as a directory": lambda: ws.list_dir("a.py"),
        "unknown file type": lambda: ws.grep("x", type="pyy"),
        "edit text found nowhere, with a similar region": lambda: ws.edit("a.py", "x = 1", "y"),
        "edit text found nowhere": lambda: ws.edit("a.py", "nothing like it at all", "y"),
        "edit text found several times": lambda: ws.edit("b.py", "x = 1", "y = 2"),
        "edit text empty": lambda: ws.edit("b.py", "", "y = 2"),
        "empty SEARCH section on a file with content": lambda: ws.apply_patch(
            "<<<<<<< SEARCH\n=======\nz = 3\n>>>>>>> REPLACE\n", path="b.py"
        ),
        "second of several edits": lambda: ws.edit_many(
            "b.py", [("x = 1\nx = 1", "x = 1\nx = 1\nz = 2"), ("nowhere at all", "y")]
        ),
        "patch of a file that does not exist": lambda: ws.apply_patch(patch),
        "SEARCH/REPLACE blocks without their file": lambda: ws.apply_patch(
            "<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"
        ),
    }
    errors = {name: _caught(name, call) for name, call in calls.items()}
    for name, error in errors.items():
        assert hints_of(error), f"{name}: expected hints, got none in {error!r}"
    covered = {c for e in errors.values() for h in hints_of(e) for c in h.concepts}
    missing = set(Concept.ALL) - covered
    assert not missing, f"concepts no case exercises: {sorted(missing)}"
    return errors


def advice(rendered: str, error: BaseException, problem: str | None = None) -> str:
    """The part of a rendered message after the error's problem (`problem`: as the surface
    words it, by default the library's): its hints as rendered."""
    problem = problem_of(error) if problem is None else problem
    assert rendered.startswith(problem), (
        f"expected the message to start with the problem {problem!r}, got {rendered!r}"
    )
    return rendered[len(problem) :]


WORD = re.compile(r"[A-Za-z_][\w-]*")


def words(text: str) -> set[str]:
    return set(WORD.findall(text))


def own_words(error: BaseException) -> set[str]:
    """The words of an error's hints themselves (their text without the option, and their
    fallback): plain English, not names of any surface's options."""
    found: set[str] = set()
    for hint in hints_of(error):
        found |= words(hint.text.replace("{option}", " ")) | words(hint.fallback)
    return found


def looks_like_code(word: str) -> bool:
    """A word no English sentence has: snake_case or camelCase."""
    return "_" in word or re.search(r"[a-z][A-Z]", word) is not None


def schema_names(schema: dict[str, Any]) -> set[str]:
    """Every parameter name in a JSON Schema (nested objects and array items included)."""
    names: set[str] = set()
    stack: list[Any] = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            properties = node.get("properties")
            if isinstance(properties, dict):
                names |= set(properties)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return names


def foreign_names(hint_text: str, error: BaseException, allowed: Iterable[str], known: set[str]):
    """The words of `hint_text` that name something (`known` names, or code-like words) and
    are not `allowed`, leaving out the hint's own words."""
    allowed = set(allowed)
    mine = own_words(error)
    return sorted(
        w
        for w in words(hint_text)
        if w not in mine and (w in known or looks_like_code(w)) and w not in allowed
    )
