"""Matching lines: a content search reduced to one hit per line (the first match on it), as
the line-oriented tool sets report it, with exact truncation.

codesift's grep counts every match (two on one line are two hits), so its `max_matches` cannot
stop a line-oriented search at N lines. `matching_lines` asks for one more hit than lines
wanted and widens the request while matches crowd onto fewer lines: the result holds at most
`limit` lines and is marked truncated only when a further matching line exists. A search that
walks the whole tree and finds exactly `limit` lines is not truncated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..results.matches import GrepResult

#: How much wider each retry asks when matches crowd onto fewer lines than wanted.
WIDEN = 4


@dataclass(frozen=True)
class LineHit:
    """The first match on one line: where it is and the whole line (no terminator)."""

    file: str
    line: int
    text: str
    #: 1-based character column of the first match on the line, and its length in characters
    #: (to show a window around it when the line is long).
    column: int
    length: int
    host: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"file": self.file, "line": self.line, "text": self.text}
        if self.host is not None:
            data["host"] = self.host
        return data


@dataclass(frozen=True)
class MatchingLines:
    """At most `limit` matching lines in search order (path, then line), whether more exist,
    and the last grep result (for its counts of skipped files)."""

    lines: list[LineHit]
    truncated: bool
    result: GrepResult


def matching_lines(
    target: Any, pattern: str, path: str = ".", *, limit: int, **options: Any
) -> MatchingLines:
    """The first `limit` lines of `target` (a Workspace) that match `pattern`; `options` are
    `Workspace.grep`'s (`literal`, `case_sensitive`, `include`, ...)."""
    budget = limit + 1
    while True:
        result = target.grep(pattern, path, max_matches=budget, **options)
        lines = _distinct_lines(result)
        if len(lines) > limit:
            return MatchingLines(lines[:limit], True, result)
        if not result.truncated:
            return MatchingLines(lines, False, result)
        budget *= WIDEN


def _distinct_lines(result: GrepResult) -> list[LineHit]:
    seen: set[tuple[str | None, str, int]] = set()
    lines: list[LineHit] = []
    for m in result.matches:
        host = getattr(m, "host", None)
        key = (host, m.file, m.line)
        if key in seen:
            continue
        seen.add(key)
        length = len(m.content.split("\n", 1)[0].rstrip("\r"))
        lines.append(LineHit(m.file, m.line, m.text, m.column, length, host))
    return lines


def shorten(text: str, limit: int) -> str:
    """`text` cut to its first `limit` characters, `...` added when cut."""
    return text if len(text) <= limit else text[:limit] + "..."
