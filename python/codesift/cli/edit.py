"""`codesift edit`: replace OLD by NEW in a file, and print the diff."""

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
    e = new_parser("edit", parents=[common], help="replace OLD by NEW in a file")
    e.add_argument("path")
    e.add_argument("old")
    e.add_argument("new")
    e.add_argument("--replace-all", action="store_true")
    e.add_argument("--no-fuzzy", action="store_true", help="exact and line-ending matches only")


def run(ws: Workspace, args: argparse.Namespace, console: Console | None) -> int:
    result = ws.edit(
        args.path, args.old, args.new, replace_all=args.replace_all, fuzzy=not args.no_fuzzy
    )
    if args.json:
        print_json(json_with_root(ws, result.to_dict()))
    elif console is None:
        print(result.summary)
        print(result.diff, end="")
    else:
        from rich.text import Text

        console.print(Text(result.summary, style="bold"))
        for line in result.diff.splitlines():
            style = "green" if line.startswith("+") else "red" if line.startswith("-") else ""
            console.print(Text(line, style=style))
    return EXIT_FOUND
