"""The keyword options of the searches, with their types, defaults and meanings, each written
once, here: `Workspace.grep`'s (`GrepOptions`), `grep_iter`'s, `glob`'s, `glob_iter`'s and
`RemoteWorkspace.grep`'s, as TypedDicts (also importable from `codesift.arguments`), and the
names each call accepts (`GREP_OPTIONS`, ..., what `arguments.check_names` is given) taken
from them.

Every command imports this module, and `typing` costs a command ~3 ms of start-up, so at run
time the classes below are first made on a plain stand-in base that only records their keys;
each public name becomes the real `typing.TypedDict` (the same keys, types and documentation)
on first use. A type checker sees the real `TypedDict` throughout.
"""

from __future__ import annotations

# Named by the annotations, for `typing.get_type_hints` on the real TypedDicts.
from collections.abc import Iterable  # noqa: F401

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypedDict
else:

    class TypedDict:
        """The run-time stand-in: a class body's annotations are its option names."""

        def __init_subclass__(cls, total: bool = True) -> None:
            cls.__total__ = total


class GrepMatching(TypedDict, total=False):
    """What a grep matches and how many hits it returns, locally or on a remote host. An
    option left out has the engine's default (`crate::request`), given after each."""

    #: Globs a file must match, a list or one string of comma-separated globs (none).
    include: str | Iterable[str] | None
    #: Globs a file must not match (none).
    exclude: str | Iterable[str] | None
    #: The pattern is text, not a regex (False).
    literal: bool
    #: Upper and lower case differ (False).
    case_sensitive: bool
    #: A match may span lines (None: when the pattern holds a newline).
    multiline: bool | None
    #: Lines of context on both sides of a hit (0), unless `before` or `after` says otherwise.
    context_lines: int
    #: Lines of context before, and after, a hit (None: `context_lines`).
    before: int | None
    after: int | None
    #: The most hits returned (500; `grep_iter`: None, no limit).
    max_matches: int | None
    #: Seconds the search may take; past it the hits found so far, `timed_out` (None).
    timeout: float | None


class RemoteGrepOptions(GrepMatching, total=False):
    """`RemoteWorkspace.grep`'s options."""

    #: Count every match even past `max_matches` (False).
    count_total: bool


class GrepStreamOptions(GrepMatching, total=False):
    """`Workspace.grep_iter`'s options."""

    #: "content" (a hit a match), "files" (a hit a file) or "count" (and a count a file).
    mode: str
    #: ripgrep file types a file must be (or must not be) of, e.g. "py,rust" (none).
    type: str | Iterable[str] | None
    type_not: str | Iterable[str] | None
    #: Overrides of the workspace's `gitignore` and `hidden` for this call (None: its own).
    no_ignore: bool | None
    hidden: bool | None
    #: One hit per matching line, the line's first match, instead of one per match: what a
    #: printer of matching lines (as ripgrep prints them) needs, without a record per match
    #: (False). Only where it changes no line shown: without `max_matches`, `timeout`,
    #: context or multiline matching (else ignored). A file's match count is then exact
    #: over its first 16 matching lines and counts one per line after them.
    one_hit_per_line: bool
    #: Check no hit for uniqueness: every `GrepMatch.unique` is False (False). For a printer
    #: that never shows it: spares the sort and the scans of the file it costs.
    skip_unique: bool
    #: Hits ordered by relevance, not by path (False): definitions of the matched identifier
    #: first, then whole words, files named after it, files with many matches; test,
    #: vendored and generated files lower. The same hits (every hit is found, then ranked,
    #: then `offset` and `max_matches` apply); each says why (`GrepMatch.role`, `kind`,
    #: `score`, `why`). See docs/search.md.
    rank: bool


class GrepOptions(GrepStreamOptions, total=False):
    """`Workspace.grep`'s options."""

    #: Count every match even past `max_matches` (False).
    count_total: bool
    #: Results of the deterministic order skipped, for paging (0).
    offset: int
    #: The best ranked hits whose text fits in this many tokens (about 4 bytes a token),
    #: each with the head of the definition enclosing it (`GrepMatch.signature`), and what
    #: was left out, by file and directory (`GrepResult.budget`) (None: no budget). Ranks
    #: the hits (implies `rank`); no flat cap unless `max_matches` is given too.
    budget_tokens: int | None


class GlobFilters(TypedDict, total=False):
    """Which files a glob keeps, besides its pattern (as for `GrepMatching`, the engine's
    defaults; `type` to `hidden` as for `GrepStreamOptions`)."""

    #: Upper and lower case differ (True).
    case_sensitive: bool
    type: str | Iterable[str] | None
    type_not: str | Iterable[str] | None
    no_ignore: bool | None
    hidden: bool | None


class GlobOptions(GlobFilters, total=False):
    """`Workspace.glob`'s options."""

    #: The most files returned (2000); `total` counts them all.
    limit: int
    #: "path", "mtime" (newest first) or "none" ("path").
    sort: str


def _annotations(typed: type) -> dict[str, Any]:
    """The keys of `typed` and of the classes it extends, with their annotations (base first;
    `getattr`: on Python 3.14 a class's annotations are made when first asked for)."""
    keys: dict[str, Any] = {}
    for cls in reversed(typed.__mro__[:-1]):  # not `object`
        keys.update(getattr(cls, "__annotations__", None) or {})
    return keys


def _option_names(typed: type) -> frozenset[str]:
    return frozenset(_annotations(typed))


#: Each call's option names (`check_names`), from the classes above.
GREP_MATCHING = _option_names(GrepMatching)
REMOTE_GREP_OPTIONS = _option_names(RemoteGrepOptions)
GREP_STREAM_OPTIONS = _option_names(GrepStreamOptions)
GREP_OPTIONS = _option_names(GrepOptions)
GLOB_FILTERS = _option_names(GlobFilters)
GLOB_OPTIONS = _option_names(GlobOptions)

_STAND_INS: dict[str, type] = {
    cls.__name__: cls
    for cls in (
        GrepMatching,
        RemoteGrepOptions,
        GrepStreamOptions,
        GrepOptions,
        GlobFilters,
        GlobOptions,
    )
}
#: The TypedDicts' names (also importable from `codesift.arguments`).
OPTION_TYPES = frozenset(_STAND_INS)
if not TYPE_CHECKING:
    # Made the real TypedDicts on first use (`__getattr__`).
    for _name in _STAND_INS:
        del globals()[_name]
    del _name


def __getattr__(name: str) -> Any:
    stand_in = _STAND_INS.get(name)
    if stand_in is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from typing import TypedDict as typed_dict

    typed = typed_dict(name, _annotations(stand_in), total=stand_in.__total__)  # type: ignore[misc]
    typed.__doc__ = stand_in.__doc__
    # One object per name even when two threads ask first at once.
    return globals().setdefault(name, typed)


def __dir__() -> list[str]:
    return sorted({*globals(), *_STAND_INS})
