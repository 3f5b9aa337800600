"""How a command reports an error: on stderr (or a JSON error on stdout with `--json-full`),
never a traceback; a library error in the CLI's own words."""

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
    """What the command line says of a library error: its problem, with its hints naming the
    command's own flags and commands (`error_hints.render_cli_error`), line breaks kept. The
    one place that turns an error into text for every command."""
    from ..errors.hints import render_cli_error

    return render_cli_error(error)


def report_error(as_json: bool, error: CodesiftError) -> None:
    """A library error as `render` words it: on stderr with its line breaks (a regex's caret,
    the region to copy exactly), or JSON on stdout with `--json-full`."""
    message = render(error)
    try:
        if as_json:
            from ..errors.hints import cli_error_fields

            print_json({"error": cli_error_fields(error)})
        else:
            print(f"codesift: {message}", file=sys.stderr)
    except (OSError, ValueError):  # stdout/stderr closed: nothing more can be said
        pass
