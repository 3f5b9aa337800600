"""Optional dependencies: the library and the search CLI need only the core ones; the MCP
server needs `codesift[mcp]`, the web server `codesift[serve]`. A missing one is a
`MissingDependencyError` that says what to install, never an ImportError traceback."""

from __future__ import annotations

from ..errors import CodesiftError

# The top-level modules each extra installs (and that its features import).
EXTRAS: dict[str, tuple[str, ...]] = {
    "mcp": ("mcp", "anyio", "pydantic"),
    "serve": ("starlette", "uvicorn"),
}
# What `pip install` takes to bring an extra's packages alone (pyproject.toml's extras).
PACKAGES: dict[str, str] = {
    "mcp": "'mcp>=2.3,<3' 'anyio>=4'",
    "serve": "'starlette>=0.27' 'uvicorn>=0.31'",
}


class MissingDependencyError(CodesiftError):
    """A feature needs an optional dependency that is not installed."""


def extra_for(module: str | None) -> str | None:
    """The extra that installs `module` (a dotted name is looked up by its top level)."""
    top = (module or "").split(".", 1)[0]
    return next((extra for extra, modules in EXTRAS.items() if top in modules), None)


def missing(extra: str, module: str, feature: str | None = None) -> MissingDependencyError:
    """The error for `module` (of `extra`) not being installed."""
    what = feature or f"this feature of codesift (the {extra} extra)"
    return MissingDependencyError(
        f"{what} needs the Python package {module!r}, which is not installed; install it "
        f"into codesift's environment with: pip install '.[{extra}]' in a checkout of codesift "
        f"(or the packages alone: pip install {PACKAGES[extra]})"
    )


def require(extra: str, feature: str | None = None) -> None:
    """Raises `MissingDependencyError` unless every module of `extra` can be imported."""
    for module in EXTRAS[extra]:
        if not _importable(module):
            raise missing(extra, module, feature)


def _importable(module: str) -> bool:
    import importlib.util  # here: only the servers' commands look their extras up

    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a module blocked in sys.modules, or a broken one
        return False
