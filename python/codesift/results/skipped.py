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

from .skip_hints import FEW_HITS, few, skip_hint


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
        counts = {f.name: getattr(self, f.name) for f in fields(self)}
        raw = {name: (c.count, c.examples) for name, c in counts.items()}
        return skip_hint(raw, no_ignore=no_ignore, hidden=hidden, path=path)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name).to_dict() for f in fields(self)}


__all__ = ["FEW_HITS", "SkipCount", "Skipped", "few"]
