"""The `codesift` command: glob, grep, read, ls, edit, the MCP server, the HTTP server
(`serve`), and `apply-hit` (the linked edit that remote search runs on a host).

On a terminal output is rendered with `rich` (hits grouped by file, matches highlighted, a
spinner while a long scan runs); piped, it is plain text (`path:line:col:text` for grep);
`--json` prints the result's `to_dict()` (with `root`). Without `--root`, a command's path
works from anywhere, as with `rg PATTERN PATH`: its enclosing repository (else the path
itself) is the root, and human output prints paths the way PATH was written (`roots`).
Exit codes follow grep: 0 something found (or done), 1 nothing found, 2 error (one line on
stderr, never a traceback: usage errors, bad values, and even a bug or an engine panic are
reported in one line), 130 interrupted.
File names that are not UTF-8 are printed as the bytes they are (as ls and ripgrep print
them); `--json` writes them as `\\udcff` escapes, which `json.loads` reads back exactly.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, TypeVar

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from .arguments import (
    MAX_COUNT,
    MAX_LINES,
    check_int,
    check_unicode,
    check_writable_text,
)
from .errors import CodesiftError, InvalidArgumentError
from .escapes import install_stream_handler, json_escape_surrogates
from .extras import extra_for, missing, require
from .results import GlobResult, GrepResult
from .roots import root_of
from .workspace import Workspace

EXIT_FOUND, EXIT_NOTHING, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130
# Commands whose root, without --root, is found from their path (see `_locate`).
PATH_COMMANDS = frozenset({"glob", "grep", "read", "ls", "edit", "index"})
#: apply-hit reads at most this much JSON from stdin (a hit and its replacement).
MAX_APPLY_HIT_BYTES = 256 * 1024 * 1024
# A spinner appears on a terminal when a scan takes longer than this (seconds).
PROGRESS_AFTER_SECONDS = float(os.environ.get("CODESIFT_PROGRESS_AFTER", "0.3"))
T = TypeVar("T")


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error reported in one line (exit 2) rather than the usage
    block and the error."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="codesift", description="Fast, sandboxed code search and edit for agents and people."
    )
    common = _Parser(add_help=False)
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
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    g = sub.add_parser("glob", parents=[common], help="find files by glob pattern")
    g.add_argument("pattern")
    g.add_argument("path", nargs="?", default=None)
    g.add_argument("--limit", type=int, default=2000)
    g.add_argument("--sort", choices=["path", "mtime", "none"], default="path")
    g.add_argument("--ignore-case", action="store_true", help="case-insensitive glob")

    r = sub.add_parser("grep", parents=[common], help="search file contents by regex")
    r.add_argument("pattern")
    r.add_argument("path", nargs="?", default=None)
    r.add_argument("-F", "--fixed-strings", action="store_true", help="literal pattern")
    r.add_argument("-s", "--case-sensitive", action="store_true", help="match case")
    r.add_argument("-i", "--ignore-case", action="store_true", help="ignore case (default)")
    r.add_argument("-U", "--multiline", action="store_true", help="let matches span lines")
    r.add_argument(
        "-g",
        "--glob",
        action="append",
        default=[],
        help="include files matching GLOB; !GLOB excludes (repeatable)",
    )
    r.add_argument("-C", "--context", type=int, default=0, metavar="N")
    r.add_argument("-B", "--before-context", type=int, default=None, metavar="N")
    r.add_argument("-A", "--after-context", type=int, default=None, metavar="N")
    r.add_argument("-m", "--max-count", type=int, default=500, help="max matches (0: no limit)")
    r.add_argument("--count-total", action="store_true", help="count all matches")
    r.add_argument("--timeout", type=float, default=None, metavar="SECONDS")

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
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as exc:  # argparse already printed its one-line message
            return EXIT_ERROR if exc.code else EXIT_FOUND
        command = args.command
        if args.json_full or args.command == "apply-hit":
            args.json = args.json_full = True
        json_errors = args.json_full
        ws = Workspace(
            _locate(args),
            gitignore=not args.no_ignore,
            hidden=not args.no_hidden,
            follow_symlinks=args.follow,
            threads=args.threads,
            index=args.index,
            # Watching pays off only across searches: the MCP server keeps one.
            index_watch=args.command in ("mcp", "serve"),
        )
        return COMMANDS[args.command](ws, args, _console(args))
    except CodesiftError as exc:
        _report(json_errors, type(exc).__name__, str(exc))
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_FOUND
    except SystemExit:
        raise
    except ModuleNotFoundError as exc:
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


def _report_unexpected(as_json: bool, exc: BaseException) -> None:
    _report(
        as_json,
        "InternalError",
        f"unexpected {type(exc).__name__}: {_first_line(exc)}; please report it",
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


def _first_line(exc: BaseException) -> str:
    try:
        text = str(exc).strip()
    except Exception:
        return "(no message)"
    line = text.split("\n", 1)[0] or "(no message)"
    return line if len(line) <= 300 else line[:297] + "..."


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
    """After a closed pipe, points stdout at /dev/null so that the flush at exit cannot fail
    again with a traceback."""
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
    if args.color == "always":
        return Console(force_terminal=True, highlight=False, soft_wrap=True)
    return Console(highlight=False, soft_wrap=True) if sys.stdout.isatty() else None


def _with_progress(console: Console | None, label: str, work: Callable[[], T]) -> T:
    """Runs `work`; on a terminal, shows a spinner if it takes more than a moment."""
    if console is None or not sys.stderr.isatty():
        return work()
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = work()
        except BaseException as exc:  # re-raised in the caller's thread
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(PROGRESS_AFTER_SECONDS)
    if thread.is_alive():
        status = Console(stderr=True)
        with status.status(label):
            while thread.is_alive():
                thread.join(0.1)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _print_json(data: dict[str, Any]) -> None:
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
        for f in result.files:
            console.print(Text(args.show(f.path), style="magenta"))
        Console(stderr=True, highlight=False).print(f"[dim]{escape(_without_hint(result))}[/dim]")
    _print_hint(result)
    return EXIT_FOUND if result.total else EXIT_NOTHING


def _grep(ws: Workspace, args: argparse.Namespace, console: Console | None) -> int:
    include = [g for g in args.glob if not g.startswith("!")]
    exclude = [g[1:] for g in args.glob if g.startswith("!")]
    result: GrepResult = _with_progress(
        console,
        f"Searching for {args.pattern}",
        lambda: ws.grep(
            args.pattern,
            args.path,
            include=include or None,
            exclude=exclude or None,
            literal=args.fixed_strings,
            case_sensitive=args.case_sensitive and not args.ignore_case,
            multiline=True if args.multiline else None,
            context_lines=args.context,
            before=args.before_context,
            after=args.after_context,
            max_matches=args.max_count or None,
            count_total=args.count_total,
            timeout=args.timeout,
        ),
    )
    if args.json:
        data = result.to_dict()
        if args.json_full:
            for hit, match in zip(data["matches"], result.matches, strict=True):
                hit.update(
                    byte_length=match.byte_length, unique=match.unique, encoding=match.encoding
                )
        _print_json(_json_with_root(ws, data))
    elif console is None:
        show = args.show
        for m in result.matches:
            print(f"{show(m.file)}:{m.line}:{m.column}:{m.text}")
        if result.truncated:
            print(result.summary, file=sys.stderr)
    else:
        _render_grep(console, result, args.show)
    _print_hint(result)
    return EXIT_FOUND if result.matches else EXIT_NOTHING


def _without_hint(result: GlobResult | GrepResult) -> str:
    """The summary without the hint phrased for the library (the CLI says it its own way)."""
    return result.summary.removesuffix(f" {result.hint}") if result.hint else result.summary


def _print_hint(result: GlobResult | GrepResult) -> None:
    """When the search found little and entries were passed over, one line on stderr
    saying what and how to include them (never a silent false negative)."""
    if result.hint:
        hint = result.skipped.hint(no_ignore="--no-ignore", hidden=None, path='PATH "{path}"')
        print(f"codesift: {hint}", file=sys.stderr)


def _render_grep(console: Console, result: GrepResult, show: Callable[[str], str]) -> None:
    current = None
    for m in result.matches:
        if m.file != current:
            if current is not None:
                console.print()
            console.print(Text(show(m.file), style="bold magenta"))
            current = m.file
        for k, line in enumerate(m.before):
            console.print(Text(f"{m.line - len(m.before) + k:>6}- ", style="dim") + Text(line))
        text = Text(m.text)
        start = m.column - 1
        end = start + len(m.content.split("\n")[0].rstrip("\r"))
        text.stylize("bold red", start, max(end, start))
        console.print(
            Text(f"{m.line:>6}:", style="green")
            + Text(f"{m.column:<4}", style="dim")
            + text
            + Text(f"  {m.id}", style="dim cyan")
        )
        for k, line in enumerate(m.after):
            console.print(Text(f"{m.end_line + 1 + k:>6}- ", style="dim") + Text(line))
    Console(stderr=True, highlight=False).print(f"[dim]{escape(_without_hint(result))}[/dim]")


def _read(ws: Workspace, args: argparse.Namespace, console: Console | None) -> int:
    result = ws.read(args.path, offset=args.offset, limit=args.limit)
    if args.json:
        _print_json(_json_with_root(ws, result.to_dict()))
    else:
        if result.content:
            print(result.content)
        if result.truncated or not result.content:
            print(result.summary, file=sys.stderr)
    return EXIT_FOUND


def _ls(ws: Workspace, args: argparse.Namespace, console: Console | None) -> int:
    result = ws.list_dir(args.path, limit=args.limit)
    if args.json:
        _print_json(_json_with_root(ws, result.to_dict()))
    elif console is None:
        if result.text:
            print(result.text)
    else:
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
        console.print(Text(result.summary, style="bold"))
        for line in result.diff.splitlines():
            style = "green" if line.startswith("+") else "red" if line.startswith("-") else ""
            console.print(Text(line, style=style))
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
            from rich.progress import Progress

            with Progress(console=Console(stderr=True), transient=True) as bar:
                task = bar.add_task("indexing", total=None)
                data = ws.index_build(
                    lambda done, total: bar.update(task, completed=done, total=total)
                )
        else:
            data = ws.index_build()
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
        return ws._read_bytes(path)
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
    "grep": _grep,
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
