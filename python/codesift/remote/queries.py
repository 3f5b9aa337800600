"""What the workspace asks one host (`GlobQuery`, `GrepQuery`) and what a host answers
(`HostGlob`, `HostGrep` of `Hit`s), whatever the strategy that searched it."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..arguments.grep_args import GrepArgs


@dataclass(frozen=True)
class GrepQuery(GrepArgs):
    """The checked grep arguments, and where on the host to search."""

    start: str  # the search path relative to the root ("." for the root)


@dataclass(frozen=True)
class GlobQuery:
    pattern: str  # relative to the root
    start: str
    limit: int
    sort: str
    case_sensitive: bool


@dataclass
class Hit:
    """A hit as a host reported it, before it gets an id here."""

    file: str
    line: int
    column: int
    end_line: int
    byte_offset: int
    byte_length: int
    content: str
    text: str
    before: list[str]
    after: list[str]
    unique: bool = False
    encoding: str = "utf-8"


#: The counts of a host's grep, summed over the hosts into the `GrepResult` fields of the
#: same names.
GREP_COUNTS = ("files_searched", "files_with_matches", "binary_files", "unreadable", "ignored")


@dataclass
class HostGrep:
    hits: list[Hit]
    total: int
    truncated: bool
    timed_out: bool = False
    #: The host's `GREP_COUNTS` by name; one the host does not count is left out (0).
    counts: dict[str, int] = field(default_factory=dict)
    #: The host's codesift chose the files through its persistent index (strategy "codesift").
    indexed: bool = False


@dataclass
class HostGlob:
    files: list[tuple[str, int, int]]  # path, mtime_ms, size
    total: int
    truncated: bool
    ignored: int = 0
    unreadable: int = 0
