"""`codesift search`: the files that best answer a question in words (keyword-ranked)."""

from __future__ import annotations

from .exits import EXIT_FOUND, EXIT_NOTHING
from .listing import add_tree_options, search_and_print
from .output import print_note

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    from rich.console import Console

    from ..results.ranked import SearchResult
    from ..workspace import Workspace


def add_arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("question", help="the question, e.g. 'how are routes registered'")
    s.add_argument(
        "-n",
        "--max-results",
        type=int,
        default=10,
        metavar="N",
        help="show at most N files (default 10)",
    )
    s.add_argument(
        "-g",
        "--glob",
        dest="include",
        action="append",
        default=None,
        metavar="GLOB",
        help="search only files matching GLOB (repeatable)",
    )
    s.add_argument(
        "--exclude",
        action="append",
        default=None,
        metavar="GLOB",
        help="skip files matching GLOB (repeatable)",
    )
    s.add_argument(
        "-t",
        "--type",
        action="append",
        default=None,
        metavar="TYPE",
        help="search only files of this ripgrep type, e.g. py or rust (repeatable)",
    )
    add_tree_options(s)


def run(ws: Workspace, args: argparse.Namespace, console: Console | None) -> int:
    def rich(result: SearchResult, console: Console) -> None:
        from rich.text import Text

        for index, hit in enumerate(result.results):
            if index:
                console.print()
            head = Text(args.show(hit.file), style="magenta")
            head.append(f" ({hit.score:.2f}) ", style="dim")
            head.append(hit.why)
            console.print(head)
            for line, text in hit.lines:
                row = Text(f"  {line}:", style="green")
                row.append(f" {text}")
                console.print(row)
        print_note(console, result.summary)

    result = search_and_print(
        ws,
        args,
        console,
        f"Searching for {args.question}",
        lambda: ws.search(
            args.question,
            args.path,
            max_results=args.max_results,
            include=args.include,
            exclude=args.exclude,
            type=args.type,
        ),
        plain=lambda result: print(_text(result, args.show)),
        rich=rich,
    )
    return EXIT_FOUND if result.results else EXIT_NOTHING


def _text(result: SearchResult, show: Callable[[str], str]) -> str:
    """The result as plain text, paths as PATH was written: one block per file."""
    if not result.results:
        return f"no files match (terms: {', '.join(result.terms)})"
    blocks = []
    for hit in result.results:
        lines = [f"{show(hit.file)} ({hit.score:.2f}) {hit.why}"]
        lines += [f"  {line}: {text}" for line, text in hit.lines]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
