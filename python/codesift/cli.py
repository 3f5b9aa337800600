"""The `codesift` command: glob and grep from a shell, plain text or `--json`.

Exit codes follow grep: 0 something found, 1 nothing found, 2 error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from .errors import CodesiftError
from .workspace import Workspace

EXIT_FOUND, EXIT_NOTHING, EXIT_ERROR = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="codesift", description="Fast, sandboxed code search for agents and people."
    )
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--root", default=".", help="workspace root (default: current dir)")
    common.add_argument("--json", action="store_true", help="print the result as JSON")
    common.add_argument("--no-ignore", action="store_true", help="do not honour .gitignore")
    common.add_argument("--no-hidden", action="store_true", help="skip hidden files")
    common.add_argument("-L", "--follow", action="store_true", help="follow symlinks in root")
    common.add_argument("-j", "--threads", type=int, default=None, help="worker threads")
    sub = parser.add_subparsers(dest="command", required=True)

    g = sub.add_parser("glob", parents=[common], help="find files by glob pattern")
    g.add_argument("pattern")
    g.add_argument("path", nargs="?", default=".")
    g.add_argument("--limit", type=int, default=2000)
    g.add_argument("--sort", choices=["path", "mtime", "none"], default="path")
    g.add_argument("--ignore-case", action="store_true", help="case-insensitive glob")

    r = sub.add_parser("grep", parents=[common], help="search file contents by regex")
    r.add_argument("pattern")
    r.add_argument("path", nargs="?", default=".")
    r.add_argument("-F", "--fixed-strings", action="store_true", help="literal pattern")
    r.add_argument("-s", "--case-sensitive", action="store_true")
    r.add_argument("-i", "--ignore-case", action="store_true", help="(the default)")
    r.add_argument("-U", "--multiline", action="store_true")
    r.add_argument(
        "-g",
        "--glob",
        action="append",
        default=[],
        help="include files matching GLOB; prefix with ! to exclude (repeatable)",
    )
    r.add_argument("-C", "--context", type=int, default=0)
    r.add_argument("-B", "--before-context", type=int, default=None)
    r.add_argument("-A", "--after-context", type=int, default=None)
    r.add_argument("-m", "--max-count", type=int, default=500, help="max matches (0: no limit)")
    r.add_argument("--count-total", action="store_true")
    r.add_argument("--timeout", type=float, default=None)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        ws = Workspace(
            args.root,
            gitignore=not args.no_ignore,
            hidden=not args.no_hidden,
            follow_symlinks=args.follow,
            threads=args.threads,
        )
        if args.command == "glob":
            return _glob(ws, args)
        return _grep(ws, args)
    except CodesiftError as exc:
        print(f"codesift: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_ERROR
    except BrokenPipeError:
        return EXIT_FOUND


def _glob(ws: Workspace, args: argparse.Namespace) -> int:
    result = ws.glob(
        args.pattern,
        args.path,
        limit=args.limit,
        sort=args.sort,
        case_sensitive=not args.ignore_case,
    )
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False))
    else:
        for f in result.files:
            print(f.path)
        print(result.summary, file=sys.stderr)
    return EXIT_FOUND if result.total else EXIT_NOTHING


def _grep(ws: Workspace, args: argparse.Namespace) -> int:
    include = [g for g in args.glob if not g.startswith("!")]
    exclude = [g[1:] for g in args.glob if g.startswith("!")]
    result = ws.grep(
        args.pattern,
        args.path,
        include=include or None,
        exclude=exclude or None,
        literal=args.fixed_strings,
        case_sensitive=args.case_sensitive,
        multiline=True if args.multiline else None,
        context_lines=args.context,
        before=args.before_context,
        after=args.after_context,
        max_matches=args.max_count or None,
        count_total=args.count_total,
        timeout=args.timeout,
    )
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False))
    else:
        for m in result.matches:
            print(f"{m.file}:{m.line}:{m.column}:{m.text}")
        print(result.summary, file=sys.stderr)
    return EXIT_FOUND if result.matches else EXIT_NOTHING


if __name__ == "__main__":
    sys.exit(main())
