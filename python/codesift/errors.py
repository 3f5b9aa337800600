"""codesift's exceptions. They are defined in the compiled core so that the engine and the
Python layer raise the very same classes; every one is a subclass of `CodesiftError`. The few
that only the Python layer raises subclass one of those."""

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


class PatchFormatError(InvalidArgumentError):
    """A patch (apply_patch envelope, unified diff, SEARCH/REPLACE blocks) that cannot be
    parsed: the message names the line and what was expected there."""


__all__ = [
    "BinaryFileError",
    "CancelledError",
    "CodesiftError",
    "ConflictError",
    "InvalidArgumentError",
    "MatchError",
    "NotAFileError",
    "NotFoundError",
    "PatchFormatError",
    "PatternError",
    "SandboxError",
    "StaleResultError",
]
