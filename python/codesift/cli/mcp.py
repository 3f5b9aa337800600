"""`codesift mcp`: the tools served over MCP (stdio, or Streamable HTTP)."""

from __future__ import annotations

from ..errors import InvalidArgumentError
from .exits import EXIT_FOUND
from .parser import add_shared_options
from .rooting import SERVER_ROOT

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from rich.console import Console

    from ..workspace import Workspace


def add_arguments(m: argparse.ArgumentParser) -> None:
    m.add_argument(
        "--spill-dir", default=None, metavar="DIR", help="where oversized outputs are saved"
    )
    m.add_argument(
        "--http",
        metavar="HOST:PORT",
        default=None,
        help="serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio (loopback only)",
    )
    m.add_argument(
        "--allow-non-loopback",
        action="store_true",
        help="let --http bind an address other machines can reach (unsafe: no auth)",
    )
    m.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="with --http, also accept requests from this browser Origin (repeatable)",
    )
    m.add_argument(
        "--profile",
        default="codesift",
        help="which agent's tool names, schemas and output text to serve: codesift (default), "
        "claude-code, opencode, gemini-cli, cline, codex, swe-agent, mcp-filesystem, ...",
    )
    add_shared_options(m, root=SERVER_ROOT, filters=True, walk=True, index=True)


def run(ws: Workspace, args: argparse.Namespace, console: Console | None) -> int:
    from .extras import require

    require("mcp", "codesift mcp")
    from ..mcp import run
    from ..tools import Toolbox

    try:
        toolbox = Toolbox(ws, args.profile, spill_dir=args.spill_dir)
    except ValueError as exc:
        raise InvalidArgumentError(f"--profile: {exc}") from None
    run(
        toolbox,
        http=args.http,
        allow_non_loopback=args.allow_non_loopback,
        allowed_origins=args.allow_origin,
    )
    return EXIT_FOUND
