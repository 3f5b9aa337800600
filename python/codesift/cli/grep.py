"""`codesift grep` with ripgrep's habits (`rg_flags`): one search per PATH, in the order
given. Piped, it prints what `rg -n --no-heading` prints (the engine's printer, else
`lines.Lines`), streamed and never capped; on a terminal, hits grouped by file with their
ids (`grep_view`), at most `TERMINAL_CAP` unless -m; `--json` prints the result's
`to_dict()` with `root` (`grep_json`)."""

from __future__ import annotations

import os
import sys
from itertools import groupby

from .._core import __version__
from ..errors import CodesiftError, InvalidArgumentError
from ..results.streams import GrepIter
from .commands import COMMANDS
from .exits import EXIT_FOUND, EXIT_NOTHING
from .grep_json import end_grep_json, print_grep_json, stream_grep_json
from .grep_view import render_grep
from .lines import Lines, Record, content_records, file_lines, inverted_records
from .output import print_hint, print_outcome_hint, without_hint
from .parser import Parser, add_shared_options
from .progress import with_progress
from .rg_flags import EVERY_LINE, add_grep_arguments, grep_pattern, patterns_and_paths
from .rooting import GREP_ROOT, as_is, open_workspace
from .roots import RootedPath, root_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Iterator, Sequence
    from typing import Any

    from rich.console import Console

    from .. import _core
    from ..results.matches import GrepResult
    from ..workspace import Workspace

#: What a terminal shows at most unless -m says otherwise (a pipe gets every match).
TERMINAL_CAP = 500


def grep_parser() -> argparse.ArgumentParser:
    """`codesift grep` on its own, parsed with options anywhere among the arguments (as rg
    takes them: `codesift grep PATTERN -s src`)."""
    parser = Parser(prog="codesift grep", description=COMMANDS["grep"].description)
    add_arguments(parser)
    return parser


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """grep's options: rg's flags, then every shared option (grep acts on all of them)."""
    add_grep_arguments(parser)
    add_shared_options(
        parser,
        root=GREP_ROOT,
        json="print the result as JSON: one object per PATH, paths relative to the root, "
        'with "root"',
        color=True,
        filters=True,
        walk=True,
        index=True,
    )
    parser.add_argument("--version", action="version", version=f"codesift {__version__}")


def parse_grep(words: list[str]) -> argparse.Namespace:
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


class _Target:
    """One PATH of a grep command line: the workspace it lies in, the path relative to that
    workspace's root, how its results are shown, and whether it names a file."""

    __slots__ = ("ws", "path", "show", "is_file")

    def __init__(self, ws: Workspace, path: str, show: Callable[[str], str], is_file: bool):
        self.ws, self.path, self.show, self.is_file = ws, path, show, is_file


def _grep_targets(args: argparse.Namespace, paths: list[str]) -> list[_Target]:
    """Every PATH (the current directory when none), each resolved as `locate` does, all
    of them before anything is searched (a missing one is an error up front)."""
    spaces: dict[str, Workspace] = {}

    def workspace(root: str) -> Workspace:
        if root not in spaces:
            spaces[root] = open_workspace(args, root)
        return spaces[root]

    if args.root is not None:
        ws = workspace(str(args.root))
        return [
            _Target(ws, p, as_is, os.path.isfile(os.path.join(ws.root, p))) for p in paths or ["."]
        ]
    targets = []
    given_paths: list[str | None] = list(paths) if paths else [None]
    for given in given_paths:
        rooted: RootedPath = root_of(given)
        targets.append(_Target(workspace(rooted.root), rooted.path, rooted.show, rooted.is_file))
    return targets


def run(args: argparse.Namespace, console: Console | None) -> int:
    """`codesift grep` with rg's habits (see `codesift.cli_grep`): one search per PATH, in the
    order given; piped, rg's lines; on a terminal, hits grouped by file."""
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
    budgeted = args.budget_tokens is not None
    if invert and (args.rank or budgeted):
        raise InvalidArgumentError(
            "-v prints the lines that do not match, which have no rank: drop "
            + ("--budget-tokens" if budgeted else "--rank")
            + " or -v"
        )
    targets = _grep_targets(args, paths)
    if args.max_count is not None:
        cap = args.max_count or None
    elif budgeted:  # the budget is the limit
        cap = None
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
        and not args.vimgrep
        and mode == "content"
        and not (invert or args.only_matching or args.count or args.files_with_matches)
    )
    lines = Lines(
        line_number=args.line_number,
        column=args.column,
        inverted=invert,
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
            "rank": args.rank or budgeted,
            "budget_tokens": args.budget_tokens,
        }
        settings.update(options)
        return with_progress(
            console,
            f"Searching for {label}",
            lambda: t.ws.grep(pattern, t.path, **settings),
        )

    # Everything piped streams; the terminal view waits for the whole answer, and so does a
    # token budget (the best hits that fit are known once every hit is ranked).
    streams = not rich_view and not budgeted
    # --count-total with a cap: the stream runs to the end uncapped, the cap applies to what
    # is printed (`Capped`), the rest is only counted. Without a cap every total is exact.
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
        from .._core import GrepPrinter

        printer = GrepPrinter(
            layout,
            line_number=lines.line_number,
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
        lines_of = file_lines(t.ws)
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
            rank=args.rank,
            stream=True,
            remember=False,
            mode=mode,
            one_hit_per_line=one_hit_per_line,
            # Only --json-full shows a hit's uniqueness.
            skip_unique=printer is not None and layout != "json-full",
        ) as stream_hits:
            if printer is not None and fd is not None:
                return engine_printed(t, name, stream_hits, printer, fd)
            hits: GrepIter | Capped = (
                Capped(stream_hits, cap) if counting and cap is not None else stream_hits
            )
            if args.json:
                return stream_grep_json(t.ws, hits, args.json_full, out)
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
        lines_of = file_lines(t.ws)
        for group in hits.print_with(printer, show, fd):
            records = content_records(group, only_matching=args.only_matching, lines_of=lines_of)
            lines.printed = printer.printed
            lines.file(name(group[0].file), records)
            out.flush()
            printer.printed = lines.printed
        if args.json:
            files = [str(f) for f in printer.json_files]
            return end_grep_json(
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
                    print_outcome_hint(outcome)
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
            print_grep_json(t.ws, result, args.json_full)
            found = found or bool(result.matches)
            if args.json_full and args.index == "auto" and not (result.indexed or t.is_file):
                _want_daemon_index(t.ws)
        elif rich_view:
            assert console is not None
            render_grep(console, result, t.show, file_lines(t.ws), context=bool(before or after))
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
            lines_of = file_lines(t.ws)
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


def _ended(hits: GrepIter | Capped) -> GrepIter | GrepResult | None:
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
    from ..text.escapes import has_surrogates

    if ws.follow_symlinks or has_surrogates(root):
        return
    from .. import daemon

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


def _descriptor(out: Any) -> int | None:
    """The file descriptor behind `out`, if it has one (a test's StringIO has none)."""
    try:
        return int(out.fileno())
    except (AttributeError, OSError, ValueError):
        return None


class Capped:
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
        from ..results.streams import by_file

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
        print(without_hint(result), file=sys.stderr)
    # The terminal's cap cut the result, not a --timeout.
    if result.truncated and args.max_count is None and cap is not None and not result.timed_out:
        print(
            f"codesift: a terminal shows the first {cap} matches; -m 0 shows them all "
            "(piped output is never capped)",
            file=sys.stderr,
        )
    print_hint(result)
