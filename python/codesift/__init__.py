"""codesift: a fast, sandboxed search-and-edit engine for coding agents.

>>> from codesift import Workspace
>>> ws = Workspace(".")
>>> ws.grep(r"def \\w+", include="*.py").summary    # doctest: +SKIP
"""

from ._core import CancelToken, GlobMatch, GrepMatch, __version__
from .errors import (
    BinaryFileError,
    CancelledError,
    CodesiftError,
    ConflictError,
    InvalidArgumentError,
    MatchError,
    NotAFileError,
    NotFoundError,
    PatternError,
    SandboxError,
    StaleResultError,
)
from .results import EditResult, GlobResult, GrepResult, ListResult, ReadResult, WriteResult
from .workspace import Workspace

__all__ = [
    "BinaryFileError",
    "CancelToken",
    "CancelledError",
    "CodesiftError",
    "ConflictError",
    "EditResult",
    "GlobMatch",
    "GlobResult",
    "GrepMatch",
    "GrepResult",
    "InvalidArgumentError",
    "ListResult",
    "MatchError",
    "NotAFileError",
    "NotFoundError",
    "PatternError",
    "ReadResult",
    "SandboxError",
    "StaleResultError",
    "Workspace",
    "WriteResult",
    "__version__",
]
