"""The one ripgrep-style line printer of `codesift grep` (what the engine's printer does not
print itself): one line per matching line (`path:line:text`, context as `path-line-text`,
`--` between groups), as `rg -n --no-heading` prints it (`Lines`), and the lines one file's
hits make (`content_records`, `inverted_records` for `-v`). Nothing here reads a file the
engine did not report (a multi-line match reads its own file, through the Workspace, to
print the lines it spans: `file_lines`)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence

from ..errors import CodesiftError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

    from ..workspace import Workspace


#: One output line: (line number, ":" for a selected line or "-" for context, column, text).
Record = tuple[int, str, int, str]


def content_records(
    hits: Sequence, *, only_matching: bool, lines_of: Callable[[str], list[str]]
) -> list[Record]:
    """The output lines of one file's hits (in order): each matching line once (its column is
    the first match's), or with `only_matching` each match; and the context lines the hits
    carry that are not matching lines. A match that spans lines selects every line it spans."""
    selected: dict[int, tuple[int, str]] = {}
    matches: list[Record] = []
    context: dict[int, str] = {}
    for m in hits:
        if m.end_line > m.line:
            whole = lines_of(m.file)
            spanned = whole[m.line - 1 : m.end_line] or [m.text]
        else:
            spanned = [m.text]
        for k, text in enumerate(spanned):
            selected.setdefault(m.line + k, (m.column if k == 0 else 1, text))
        if only_matching:
            for k, piece in enumerate(m.content.split("\n")):
                matches.append((m.line + k, ":", m.column if k == 0 else 1, piece.rstrip("\r")))
        first_before = m.line - len(m.before)
        for k, text in enumerate(m.before):
            context.setdefault(first_before + k, text)
        for k, text in enumerate(m.after):
            context.setdefault(m.end_line + 1 + k, text)
    if not only_matching:
        matches = [(n, ":", col, text) for n, (col, text) in selected.items()]
    records = matches + [(n, "-", 0, t) for n, t in context.items() if n not in selected]
    records.sort(key=lambda r: (r[0], r[2]))
    return records


def inverted_records(
    every_line: Sequence, matched: Iterable, *, before: int, after: int
) -> list[Record]:
    """`-v` for one file: its lines (the "every line" hits) that no match touches, with
    `before`/`after` lines of context (which are then matching lines)."""
    text = {m.line: m.text for m in every_line}
    touched: set[int] = set()
    for m in matched:
        touched.update(range(m.line, m.end_line + 1))
    chosen = [n for n in sorted(text) if n not in touched]
    shown = set(chosen)
    records: list[Record] = [(n, ":", 1, text[n]) for n in chosen]
    for n in chosen:
        for k in range(max(1, n - before), n + after + 1):
            if k in text and k not in shown:
                shown.add(k)
                records.append((k, "-", 0, text[k]))
    records.sort(key=lambda r: r[0])
    return records


class Lines:
    """Writes rg's piped lines: `path:line:text` (`path-line-text` for context, `--` between
    groups when context is asked for), each part present as the flags say."""

    def __init__(
        self,
        *,
        line_number: bool,
        column: bool,
        context: bool,
        inverted: bool = False,
        out: TextIO | None = None,
    ) -> None:
        # rg's --column implies --line-number, but an -N given keeps them off: since line
        # numbers are on unless -N, `line_number` is False only then. An inverted line (-v)
        # has no match to give a column: rg prints none.
        self.line_number = line_number
        self.column = column and not inverted
        self.context = context
        self.out = out or sys.stdout
        self.printed = False

    def file(self, name: str | None, records: Sequence[Record]) -> None:
        """The lines of one file (`name` None: the path is not printed)."""
        chunks: list[str] = []
        last = -1
        for line, kind, col, text in records:
            if self.context and self.printed and line > last + 1:
                chunks.append("--\n")
            parts = [] if name is None else [name]
            if self.line_number:
                parts.append(str(line))
            if self.column and kind == ":":
                parts.append(str(col))
            chunks.append(kind.join(parts) + kind + text + "\n" if parts else text + "\n")
            self.printed = True
            last = line
        self.out.write("".join(chunks))

    def name_only(self, name: str) -> None:
        self.out.write(name + "\n")
        self.printed = True

    def count(self, name: str | None, count: int) -> None:
        self.out.write(f"{count}\n" if name is None else f"{name}:{count}\n")
        self.printed = True


def file_lines(ws: Workspace) -> Callable[[str], list[str]]:
    """The lines of a file a multi-line match spans, read through the workspace (once)."""
    cache: dict[str, list[str]] = {}

    def lines_of(file: str) -> list[str]:
        if file not in cache:
            try:
                text = ws.read_bytes(file).decode("utf-8", "replace")
            except (CodesiftError, OSError):
                text = ""
            cache[file] = [line.removesuffix("\r") for line in text.split("\n")]
        return cache[file]

    return lines_of
