"""codesift's exceptions. They are defined in the compiled core so that the engine and the
Python layer raise the very same classes; every one is a subclass of `CodesiftError`."""

from ._core import (
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

__all__ = [
    "BinaryFileError",
    "CancelledError",
    "CodesiftError",
    "ConflictError",
    "InvalidArgumentError",
    "MatchError",
    "NotAFileError",
    "NotFoundError",
    "PatternError",
    "SandboxError",
    "StaleResultError",
]
