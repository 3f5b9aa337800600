"""The layers call down, never back up into a caller.

- Python: the package's modules import one another without a cycle, counting the imports
  made inside functions too. Left out: `if TYPE_CHECKING:` blocks (never run) and a module's
  own `__getattr__`, which re-exports names moved to another module for the callers that
  still import them from the old place.
- Rust: the engine's concepts (`rust/fs/`, `rust/index/`, `search.rs`, ...) use one another
  without a cycle (unit tests left out: they may build a fixture with a higher layer), no
  module outside the bindings (`rust/py/`, `lib.rs`) names pyo3, and no module outside
  `rust/fs/` sees a raw file descriptor or an open flag.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import codesift

PACKAGE = Path(codesift.__file__).parent
RUST = PACKAGE.parent.parent / "rust"


def cycles(edges: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in edges.get(node, ()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            part = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                part.append(other)
                if other == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return sorted(found)


# ---- Python --------------------------------------------------------------------------


def module_names(package: Path) -> dict[str, Path]:
    names = {}
    for path in package.rglob("*.py"):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def imported_modules(module: str, source: str, is_package: bool, known: set[str]) -> set[str]:
    """The package's modules `module` imports (outside TYPE_CHECKING and `__getattr__`)."""
    here = module.split(".") if is_package else module.split(".")[:-1]
    found: set[str] = set()

    def walk(statements: list[ast.stmt], top: bool) -> None:
        for node in statements:
            if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
                walk(node.orelse, top)
                continue
            if top and isinstance(node, ast.FunctionDef) and node.name == "__getattr__":
                continue
            if isinstance(node, ast.ImportFrom):
                base = here[: len(here) - node.level + 1] if node.level else []
                target = ".".join(base + ([node.module] if node.module else []))
                for alias in node.names:
                    submodule = f"{target}.{alias.name}"
                    found.add(submodule if submodule in known else target)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.stmt):
                    walk([child], False)
                elif isinstance(child, ast.excepthandler | ast.match_case):
                    walk(child.body, False)

    walk(ast.parse(source).body, True)
    return {name for name in found if name in known and name != module}


def python_imports(package: Path) -> dict[str, set[str]]:
    names = module_names(package)
    known = set(names)
    return {
        module: imported_modules(
            module, path.read_text(encoding="utf-8"), path.name == "__init__.py", known
        )
        for module, path in names.items()
    }


def test_python_modules_import_without_a_cycle():
    edges = python_imports(PACKAGE)
    assert len(edges) > 50, f"expected the package's modules, got {sorted(edges)}"
    found = cycles(edges)
    assert found == [], f"expected no import cycle, found: {found}"


def test_the_python_check_sees_a_cycle_through_a_function_level_import(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "top.py").write_text("from .sub import low\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "low.py").write_text(
        "TYPE_CHECKING = False\n"
        "if TYPE_CHECKING:\n    from .. import other\n"
        "def later():\n    from ..top import thing\n"
        "def __getattr__(name):\n    from .. import other\n"
    )
    (package / "other.py").write_text("from .sub.low import later\n")
    edges = python_imports(package)
    expected = {
        "pkg": set(),
        "pkg.top": {"pkg.sub.low"},
        "pkg.sub": set(),
        "pkg.sub.low": {"pkg.top"},
        "pkg.other": {"pkg.sub.low"},
    }
    assert edges == expected, f"expected {expected}, got {edges}"
    found = cycles(edges)
    assert found == [["pkg.sub.low", "pkg.top"]], f"expected the one cycle, got {found}"


# ---- Rust ----------------------------------------------------------------------------

BINDINGS = ("py/", "lib.rs")
FILE_SYSTEM = ("fs/",)
# A raw descriptor or an open flag: what only `rust/fs/` handles (`Dir` and the root handle
# give the rest of the engine files and directories).
RAW_FD = re.compile(
    r"\b(RawFd|OwnedFd|BorrowedFd|from_raw_fd|as_raw_fd|into_raw_fd|OFlags)\b"
    r"|libc::(O_[A-Z]+|open|openat|dup2?|close)\b"
)


def rust_code(path: Path) -> str:
    """`path`'s code without its unit tests and comments."""
    text = path.read_text(encoding="utf-8")
    cut = text.find("#[cfg(test)]")
    if cut >= 0:
        text = text[:cut]
    return "\n".join(line.split("//", 1)[0] for line in text.splitlines())


def concept(relative: Path) -> str:
    return relative.parts[0] if len(relative.parts) > 1 else relative.stem


def rust_uses(root: Path) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for path in sorted(root.rglob("*.rs")):
        relative = path.relative_to(root)
        if relative.parts[0] == "bin":
            continue
        name = concept(relative)
        uses = set(re.findall(r"\bcrate::([a-z_]+)", rust_code(path))) - {name}
        edges.setdefault(name, set()).update(uses)
    return edges


def test_rust_concepts_use_one_another_without_a_cycle():
    edges = rust_uses(RUST)
    assert {"fs", "index", "search", "py", "daemon"} <= set(edges), sorted(edges)
    found = cycles(edges)
    assert found == [], f"expected the engine's layers to call down only, found: {found}"
    for lower in ("fs", "grep", "index"):
        above = edges[lower] & {"search", "daemon", "rg", "py", "workspace"}
        assert not above, f"rust/{lower} uses {sorted(above)}, which are built on it"


def offending_files(root: Path, pattern: re.Pattern[str], allowed: tuple[str, ...]) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.rs")):
        relative = path.relative_to(root).as_posix()
        if relative.startswith(allowed):
            continue
        for number, line in enumerate(rust_code(path).splitlines(), 1):
            if pattern.search(line):
                found.append(f"rust/{relative}:{number}: {line.strip()}")
    return found


def test_only_the_bindings_name_pyo3():
    found = offending_files(RUST, re.compile(r"\bpyo3\b"), BINDINGS)
    assert found == [], "expected pyo3 in rust/py/ and rust/lib.rs only, found:\n" + "\n".join(
        found
    )


def test_only_rust_fs_sees_a_raw_descriptor_or_an_open_flag():
    found = offending_files(RUST, RAW_FD, FILE_SYSTEM)
    assert found == [], "expected raw fds and open flags in rust/fs/ only, found:\n" + "\n".join(
        found
    )


def test_the_rust_checks_see_what_they_look_for(tmp_path):
    (tmp_path / "fs").mkdir()
    (tmp_path / "index").mkdir()
    (tmp_path / "fs" / "dir.rs").write_text("use crate::error::Error;\nlet fd: RawFd = 3;\n")
    (tmp_path / "error.rs").write_text("use crate::fs::dir;\n")
    (tmp_path / "index" / "select.rs").write_text(
        "use crate::fs::dir::Dir;\n// crate::search in a comment\n"
        "let flags = libc::O_RDONLY;\n#[cfg(test)]\nmod tests { use crate::search; }\n"
    )
    edges = rust_uses(tmp_path)
    expected = {"fs": {"error"}, "error": {"fs"}, "index": {"fs"}}
    assert edges == expected, f"expected {expected}, got {edges}"
    assert cycles(edges) == [["error", "fs"]]
    found = offending_files(tmp_path, RAW_FD, FILE_SYSTEM)
    assert found == ["rust/index/select.rs:3: let flags = libc::O_RDONLY;"], found
