"""What a search passed over, and the one-line hint that says so: never a silent false negative.

A walk counts, by reason, the entries it did not search: gitignored (`.gitignore`, `.ignore`,
`.git/info/exclude`), hidden dot entries (when `hidden` is off), symlinks not followed (or
leading nowhere, or outside the root), files over `max_filesize`, binary files and unreadable
entries; for most reasons it keeps the three top-most example paths (directories end with
`/`). Entries denied by an access-ignore file are counted but never named: those files are
invisible by design.

When a search finds little (fewer than `FEW_HITS` results, not cut short), the result's
`hint` is one line naming what was passed over and how to include it, e.g.
`(2 gitignored paths hidden: build/, dist/ — pass no_ignore=true or path="build")`; the
summary ends with it and the CLI prints it on stderr. Tool profiles pass their own
parameter names to `Skipped.hint`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

#: A result with fewer hits (matches, files or entries) than this "found little": its hint
#: is shown. Five: a search for something that exists usually finds more, and a reader scans
#: five hits at a glance without missing a one-line note after them.
FEW_HITS = 5


@dataclass(frozen=True)
class SkipCount:
    """Entries passed over for one reason, with up to three top-most example paths."""

    count: int = 0
    examples: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"count": self.count, "examples": list(self.examples)}


def _none() -> SkipCount:
    return SkipCount()


@dataclass(frozen=True)
class Skipped:
    """What one search, glob or listing passed over, by reason."""

    gitignored: SkipCount = field(default_factory=_none)
    hidden: SkipCount = field(default_factory=_none)
    symlink: SkipCount = field(default_factory=_none)
    too_large: SkipCount = field(default_factory=_none)
    binary: SkipCount = field(default_factory=_none)
    unreadable: SkipCount = field(default_factory=_none)
    #: Denied by an access-ignore file: counted, never named, never suggested.
    denied: SkipCount = field(default_factory=_none)

    @classmethod
    def from_engine(cls, raw: Mapping[str, tuple[int, list[str]]]) -> Skipped:
        """From the engine's `reason -> (count, examples)`; unknown reasons are ignored."""
        known = {f.name for f in fields(cls)}
        return cls(
            **{
                name: SkipCount(int(count), tuple(examples))
                for name, (count, examples) in raw.items()
                if name in known
            }
        )

    @property
    def any(self) -> bool:
        """Whether anything a caller could include was passed over (denied entries aside)."""
        return any(getattr(self, f.name).count for f in fields(self) if f.name != "denied")

    def hint(
        self,
        *,
        no_ignore: str | None = "no_ignore=true",
        hidden: str | None = "hidden=true",
        path: str | None = 'path="{path}"',
    ) -> str | None:
        """One line saying what was passed over and how to include it, or None when nothing
        was. `no_ignore`, `hidden` and `path` are how the caller's tool spells those options
        (`path` with a `{path}` placeholder); None leaves that suggestion out."""
        parts: list[str] = []

        def ways(*options: str | None) -> str:
            given = [o for o in options if o]
            return f" — pass {' or '.join(given)}" if given else ""

        def at(skip: SkipCount) -> str | None:
            # A directory is the likelier place of what was missed; one file of many is not
            # worth a search of its own.
            dirs = [e for e in skip.examples if e.endswith("/")]
            every = list(skip.examples) if skip.count <= len(skip.examples) else []
            candidates = dirs or every
            first = candidates[0] if candidates else None
            return path.format(path=first.rstrip("/")) if path and first else None

        g = self.gitignored
        if g.count:
            parts.append(
                f"{_noun(g.count, 'gitignored path')} hidden{_shown(g)}" + ways(no_ignore, at(g))
            )
        h = self.hidden
        if h.count:
            parts.append(
                f"{_noun(h.count, 'hidden path')} skipped{_shown(h)}" + ways(hidden, at(h))
            )
        s = self.symlink
        if s.count:
            parts.append(f"{_noun(s.count, 'symlink')} not followed{_shown(s)}" + ways(at(s)))
        t = self.too_large
        if t.count:
            parts.append(f"{_noun(t.count, 'file')} over max_filesize skipped{_shown(t)}")
        b = self.binary
        if b.count:
            parts.append(f"{_noun(b.count, 'binary file')} not searched{_shown(b)}")
        u = self.unreadable
        if u.count:
            parts.append(f"{_noun(u.count, 'unreadable path')} skipped{_shown(u)}")
        return f"({'; '.join(parts)})" if parts else None

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name).to_dict() for f in fields(self)}


def _noun(count: int, singular: str) -> str:
    return f"{count} {singular}" if count == 1 else f"{count} {singular}s"


def _shown(skip: SkipCount) -> str:
    if not skip.examples:
        return ""
    more = ", ..." if skip.count > len(skip.examples) else ""
    return ": " + ", ".join(skip.examples) + more


def few(found: int, truncated: bool) -> bool:
    """Whether a result "found little": its skipped entries deserve a hint."""
    return not truncated and found < FEW_HITS


__all__ = ["FEW_HITS", "SkipCount", "Skipped", "few"]
