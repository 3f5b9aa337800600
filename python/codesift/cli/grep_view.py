"""`codesift grep` on a terminal: hits grouped under their file, matches highlighted, each
matching line once. No hit ids: an id lives in the process whose search made it (the
library's and the MCP server's store), and no later command could use one printed here."""

from __future__ import annotations

from itertools import groupby

from .lines import content_records
from .output import print_note, without_hint

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from rich.console import Console

    from ..results.matches import GrepResult


def render_grep(
    console: Console,
    result: GrepResult,
    show: Callable[[str], str],
    lines_of: Callable[[str], list[str]],
    *,
    context: bool,
) -> None:
    """Hits grouped under their file: one line per matching line (`line:col`, every match on
    it in bold red), context lines dim, `--` between groups."""
    from rich.text import Text

    first = True
    for file, hits in groupby(result.matches, key=lambda m: m.file):
        group = list(hits)
        if not first:
            console.print()
        first = False
        console.print(Text(show(file), style="bold magenta"))
        spans: dict[int, list[tuple[int, int]]] = {}
        for m in group:
            start = m.column - 1
            length = len(m.content.split("\n")[0].rstrip("\r"))
            spans.setdefault(m.line, []).append((start, start + length))
        last = -1
        for line, kind, col, text in content_records(group, only_matching=False, lines_of=lines_of):
            if context and last != -1 and line > last + 1:
                console.print(Text("--", style="dim"))
            last = line
            if kind == "-":
                console.print(Text(f"{line:>6}- ", style="dim") + Text(text))
                continue
            styled = Text(text)
            for start, end in spans.get(line, ()):
                styled.stylize("bold red", start, max(end, start))
            console.print(Text.assemble((f"{line:>6}:", "green"), (f"{col:<4}", "dim"), styled))
    print_note(console, without_hint(result))
