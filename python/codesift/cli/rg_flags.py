"""ripgrep's habits for `codesift grep`: its flags and their meanings (`add_grep_arguments`),
and the pattern its flags make (`-e`, `-F`, `-w`, `-x`, smart case: `grep_pattern`)."""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence

from ..errors import InvalidArgumentError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The characters Rust's regex syntax treats as meta (regex_syntax::is_meta_character).
_RUST_META = frozenset("\\.+*?()|[]{}^$#&-~")
# An escape (`\pL`, `\p{Lu}`, `\x{41}`, `\S`, `\b{start}`), a group name (`(?P<Name>`,
# `(?<Name>`) or an inline flag group (`(?i)`, `(?-U:`): none of them is a literal letter.
# Compiled on first use (re caches it): only a smart-case search needs it.
_NOT_LITERAL = (
    r"\\(?:[pPxuU]\{[^}]*\}|[pP].|x[0-9A-Fa-f]{2}|[bB]\{[^}]*\}|.)"
    r"|\(\?P?<[^>]*>|\(\?[a-zA-Z-]*[:)]"
    r"|\[\[:\^?[a-z]+:\]\]|\[:\^?[a-z]+:\]"
)
#: Matches once per line: the "every line" query behind `-v`.
EVERY_LINE = "^"


def rust_escape(text: str) -> str:
    """`text` as a Rust regex that matches it literally."""
    return "".join("\\" + c if c in _RUST_META else c for c in text)


def has_uppercase_literal(pattern: str, *, literal: bool) -> bool:
    """Whether smart case (`-S`) makes a search case-sensitive: the pattern holds an
    uppercase letter that it matches literally (not in `\\S`, `\\p{Lu}`, `(?P<Name>...)`)."""
    text = pattern if literal else re.sub(_NOT_LITERAL, "", pattern, flags=re.DOTALL)
    return any(c.isupper() for c in text)


class GrepPattern:
    """What the engine is asked for: a pattern, whether it is a fixed string, and case."""

    # Not a dataclass: `codesift grep` starts without importing `dataclasses` for it.
    __slots__ = ("pattern", "literal", "case_sensitive")

    def __init__(self, pattern: str, literal: bool, case_sensitive: bool) -> None:
        self.pattern, self.literal, self.case_sensitive = pattern, literal, case_sensitive

    def __repr__(self) -> str:
        return (
            f"GrepPattern(pattern={self.pattern!r}, literal={self.literal!r}, "
            f"case_sensitive={self.case_sensitive!r})"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GrepPattern):
            return NotImplemented
        return (self.pattern, self.literal, self.case_sensitive) == (
            other.pattern,
            other.literal,
            other.case_sensitive,
        )

    __hash__ = None  # type: ignore[assignment]


def grep_pattern(
    patterns: Sequence[str], *, fixed: bool, word: bool, line: bool, case: str
) -> GrepPattern:
    """One engine pattern for rg's `-e P1 -e P2 [-F] [-w|-x]` and `-s|-i|-S` (last wins)."""
    if case == "smart":
        sensitive = any(has_uppercase_literal(p, literal=fixed) for p in patterns)
    else:
        sensitive = case == "sensitive"
    if fixed and len(patterns) == 1 and not word and not line:
        # The engine's own fixed-string search keeps its newline handling (multi-line).
        return GrepPattern(patterns[0], True, sensitive)
    if not fixed and (len(patterns) > 1 or word or line):
        # Each pattern is checked alone before they are combined: an error then shows the
        # user's own pattern under its caret, not the `(?:…)|(?:…)` or `\b{start-half}`
        # wrapping made here.
        from .._core import check_regex

        for pattern in patterns:
            try:
                check_regex(pattern, sensitive)
            except UnicodeEncodeError:
                pass  # not text: the search's own check says so in words
    parts = [rust_escape(p) if fixed else p for p in patterns]
    combined = parts[0] if len(parts) == 1 else "|".join(f"(?:{p})" for p in parts)
    if line:
        combined = f"^(?:{combined})$"
    elif word:
        # ripgrep 14's -w: half word boundaries, so `-w foo` matches in `foo-x` but not in
        # `foo_bar`, and a pattern that starts or ends with a non-word character still works.
        combined = rf"\b{{start-half}}(?:{combined})\b{{end-half}}"
    return GrepPattern(combined, False, sensitive)


def add_grep_arguments(r: argparse.ArgumentParser) -> None:
    """rg's flags that `codesift grep` takes, with rg's meanings (options anywhere)."""
    r.add_argument(
        "pattern", nargs="?", default=None, help="a Rust regex (unless -F); omit it with -e"
    )
    r.add_argument("paths", nargs="*", metavar="PATH", help="files or directories to search")
    r.add_argument(
        "-e",
        "--regexp",
        action="append",
        default=[],
        metavar="PATTERN",
        help="a pattern to search for (repeatable: a line matching any of them matches); "
        "every positional argument is then a PATH",
    )
    r.add_argument("-F", "--fixed-strings", action="store_true", help="literal patterns")
    r.add_argument(
        "-s",
        "--case-sensitive",
        dest="case",
        action="store_const",
        const="sensitive",
        help="match case (the default)",
    )
    r.add_argument(
        "-i",
        "--ignore-case",
        dest="case",
        action="store_const",
        const="insensitive",
        help="ignore case",
    )
    r.add_argument(
        "-S",
        "--smart-case",
        dest="case",
        action="store_const",
        const="smart",
        help="ignore case unless the pattern has an uppercase letter (of -s/-i/-S the last wins)",
    )
    # As in rg, -w and -x override each other: the last wins.
    whole = ("word_regexp", "line_regexp")
    r.add_argument(
        "-w", "--word-regexp", action=_LastOf, rivals=whole, help="match whole words only"
    )
    r.add_argument(
        "-x",
        "--line-regexp",
        action=_LastOf,
        rivals=whole,
        help="match whole lines only (of -w and -x the last wins)",
    )
    r.add_argument(
        "-v", "--invert-match", action="store_true", help="print lines that do not match"
    )
    r.add_argument(
        "-o", "--only-matching", action="store_true", help="print each match on its own line"
    )
    # rg's output modes override each other: of -l, -c and --count-matches the last wins.
    modes = ("files_with_matches", "count", "count_matches")
    r.add_argument(
        "-l",
        "--files-with-matches",
        action=_LastOf,
        rivals=modes,
        help="print only the files that match",
    )
    r.add_argument(
        "-c",
        "--count",
        action=_LastOf,
        rivals=modes,
        help="print the matching lines per file (of -l, -c and --count-matches the last wins)",
    )
    r.add_argument(
        "--count-matches",
        action=_LastOf,
        rivals=modes,
        help="print the matches per file",
    )
    _switch(
        r,
        ("-n", "--line-number"),
        ("-N", "--no-line-number"),
        "print line numbers (the default)",
        "do not print line numbers (rg's piped default)",
    )
    r.add_argument("--column", action="store_true", help="print the column of the first match")
    r.add_argument(
        "--vimgrep",
        action="store_true",
        help="print each match as path:line:column:text (column in bytes), as rg --vimgrep",
    )
    # Not rg's `-0` too: an option that looks like a number makes argparse read `-B -1` as
    # an option instead of a (refused) negative count.
    r.add_argument(
        "--null",
        action="store_true",
        help="follow each printed path with a NUL byte instead of ':' (-l: of a newline)",
    )
    _switch(
        r,
        ("-H", "--with-filename"),
        ("-I", "--no-filename"),
        "print the path (default unless the only PATH is a file)",
        "never print the path",
    )
    r.add_argument(
        "--heading",
        dest="heading",
        action="store_const",
        const=True,
        help="in a pipe too, group the hits under their file (the terminal's view)",
    )
    r.add_argument(
        "--no-heading",
        dest="heading",
        action="store_const",
        const=False,
        help="on a terminal too, print one line per match",
    )
    r.add_argument(
        "-t", "--type", action="append", default=[], help="only files of TYPE (py, rust, ...)"
    )
    r.add_argument(
        "-T", "--type-not", action="append", default=[], metavar="TYPE", help="no files of TYPE"
    )
    r.add_argument("-U", "--multiline", action="store_true", help="let matches span lines")
    r.add_argument(
        "-g",
        "--glob",
        action="append",
        default=[],
        help="include files matching GLOB; !GLOB excludes (repeatable)",
    )
    r.add_argument(
        "-C",
        "--context",
        type=int,
        default=0,
        metavar="N",
        help="print N lines before and after each match",
    )
    r.add_argument(
        "-B",
        "--before-context",
        type=int,
        default=None,
        metavar="N",
        help="print N lines before each match (overrides -C)",
    )
    r.add_argument(
        "-A",
        "--after-context",
        type=int,
        default=None,
        metavar="N",
        help="print N lines after each match (overrides -C)",
    )
    r.add_argument(
        "-m",
        "--max-count",
        type=int,
        default=None,
        metavar="N",
        help="stop after N matches in all (0: no limit; default: no limit when piped, 500 on a "
        "terminal)",
    )
    r.add_argument(
        "--sort",
        choices=["path", "none"],
        default="path",
        help="accepted for rg habits: results are always in path order",
    )
    r.add_argument(
        "--count-total",
        action="store_true",
        help="under a cap (-m, or a terminal's), still count every match (the summary's total)",
    )
    r.add_argument(
        "--rank",
        action="store_true",
        help="order hits by relevance, not by path: definitions of the matched identifier "
        "first, test, vendored and generated files last (every hit is found first, then "
        "ranked; see docs/search.md)",
    )
    r.add_argument(
        "--budget-tokens",
        type=int,
        default=None,
        metavar="N",
        help="print the best ranked hits that fit in N tokens (4 bytes each; implies --rank); "
        "stderr says how many hits were left out and where",
    )
    r.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="stop searching after SECONDS: what was found by then is printed, and stderr "
        "says the search was cut",
    )
    r.set_defaults(case="sensitive", line_number=True, with_filename=None, heading=None)


class _LastOf(argparse.Action):
    """A flag that turns its own value on and its rivals' off, so that of several flags that
    override each other (rg's -l, -c, --count-matches; -w, -x) the last given wins."""

    def __init__(
        self, option_strings: list[str], dest: str, rivals: tuple[str, ...], **kwargs: Any
    ):
        super().__init__(option_strings, dest, nargs=0, default=False, **kwargs)
        self.rivals = rivals

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        for rival in self.rivals:
            setattr(namespace, rival, False)
        setattr(namespace, self.dest, True)


def _switch(
    r: argparse.ArgumentParser,
    on: tuple[str, str],
    off: tuple[str, str],
    on_help: str,
    off_help: str,
) -> None:
    """A pair of options that set one value True or False (None when neither is given): the
    value's name is `on`'s long option's."""
    dest = on[1].removeprefix("--").replace("-", "_")
    r.add_argument(*on, dest=dest, action="store_const", const=True, help=on_help)
    r.add_argument(*off, dest=dest, action="store_const", const=False, help=off_help)


def patterns_and_paths(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """The patterns (`-e`, else the first positional) and the paths of a grep command line."""
    positional = ([] if args.pattern is None else [args.pattern]) + list(args.paths)
    if args.regexp:
        return list(args.regexp), positional
    if not positional:
        raise InvalidArgumentError(
            "no pattern given; usage: codesift grep PATTERN [PATH ...] (or -e PATTERN)"
        )
    return positional[:1], positional[1:]
