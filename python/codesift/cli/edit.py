"""`codesift edit`: replace OLD by NEW in a file, and print the diff."""

from __future__ import annotations

from .exits import EXIT_FOUND
from .output import print_change
from .parser import add_shared_options
from .rooting import FILE_ROOT

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from rich.console import Console

    from ..workspace import Workspace


def add_arguments(e: argparse.ArgumentParser) -> None:
    e.add_argument("path", metavar="FILE", help="the file to edit")
    e.add_argument(
        "old", metavar="OLD", help="the text to replace (one place, or see --replace-all)"
    )
    e.add_argument("new", metavar="NEW", help="the text to put in its place")
    e.add_argument(
        "--replace-all", action="store_true", help="replace every place OLD matches, not just one"
    )
    e.add_argument("--no-fuzzy", action="store_true", help="exact and line-ending matches only")
    add_shared_options(
        e,
        root=FILE_ROOT,
        json='print the result as JSON (with "root")',
        color=True,
    )


def run(ws: Workspace, args: argparse.Namespace, console: Console | None) -> int:
    from ..errors import CodesiftError

    try:
        result = ws.edit(
            args.path, args.old, args.new, replace_all=args.replace_all, fuzzy=not args.no_fuzzy
        )
    except CodesiftError as error:
        raise in_the_commands_words(error) from None
    # The summary's own words end it: "(strategy: NAME: what matched how)", after the path.
    head, strategy, note = result.summary.rpartition(" (strategy: ")
    summary = head + strategy + _said(note) if strategy else result.summary
    print_change(ws, result, console, as_json=args.json, summary=summary)
    return EXIT_FOUND


#: What the library's edit errors say that this command says otherwise: the texts are its
#: arguments OLD and NEW (the tools' `old_string`, `new_string`).
CLI_WORDS = (
    ("old_string", "OLD"),
    ("new_string", "NEW"),
)


def in_the_commands_words(error: BaseException) -> BaseException:
    """`error` in this command's words (`CLI_WORDS`) when it is about the texts (its problem
    opens with `old_string`; another, such as a missing file, may name a path holding those
    words). Only the first line: the lines after it may show the file, quoted exactly."""
    from ..errors import problem_of, reworded

    problem = problem_of(error)
    if not problem.startswith("old_string"):
        return error
    first, newline, rest = problem.partition("\n")
    return reworded(error, _said(first) + newline + rest)


def _said(text: str) -> str:
    """`text` in this command's words (`CLI_WORDS`)."""
    for library, command in CLI_WORDS:
        text = text.replace(library, command)
    return text
