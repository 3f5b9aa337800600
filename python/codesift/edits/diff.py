"""The one unified-diff maker: every diff codesift shows (edits, writes, patches, undo) is made
here, with lines split on `\n` only and `\\ No newline at end of file` markers, so that a
diff applies back exactly (`apply_patch` reads it the same way)."""

from __future__ import annotations

from ..text import linediff
from .text import split_lines


def file_diff(before: str | None, after: str | None, old_name: str, new_name: str) -> str:
    """A git-style unified diff of one file (`/dev/null` for a missing side), with
    `\\ No newline at end of file` markers so that the diff applies back exactly."""
    lines = linediff.unified_diff(
        [] if before is None else lines_with_ends(before),
        [] if after is None else lines_with_ends(after),
        fromfile="/dev/null" if before is None else f"a/{old_name}",
        tofile="/dev/null" if after is None else f"b/{new_name}",
        n=3,
    )
    out = []
    for line in lines:
        if line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n\\ No newline at end of file\n")
    if not out and old_name != new_name:
        out = [f"--- a/{old_name}\n", f"+++ b/{new_name}\n"]
    return "".join(out)


def lines_with_ends(text: str) -> list[str]:
    """The lines of `text` with their endings, split on `\n` only."""
    return [text[ln.start : ln.end] for ln in split_lines(text)]


def count_lines(text: str) -> int:
    return len(split_lines(text))


def line_counts(before: str, after: str) -> tuple[int, int]:
    added = removed = 0
    old = lines_with_ends(before)
    new = lines_with_ends(after)
    for tag, i1, i2, j1, j2 in linediff.opcodes(old, new):
        if tag in ("replace", "delete"):
            removed += i2 - i1
        if tag in ("replace", "insert"):
            added += j2 - j1
    return added, removed
