"""`codesift index`: build, inspect or remove the persistent index of a root."""

from __future__ import annotations

from .exits import EXIT_FOUND
from .output import print_json
from .parser import add_shared_options
from .progress import with_progress

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any

    from rich.console import Console

    from ..workspace import Workspace


def add_arguments(ix: argparse.ArgumentParser) -> None:
    ix.add_argument(
        "action",
        choices=["build", "status", "drop"],
        help="build (or rebuild) it, print its status, or drop (remove) it",
    )
    add_shared_options(
        ix,
        root="the root to index (default: the repository holding the current directory, "
        "else the current directory)",
        json="print what was done as JSON",
        color=True,
        filters=True,
        walk=True,
    )


def run(ws: Workspace, args: argparse.Namespace, console: Console | None) -> int:
    if args.action == "drop":
        dropped = ws.index_drop()
        data: dict[str, Any] = {"dropped": dropped}
        text = "index removed" if dropped else "there was no index"
    elif args.action == "status":
        data = ws.index_status()
        if data["problem"]:
            text = f"index at {data['path']}: {data['problem']}"
        elif not data["exists"]:
            text = f"no index (it would be at {data['path']}); build it with: codesift index build"
        else:
            text = (
                f"index at {data['path']}: {data['files']} files, {data['units']} units, "
                f"{data['trigrams']} trigrams, {data['bytes']} bytes"
            )
    else:
        if console is not None and console.is_terminal and not args.json:
            from rich.console import Console
            from rich.progress import Progress

            with Progress(console=Console(stderr=True), transient=True) as bar:
                task = bar.add_task("indexing", total=None)
                data = with_progress(
                    None,
                    "indexing",
                    lambda: ws.index_build(
                        lambda done, total: bar.update(task, completed=done, total=total)
                    ),
                )
        else:
            data = with_progress(None, "indexing", ws.index_build)
        text = (
            f"indexed {data['indexed_files']} of {data['files']} files "
            f"({data['bytes_indexed']} bytes) into {data['index_bytes']} bytes"
        )
    if args.json:
        print_json(data)
    else:
        print(text)
    return EXIT_FOUND
