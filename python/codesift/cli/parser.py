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


def common_parser() -> Parser:
    """The options every command takes."""
    common = Parser(add_help=False)
    add_common_arguments(common)
    return common


def add_common_arguments(common: argparse.ArgumentParser) -> None:
    """Adds the options every command takes (to a command's parser: what `common_parser`,
    given as its parent, would add, in the same order)."""
    common.add_argument(
        "--root",
        default=None,
        help="workspace root; paths are then relative to it (default: the repository "
        "enclosing PATH, else PATH itself; for mcp and apply-hit the current directory)",
    )
    common.add_argument("--json", action="store_true", help="print the result as JSON")
    common.add_argument(
        "--color", choices=["auto", "always", "never"], default="auto", help="colour output"
    )
    common.add_argument("--no-ignore", action="store_true", help="do not honour .gitignore")
    common.add_argument("--hidden", action="store_true", help="search hidden files (default)")
    common.add_argument("--no-hidden", action="store_true", help="skip hidden files")
    common.add_argument("-L", "--follow", action="store_true", help="follow symlinks in root")
    common.add_argument("-j", "--threads", type=int, default=None, help="worker threads")
    common.add_argument(
        "--index",
        dest="index",
        action="store_const",
        const="on",
        default="auto",
        help="use the persistent index, building it if missing (default: use it if built)",
    )
    common.add_argument(
        "--no-index", dest="index", action="store_const", const="off", help="always scan"
    )
    # For remote search (codesift.remote): JSON with every field of a hit (byte_length, unique,
    # encoding) and errors as JSON on stdout ({"error": {"type", "message"}}, exit 2).
    common.add_argument("--json-full", action="store_true", help=argparse.SUPPRESS)
