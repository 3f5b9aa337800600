"""Reading a text file's lines for `Workspace.read` and `Workspace.lines`: UTF-8 read in
chunks (a huge line is not kept whole, and whether more lines follow is known without reading
them), UTF-16 with a BOM decoded whole; a file with a NUL byte in its head is binary."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..results.files import MAX_LINE_CHARS
from .files import BINARY_SNIFF, TextFile, binary_error

READ_CHUNK = 64 * 1024


class TextLines:
    """The lines of the open file `f` (a text file: UTF-8, or UTF-16 with a BOM), numbered;
    `encoding` names its encoding and `seen` counts the lines read so far."""

    def __init__(self, f: Any, shown: str) -> None:
        head = f.read(BINARY_SNIFF)
        self._reader: LineReader | DecodedLines
        if head.startswith((b"\xff\xfe", b"\xfe\xff")):
            self._reader = DecodedLines(TextFile(head + f.read(), shown).text)
            self.encoding = "utf-16-le" if head[0] == 0xFF else "utf-16-be"
        elif b"\x00" in head:
            raise binary_error(shown)
        else:
            self._reader = LineReader(head, f)
            self.encoding = "utf-8-sig" if head.startswith(b"\xef\xbb\xbf") else "utf-8"
        self.seen = 0

    def numbered(self, start: int) -> Iterator[tuple[int, str, int]]:
        """From line `start` on: each line's number, its text (a UTF-8 BOM taken off the
        first, cut at `MAX_LINE_CHARS` characters) and its length before the cut."""
        for line, length in self._reader:
            self.seen += 1
            if self.seen < start:
                continue
            if self.seen == 1 and self.encoding == "utf-8-sig":
                line = line.removeprefix("\ufeff")
            yield self.seen, line[:MAX_LINE_CHARS], length

    def has_more(self) -> bool:
        """Whether a line follows the last one read."""
        return self._reader.has_more()

    def count_rest(self) -> int:
        """Counts the lines not read yet into `seen` (to the end of the file)."""
        self.seen += self._reader.count_rest()
        return self.seen

    @property
    def ends_with_newline(self) -> bool:
        """Whether the last byte read so far is a newline."""
        return self._reader.ends_with_newline


class DecodedLines:
    """Lines of a decoded (UTF-16) text as `(text without terminator, length)`, with the
    interface of `LineReader`."""

    def __init__(self, text: str) -> None:
        self.ends_with_newline = text.endswith("\n")
        text = text.replace("\r\n", "\n")
        split = text.split("\n")
        if text.endswith("\n"):
            split.pop()
        self._lines = split
        self._taken = 0

    def __iter__(self) -> Iterator[tuple[str, int]]:
        for line in self._lines[self._taken :]:
            self._taken += 1
            yield line, len(line)

    def has_more(self) -> bool:
        return self._taken < len(self._lines)

    def count_rest(self) -> int:
        rest = len(self._lines) - self._taken
        self._taken = len(self._lines)
        return rest


class LineReader:
    """Lines of a UTF-8 file as `(text without terminator, length in characters)`, read in
    chunks: a line longer than the display limit is not kept whole in memory, and whether
    more lines follow is known without reading them."""

    def __init__(self, head: bytes, f: Any) -> None:
        self._pending = bytearray(head)
        self._file = f
        self._eof = False
        #: Whether the last byte read so far is a newline.
        self.ends_with_newline = head.endswith(b"\n")

    def _fill(self) -> bool:
        chunk = b"" if self._eof else self._file.read(READ_CHUNK)
        if not chunk:
            self._eof = True
            return False
        self._pending += chunk
        self.ends_with_newline = chunk.endswith(b"\n")
        return True

    def count_rest(self) -> int:
        """The lines not read yet, counted (not decoded) to the end of the file."""
        count = 0
        while True:
            count += self._pending.count(b"\n")
            tail = bool(self._pending) and not self._pending.endswith(b"\n")
            self._pending.clear()
            if not self._fill():
                return count + tail

    def has_more(self) -> bool:
        return bool(self._pending) or self._fill()

    def __iter__(self) -> Iterator[tuple[str, int]]:
        keep = MAX_LINE_CHARS * 4 + 4  # enough bytes for MAX_LINE_CHARS characters
        overflow = 0  # bytes of the current line dropped beyond the kept prefix
        while True:
            nl = self._pending.find(b"\n")
            if nl >= 0:
                raw = bytes(self._pending[:nl])
                del self._pending[: nl + 1]
                yield _line(raw, overflow)
                overflow = 0
            elif not self._fill():
                if self._pending or overflow:
                    raw = bytes(self._pending)
                    self._pending.clear()
                    yield _line(raw, overflow)
                return
            elif len(self._pending) > keep and self._pending.find(b"\n") < 0:
                overflow += len(self._pending) - keep
                del self._pending[keep:]


def _line(raw: bytes, overflow: int) -> tuple[str, int]:
    text = raw.decode("utf-8", "replace").removesuffix("\r")
    return text, len(text) + overflow
