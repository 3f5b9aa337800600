"""The keyword options of the searches, with their types and defaults, as TypedDicts:
`Workspace.grep`'s (`GrepOptions`), `grep_iter`'s, `glob`'s, `glob_iter`'s and
`RemoteWorkspace.grep`'s. Each option is written here with its meaning; `codesift.arguments`
holds their names (what `check_names` accepts), so that a search need not import `typing`
(a start-up cost of every command). Also importable from `codesift.arguments`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypedDict


class GrepMatching(TypedDict, total=False):
    """What a grep matches and how many hits it returns, locally or on a remote host. Each
    option is written once, here; one left out has the engine's default (`crate::request`),
    given after each."""

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


class GrepOptions(GrepStreamOptions, total=False):
    """`Workspace.grep`'s options."""

    #: Count every match even past `max_matches` (False).
    count_total: bool
    #: Results of the deterministic order skipped, for paging (0).
    offset: int


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
