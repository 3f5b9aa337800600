"""The command line's parsers: argparse with a one-line usage error and the terminal's width
found without `shutil`, and the options every command takes."""

from __future__ import annotations

import argparse
import os
import sys
from functools import partial

from .exits import EXIT_ERROR

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NoReturn


def terminal_columns() -> int:
    """`shutil.get_terminal_size().columns`, as argparse's help asks it, without importing
    `shutil` (which imports bz2, lzma and more: a start-up cost of every command)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    try:
        lines = int(os.environ["LINES"])
    except (KeyError, ValueError):
        lines = 0
    if columns <= 0 or lines <= 0:
        try:
            size = os.get_terminal_size(sys.__stdout__.fileno())  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            size = os.terminal_size((80, 24))
        if columns <= 0:
            columns = size.columns or 80
    return columns


class Formatter(argparse.HelpFormatter):
    """argparse's help formatter, the terminal's width found as argparse finds it, without
    `shutil`."""

    def __init__(self, prog: str, *args: Any, **kwargs: Any) -> None:
        if not args and kwargs.get("width") is None:
            kwargs["width"] = terminal_columns() - 2  # what argparse takes off
        super().__init__(prog, *args, **kwargs)


class Parser(argparse.ArgumentParser):
    """argparse, with a usage error reported in one line (exit 2) rather than the usage
    block and the error."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs.get("formatter_class", Formatter) is Formatter:
            # The terminal's width asked once per parser: argparse makes a formatter for
            # every argument added (only to check its metavar), and asking a pipe raises.
            width = terminal_columns() - 2  # what argparse takes off
            kwargs["formatter_class"] = partial(Formatter, width=width)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


#: What a command gets for each shared option it does not take: a command lists only the
#: options it acts on (`add_shared_options`), and `rooting.open_workspace` reads them all.
SHARED_DEFAULTS: dict[str, Any] = {
    "root": None,
    "json": False,
    "json_full": False,
    "color": "auto",
    "no_ignore": False,
    "no_hidden": False,
    "follow": False,
    "threads": None,
    "index": "auto",
}


def add_shared_options(
    parser: argparse.ArgumentParser,
    *,
    root: str | None,
    json: str | None = None,
    color: bool = False,
    filters: bool = False,
    walk: bool = False,
    index: bool = False,
) -> None:
    """Adds the shared options a command acts on, and no other: `--root` described for that
    command (`root`: its help), `--json` (`json`: what it prints), `--color`, the ignore
    filters (`filters`: --no-ignore, --hidden, --no-hidden), the walk (`walk`: -L and -j)
    and the index (`index`: --index, --no-index)."""
    parser.set_defaults(**SHARED_DEFAULTS)
    if root is not None:
        parser.add_argument("--root", metavar="DIR", default=None, help=root)
    if json is not None:
        parser.add_argument("--json", action="store_true", help=json)
        # For remote search (codesift.remote): JSON with every field of a hit (byte_length,
        # unique, encoding) and errors as JSON on stdout ({"error": {"type", "message"}}).
        parser.add_argument("--json-full", action="store_true", help=argparse.SUPPRESS)
    if color:
        parser.add_argument(
            "--color",
            choices=["auto", "always", "never"],
            default="auto",
            help="colour: auto (on a terminal), always or never",
        )
    if filters:
        parser.add_argument(
            "--no-ignore",
            action="store_true",
            help="do not honour .gitignore, .ignore and .git/info/exclude",
        )
        # rg's pair: one destination, so the last of --hidden and --no-hidden wins.
        parser.add_argument(
            "--hidden",
            dest="no_hidden",
            action="store_false",
            default=False,
            help="include hidden (dot) files (the default; the last of --hidden and "
            "--no-hidden wins)",
        )
        parser.add_argument(
            "--no-hidden",
            dest="no_hidden",
            action="store_true",
            default=False,
            help="skip hidden (dot) files",
        )
    if walk:
        parser.add_argument(
            "-L",
            "--follow",
            action="store_true",
            help="follow symlinks whose target stays inside the root",
        )
        parser.add_argument(
            "-j",
            "--threads",
            type=int,
            default=None,
            metavar="N",
            help="worker threads (default: one per CPU)",
        )
    if index:
        parser.add_argument(
            "--index",
            dest="index",
            action="store_const",
            const="on",
            default="auto",
            help="use the persistent index, building it if missing (default: use it if built)",
        )
        parser.add_argument(
            "--no-index",
            dest="index",
            action="store_const",
            const="off",
            help="never use the index: always scan",
        )
