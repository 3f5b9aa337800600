"""What the commands share to print: JSON (with the root the paths are relative to), a
terminal's rich console, and the hint about what a search passed over."""

from __future__ import annotations

import sys

from ..results.skip_hints import few, skip_hint
from ..text.escapes import json_escape_surrogates

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping
    from typing import Any

    from rich.console import Console

    from .. import _core
    from ..results.files import ListResult
    from ..results.matches import GlobResult, GrepResult
    from ..workspace import Workspace


def json_with_root(ws: Workspace, data: dict[str, Any]) -> dict[str, Any]:
    """A result's JSON with the workspace root its paths are relative to."""
    data["root"] = str(ws.root)
    return data


def console_for(args: argparse.Namespace) -> Console | None:
    """A rich console when the output takes the terminal's layout, else None (the layout
    of a pipe). The layout follows whether stdout is a terminal, or grep's `--heading` /
    `--no-heading`; the colour follows `--color` alone (auto: colour on a terminal)."""
    if args.json:
        return None
    terminal = sys.stdout.isatty()
    heading = getattr(args, "heading", None)
    if not (terminal if heading is None else heading):
        return None
    from rich.console import Console

    colour = args.color == "always" or (args.color == "auto" and terminal)
    if not colour:
        return Console(color_system=None, highlight=False, soft_wrap=True)
    return Console(force_terminal=True, highlight=False, soft_wrap=True)


def print_note(console: Console, note: str) -> None:
    """A note (a summary) on stderr, dim, in the colours of `console` (none with --color
    never)."""
    from rich.console import Console
    from rich.text import Text

    notes = Console(stderr=True, highlight=False, color_system=console.color_system)  # type: ignore[arg-type]
    notes.print(Text(note, style="dim"))


def print_change(
    ws: Workspace,
    result: Any,
    console: Console | None,
    *,
    as_json: bool,
    summary: str | None = None,
) -> None:
    """What an edit or a patch did: its summary (`summary`, else the result's) and diff
    (coloured on a terminal), or its `to_dict()` with `--json`."""
    summary = result.summary if summary is None else summary
    if as_json:
        print_json(json_with_root(ws, result.to_dict()))
    elif console is None:
        print(summary)
        print(result.diff, end="")
    else:
        from rich.text import Text

        console.print(Text(summary, style="bold"))
        for line in result.diff.splitlines():
            style = "green" if line.startswith("+") else "red" if line.startswith("-") else ""
            console.print(Text(line, style=style))


def print_json(data: dict[str, Any]) -> None:
    import json

    print(json_escape_surrogates(json.dumps(data, ensure_ascii=False)))


def without_hint(result: GlobResult | GrepResult) -> str:
    """The summary without the hint phrased for the library (the CLI says it its own way),
    and what a timed-out search says to do in the command line's words."""
    summary = result.summary.removesuffix(f" {result.hint}") if result.hint else result.summary
    library, command = _NARROW
    if summary.endswith(f"{library}]"):  # the note ends the summary (the pattern is before it)
        summary = summary[: -len(library) - 1] + f"{command}]"
    return summary


#: A timed-out search's advice: the library's options, and the command line's.
_NARROW = ("narrow the search with path or include", "narrow the search with PATH or -g GLOB")


def print_hint(
    result: GlobResult | GrepResult | ListResult, options: Mapping[str, str | None] | None = None
) -> None:
    """When the search (or listing) found little and entries were passed over, one line on
    stderr saying what and how to include them (never a silent false negative), in the
    words of `options` (`HINT_OPTIONS` by default)."""
    if result.hint:
        hint = result.skipped.hint(**(HINT_OPTIONS if options is None else options))
        print(f"codesift: {hint}", file=sys.stderr)


#: How the hint on stderr spells the ways to include what was passed over (hidden files are
#: skipped only after --no-hidden, which a later --hidden undoes).
HINT_OPTIONS: dict[str, str | None] = {
    "no_ignore": "--no-ignore",
    "hidden": "--hidden",
    "path": 'PATH "{path}"',
}


def print_outcome_hint(outcome: _core.GrepOutcome) -> None:
    """`print_hint` of the result a stream's `outcome` makes, from the engine's figures."""
    if few(outcome.total, outcome.truncated):
        hint = skip_hint(outcome.skipped, **HINT_OPTIONS)
        if hint:
            print(f"codesift: {hint}", file=sys.stderr)
