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
    from ..errors.hints import name_texts, texts_said

    try:
        result = ws.edit(
            args.path, args.old, args.new, replace_all=args.replace_all, fuzzy=not args.no_fuzzy
        )
    except CodesiftError as error:
        raise name_texts(error, CLI_TEXTS) from None
    # The summary's own words end it: "(strategy: NAME: what matched how)", after the path.
    head, strategy, note = result.summary.rpartition(" (strategy: ")
    summary = head + strategy + texts_said(note, CLI_TEXTS) if strategy else result.summary
    print_change(ws, result, console, as_json=args.json, summary=summary)
    return EXIT_FOUND


#: The edit's texts are this command's arguments OLD and NEW (the library's and the tools'
#: `old_string`, `new_string`).
CLI_TEXTS = {"old_string": "OLD", "new_string": "NEW"}
