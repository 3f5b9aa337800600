"""codesift: a fast, sandboxed search-and-edit engine for coding agents.

>>> from codesift import Workspace
>>> ws = Workspace(".")
>>> ws.grep(r"def \\w+", include="*.py").summary    # doctest: +SKIP
"""

# The names below are loaded on first use (PEP 562): `import codesift` stays nearly free, so
# a command or a tool pays only for the modules its calls need.
from __future__ import annotations

from ._lazy import lazy_exports

# `typing` itself is not imported: its import costs more than all of this module.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._core import CancelToken, GlobMatch, GrepMatch, __version__

    # The exceptions, as `errors.__all__` names them (its `Concept` and `Hint` are not
    # exported here: `__all__` below leaves them out).
    from .errors import *  # noqa: F403
    from .results.files import (
        EditResult,
        FileChange,
        ListResult,
        PatchResult,
        ReadResult,
        UndoResult,
        WriteResult,
    )
    from .results.matches import GlobResult, GrepResult
    from .workspace import Workspace

# Each exported name and the submodule that defines it (derived from `__all__` below, so
# that each name is written once): every exception is defined in `errors` (its name ends in
# "Error"), the result classes in `results.matches` (a search's) or `results.files`.
_CORE = ("CancelToken", "GlobMatch", "GrepMatch", "__version__")

__all__ = [
    "BinaryFileError",
    "CancelToken",
    "CancelledError",
    "CodesiftError",
    "ConflictError",
    "EditResult",
    "FileChange",
    "GlobMatch",
    "GlobResult",
    "GrepMatch",
    "GrepResult",
    "InvalidArgumentError",
    "ListResult",
    "MatchError",
    "NotAFileError",
    "NotFoundError",
    "PatchFormatError",
    "PatchResult",
    "PatternError",
    "ReadResult",
    "SandboxError",
    "StaleResultError",
    "UndoResult",
    "Workspace",
    "WriteResult",
    "__version__",
]


def _source(name: str) -> str:
    if name in _CORE:
        return "_core"
    if name == "Workspace":
        return "workspace"
    if name.endswith("Error"):
        return "errors"
    return "results.matches" if name in ("GlobResult", "GrepResult") else "results.files"


_SOURCES = {name: _source(name) for name in __all__}


__getattr__, __dir__ = lazy_exports(__name__, globals(), _SOURCES)
