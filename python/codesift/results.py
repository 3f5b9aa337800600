"""Result objects of glob and grep: the structured data (`to_dict()`) and the one-line
`summary` an LLM reads."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ._core import GlobMatch, GrepMatch

SORT_DESCRIPTIONS = {
    "path": "sorted by path",
    "mtime": "sorted by mtime, newest first",
    "none": "unsorted",
}


def plural(count: int, word: str, suffix: str = "s") -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}{suffix}"


@dataclass(frozen=True)
class GlobResult:
    """Files matching a glob pattern."""

    files: Sequence[GlobMatch]
    total: int
    truncated: bool
    ignored: int
    pattern: str
    path: str
    sort: str
    limit: int
    unreadable: int = 0
    #: Failed hosts of a remote search, with their messages (empty for a local search).
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def paths(self) -> list[str]:
        return [f.path for f in self.files]

    @property
    def summary(self) -> str:
        text = (
            f'Found {plural(self.total, "file")} matching "{self.pattern}" in {self.path} '
            f"({SORT_DESCRIPTIONS.get(self.sort, self.sort)})"
        )
        if self.truncated:
            text += f" [TRUNCATED: showing first {len(self.files)} of {self.total} files]"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            "files": [f.to_dict() for f in self.files],
            "total": self.total,
            "truncated": self.truncated,
            "ignored": self.ignored,
            "pattern": self.pattern,
            "path": self.path,
            "sort": self.sort,
            "limit": self.limit,
            "unreadable": self.unreadable,
            "errors": dict(self.errors),
            "summary": self.summary,
        }


@dataclass(frozen=True)
class GrepResult:
    """Matches of a content search, ordered by path, line and column."""

    matches: Sequence[GrepMatch]
    total: int
    truncated: bool
    pattern: str
    path: str
    literal: bool
    include: Sequence[str]
    exclude: Sequence[str]
    max_matches: int | None
    files_searched: int = 0
    files_with_matches: int = 0
    binary_files: int = 0
    unreadable: int = 0
    ignored: int = 0
    timed_out: bool = False
    timeout: float | None = None
    #: Failed hosts of a remote search, with their messages (empty for a local search).
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def note(self) -> str | None:
        """Why the result is incomplete, when it is."""
        if self.timed_out:
            return (
                f"timed out after {self.timeout:g}s; results are partial, narrow the search "
                "with path or include"
            )
        if self.truncated:
            return f"reached limit {self.max_matches} before completing search"
        return None

    @property
    def summary(self) -> str:
        shown = f'"{self.pattern}"' if self.literal else f"/{self.pattern}/"
        text = f"Found {plural(self.total, 'match', 'es')} for {shown} in {self.path}"
        filters = []
        if self.include:
            filters.append("filter: " + ", ".join(f'"{g}"' for g in self.include))
        if self.exclude:
            filters.append("exclude: " + ", ".join(f'"{g}"' for g in self.exclude))
        if filters:
            text += f" ({'; '.join(filters)})"
        if self.note:
            text += f" [TRUNCATED: {self.note}]"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            "matches": [m.to_dict() for m in self.matches],
            "total": self.total,
            "truncated": self.truncated,
            "pattern": self.pattern,
            "path": self.path,
            "include": list(self.include),
            "exclude": list(self.exclude),
            "files_searched": self.files_searched,
            "files_with_matches": self.files_with_matches,
            "binary_files": self.binary_files,
            "unreadable": self.unreadable,
            "ignored": self.ignored,
            "timed_out": self.timed_out,
            "note": self.note,
            "errors": dict(self.errors),
            "summary": self.summary,
        }
