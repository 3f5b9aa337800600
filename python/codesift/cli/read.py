"""`codesift read`: a file with line numbers."""

from __future__ import annotations

import sys

from ..workspace import LINE_RANGE
from .exits import EXIT_FOUND
from .output import json_with_root, print_json
from .parser import add_shared_options
from .rooting import FILE_ROOT

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from rich.console import Console

    from ..workspace import Workspace


def add_arguments(rd: argparse.ArgumentParser) -> None:
    rd.add_argument("path", metavar="FILE", help="the file, optionally with :START-END or :LINE")
    rd.add_argument(
        "--offset", type=int, default=1, metavar="N", help="first line to print (default 1)"
    )
    rd.add_argument(
        "--limit", type=int, default=2000, metavar="N", help="print at most N lines (default 2000)"
    )
    add_shared_options(rd, root=FILE_ROOT, json='print the result as JSON (with "root")')


def run(ws: Workspace, args: argparse.Namespace, console: Console | None) -> int:
    result = ws.read(args.path, offset=args.offset, limit=args.limit)
    if args.json:
        print_json(json_with_root(ws, result.to_dict()))
    else:
        if result.content:
            print(result.content)
        # A range (FILE:START-END) printed whole was not cut: that the file goes on is no
        # news to whoever named the lines. Only --limit cuts what was asked.
        ranged = _names_a_range(ws, args.path)
        cut = result.truncated and not ranged
        if cut or not result.content:
            # The summary speaks to the tools (`offset=N`); here the flag is `--offset N`, and
            # a range names its first line.
            summary = result.summary.replace("continue with offset=", "continue with --offset ")
            where = "nothing at line " if ranged else "nothing at --offset "
            summary = summary.replace("nothing at offset ", where)
            print(summary, file=sys.stderr)
    return EXIT_FOUND


def _names_a_range(ws: Workspace, path: str) -> bool:
    """Whether `path` picks lines (`FILE:START-END`, `FILE:LINE`) as `Workspace.read` reads
    it: the suffix is a range unless a file has that very name."""
    import re

    return re.match(LINE_RANGE, path) is not None and not ws.exists(path)
