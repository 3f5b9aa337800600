"""The `codesift` command: the parser of every command, and `main`, which runs one and turns
every failure into one line and an exit code (`exits`)."""

from __future__ import annotations

import os
import sys

from .._core import __version__
from ..errors import CodesiftError, InvalidArgumentError
from ..text.escapes import install_stream_handler
from .commands import COMMANDS
from .errors import report, report_error, report_unexpected
from .exits import EXIT_ERROR, EXIT_FOUND, EXIT_INTERRUPTED
from .output import console_for
from .parser import Parser
from .rooting import locate, open_workspace

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from types import ModuleType


def command_module(name: str) -> ModuleType:
    """The module of command `name` (`commands.COMMANDS`): its `add_arguments` and `run`.
    Imported only when a command other than grep runs (grep starts with its own)."""
    import importlib

    return importlib.import_module(f".{name.replace('-', '_')}", __package__)


def build_parser() -> argparse.ArgumentParser:
    return _parsers()[0]


def _parsers() -> tuple[Parser, dict[str, Parser]]:
    """codesift's parser, and each command's parser by its name."""
    parser = Parser(
        prog="codesift", description="Fast, sandboxed code search and edit for agents and people."
    )
    parser.add_argument("--version", action="version", version=f"codesift {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, command in COMMANDS.items():
        parser_of_command = sub.add_parser(name, help=command.help, description=command.description)
        command_module(name).add_arguments(parser_of_command)
    return parser, sub.choices


def parse_command(words: list[str]) -> argparse.Namespace:
    """The arguments of a command other than grep. An argument no parser took is a usage
    error of the command's own parser (`codesift mcp: error: unrecognized arguments: --json
    (see codesift mcp --help)`): its --help, not codesift's, lists what the command takes."""
    parser, commands = _parsers()
    args, unrecognized = parser.parse_known_args(words)
    if unrecognized:
        commands[args.command].error(f"unrecognized arguments: {' '.join(unrecognized)}")
    return args


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
                from . import grep

                args = grep.parse_grep(words[1:])
            else:
                args = parse_command(words)
        except SystemExit as exc:  # argparse already printed its one-line message
            return EXIT_ERROR if exc.code else EXIT_FOUND
        command = args.command
        if args.command != "shim" and (args.json_full or args.command == "apply-hit"):
            args.json = args.json_full = True
            json_errors = True
        closed = _closed_stream(args)
        if closed is not None:
            raise InvalidArgumentError(closed)
        if args.command == "grep":
            from . import grep

            return grep.run(args, console_for(args))
        module = command_module(args.command)
        if args.command in ("shim", "daemon"):
            return module.run(args)
        ws = open_workspace(args, locate(args))
        return module.run(ws, args, console_for(args))
    except CodesiftError as exc:
        report_error(json_errors, exc)
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
            report_unexpected(json_errors, exc)
        else:  # an optional dependency of this command is missing
            error = missing(extra, exc.name or extra, f"codesift {command}")
            report(json_errors, type(error).__name__, str(error))
        return EXIT_ERROR
    except RecursionError:
        report(json_errors, "InvalidArgumentError", "the input is nested too deeply to handle")
        return EXIT_ERROR
    except MemoryError:
        report(json_errors, "InternalError", "out of memory; narrow the search")
        return EXIT_ERROR
    # A bug, or an engine panic (a BaseException): one line, never a traceback.
    except BaseException as exc:
        report_unexpected(json_errors, exc)
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
    if sys.stdin is None and args.command == "apply-patch" and args.patch == "-":
        return "standard input is closed; give the patch as a file: codesift apply-patch FILE"
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
