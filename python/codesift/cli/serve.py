"""`codesift serve`: the tools and a web page over HTTP."""

from __future__ import annotations

from .exits import EXIT_FOUND
from .parser import add_shared_options
from .rooting import SERVER_ROOT

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from rich.console import Console

    from ..workspace import Workspace


def add_arguments(sv: argparse.ArgumentParser) -> None:
    sv.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    sv.add_argument("--port", type=int, default=8765, help="port (default 8765; 0: any free port)")
    sv.add_argument("--open", action="store_true", help="open the page in a browser")
    sv.add_argument("--token", default=None, help="the token writes need (default: a new one)")
    sv.add_argument("--read-only", action="store_true", help="serve only the read-only tools")
    sv.add_argument("--profile", default=None, metavar="NAME", help="tool profile of /api/tools")
    add_shared_options(sv, root=SERVER_ROOT, filters=True, walk=True, index=True)


#: The flags of `add_arguments` that `codesift.serve.Server` takes, by their names there.
SERVER_OPTIONS = ("host", "port", "token", "read_only", "profile")


def run(ws: Workspace, args: argparse.Namespace, console: Console | None) -> int:
    from .extras import require

    require("serve", "codesift serve")
    from ..serve import serve

    # The server's options are named as its flags are (`--read-only`: `read_only`).
    options = {name: getattr(args, name) for name in SERVER_OPTIONS}
    serve(ws, open_browser=args.open, **options)
    return EXIT_FOUND
