"""Result objects of glob and grep: the structured data (`to_dict()`) and the one-line
`summary` an LLM reads."""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from typing import Any

from .._core import GlobMatch, GrepMatch, ResultList
from .skipped import Skipped, few

# The engine's lazy result sequence is a Sequence in every respect but inheritance.
Sequence.register(ResultList)

SORT_DESCRIPTIONS = {
    "path": "sorted by path",
    "mtime": "sorted by mtime, newest first",
    "none": "unsorted",
}


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pauses the cyclic GC while many acyclic objects (result dicts) are built: otherwise
    each batch of allocations triggers a collection that traverses all of them."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def plural(count: int, singular: str, many: str | None = None) -> str:
    """`count` with the noun in the right number: `plural(1, "directory", "directories")` is
    "1 directory", `plural(0, "file")` "0 files" (the default plural adds an "s")."""
    return f"{count} {singular}" if count == 1 else f"{count} {many or singular + 's'}"


def field_values(result: Any) -> dict[str, Any]:
    """A result dataclass's fields by name, in their order: the start of its `to_dict`. A
    field kept out of its repr (a text kept for the tools, never sent) is left out."""
    return {f.name: getattr(result, f.name) for f in fields(result) if f.repr}


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
    #: What the walk passed over (see `codesift.results.skipped`).
    skipped: Skipped = field(default_factory=Skipped)

    @property
    def paths(self) -> list[str]:
        return [f.path for f in self.files]

    @property
    def hint(self) -> str | None:
        """When the glob found little and the walk passed entries over: what and how to
        include them, in one line."""
        return self.skipped.hint() if few(self.total, self.truncated) else None

    @property
    def summary(self) -> str:
        text = (
            f'Found {plural(self.total, "file")} matching "{self.pattern}" in {self.path} '
            f"({SORT_DESCRIPTIONS.get(self.sort, self.sort)})"
        )
        if self.truncated:
            text += f" [TRUNCATED: showing first {len(self.files)} of {plural(self.total, 'file')}]"
        if self.hint:
            text += f" {self.hint}"
        return text

    def to_dict(self) -> dict[str, Any]:
        with gc_paused():
            files = [f.to_dict() for f in self.files]
        return {
            **field_values(self),
            "files": files,
            "errors": dict(self.errors),
            "skipped": self.skipped.to_dict(),
            "hint": self.hint,
            "summary": self.summary,
        }


@dataclass(frozen=True)
class BudgetSpent:
    """What a grep with `budget_tokens` spent of its budget, and the hits it left out: how
    many, in how many files, and where most of them are (files, directories two deep)."""

    budget_tokens: int
    tokens: int
    left_out: int
    left_out_files: int
    by_file: Sequence[tuple[str, int]] = ()
    by_directory: Sequence[tuple[str, int]] = ()

    @classmethod
    def from_engine(cls, spent: dict[str, Any]) -> BudgetSpent:
        left = spent["left_out"]
        return cls(
            budget_tokens=spent["budget_tokens"],
            tokens=spent["tokens"],
            left_out=left["hits"],
            left_out_files=left["files"],
            by_file=tuple(left["by_file"]),
            by_directory=tuple(left["by_directory"]),
        )

    @property
    def note(self) -> str:
        """The budget in one line: spent, and what was left out where."""
        text = f"{self.tokens} of {self.budget_tokens} tokens"
        if self.left_out:
            where = ", ".join(f"{d}/ {n}" for d, n in self.by_directory[:5])
            text += (
                f"; {plural(self.left_out, 'hit')} in {plural(self.left_out_files, 'file')} "
                f"left out ({where})"
            )
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            "budget_tokens": self.budget_tokens,
            "tokens": self.tokens,
            "left_out": self.left_out,
            "left_out_files": self.left_out_files,
            "left_out_by_file": [list(item) for item in self.by_file],
            "left_out_by_directory": [list(item) for item in self.by_directory],
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
    #: The index chose the files searched (the hits are exactly a scan's either way).
    indexed: bool = False
    #: "content" (every match), "files" (one hit per file: its first match) or "count" (one
    #: hit per file, with its number of matches in `counts`). In the last two, `total`,
    #: `max_matches` and `offset` count files.
    mode: str = "content"
    #: Results of the deterministic order skipped before these (paging).
    offset: int = 0
    #: Matches in each file of the result, in order: all of them in count mode and with
    #: `count_total`; otherwise a file cut by `max_matches` counts the hits it keeps, whether
    #: a scan or the index answered.
    counts: Sequence[int] = ()
    #: What the walk and the searches passed over (see `codesift.results.skipped`).
    skipped: Skipped = field(default_factory=Skipped)
    #: Hits ordered by relevance (`rank=True` or a token budget), not by path.
    ranked: bool = False
    #: With `budget_tokens`: what the budget spent and left out.
    budget: BudgetSpent | None = None

    @property
    def files(self) -> list[str]:
        """The files with hits in this result, in order, each once."""
        return list(dict.fromkeys(m.file for m in self.matches))

    @property
    def file_counts(self) -> list[tuple[str, int]]:
        """`(file, matches)` per file of the result (complete counts in count mode)."""
        return list(zip(self.files, self.counts, strict=False))

    @property
    def hint(self) -> str | None:
        """When the search found little and entries were passed over: what and how to
        include them, in one line."""
        return self.skipped.hint() if few(self.total, self.truncated) else None

    @property
    def note(self) -> str | None:
        """Why the result is incomplete, when it is."""
        if self.timed_out:
            return (
                f"timed out after {self.timeout:g}s; results are partial, narrow the search "
                "with path or include"
            )
        if self.budget is not None:
            return f"token budget: {self.budget.note}" if self.budget.left_out else None
        if self.truncated:
            return f"reached limit {self.max_matches} before completing search"
        return None

    @property
    def summary(self) -> str:
        shown = f'"{self.pattern}"' if self.literal else f"/{self.pattern}/"
        if self.mode == "content":
            found = plural(self.total, "match", "matches")
        else:
            found = plural(self.total, "file") + " with matches"
        text = f"Found {found} for {shown} in {self.path}"
        if self.mode == "count" and self.counts:
            text += f" ({plural(sum(self.counts), 'match', 'matches')} in the files listed)"
        filters = []
        if self.include:
            filters.append("filter: " + ", ".join(f'"{g}"' for g in self.include))
        if self.exclude:
            filters.append("exclude: " + ", ".join(f'"{g}"' for g in self.exclude))
        if filters:
            text += f" ({'; '.join(filters)})"
        if self.offset and self.matches:
            text += f" [results {self.offset + 1}-{self.offset + len(self.matches)}]"
        if self.note:
            text += f" [TRUNCATED: {self.note}]"
        if self.hint:
            text += f" {self.hint}"
        return text

    def to_dict(self) -> dict[str, Any]:
        with gc_paused():
            matches = [m.to_dict() for m in self.matches]
        return {
            "matches": matches,
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
            "indexed": self.indexed,
            "mode": self.mode,
            "offset": self.offset,
            "files": self.files,
            "counts": list(self.counts),
            "skipped": self.skipped.to_dict(),
            # Only a ranked answer says so: an unranked one keeps its fields (and bytes).
            **({"ranked": True} if self.ranked else {}),
            **({} if self.budget is None else {"budget": self.budget.to_dict()}),
            "hint": self.hint,
            "summary": self.summary,
        }
