"""`codesift daemon`: start, inspect or stop this user's index daemon (`codesift.daemon`)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable


def add_command(
    new_parser: Callable[..., argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    dm = new_parser(
        "daemon", parents=[common], help="start, inspect or stop this user's index daemon"
    )
    dm.add_argument("action", choices=["start", "status", "stop", "run"])
    dm.add_argument(
        "--foreground", action="store_true", help="with run: serve in this process (systemd)"
    )
    dm.add_argument(
        "--idle", type=float, default=None, help="exit after this many seconds without a request"
    )


def run(args: argparse.Namespace) -> int:
    from .. import daemon

    return daemon.main(args.action, foreground=args.foreground, idle=args.idle, as_json=args.json)
