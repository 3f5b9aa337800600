"""`codesift glob`: files by glob pattern."""

from __future__ import annotations

import sys

from .exits import EXIT_FOUND, EXIT_NOTHING
from .listing import add_tree_options, search_and_print
from .output import print_hint, print_note, without_hint

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from rich.console import Console

    from ..results.matches import GlobResult
    from ..workspace import Workspace


def add_arguments(g: argparse.ArgumentParser) -> None:
    g.add_argument("pattern", help="the glob, e.g. '*.py' or 'src/**/*.ts'")
    g.add_argument(
        "--limit",
        type=int,
        default=None,
        metavar="N",
        help=f"list at most N files (0: no limit; default: no limit when piped, {TERMINAL_LIMIT} "
        "on a terminal)",
    )
    g.add_argument(
        "--sort",
        choices=["path", "mtime", "none"],
        default="path",
        help="order: path (the default), mtime (newest first) or none",
    )
    g.add_argument("--ignore-case", action="store_true", help="case-insensitive glob")
    add_tree_options(g)


#: The most files a terminal shows unless --limit (a pipe gets them all, as from fd).
TERMINAL_LIMIT = 2000


def run(ws: Workspace, args: argparse.Namespace, console: Console | None) -> int:
    from ..arguments import MAX_COUNT

    # A negative --limit is the library's to refuse (its message names --limit here).
    limit = TERMINAL_LIMIT if console is not None else 0
    limit = (limit if args.limit is None else args.limit) or MAX_COUNT

    def plain(result: GlobResult) -> None:
        for f in result.files:
            print(args.show(f.path))
        if result.truncated:
            # As on a terminal: --limit cut the list, and the pipe's reader is told so.
            print(without_hint(result), file=sys.stderr)

    def rich(result: GlobResult, console: Console) -> None:
        from rich.text import Text

        for f in result.files:
            console.print(Text(args.show(f.path), style="magenta"))
        print_note(console, without_hint(result))

    result = search_and_print(
        ws,
        args,
        console,
        f"Finding files matching {args.pattern}",
        lambda: ws.glob(
            args.pattern,
            args.path,
            limit=limit,
            sort=args.sort,
            case_sensitive=not args.ignore_case,
        ),
        plain=plain,
        rich=rich,
    )
    print_hint(result)
    return EXIT_FOUND if result.total else EXIT_NOTHING
