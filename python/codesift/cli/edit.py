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
    result = ws.edit(
        args.path, args.old, args.new, replace_all=args.replace_all, fuzzy=not args.no_fuzzy
    )
    print_change(ws, result, console, as_json=args.json)
    return EXIT_FOUND
