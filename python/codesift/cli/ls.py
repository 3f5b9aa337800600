"""`codesift ls`: a directory's entries."""

from __future__ import annotations

from .exits import EXIT_FOUND
from .output import json_with_root, print_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    from rich.console import Console

    from ..workspace import Workspace


def add_command(
    new_parser: Callable[..., argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    ls = new_parser("ls", parents=[common], help="list a directory")
    ls.add_argument("path", nargs="?", default=None)
    ls.add_argument("--limit", type=int, default=1000)


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
    return EXIT_FOUND
