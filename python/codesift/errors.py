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


def first_line(exc: BaseException, limit: int = 300) -> str:
    """The first line of `exc`'s message, cut to `limit` characters (`...` at the end): what
    a user is told of an unexpected error, never a traceback. "(no message)" when there is
    none or it cannot be turned into text."""
    try:
        text = str(exc).strip()
    except Exception:
        return "(no message)"
    line = text.split("\n", 1)[0] or "(no message)"
    return line if len(line) <= limit else line[: limit - 3] + "..."


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
