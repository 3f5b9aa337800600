"""The answer of `Workspace.search` (a question in words, keyword-ranked): the files that
answer best, each with its score, why, its best lines and its matching definitions; the
structured data (`to_dict()`) and the one-line `summary` an LLM reads."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .matches import plural


@dataclass(frozen=True)
class SearchHit:
    """One file that answers the question."""

    #: Workspace-relative path.
    file: str
    #: BM25F over the file's path, definitions and lines, times the share of the terms it
    #: holds and its role's weight (higher first; see docs/search.md).
    score: float
    #: Why it is where it is: `all 3 terms; defines parse_config (function); path: config`.
    why: str
    #: Its best lines, `(line, text)`: most distinct terms first, at most 3.
    lines: tuple[tuple[int, str], ...]
    #: Names of the definitions on its matching lines that hold a term.
    symbols: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "score": self.score,
            "why": self.why,
            "lines": [{"line": line, "text": text} for line, text in self.lines],
            "symbols": list(self.symbols),
        }


@dataclass(frozen=True)
class SearchResult:
    """The files that answer a question best, best first."""

    results: tuple[SearchHit, ...]
    #: Files the candidates' search read (the N of the terms' idf).
    files_searched: int
    #: What was searched: the question's words and identifier parts, stop words dropped,
    #: stemmed (`routing` -> `rout`).
    terms: tuple[str, ...]
    #: The index chose the files searched.
    indexed: bool
    question: str = ""
    path: str = "."

    @property
    def summary(self) -> str:
        terms = ", ".join(self.terms)
        found = plural(len(self.results), "file")
        return (
            f"{found} for {self.question!r} (terms: {terms}) in {self.path}, "
            f"{plural(self.files_searched, 'file')} searched"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "path": self.path,
            "terms": list(self.terms),
            "results": [hit.to_dict() for hit in self.results],
            "files_searched": self.files_searched,
            "indexed": self.indexed,
            "summary": self.summary,
        }

    def text(self) -> str:
        """One block per file: `path (score) why`, then its lines `  line: text`."""
        if not self.results:
            return f"No files match {self.question!r} (terms: {', '.join(self.terms)})."
        blocks = []
        for hit in self.results:
            head = f"{hit.file} ({hit.score:.2f}) {hit.why}"
            lines = [f"  {line}: {text}" for line, text in hit.lines]
            blocks.append("\n".join([head, *lines]))
        return "\n\n".join(blocks)


__all__ = ["SearchHit", "SearchResult"]
