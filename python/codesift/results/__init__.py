"""Every call's answer, as the structured data (`to_dict()`) and the one-line `summary` an LLM
reads, and what a search keeps of its hits:

- `matches`: glob's and grep's results (`GlobResult`, `GrepResult`, `BudgetSpent`);
- `files`: the results of reading, listing, writing and editing files;
- `ranked`: the answer of `Workspace.search` (a question in words, keyword-ranked);
- `streams`: the streamed answers of `grep_iter` and `glob_iter`;
- `skipped`, `skip_hints`: what a search passed over, and the one-line hint that says so;
- `cache`: the search-result cache, hits kept by `searchResultId` for the edits that follow.

The result classes of `matches` and `files` are importable from here too, loaded on first
use (PEP 562): a piped grep streams through `streams` without defining any dataclass.
"""

from __future__ import annotations

from .._lazy import lazy_exports

# `typing` itself is not imported: a piped grep loads this package (for `streams`).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from .files import (  # noqa: F401
        MAX_LINE_CHARS,
        PATCH_LETTERS,
        STRATEGY_NOTES,
        EditResult,
        FileChange,
        FileLine,
        FileLines,
        ListResult,
        PatchResult,
        ReadResult,
        UndoResult,
        WriteResult,
    )
    from .matches import (  # noqa: F401
        SORT_DESCRIPTIONS,
        BudgetSpent,
        GlobResult,
        GrepResult,
        gc_paused,
        plural,
    )

_MATCHES = ("SORT_DESCRIPTIONS", "BudgetSpent", "GlobResult", "GrepResult", "gc_paused", "plural")
_FILES = (
    "MAX_LINE_CHARS",
    "PATCH_LETTERS",
    "STRATEGY_NOTES",
    "EditResult",
    "FileChange",
    "FileLine",
    "FileLines",
    "ListResult",
    "PatchResult",
    "ReadResult",
    "UndoResult",
    "WriteResult",
)

__all__ = [*_MATCHES, *_FILES]


__getattr__, __dir__ = lazy_exports(
    __name__, globals(), {**dict.fromkeys(_MATCHES, "matches"), **dict.fromkeys(_FILES, "files")}
)
