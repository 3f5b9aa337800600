"""What the workspace asks one host (`GlobQuery`, `GrepQuery`) and what a host answers
(`HostGlob`, `HostGrep` of `Hit`s), whatever the strategy that searched it."""

from __future__ import annotations

from dataclasses import dataclass

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


@dataclass
class HostGrep:
    hits: list[Hit]
    total: int
    truncated: bool
    timed_out: bool = False
    files_searched: int = 0
    files_with_matches: int = 0
    binary_files: int = 0
    unreadable: int = 0
    ignored: int = 0
    #: The host's codesift chose the files through its persistent index (strategy "codesift").
    indexed: bool = False


@dataclass
class HostGlob:
    files: list[tuple[str, int, int]]  # path, mtime_ms, size
    total: int
    truncated: bool
    ignored: int = 0
    unreadable: int = 0
