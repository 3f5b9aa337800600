"""The error of a host that could not be searched, and which errors are the caller's."""

from __future__ import annotations

from .. import errors as _errors
from ..errors import (
    CodesiftError,
    InvalidArgumentError,
    NotFoundError,
    PatternError,
    SandboxError,
)

# Errors that are the caller's, not a host's: when every host reports one, it is raised.
CALLER_ERRORS = (
    PatternError,
    InvalidArgumentError,
    SandboxError,
    NotFoundError,
    _errors.NotAFileError,
)


class RemoteError(CodesiftError):
    """A host could not be searched: unreachable, authentication refused, a timeout, or a
    command missing or failing there."""


class CodesiftVanishedError(RemoteError):
    """codesift, found on a host by the probe, no longer runs there: the host is probed
    again on its next search."""


def stderr_tail(stderr: bytes, lines: int = 3) -> str:
    """The last few lines of a command's stderr, in one line (for error messages)."""
    text = stderr.decode("utf-8", "replace").strip().splitlines()
    return " ".join(line.strip() for line in text[-lines:] if line.strip())
