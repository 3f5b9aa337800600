"""codesift's exceptions. They are defined in the compiled core so that the engine and the
Python layer raise the very same classes; every one is a subclass of `CodesiftError`."""

from ._core import (
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


class ConflictError(CodesiftError):
    """A file changed on disk between reading it and writing it; nothing was written."""


__all__ = [
    "BinaryFileError",
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
