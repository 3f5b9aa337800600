"""codesift: a fast, sandboxed search-and-edit engine for coding agents.

>>> from codesift import Workspace
>>> ws = Workspace(".")
>>> ws.grep(r"def \\w+", include="*.py").summary    # doctest: +SKIP
"""

from ._core import GlobMatch, GrepMatch, __version__
from .errors import (
    BinaryFileError,
    CodesiftError,
    InvalidArgumentError,
    MatchError,
    NotAFileError,
    NotFoundError,
    PatternError,
    SandboxError,
    StaleResultError,
)
from .results import GlobResult, GrepResult
from .workspace import Workspace

__all__ = [
    "BinaryFileError",
    "CodesiftError",
    "GlobMatch",
    "GlobResult",
    "GrepMatch",
    "GrepResult",
    "InvalidArgumentError",
    "MatchError",
    "NotAFileError",
    "NotFoundError",
    "PatternError",
    "SandboxError",
    "StaleResultError",
    "Workspace",
    "__version__",
]
