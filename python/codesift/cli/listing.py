"""What the commands that search the tree under PATH for files (glob, search) share: their
options, and how a result is printed (`to_dict()` with `--json`, else lines piped or
coloured on a terminal)."""

from __future__ import annotations

from .output import json_with_root, print_json
from .parser import add_shared_options
from .progress import with_progress
from .rooting import PATH_ROOT

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from typing import Any, TypeVar

    from rich.console import Console

    from ..workspace import Workspace

    Result = TypeVar("Result")


def add_tree_options(parser: argparse.ArgumentParser) -> None:
    """PATH (after the command's own positional), `--root` (PATH's root by default), `--json`
    (with "root"), `--color`, the ignore filters, the walk and the index."""
    parser.add_argument(
        "path", nargs="?", default=None, help="directory to search (default: the current one)"
    )
    add_shared_options(
        parser,
        root=PATH_ROOT,
        json='print the result as JSON (paths relative to the root, with "root")',
        color=True,
        filters=True,
        walk=True,
        index=True,
    )


def search_and_print(
    ws: Workspace,
    args: argparse.Namespace,
    console: Console | None,
    doing: str,
    search: Callable[[], Result],
    *,
    plain: Callable[[Result], Any],
    rich: Callable[[Result, Console], Any],
) -> Result:
    """Runs `search` (with a spinner titled `doing` on a terminal) and prints its result:
    its `to_dict()` with the root under `--json`, else `plain(result)` piped and
    `rich(result, console)` on a terminal."""
    result = with_progress(console, doing, search)
    if args.json:
        print_json(json_with_root(ws, result.to_dict()))  # type: ignore[attr-defined]
    elif console is None:
        plain(result)
    else:
        rich(result, console)
    return result
