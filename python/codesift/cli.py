"""The `codesift` command: glob, grep, read, ls, edit, the MCP server, the HTTP server
(`serve`), the index daemon (`daemon`, see `codesift.daemon`), and `apply-hit` (the linked
edit that remote search runs on a host).

On a terminal output is rendered with `rich` (hits grouped by file, matches highlighted, a
spinner while a long scan runs); piped, grep prints ripgrep's lines (`codesift.cli_grep`:
`path:line:text`, as `rg -n --no-heading`; never capped); `--json` prints the result's
`to_dict()` (with `root`; one object per line when grep is given several paths). Without
`--root`, a command's path works from anywhere, as with `rg PATTERN PATH`: its enclosing
repository (else the path itself) is the root, and human output prints paths the way PATH
was written (`roots`).
Exit codes follow grep: 0 something found (or done), 1 nothing found, 2 error (one line on
stderr, never a traceback: usage errors, bad values, and even a bug or an engine panic are
reported in one line), 130 interrupted.
File names that are not UTF-8 are printed as the bytes they are (as ls and ripgrep print
them); `--json` writes them as `\\udcff` escapes, which `json.loads` reads back exactly.
"""

from __future__ import annotations

import argparse
import os
import sys
from functools import partial
from itertools import groupby

from ._core import __version__
from .arguments import (
    MAX_COUNT,
    MAX_LINES,
    check_int,
    check_unicode,
    check_writable_text,
)
from .cli_grep import (
    EVERY_LINE,
    Lines,
    Record,
    add_grep_arguments,
    content_records,
    grep_pattern,
    inverted_records,
    patterns_and_paths,
)
from .errors import CodesiftError, InvalidArgumentError, first_line
from .escapes import install_stream_handler, json_escape_surrogates
from .roots import RootedPath, root_of
from .skip_hints import few, skip_hint
from .streams import GrepIter
from .workspace import Workspace

# rich is imported only where output goes to a terminal, json only for --json: a piped grep
# starts without either, and without the results' dataclasses (it reads the engine's figures
# as they are), `typing`, `pathlib`, `threading` (a scan waited for on a thread, with a
# spinner) or `contextlib` (see tests/cli/test_startup_imports.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from typing import Any, NoReturn, TypeVar

    from rich.console import Console

    from . import _core
    from .results import GlobResult, GrepResult

    T = TypeVar("T")

EXIT_FOUND, EXIT_NOTHING, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130
# Commands whose root, without --root, is found from their path (see `_locate`).
PATH_COMMANDS = frozenset({"glob", "grep", "read", "ls", "edit", "index"})
#: apply-hit reads at most this much JSON from stdin (a hit and its replacement).
MAX_APPLY_HIT_BYTES = 256 * 1024 * 1024
# A spinner appears on a terminal when a scan takes longer than this (seconds).
PROGRESS_AFTER_SECONDS = float(os.environ.get("CODESIFT_PROGRESS_AFTER", "0.3"))
#: What a terminal shows at most unless -m says otherwise (a pipe gets every match).
TERMINAL_CAP = 500
GREP_DESCRIPTION = (
    "Search file contents with ripgrep's habits: options anywhere, several PATHs, rg's "
    "flags and meanings, case-sensitive unless -i or -S. Piped, it prints what "
    "`rg -n --no-heading` prints (one line per matching line, path:line:text; context lines "
    "as path-line-text with -- between groups), never capped; on a terminal hits are grouped "
    "by file with their ids, at most 500 unless -m (and it says so)."
)


def _terminal_columns() -> int:
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


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter, the terminal's width found as argparse finds it, without
    `shutil`."""

    def __init__(self, prog: str, *args: Any, **kwargs: Any) -> None:
        if not args and kwargs.get("width") is None:
            kwargs["width"] = _terminal_columns() - 2  # what argparse takes off
        super().__init__(prog, *args, **kwargs)


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error reported in one line (exit 2) rather than the usage
    block and the error."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs.get("formatter_class", _Formatter) is _Formatter:
            # The terminal's width asked once per parser: argparse makes a formatter for
            # every argument added (only to check its metavar), and asking a pipe raises.
            width = _terminal_columns() - 2  # what argparse takes off
            kwargs["formatter_class"] = partial(_Formatter, width=width)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _common_parser() -> _Parser:
    """The options every command takes."""
    common = _Parser(add_help=False)
    _add_common_arguments(common)
    return common


def _add_common_arguments(common: argparse.ArgumentParser) -> None:
    """Adds the options every command takes (to a command's parser: what `_common_parser`,
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


def grep_parser() -> argparse.ArgumentParser:
    """`codesift grep` on its own, parsed with options anywhere among the arguments (as rg
    takes them: `codesift grep PATTERN -s src`)."""
    # The common options added here rather than from a parent parser: one parser fewer to
    # make (each asks gettext for its headings) at every grep's start.
    parser = _Parser(prog="codesift grep", description=GREP_DESCRIPTION)
    _add_common_arguments(parser)
    add_grep_arguments(parser)
    parser.add_argument("--version", action="version", version=f"codesift {__version__}")
    return parser


def _parse_grep(words: list[str]) -> argparse.Namespace:
    """grep's arguments, options anywhere; after `--` every word is a positional (argparse's
    intermixed parsing mishandles `--`, so the words after it are placed here)."""
    rest: list[str] = []
    if "--" in words:
        cut = words.index("--")
        words, rest = words[:cut], words[cut + 1 :]
    parser = grep_parser()
    if any(word.startswith("-") for word in words):
        args = parser.parse_intermixed_args(words)
    else:
        # No option among the words: parsing them intermixed gives the same namespace, and
        # would first format the whole usage (which it keeps for its errors): a start-up cost.
        args = parser.parse_args(words)
    if rest and args.pattern is None:  # with -e, `patterns_and_paths` makes it a path
        args.pattern, rest = rest[0], rest[1:]
    args.paths = [*args.paths, *rest]
    if args.pattern is None and not args.regexp:
        parser.error("the following arguments are required: pattern (or -e PATTERN)")
    args.command = "grep"
    return args


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="codesift", description="Fast, sandboxed code search and edit for agents and people."
    )
    parser.add_argument("--version", action="version", version=f"codesift {__version__}")
    common = _common_parser()
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    g = sub.add_parser("glob", parents=[common], help="find files by glob pattern")
    g.add_argument("pattern")
    g.add_argument("path", nargs="?", default=None)
    g.add_argument("--limit", type=int, default=2000)
    g.add_argument("--sort", choices=["path", "mtime", "none"], default="path")
    g.add_argument("--ignore-case", action="store_true", help="case-insensitive glob")

    r = sub.add_parser(
        "grep",
        parents=[common],
        help="search file contents by regex, with ripgrep's flags",
        description=GREP_DESCRIPTION,
    )
    add_grep_arguments(r)
    r.add_argument("--version", action="version", version=f"codesift {__version__}")

    rd = sub.add_parser("read", parents=[common], help="print a file with line numbers")
    rd.add_argument("path", help="file, optionally with :START-END")
    rd.add_argument("--offset", type=int, default=1)
    rd.add_argument("--limit", type=int, default=2000)

    ls = sub.add_parser("ls", parents=[common], help="list a directory")
    ls.add_argument("path", nargs="?", default=None)
    ls.add_argument("--limit", type=int, default=1000)

    e = sub.add_parser("edit", parents=[common], help="replace OLD by NEW in a file")
    e.add_argument("path")
    e.add_argument("old")
    e.add_argument("new")
    e.add_argument("--replace-all", action="store_true")
    e.add_argument("--no-fuzzy", action="store_true", help="exact and line-ending matches only")

    ix = sub.add_parser("index", parents=[common], help="build, inspect or remove the index")
    ix.add_argument("action", choices=["build", "status", "drop"])

    dm = sub.add_parser(
        "daemon", parents=[common], help="start, inspect or stop this user's index daemon"
    )
    dm.add_argument("action", choices=["start", "status", "stop", "run"])
    dm.add_argument(
        "--foreground", action="store_true", help="with run: serve in this process (systemd)"
    )
    dm.add_argument(
        "--idle", type=float, default=None, help="exit after this many seconds without a request"
    )

    m = sub.add_parser(
        "mcp", parents=[common], help="serve the tools over MCP (stdio, or Streamable HTTP)"
    )
    m.add_argument("--spill-dir", default=None, help="where oversized outputs are saved")
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

    sv = sub.add_parser("serve", parents=[common], help="serve the tools and a web page over HTTP")
    sv.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    sv.add_argument("--port", type=int, default=8765, help="port (default 8765; 0: any free port)")
    sv.add_argument("--open", action="store_true", help="open the page in a browser")
    sv.add_argument("--token", default=None, help="the token writes need (default: a new one)")
    sv.add_argument("--read-only", action="store_true", help="serve only the read-only tools")
    sv.add_argument("--profile", default=None, help="tool profile of /api/tools")

    sh = sub.add_parser(
        "shim",
        help="make a directory whose `rg` is codesift-rg, to put first on PATH",
        description=(
            "Creates (or refreshes) a private directory holding `rg`, a link to the installed "
            "codesift-rg, and prints it. Put it first on PATH: "
            'export PATH="$(codesift shim --print-path):$PATH"'
        ),
    )
    sh.add_argument("--print-path", action="store_true", help="print only the directory (for PATH)")

    sub.add_parser(
        "apply-hit",
        parents=[common],
        help="linked edit of a search hit given as JSON on stdin (used by remote search)",
        description=(
            "Reads {file, byte_offset, byte_length, content, new, unique, line} as JSON on "
            "stdin, replaces that hit like edit_result does, and prints the edit result as "
            'JSON (with "span": the bytes that changed). Errors: {"error": {"type", '
            '"message"}} on stdout, exit 2.'
        ),
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs one command. Never raises (but SystemExit from within): every failure is one line
    on stderr (or a JSON error with `--json-full`) and exit code 2; Ctrl-C is exit 130."""
    _prepare_streams()
    json_errors = False
    command = "command"
    try:
        words = list(sys.argv[1:] if argv is None else argv)
        if argv is None and words[:1] == ["grep"]:
            _freeze_imported()
        try:
            if words[:1] == ["grep"]:
                args = _parse_grep(words[1:])
            else:
                args = build_parser().parse_args(words)
        except SystemExit as exc:  # argparse already printed its one-line message
            return EXIT_ERROR if exc.code else EXIT_FOUND
        command = args.command
        if args.command != "shim" and (args.json_full or args.command == "apply-hit"):
            args.json = args.json_full = True
            json_errors = True
        closed = _closed_stream(args)
        if closed is not None:
            raise InvalidArgumentError(closed)
        if args.command == "shim":
            return _shim(args)
        if args.command == "grep":
            return _grep(args, _console(args))
        if args.command == "daemon":
            from . import daemon

            return daemon.main(
                args.action, foreground=args.foreground, idle=args.idle, as_json=args.json
            )
        ws = _workspace(args, _locate(args))
        return COMMANDS[args.command](ws, args, _console(args))
    except CodesiftError as exc:
        from .error_hints import report_cli_error  # the hints in the CLI's flags

        report_cli_error(exc, as_json=json_errors)
        return EXIT_ERROR
    except KeyboardInterrupt:
        # What is still buffered for stdout is dropped, as rg's is when Ctrl-C kills it: the
        # flush at exit must not wait on a full pipe whose reader has stopped reading.
        _silence_stdout()
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_FOUND
    except SystemExit:
        raise
    except ModuleNotFoundError as exc:
        from .extras import extra_for, missing

        extra = extra_for(exc.name)
        if extra is None:
            _report_unexpected(json_errors, exc)
        else:  # an optional dependency of this command is missing
            error = missing(extra, exc.name or extra, f"codesift {command}")
            _report(json_errors, type(error).__name__, str(error))
        return EXIT_ERROR
    except RecursionError:
        _report(json_errors, "InvalidArgumentError", "the input is nested too deeply to handle")
        return EXIT_ERROR
    except MemoryError:
        _report(json_errors, "InternalError", "out of memory; narrow the search")
        return EXIT_ERROR
    # A bug, or an engine panic (a BaseException): one line, never a traceback.
    except BaseException as exc:
        _report_unexpected(json_errors, exc)
        return EXIT_ERROR


def _closed_stream(args: argparse.Namespace) -> str | None:
    """What to say when the command was started with a standard stream it needs closed (the
    shell's `>&-` or `<&-`: Python then has no `sys.stdout`/`sys.stdin`), else None."""
    http = args.command == "serve" or getattr(args, "http", None) is not None
    if sys.stdout is None and not http:
        return (
            f"standard output is closed; run codesift {args.command} with its output going "
            "to a terminal, a file or a pipe (> /dev/null to discard it)"
        )
    if sys.stdin is None and args.command == "apply-hit":
        return "standard input is closed; apply-hit reads the hit as one JSON object on stdin"
    if sys.stdin is None and args.command == "mcp" and not http:
        return (
            "standard input is closed; codesift mcp speaks JSON-RPC over stdin and stdout "
            "(start it from an MCP client, or serve HTTP with --http HOST:PORT)"
        )
    return None


def _freeze_imported() -> None:
    """For a grep run as the process's command (the console script, `python -m codesift`):
    what the imports made (the modules' code, classes and tables, kept until exit) is left
    out of the cyclic collector's passes, the two at exit included, which would otherwise
    walk all of it again (milliseconds of a short command). What the command itself makes
    is collected as before; at exit the objects are still freed and the streams flushed."""
    import gc

    gc.freeze()


def _workspace(args: argparse.Namespace, root: str) -> Workspace:
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


def _report_unexpected(as_json: bool, exc: BaseException) -> None:
    _report(
        as_json,
        "InternalError",
        f"unexpected {type(exc).__name__}: {first_line(exc)}; please report it",
    )


def _locate(args: argparse.Namespace) -> str:
    """The workspace root of the command. With `--root`, paths are relative to it and shown
    as they are (root-relative). Without it, a command that takes a path works like `rg
    PATTERN PATH` from anywhere: the root is the path's enclosing repository (else the path
    itself), `args.path` becomes root-relative, and `args.show` prints result paths the way
    the path was written. `index` uses the current directory's root, so that the index it
    builds is the one searches from there use; the servers (mcp) and apply-hit use the
    current directory itself."""
    args.show = _as_is
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


def _as_is(path: str) -> str:
    return path


def _json_with_root(ws: Workspace, data: dict[str, Any]) -> dict[str, Any]:
    """A result's JSON with the workspace root its paths are relative to."""
    data["root"] = str(ws.root)
    return data


def _report(as_json: bool, kind: str, message: str) -> None:
    """An error in one line: JSON on stdout with `--json-full`, else text on stderr."""
    try:
        if as_json:
            _print_json({"error": {"type": kind, "message": message}})
        else:
            print(f"codesift: {' '.join(message.split())}", file=sys.stderr)
    except (OSError, ValueError):  # stdout/stderr closed: nothing more can be said
        pass


def _prepare_streams() -> None:
    """Output that holds a non-UTF-8 file name (lone surrogates) is written as the file's
    bytes, anything else the stream cannot encode as an escape, rather than raising."""
    errors = install_stream_handler()
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors=errors)
            except (OSError, ValueError):
                pass


def _silence_stdout() -> None:
    """After a closed pipe or Ctrl-C, points stdout at /dev/null so that the flush at exit can
    neither fail again with a traceback nor block on a full pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def _console(args: argparse.Namespace) -> Console | None:
    """A rich console when writing to a terminal (or `--color always`), else None."""
    if args.json or args.color == "never":
        return None
    if args.color != "always" and not sys.stdout.isatty():
        return None
    from rich.console import Console

    if args.color == "always":
        return Console(force_terminal=True, highlight=False, soft_wrap=True)
    return Console(highlight=False, soft_wrap=True)


#: How long Ctrl-C waits for a cancelled engine call to wind down (it stops within
#: milliseconds; an index build then removes its temporary file).
CANCEL_GRACE_SECONDS = 10.0


def _with_progress(console: Console | None, label: str, work: Callable[[], T]) -> T:
    """Runs `work` on a thread under its own `CallControl`, so that Ctrl-C cancels the
    engine's walk, search or build at once instead of waiting for the call to return (the
    main thread waits and handles the signal; KeyboardInterrupt then ends the command with
    exit 130, once the cancelled call has unwound). On a terminal, shows a spinner if it
    takes more than a moment."""
    import threading

    from .control import CallControl, controlling

    outcome: dict[str, Any] = {}
    control = CallControl()
    # The wait is on an event of ours, never on `Thread.join`: on Python < 3.12 a join that
    # Ctrl-C interrupts marks the thread as ended while it still runs, and the next join
    # returns at once, so the command would exit while the call unwinds (killing it before
    # an index build removed its temporary file).
    finished = threading.Event()
    # Decides, with the cancel, whether the call runs at all: Ctrl-C may arrive before the
    # thread starts, while it starts, or after.
    gate = threading.Lock()
    began: list[bool] = []

    def run() -> None:
        try:
            with gate:
                if control.cancelled:
                    return
                began.append(True)
            with controlling(control):
                outcome["value"] = work()
        except BaseException as exc:  # re-raised in the caller's thread
            outcome["error"] = exc
        finally:
            finished.set()

    thread = threading.Thread(target=run, daemon=True)
    try:
        thread.start()
        if not finished.wait(PROGRESS_AFTER_SECONDS):
            if console is None or not sys.stderr.isatty():
                while not finished.wait(0.05):
                    pass
            else:
                from rich.console import Console

                with Console(stderr=True).status(label):
                    while not finished.wait(0.05):
                        pass
    except KeyboardInterrupt:
        control.cancel()
        with gate:
            running = bool(began)
        if running:
            finished.wait(CANCEL_GRACE_SECONDS)
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _print_json(data: dict[str, Any]) -> None:
    import json

    print(json_escape_surrogates(json.dumps(data, ensure_ascii=False)))


def _glob(ws: Workspace, args: argparse.Namespace, console: Console | None) -> int:
    result: GlobResult = _with_progress(
        console,
        f"Finding files matching {args.pattern}",
        lambda: ws.glob(
            args.pattern,
            args.path,
            limit=args.limit,
            sort=args.sort,
            case_sensitive=not args.ignore_case,
        ),
    )
    if args.json:
        _print_json(_json_with_root(ws, result.to_dict()))
    elif console is None:
        for f in result.files:
            print(args.show(f.path))
    else:
        from rich.console import Console
        from rich.markup import escape
        from rich.text import Text

        for f in result.files:
            console.print(Text(args.show(f.path), style="magenta"))
        Console(stderr=True, highlight=False).print(f"[dim]{escape(_without_hint(result))}[/dim]")
    _print_hint(result)
    return EXIT_FOUND if result.total else EXIT_NOTHING


class _Target:
    """One PATH of a grep command line: the workspace it lies in, the path relative to that
    workspace's root, how its results are shown, and whether it names a file."""

    __slots__ = ("ws", "path", "show", "is_file")

    def __init__(self, ws: Workspace, path: str, show: Callable[[str], str], is_file: bool):
        self.ws, self.path, self.show, self.is_file = ws, path, show, is_file


def _grep_targets(args: argparse.Namespace, paths: list[str]) -> list[_Target]:
    """Every PATH (the current directory when none), each resolved as `_locate` does, all
    of them before anything is searched (a missing one is an error up front)."""
    spaces: dict[str, Workspace] = {}

    def workspace(root: str) -> Workspace:
        if root not in spaces:
            spaces[root] = _workspace(args, root)
        return spaces[root]

    if args.root is not None:
        ws = workspace(str(args.root))
        return [
            _Target(ws, p, _as_is, os.path.isfile(os.path.join(ws.root, p))) for p in paths or ["."]
        ]
    targets = []
    given_paths: list[str | None] = list(paths) if paths else [None]
    for given in given_paths:
        rooted: RootedPath = root_of(given)
        targets.append(_Target(workspace(rooted.root), rooted.path, rooted.show, rooted.is_file))
    return targets


def _grep(args: argparse.Namespace, console: Console | None) -> int:
    """`codesift grep` with rg's habits (see `codesift.cli_grep`): one search per PATH, in the
    order given; piped, rg's lines; on a terminal, hits grouped by file with their ids."""
    patterns, paths = patterns_and_paths(args)
    spec = grep_pattern(
        patterns,
        fixed=args.fixed_strings,
        word=args.word_regexp,
        line=args.line_regexp,
        case=args.case,
    )
    invert = args.invert_match
    if invert and (args.json or args.only_matching or args.count_matches):
        raise InvalidArgumentError(
            "-v (print the lines that do not match) prints lines: drop --json, -o or "
            "--count-matches, or drop -v"
        )
    targets = _grep_targets(args, paths)
    if args.max_count is not None:
        cap = args.max_count or None
    else:  # a cap only where a person reads; a pipe gets everything
        cap = TERMINAL_CAP if sys.stdout.isatty() else None
    before = args.context if args.before_context is None else args.before_context
    after = args.context if args.after_context is None else args.after_context
    if args.files_with_matches and not invert:
        mode = "files"
    elif args.count_matches or (args.json and args.count):
        mode = "count"
    else:
        mode = "content"
    show_names = args.with_filename
    if show_names is None:  # rg's --vimgrep names every file
        show_names = args.vimgrep or not (len(targets) == 1 and targets[0].is_file)
    rich_view = (
        console is not None
        and not (args.no_heading or args.vimgrep)
        and mode == "content"
        and not (invert or args.only_matching or args.count or args.files_with_matches)
    )
    lines = Lines(
        line_number=args.line_number,
        column=args.column,
        context=bool(before or after) and not (args.count or args.files_with_matches),
    )
    include = [g for g in args.glob if not g.startswith("!")] or None
    exclude = [g[1:] for g in args.glob if g.startswith("!")] or None
    label = " | ".join(patterns)

    def search(t: _Target, pattern: str, **options: Any) -> GrepResult:
        settings: dict[str, Any] = {
            "include": include,
            "exclude": exclude,
            "literal": spec.literal,
            "case_sensitive": spec.case_sensitive,
            "multiline": True if args.multiline else None,
            "context_lines": args.context,
            "before": args.before_context,
            "after": args.after_context,
            "max_matches": cap,
            "count_total": args.count_total,
            "timeout": args.timeout,
            "mode": mode,
            "type": args.type or None,
            "type_not": args.type_not or None,
        }
        settings.update(options)
        return _with_progress(
            console,
            f"Searching for {label}",
            lambda: t.ws.grep(pattern, t.path, **settings),
        )

    # Everything piped streams; the terminal view waits for the whole answer.
    streams = not rich_view
    # --count-total with a cap: the stream runs to the end uncapped, the cap applies to what
    # is printed (`_Capped`), the rest is only counted. Without a cap every total is exact.
    counting = args.count_total and cap is not None

    # The engine prints every piped mode itself (no Python object per hit) to a UTF-8 stdout
    # with a descriptor (its bytes are written as they are; another encoding escapes what it
    # cannot hold, and a test's StringIO has no descriptor); `-v` and `--count-total` under
    # a cap are printed here.
    encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("-", "")
    layout = _engine_layout(args, mode, invert or counting)
    fd = _descriptor(lines.out) if layout is not None and encoding == "utf8" else None
    printer: _core.GrepPrinter | None = None
    if layout is not None and fd is not None:
        vimgrep = args.vimgrep and layout.startswith("vimgrep")
        from ._core import GrepPrinter

        printer = GrepPrinter(
            layout,
            line_number=lines.line_number or vimgrep,
            column=lines.column or vimgrep,
            context=lines.context,
            null=args.null,
        )

    def stream(
        t: _Target, name: Callable[[str], str | None]
    ) -> tuple[GrepIter | GrepResult | None, bool]:
        """Prints each file's lines as soon as the engine settles it (rg's piped habit: the
        first line goes out at once, memory does not grow with the hits). Returns what the
        notes are made of (see `_ended`) and whether anything was printed."""
        lines_of = _file_lines(t.ws)
        printed = False
        out = lines.out
        # Printing lines, the engine's search keeps one hit per line (no record per match:
        # what a dense answer costs most).
        # Counting lines, too: the distinct lines are the same.
        one_hit_per_line = (
            printer is not None and layout in ("lines", "count-lines") and not lines.context
        )
        if invert:
            return stream_inverted(t, name)
        with t.ws.grep(
            spec.pattern,
            t.path,
            include=include,
            exclude=exclude,
            literal=spec.literal,
            case_sensitive=spec.case_sensitive,
            multiline=True if args.multiline else None,
            context_lines=args.context,
            before=args.before_context,
            after=args.after_context,
            max_matches=None if counting else cap,
            timeout=args.timeout,
            type=args.type or None,
            type_not=args.type_not or None,
            stream=True,
            remember=False,
            mode=mode,
            one_hit_per_line=one_hit_per_line,
            # Only --json-full shows a hit's uniqueness.
            skip_unique=printer is not None and layout != "json-full",
        ) as stream_hits:
            if printer is not None and fd is not None:
                return engine_printed(t, name, stream_hits, printer, fd)
            hits: GrepIter | _Capped = (
                _Capped(stream_hits, cap) if counting and cap is not None else stream_hits
            )
            if args.json:
                return _stream_grep_json(t.ws, hits, args.json_full, out)
            if mode == "count" or args.count:
                # A file's count goes out once its last piece came (a file comes in pieces
                # of whole lines: their counts add up).
                per_line = args.only_matching or args.multiline
                shown: str | None = None
                total = 0
                for group, matches, continued in hits.pieces():
                    if not continued and shown is not None:
                        lines.count(name(shown), total)
                        out.flush()
                        printed = True
                        shown, total = None, 0
                    if shown is None:
                        shown = group[0].file
                    if mode == "count":
                        total += matches
                    else:
                        total += len(group) if per_line else len({m.line for m in group})
                if shown is not None:
                    lines.count(name(shown), total)
                    out.flush()
                    printed = True
                return _ended(hits), printed
            if mode == "files":
                # One hit per file with a match, its name printed as soon as it settles.
                for group in hits.files():
                    if not group:
                        continue
                    lines.name_only(t.show(group[0].file))
                    out.flush()
                    printed = True
                return _ended(hits), printed
            for group, _matches, _continued in hits.pieces():
                if not group:
                    continue
                records = content_records(
                    group, only_matching=args.only_matching, lines_of=lines_of
                )
                lines.file(name(group[0].file), records)
                out.flush()
                printed = True
            return _ended(hits), printed

    def engine_printed(
        t: _Target,
        name: Callable[[str], str | None],
        hits: GrepIter,
        printer: _core.GrepPrinter,
        fd: int,
    ) -> tuple[GrepIter | GrepResult | None, bool]:
        """Prints a PATH's stream with the engine's printer, straight to `fd`: Python sees
        only the files it hands back (a match spanning lines: their lines are read here)."""
        out = lines.out
        out.flush()
        printer.start_path()
        show = t.show if mode == "files" else name
        lines_of = _file_lines(t.ws)
        for group in hits.print_with(printer, show, fd):
            records = content_records(group, only_matching=args.only_matching, lines_of=lines_of)
            lines.printed = printer.printed
            lines.file(name(group[0].file), records)
            out.flush()
            printer.printed = lines.printed
        if args.json:
            files = [str(f) for f in printer.json_files]
            return _end_grep_json(
                t.ws, hits.result, files, printer.json_counts, printer.json_open, out
            ), bool(files)
        return hits, printer.printed

    # -v's cap counts printed lines over the whole command line.
    budget = [args.max_count or None]

    def stream_inverted(t: _Target, name: Callable[[str], str | None]) -> tuple[None, bool]:
        """`-v`, streamed: the engine lists every line of the searched files (one "^" query,
        with the same filters, binary and ignore rules) beside the search itself, both in
        path order, and each file's lines that no match touches are printed once both have
        settled that file. The scan stays the engine's: this only subtracts one from the
        other, a file at a time. The search is never capped (a cut search would let lines
        it did not reach pass for non-matching ones): the cap counts printed lines."""
        common: dict[str, Any] = {
            "include": include,
            "exclude": exclude,
            "context_lines": 0,
            "max_matches": None,
            "timeout": args.timeout,
            "type": args.type or None,
            "type_not": args.type_not or None,
            "stream": True,
            "remember": False,
        }
        printed = False
        out = lines.out
        with (
            t.ws.grep(EVERY_LINE, t.path, literal=False, case_sensitive=True, **common) as every,
            t.ws.grep(
                spec.pattern,
                t.path,
                literal=spec.literal,
                case_sensitive=spec.case_sensitive,
                multiline=True if args.multiline else None,
                **common,
            ) as matched,
        ):
            touching = matched.files()
            head = next(touching, None)
            for group in every.files():
                file = group[0].file
                # Both come in path order; a file only the search reports (an empty file a
                # pattern matches) has no line to print.
                while head is not None and head[0].file != file and head[0].file < file:
                    head = next(touching, None)
                touched: Sequence[Any] = ()
                if head is not None and head[0].file == file:
                    touched, head = head, next(touching, None)
                records = inverted_records(group, touched, before=before, after=after)
                if budget[0] is not None:
                    records = _within_budget(records, budget[0])
                    budget[0] -= sum(1 for r in records if r[1] == ":")
                selected = sum(1 for r in records if r[1] == ":")
                if selected:
                    if args.files_with_matches:
                        lines.name_only(t.show(file))
                    elif args.count:
                        lines.count(name(file), selected)
                    else:
                        lines.file(name(file), records)
                    out.flush()
                    printed = True
                if budget[0] is not None and budget[0] <= 0:
                    break
        return None, printed

    found = False
    for t in targets:
        name: Callable[[str], str | None] = t.show if show_names else (lambda _f: None)
        if invert and budget[0] is not None and budget[0] <= 0:
            break
        if streams:
            streamed, printed = stream(t, name)
            found = found or printed
            if isinstance(streamed, GrepIter):
                outcome = streamed.outcome
                if outcome is not None and not outcome.truncated:
                    # Nothing was cut: the only note is the hint, said from the engine's
                    # figures (no result is built).
                    _print_outcome_hint(outcome)
                    continue
                streamed = streamed.result
            if streamed is not None:
                _grep_notes(streamed, console, args, cap, rich_view)
                if args.json_full and args.index == "auto" and not (streamed.indexed or t.is_file):
                    _want_daemon_index(t.ws)
                if cap is not None and streamed.truncated:
                    break
            continue
        result = search(t, spec.pattern)
        if args.json:
            _print_grep_json(t.ws, result, args.json_full)
            found = found or bool(result.matches)
            if args.json_full and args.index == "auto" and not (result.indexed or t.is_file):
                _want_daemon_index(t.ws)
        elif rich_view:
            assert console is not None
            _render_grep(console, result, t.show, _file_lines(t.ws), context=bool(before or after))
            found = found or bool(result.matches)
        elif mode == "files":
            for m in result.matches:
                lines.name_only(t.show(m.file))
            found = found or bool(result.matches)
        elif mode == "count":
            for m, count in zip(result.matches, result.counts, strict=True):
                lines.count(name(m.file), count)
            found = found or bool(result.matches)
        else:
            lines_of = _file_lines(t.ws)
            for file, hits in groupby(result.matches, key=lambda m: m.file):
                group = list(hits)
                if args.count:
                    per_line = args.only_matching or args.multiline
                    lines.count(
                        name(file), len(group) if per_line else len({m.line for m in group})
                    )
                else:
                    records = content_records(
                        group, only_matching=args.only_matching, lines_of=lines_of
                    )
                    lines.file(name(file), records)
                found = True
        _grep_notes(result, console, args, cap, rich_view)
        if cap is not None and result.truncated:
            break  # the limit is for the whole command line
    return EXIT_FOUND if found else EXIT_NOTHING


def _engine_layout(args: argparse.Namespace, mode: str, in_python: bool) -> str | None:
    """The layout of the engine's printer (`_core.GrepPrinter`) for a piped grep, None for
    what Python prints (`-v`, and `--count-total` under a cap: `in_python`)."""
    if in_python:
        return None
    if args.json:
        return "json-full" if args.json_full else "json"
    if mode == "count":
        return "count-matches"
    if args.count:
        return "count-per-match" if args.only_matching or args.multiline else "count-lines"
    if mode == "files":
        return "files"
    if args.vimgrep:
        return "vimgrep-only-matching" if args.only_matching else "vimgrep"
    return "only-matching" if args.only_matching else "lines"


def _ended(hits: GrepIter | _Capped) -> GrepIter | GrepResult | None:
    """What an ended stream leaves for the notes: the engine's stream itself, whose figures
    are read as they are (its `result`, dataclasses and all, is made only if needed), or a
    capped stream's result."""
    return hits if isinstance(hits, GrepIter) else hits.result


def _want_daemon_index(ws: Workspace) -> None:
    """A remote search (`--json-full`: strategy "codesift" on this host) that no index
    answered has the host's daemon index the root in the background, so that the next
    search, from whichever session, is answered from that one index (docs/remote.md)."""
    root = str(ws.root)
    # The daemon keeps no watch of followed links (it is never asked then), and its requests
    # are JSON: a root whose name is not UTF-8 cannot be sent.
    if ws.follow_symlinks or _not_utf8(root):
        return
    from . import daemon

    walk = {
        "gitignore": ws.gitignore,
        "hidden": ws.hidden,
        "follow_symlinks": False,
        "max_filesize": ws.max_filesize,
        "access_files": list(ws.ignore_files),
    }
    # A speed-up for later searches: no problem of it may touch this search's answer (already
    # printed) or its exit status.
    import contextlib

    with contextlib.suppress(CodesiftError, OSError, ValueError):
        daemon.want_index(root, walk)


def _not_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _descriptor(out: Any) -> int | None:
    """The file descriptor behind `out`, if it has one (a test's StringIO has none)."""
    try:
        return int(out.fileno())
    except (AttributeError, OSError, ValueError):
        return None


def _print_grep_json(ws: Workspace, result: GrepResult, full: bool) -> None:
    """The result as one JSON object (one per PATH, one per line, when several are given)."""
    data = result.to_dict()
    if full:
        for hit, match in zip(data["matches"], result.matches, strict=True):
            hit.update(byte_length=match.byte_length, unique=match.unique, encoding=match.encoding)
    _print_json(_json_with_root(ws, data))


def _stream_grep_json(
    ws: Workspace, hits: GrepIter | _Capped, full: bool, out: Any
) -> tuple[GrepResult | None, bool]:
    """`--json`, streamed: the same document `_print_grep_json` prints, byte for byte, its
    "matches" written as the search settles them (every other field follows them, known once
    the search is done). The files and counts listed after the matches are kept meanwhile:
    one name and one number per file."""
    import json

    # Opened with the first settled hits (or at the end): a search that fails at its start
    # (a bad path, a path inside .git) prints its one error document, not half of this one.
    sep = '{"matches": ['
    files: list[str] = []
    counts: list[int] = []
    for group, matches, continued in hits.pieces():
        encoded = []
        for m in group:
            hit = m.to_dict()
            if full:
                hit.update(byte_length=m.byte_length, unique=m.unique, encoding=m.encoding)
            encoded.append(json.dumps(hit, ensure_ascii=False))
        if encoded:  # a piece past the cap only adds to its file's count
            out.write(json_escape_surrogates(sep + ", ".join(encoded)))
            out.flush()
            sep = ", "
        if continued and counts:
            counts[-1] += matches
        else:
            files.append(group[0].file)
            counts.append(matches)
    return _end_grep_json(ws, hits.result, files, counts, sep == ", ", out), bool(files)


def _end_grep_json(
    ws: Workspace,
    result: GrepResult | None,
    files: list[str],
    counts: list[int],
    opened: bool,
    out: Any,
) -> GrepResult | None:
    """Ends a streamed `--json` document whose hits are printed (`opened`: its array of
    matches is): every field after the matches, known once the search is done."""
    opening = "" if opened else '{"matches": ['
    if result is None:  # the search stopped without its figures (it raised instead)
        out.write(opening + "]}\n")
        return None
    import dataclasses
    import json

    data = dataclasses.replace(result, counts=counts).to_dict()
    del data["matches"]
    data["files"] = files
    rest = json_escape_surrogates(json.dumps(_json_with_root(ws, data), ensure_ascii=False))
    out.write(opening + "], " + rest[1:] + "\n")
    out.flush()
    return result


class _Capped:
    """A stream's pieces cut to its first `cap` hits, the rest only counted: what
    `--count-total` prints under a cap (the hits, each file's whole count, and the total of
    every match), streamed. In the files and count modes a hit is a file, as `cap` is."""

    def __init__(self, hits: GrepIter, cap: int) -> None:
        self._hits = hits
        self._cap = cap
        self.result: GrepResult | None = None

    def pieces(self) -> Iterator[tuple[Sequence[Any], int, bool]]:
        kept = total = 0
        counts: list[int] = []
        cut_open = False  # the last file kept still comes (its count stays whole)
        for group, matches, continued in self._hits.pieces():
            total += len(group)
            room = self._cap - kept
            if room > 0:
                part = group if len(group) <= room else list(group)[:room]
                kept += len(part)
                if continued and counts:
                    counts[-1] += matches
                else:
                    counts.append(matches)
                cut_open = True
                yield part, matches, continued
            elif continued and cut_open:
                counts[-1] += matches
                yield [], matches, True
            else:
                cut_open = False
        found = self._hits.result
        if found is not None:
            import dataclasses

            self.result = dataclasses.replace(
                found,
                total=total,
                truncated=found.truncated or total > self._cap,
                max_matches=self._cap,
                files_with_matches=len(counts),
                counts=counts,
            )

    def files(self) -> Iterator[list[Any]]:
        """The kept hits a file at a time."""
        from .streams import by_file

        return by_file(self.pieces())


def _within_budget(records: list[Record], budget: int) -> list[Record]:
    """The records up to the `budget`-th selected line (and the context before it)."""
    kept, selected = [], 0
    for r in records:
        if r[1] == ":":
            if selected == budget:
                break
            selected += 1
        kept.append(r)
    return kept


def _file_lines(ws: Workspace) -> Callable[[str], list[str]]:
    """The lines of a file a multi-line match spans, read through the workspace (once)."""
    cache: dict[str, list[str]] = {}

    def lines_of(file: str) -> list[str]:
        if file not in cache:
            try:
                text = ws.read_bytes(file).decode("utf-8", "replace")
            except (CodesiftError, OSError):
                text = ""
            cache[file] = [line.removesuffix("\r") for line in text.split("\n")]
        return cache[file]

    return lines_of


def _grep_notes(
    result: GrepResult,
    console: Console | None,
    args: argparse.Namespace,
    cap: int | None,
    rich_view: bool,
) -> None:
    """What stderr says after a search: a cut result (and, on a terminal, that the cap is
    the terminal's), and the hint about what ignore rules hid."""
    if result.truncated and not args.json and not rich_view:
        print(result.summary, file=sys.stderr)
    if result.truncated and args.max_count is None and cap is not None:
        print(
            f"codesift: a terminal shows the first {cap} matches; -m 0 shows them all "
            "(piped output is never capped)",
            file=sys.stderr,
        )
    _print_hint(result)


def _without_hint(result: GlobResult | GrepResult) -> str:
    """The summary without the hint phrased for the library (the CLI says it its own way)."""
    return result.summary.removesuffix(f" {result.hint}") if result.hint else result.summary


def _print_hint(result: GlobResult | GrepResult) -> None:
    """When the search found little and entries were passed over, one line on stderr
    saying what and how to include them (never a silent false negative)."""
    if result.hint:
        hint = result.skipped.hint(**HINT_OPTIONS)
        print(f"codesift: {hint}", file=sys.stderr)


#: How the hint on stderr spells the ways to include what was passed over.
HINT_OPTIONS: dict[str, str | None] = {
    "no_ignore": "--no-ignore",
    "hidden": None,
    "path": 'PATH "{path}"',
}


def _print_outcome_hint(outcome: _core.GrepOutcome) -> None:
    """`_print_hint` of the result a stream's `outcome` makes, from the engine's figures."""
    if few(outcome.total, outcome.truncated):
        hint = skip_hint(outcome.skipped, **HINT_OPTIONS)
        if hint:
            print(f"codesift: {hint}", file=sys.stderr)


def _render_grep(
    console: Console,
    result: GrepResult,
    show: Callable[[str], str],
    lines_of: Callable[[str], list[str]],
    *,
    context: bool,
) -> None:
    """Hits grouped under their file: one line per matching line (`line:col`, every match on
    it in bold red, the ids of its hits at the end), context lines dim, `--` between groups."""
    from rich.console import Console
    from rich.markup import escape
    from rich.text import Text

    first = True
    for file, hits in groupby(result.matches, key=lambda m: m.file):
        group = list(hits)
        if not first:
            console.print()
        first = False
        console.print(Text(show(file), style="bold magenta"))
        spans: dict[int, list[tuple[int, int]]] = {}
        ids: dict[int, list[str]] = {}
        for m in group:
            start = m.column - 1
            length = len(m.content.split("\n")[0].rstrip("\r"))
            spans.setdefault(m.line, []).append((start, start + length))
            ids.setdefault(m.line, []).append(m.id)
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
            tail = "  " + " ".join(ids[line]) if line in ids else ""
            console.print(
                Text.assemble(
                    (f"{line:>6}:", "green"), (f"{col:<4}", "dim"), styled, (tail, "dim cyan")
                )
            )
    Console(stderr=True, highlight=False).print(f"[dim]{escape(_without_hint(result))}[/dim]")


def _read(ws: Workspace, args: argparse.Namespace, console: Console | None) -> int:
    result = ws.read(args.path, offset=args.offset, limit=args.limit)
    if args.json:
        _print_json(_json_with_root(ws, result.to_dict()))
    else:
        if result.content:
            print(result.content)
        if result.truncated or not result.content:
            # The summary speaks to the tools (`offset=N`); here the flag is `--offset N`.
            summary = result.summary.replace("continue with offset=", "continue with --offset ")
            print(summary, file=sys.stderr)
    return EXIT_FOUND


def _ls(ws: Workspace, args: argparse.Namespace, console: Console | None) -> int:
    result = ws.list_dir(args.path, limit=args.limit)
    if args.json:
        _print_json(_json_with_root(ws, result.to_dict()))
    elif console is None:
        if result.text:
            print(result.text)
    else:
        from rich.text import Text

        for entry in result.entries:
            console.print(Text(entry, style="bold blue" if entry.endswith("/") else ""))
        if result.truncated:
            console.print(Text(result.truncation_note, style="dim"))
    return EXIT_FOUND


def _edit(ws: Workspace, args: argparse.Namespace, console: Console | None) -> int:
    result = ws.edit(
        args.path, args.old, args.new, replace_all=args.replace_all, fuzzy=not args.no_fuzzy
    )
    if args.json:
        _print_json(_json_with_root(ws, result.to_dict()))
    elif console is None:
        print(result.summary)
        print(result.diff, end="")
    else:
        from rich.text import Text

        console.print(Text(result.summary, style="bold"))
        for line in result.diff.splitlines():
            style = "green" if line.startswith("+") else "red" if line.startswith("-") else ""
            console.print(Text(line, style=style))
    return EXIT_FOUND


def _shim(args: argparse.Namespace) -> int:
    from .shim import make_shim

    made = make_shim()
    if args.print_path:
        print(made.path)
        return EXIT_FOUND
    last = (
        str(made.real_rg)
        if made.real_rg
        else "none (pip install ripgrep, then run codesift shim again, to have one)"
    )
    fallback = (
        "what codesift-rg does not serve runs CODESIFT_REAL_RG, else the first other rg on "
        f"PATH, else {last}"
    )
    print(made.path)
    print(f"  rg -> {made.binary}")
    print(f"  {fallback}")
    print(f'Put it first on PATH: export PATH="{made.path}:$PATH"')
    return EXIT_FOUND


def _index(ws: Workspace, args: argparse.Namespace, console: Console | None) -> int:
    if args.action == "drop":
        dropped = ws.index_drop()
        data: dict[str, Any] = {"dropped": dropped}
        text = "index removed" if dropped else "there was no index"
    elif args.action == "status":
        data = ws.index_status()
        if data["problem"]:
            text = f"index at {data['path']}: {data['problem']}"
        elif not data["exists"]:
            text = f"no index (it would be at {data['path']}); build it with: codesift index build"
        else:
            text = (
                f"index at {data['path']}: {data['files']} files, {data['units']} units, "
                f"{data['trigrams']} trigrams, {data['bytes']} bytes"
            )
    else:
        if console is not None and console.is_terminal and not args.json:
            from rich.console import Console
            from rich.progress import Progress

            with Progress(console=Console(stderr=True), transient=True) as bar:
                task = bar.add_task("indexing", total=None)
                data = _with_progress(
                    None,
                    "indexing",
                    lambda: ws.index_build(
                        lambda done, total: bar.update(task, completed=done, total=total)
                    ),
                )
        else:
            data = _with_progress(None, "indexing", ws.index_build)
        text = (
            f"indexed {data['indexed_files']} of {data['files']} files "
            f"({data['bytes_indexed']} bytes) into {data['index_bytes']} bytes"
        )
    if args.json:
        _print_json(data)
    else:
        print(text)
    return EXIT_FOUND


def _mcp(ws: Workspace, args: argparse.Namespace, console: Console | None) -> int:
    from .extras import require

    require("mcp", "codesift mcp")
    from .mcp import run
    from .tools import Toolbox

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


def _serve(ws: Workspace, args: argparse.Namespace, console: Console | None) -> int:
    from .extras import require

    require("serve", "codesift serve")
    from .serve import serve

    serve(
        ws,
        host=args.host,
        port=args.port,
        token=args.token,
        read_only=args.read_only,
        profile=args.profile,
        open_browser=args.open,
    )
    return EXIT_FOUND


def _apply_hit(ws: Workspace, args: argparse.Namespace, console: Console | None) -> int:
    request = _read_hit_request()
    line = request.get("line", 0)
    before = _read_or_empty(ws, request["file"])
    result = ws.apply_hit(
        request["file"],
        request["byte_offset"],
        request["byte_length"],
        request["content"],
        request["new"],
        unique=bool(request.get("unique", False)),
        line=line if isinstance(line, int) and not isinstance(line, bool) else 0,
    )
    data = result.to_dict()
    data["span"] = _changed_span(before, _read_or_empty(ws, request["file"]))
    _print_json(data)
    return EXIT_FOUND


def _read_hit_request() -> dict[str, Any]:
    """apply-hit's request from stdin, checked field by field."""
    usage = (
        "apply-hit reads one JSON object on stdin: {file, byte_offset, byte_length, content, "
        "new} (strings and non-negative integers), optionally unique and line"
    )
    import json

    raw = sys.stdin.buffer.read(MAX_APPLY_HIT_BYTES + 1)
    if len(raw) > MAX_APPLY_HIT_BYTES:
        raise InvalidArgumentError(f"{usage}; the input is over {MAX_APPLY_HIT_BYTES} bytes")
    try:
        request = json.loads(raw or b"null")
    except RecursionError:
        raise InvalidArgumentError(f"{usage}; the input is nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise InvalidArgumentError(
            f"{usage}; the input is not valid JSON ({exc.msg} at line {exc.lineno} column "
            f"{exc.colno})"
        ) from None
    except ValueError:  # not UTF-8, or a number with thousands of digits
        raise InvalidArgumentError(f"{usage}; the input is not readable JSON text") from None
    fields = {"file": str, "byte_offset": int, "byte_length": int, "content": str, "new": str}
    if not isinstance(request, dict) or any(
        not isinstance(request.get(k), t) or isinstance(request.get(k), bool)
        for k, t in fields.items()
    ):
        raise InvalidArgumentError(usage)
    check_int("byte_offset", request["byte_offset"], minimum=0, maximum=MAX_COUNT)
    check_int("byte_length", request["byte_length"], minimum=0, maximum=MAX_COUNT)
    line = request.get("line", 0)
    if isinstance(line, int) and not isinstance(line, bool):
        check_int("line", line, minimum=0, maximum=MAX_LINES)
    check_unicode("content", request["content"], hint="send the hit's text as grep found it")
    check_writable_text("new", request["new"])
    return request


def _read_or_empty(ws: Workspace, path: str) -> bytes:
    try:
        return ws.read_bytes(path)
    except (CodesiftError, OSError):
        return b""


def _changed_span(before: bytes, after: bytes) -> dict[str, int]:
    """The bytes an edit changed: `[start, start + old_length)` of `before` became
    `new_length` bytes, with `line_delta` more lines (so a caller can shift cached hits)."""
    shortest = min(len(before), len(after))
    start, step = 0, 1 << 16
    while step:  # longest common prefix, compared in blocks
        while (
            start + step <= shortest and before[start : start + step] == after[start : start + step]
        ):
            start += step
        step //= 2
    end, step = 0, 1 << 16
    room = shortest - start
    while step:  # longest common suffix that does not overlap the prefix
        while (
            end + step <= room
            and before[len(before) - end - step : len(before) - end]
            == after[len(after) - end - step : len(after) - end]
        ):
            end += step
        step //= 2
    old_length, new_length = len(before) - start - end, len(after) - start - end
    return {
        "byte_offset": start,
        "old_length": old_length,
        "new_length": new_length,
        "line_delta": after.count(b"\n", start, start + new_length)
        - before.count(b"\n", start, start + old_length),
    }


COMMANDS: dict[str, Callable[[Workspace, argparse.Namespace, Console | None], int]] = {
    "glob": _glob,
    "read": _read,
    "ls": _ls,
    "edit": _edit,
    "mcp": _mcp,
    "serve": _serve,
    "index": _index,
    "apply-hit": _apply_hit,
}


if __name__ == "__main__":
    sys.exit(main())
