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
    PatchFormatError,
    PatternError,
    SandboxError,
    StaleResultError,
)
from .results import (
    EditResult,
    FileChange,
    GlobResult,
    GrepResult,
    ListResult,
    PatchResult,
    ReadResult,
    UndoResult,
    WriteResult,
)
from .workspace import Workspace

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
