"""`codesift daemon`: start, inspect or stop this user's index daemon (`codesift.daemon`)."""

from __future__ import annotations

from .parser import add_shared_options

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


def add_arguments(dm: argparse.ArgumentParser) -> None:
    dm.add_argument(
        "action",
        choices=["start", "status", "stop", "run"],
        help="start it in the background, print its status, stop it, or run it",
    )
    dm.add_argument(
        "--foreground", action="store_true", help="with run: serve in this process (systemd)"
    )
    dm.add_argument(
        "--idle",
        type=float,
        default=None,
        metavar="SECONDS",
        help="exit after this many seconds without a request",
    )
    add_shared_options(dm, root=None, json="print the status as JSON")


def run(args: argparse.Namespace) -> int:
    from .. import daemon

    return daemon.main(args.action, foreground=args.foreground, idle=args.idle, as_json=args.json)
