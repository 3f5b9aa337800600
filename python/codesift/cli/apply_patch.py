"""`codesift apply-patch`: a patch read from a file or stdin, in any format the library
applies (`Workspace.apply_patch`: Codex's `*** Begin Patch` envelopes, unified diffs,
SEARCH/REPLACE blocks), all or nothing; `--dry-run` shows the diff and writes nothing."""

from __future__ import annotations

import sys

from ..errors import InvalidArgumentError
from .exits import EXIT_FOUND
from .output import print_change
from .parser import add_shared_options

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from rich.console import Console

    from ..workspace import Workspace

#: A patch is read whole; more than this is refused (an agent's patch is far smaller).
MAX_PATCH_BYTES = 64 * 1024 * 1024


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument(
        "patch",
        nargs="?",
        default="-",
        metavar="PATCH",
        help="the file holding the patch (default, or -: standard input)",
    )
    ap.add_argument(
        "--format",
        choices=["auto", "apply_patch", "unified", "search_replace"],
        default="auto",
        help="the patch's format (default: detected)",
    )
    ap.add_argument(
        "--path",
        metavar="FILE",
        default=None,
        help="the file SEARCH/REPLACE blocks apply to (they do not name it)",
    )
    ap.add_argument(
        "--dry-run", action="store_true", help="print the diff it would make; write nothing"
    )
    add_shared_options(
        ap,
        root="the root the patch's paths are relative to (default: the current directory)",
        json='print the result as JSON (with "root")',
        color=True,
    )


def run(ws: Workspace, args: argparse.Namespace, console: Console | None) -> int:
    result = ws.apply_patch(
        _patch_text(args.patch), format=args.format, dry_run=args.dry_run, path=args.path
    )
    print_change(ws, result, console, as_json=args.json)
    return EXIT_FOUND


def _patch_text(source: str) -> str:
    """The patch from the file `source`, or stdin for `-`, as UTF-8 text."""
    try:
        if source == "-":
            raw = sys.stdin.buffer.read(MAX_PATCH_BYTES + 1)
        else:
            with open(source, "rb") as f:
                raw = f.read(MAX_PATCH_BYTES + 1)
    except OSError as exc:
        raise InvalidArgumentError(
            f"cannot read the patch {source}: {exc.strerror}; give a readable file or - (stdin)"
        ) from None
    if len(raw) > MAX_PATCH_BYTES:
        raise InvalidArgumentError(f"the patch is over {MAX_PATCH_BYTES} bytes; split it")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidArgumentError("the patch is not UTF-8 text; save it as UTF-8") from None
