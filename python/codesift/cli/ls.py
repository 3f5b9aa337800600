"""`codesift ls`: a directory's entries."""

from __future__ import annotations

from .exits import EXIT_FOUND
from .output import json_with_root, print_hint, print_json
from .parser import add_shared_options
from .rooting import PATH_ROOT

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from rich.console import Console

    from ..workspace import Workspace


def add_arguments(ls: argparse.ArgumentParser) -> None:
    ls.add_argument(
        "path",
        nargs="?",
        default=None,
        metavar="DIR",
        help="the directory (default: the current one)",
    )
    ls.add_argument(
        "--limit", type=int, default=1000, metavar="N", help="list at most N entries (default 1000)"
    )
    add_shared_options(
        ls,
        root=PATH_ROOT.replace("PATH", "DIR"),
        json='print the result as JSON (with "root")',
        color=True,
        filters=True,
    )


def run(ws: Workspace, args: argparse.Namespace, console: Console | None) -> int:
    result = ws.list_dir(args.path, limit=args.limit)
    if args.json:
        print_json(json_with_root(ws, result.to_dict()))
    elif console is None:
        if result.text:
            print(result.text)
    else:
        from rich.text import Text

        for entry in result.entries:
            console.print(Text(entry, style="bold blue" if entry.endswith("/") else ""))
        if result.truncated:
            console.print(Text(result.truncation_note, style="dim"))
    print_hint(result, LS_HINT_OPTIONS)
    return EXIT_FOUND


#: How `codesift ls`'s hint says to include what it passed over: its flags (a path to list
#: instead would be a guess: the examples may be files, which ls does not list).
LS_HINT_OPTIONS: dict[str, str | None] = {
    "no_ignore": "--no-ignore",
    "hidden": "--hidden",
    "path": None,
}
