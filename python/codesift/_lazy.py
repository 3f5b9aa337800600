"""Names a package exports from its submodules, each submodule imported on first use (PEP
562): importing the package stays nearly free, and a call pays only for what it uses."""

from __future__ import annotations

# `typing` itself is not imported: its import costs more than this module.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any


def lazy_exports(
    package: str, namespace: dict[str, Any], source_of: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The `__getattr__` and `__dir__` of `package` (whose globals are `namespace`): a name
    of `source_of` is taken from `package.<source_of[name]>` on first use and kept in
    `namespace`, so that later lookups skip `__getattr__`."""

    def __getattr__(name: str) -> Any:
        source = source_of.get(name)
        if source is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        # `__import__` with a fromlist returns the submodule itself, as `import_module` would
        # (without importing `importlib`: a start-up cost).
        value = getattr(__import__(f"{package}.{source}", fromlist=(name,)), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *source_of})

    return __getattr__, __dir__
