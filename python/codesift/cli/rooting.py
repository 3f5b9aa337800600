"""The root rule every command follows: with `--root`, paths are relative to it; without
it, a command that takes a path works like `rg PATTERN PATH` from anywhere (the root is the
path's enclosing repository, else the path itself: `codesift.cli.roots`), and results are shown
the way the path was written."""

from __future__ import annotations

from ..workspace import Workspace
from .roots import root_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

# Commands whose root, without --root, is found from their path (see `locate`).
PATH_COMMANDS = frozenset({"glob", "grep", "search", "read", "ls", "edit", "index"})
#: --root of a command that takes a PATH, of one that takes a FILE, of grep (PATHs), and of
#: the servers: the root rule as each of them follows it.
PATH_ROOT = (
    "the workspace root: PATH is relative to it, and nothing outside it is read (default: "
    "the repository holding PATH, else PATH itself)"
)
FILE_ROOT = (
    "the workspace root: FILE is relative to it, and nothing outside it is touched (default: "
    "the repository holding FILE, else FILE's directory)"
)
GREP_ROOT = (
    "the workspace root: every PATH is relative to it, and nothing outside it is searched "
    "(default: for each PATH, the repository holding it, else the PATH itself)"
)
SERVER_ROOT = (
    "the root the tools are confined to (default: the current directory itself, never "
    "widened to its repository)"
)


def open_workspace(args: argparse.Namespace, root: str) -> Workspace:
    return Workspace(
        root,
        gitignore=not args.no_ignore,
        hidden=not args.no_hidden,
        follow_symlinks=args.follow,
        threads=args.threads,
        index=args.index,
        # Watching pays off only across searches: the MCP server keeps one.
        index_watch=args.command in ("mcp", "serve"),
    )


def locate(args: argparse.Namespace) -> str:
    """The workspace root of the command. With `--root`, paths are relative to it and shown
    as they are (root-relative). Without it, a command that takes a path works like `rg
    PATTERN PATH` from anywhere: the root is the path's enclosing repository (else the path
    itself), `args.path` becomes root-relative, and `args.show` prints result paths the way
    the path was written. `index` uses the current directory's root, so that the index it
    builds is the one searches from there use; the servers (mcp) and apply-hit use the
    current directory itself."""
    args.show = as_is
    if args.root is not None:
        if getattr(args, "path", ".") is None:
            args.path = "."
        return str(args.root)
    if args.command not in PATH_COMMANDS:
        return "."
    rooted = root_of(getattr(args, "path", None), line_range=args.command == "read")
    if hasattr(args, "path"):
        args.path = rooted.path
    args.show = rooted.show
    return rooted.root


def as_is(path: str) -> str:
    return path
