"""How a command reports an error: one line on stderr (or a JSON error on stdout with
`--json-full`), never a traceback."""

from __future__ import annotations

import sys

from ..errors import CodesiftError, first_line
from .output import print_json


def report_unexpected(as_json: bool, exc: BaseException) -> None:
    report(
        as_json,
        "InternalError",
        f"unexpected {type(exc).__name__}: {first_line(exc)}; please report it",
    )


def report(as_json: bool, kind: str, message: str) -> None:
    """An error in one line: JSON on stdout with `--json-full`, else text on stderr."""
    try:
        if as_json:
            print_json({"error": {"type": kind, "message": message}})
        else:
            print(f"codesift: {' '.join(message.split())}", file=sys.stderr)
    except (OSError, ValueError):  # stdout/stderr closed: nothing more can be said
        pass


def render(error: CodesiftError) -> str:
    """What the command line says of a library error: its message. The one place that turns
    an error into text, so that what an error carries beyond its message (a hint, the next
    step) is rendered here for every command."""
    return str(error)
