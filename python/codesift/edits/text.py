"""Text for editing: a decoded file's lines and line endings (no I/O; `codesift.text.files.TextFile`
decodes the bytes)."""

from __future__ import annotations

from dataclasses import dataclass

from ..results.files import MAX_LINE_CHARS, FileLine

#: Lines around an edit that its result shows (`EditResult.snippet`): enough for the agents'
#: snippets (Claude Code shows 4 lines either side, one more after a final newline).
SNIPPET_CONTEXT = 5


@dataclass(frozen=True)
class Line:
    start: int
    content_end: int  # before "\r\n" / "\n"
    end: int  # after the line ending


def split_lines(text: str) -> list[Line]:
    """Lines of `text`, split on `\\n` only (not on the other separators str.splitlines
    knows)."""
    lines = []
    pos = 0
    length = len(text)
    while pos < length:
        nl = text.find("\n", pos)
        if nl < 0:
            lines.append(Line(pos, length, length))
            break
        content_end = nl - 1 if nl > pos and text[nl - 1] == "\r" else nl
        lines.append(Line(pos, content_end, nl + 1))
        pos = nl + 1
    return lines


def dominant_newline(text: str) -> str:
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf >= text.count("\n") - crlf else "\n"


def convert_newlines(text: str, newline: str) -> str:
    lf = text.replace("\r\n", "\n")
    return lf if newline == "\n" else lf.replace("\n", newline)


def newline_of(region: str, default: str) -> str:
    if "\r\n" in region:
        return "\r\n"
    return "\n" if "\n" in region else default


def newline_near(text: str, pos: int, default: str) -> str:
    """The line ending of the line at `pos`, or `default` on a last line without one."""
    nl = text.find("\n", pos)
    if nl < 0:
        return default
    return "\r\n" if nl > 0 and text[nl - 1] == "\r" else "\n"


def line_number_at(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def shown_line(number: int, raw: str) -> FileLine:
    """A line as `Workspace.read` shows it: without its line ending, undecodable bytes as
    U+FFFD, cut at `MAX_LINE_CHARS` characters."""
    text = raw.removesuffix("\r").encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    if len(text) > MAX_LINE_CHARS:
        return FileLine(number, text[:MAX_LINE_CHARS], len(text))
    return FileLine(number, text)


def shown_text(text: str) -> str:
    """The whole of a decoded text as `Workspace.lines` shows a file that holds it: each line
    as `shown_line` makes it, joined with `\\n`, with the final newline when the text has one
    (and shows anything)."""
    rows = text.split("\n")
    ends = text.endswith("\n")
    if ends:
        rows.pop()
    shown = "\n".join(shown_line(n, raw).text for n, raw in enumerate(rows, start=1))
    return shown + "\n" if shown and ends else shown


def snippet_lines(
    text: str, first: int, last: int, context: int = SNIPPET_CONTEXT
) -> tuple[tuple[FileLine, ...], int]:
    """Lines `first - context .. last + context` of `text` as `read` shows them, and the
    number of lines in `text`."""
    rows = text.split("\n")
    total = len(rows) - 1 if text.endswith("\n") or not text else len(rows)
    start, end = max(1, first - context), min(total, last + context)
    return tuple(shown_line(n, rows[n - 1]) for n in range(start, end + 1)), total
