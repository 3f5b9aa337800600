"""The `apply_patch` envelope of Codex and opencode, parsed into file operations.

    *** Begin Patch
    *** Add File: docs/notes.md
    +first line
    *** Delete File: old.txt
    *** Update File: src/app.py
    *** Move to: src/main.py
    @@ def run():
    -    old()
    +    new()
    *** End of File
    *** End Patch

As in Codex's parser (codex-rs/apply-patch/src/parser.rs), markers may carry surrounding
whitespace, the first hunk of an update may omit its `@@` line, an empty line inside a hunk is
an empty context line (blank lines that end a hunk are dropped again if the hunk does not
match with them), and a heredoc wrapper (`<<'EOF'`, `cat <<'EOF'`, `apply_patch <<EOF` ...
the closing word) is removed. Beyond Codex:
several `@@ anchor` lines in a row are all used (each narrows the search, as the Codex prompt
describes), blank lines between file sections are skipped, and a Markdown fence around the
whole patch is removed. A missing `*** End Patch` is an error: a patch cut short must not be
half applied.
"""

from __future__ import annotations

import re

from ..errors import PatchFormatError
from .model import FileOp, Hunk, ParsedPatch, take_hunk_line

BEGIN = "*** Begin Patch"
END = "*** End Patch"
ADD = "*** Add File: "
DELETE = "*** Delete File: "
UPDATE = "*** Update File: "
MOVE = "*** Move to: "
EOF_MARKER = "*** End of File"
#: A heredoc's first line, as a shell command sends the patch (`apply_patch <<'EOF'`,
#: `cat <<'EOF' | apply_patch`, `<<EOF`): the word after `<<` ends it.
HEREDOC_START = re.compile(r"""<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1""")


def looks_like_envelope(text: str) -> bool:
    return any(line.strip() == BEGIN for line in text.splitlines()[:5])


def parse_envelope(text: str) -> ParsedPatch:
    """The file operations of an apply_patch envelope; `PatchFormatError` names the line of
    the first problem."""
    lines = _unwrap(text.strip().split("\n"))
    lines = [line.removesuffix("\r") for line in lines]
    if not lines or lines[0].strip() != BEGIN:
        first = _quote(lines[0] if lines else "")
        raise PatchFormatError(f"the first line of the patch must be '{BEGIN}'; got {first}")
    if len(lines) < 2 or lines[-1].strip() != END:
        raise PatchFormatError(
            f"the last line of the patch must be '{END}' (was the patch cut short?); "
            "send the whole patch"
        )
    reader = _Reader(lines[1:-1], first_number=2)
    ops: list[FileOp] = []
    while not reader.done():
        line = reader.peek().strip()
        if not line:
            reader.next()
            continue
        ops.append(_file_op(reader))
    if not ops:
        raise PatchFormatError("the patch holds no file sections; nothing to apply")
    return ParsedPatch("apply_patch", tuple(ops))


class _Reader:
    def __init__(self, lines: list[str], first_number: int) -> None:
        self.lines = lines
        self.index = 0
        self.first_number = first_number

    def done(self) -> bool:
        return self.index >= len(self.lines)

    def peek(self) -> str:
        return self.lines[self.index]

    def next(self) -> str:
        line = self.lines[self.index]
        self.index += 1
        return line

    @property
    def number(self) -> int:
        """The patch line number of the line `peek` returns."""
        return self.first_number + self.index


def _file_op(reader: _Reader) -> FileOp:
    number = reader.number
    header = reader.next().strip()
    if header.startswith(ADD):
        path = _path(header, ADD, number)
        content: list[str] = []
        while not reader.done() and reader.peek().startswith("+"):
            content.append(reader.next()[1:])
        return FileOp(
            "add", path, content="".join(line + "\n" for line in content), patch_line=number
        )
    if header.startswith(DELETE):
        return FileOp("delete", _path(header, DELETE, number), patch_line=number)
    if header.startswith(UPDATE):
        path = _path(header, UPDATE, number)
        move_to = None
        if not reader.done() and reader.peek().strip().startswith(MOVE):
            move_to = _path(reader.peek().strip(), MOVE, reader.number)
            reader.next()
        hunks = _hunks(reader, path)
        if not hunks and move_to is None:
            raise PatchFormatError(
                f"patch line {number}: the section 'Update File: {path}' has no hunks; add "
                "@@ hunks with ' ', '-' and '+' lines, or remove the section"
            )
        return FileOp("update", path, move_to=move_to, hunks=tuple(hunks), patch_line=number)
    raise PatchFormatError(
        f"patch line {number}: {_quote(header)} is not a file section header; each section "
        f"starts with '{ADD}PATH', '{DELETE}PATH' or '{UPDATE}PATH'"
    )


def _hunks(reader: _Reader, path: str) -> list[Hunk]:
    hunks: list[Hunk] = []
    while not reader.done():
        line = reader.peek()
        if not line.strip() and not hunks:
            reader.next()
            continue
        if line.strip().startswith("***") and line.strip() != EOF_MARKER:
            break
        if not line.strip():
            # A blank line between hunks.
            reader.next()
            continue
        hunks.append(_hunk(reader, path, first=not hunks))
    return hunks


def _hunk(reader: _Reader, path: str, *, first: bool) -> Hunk:
    number = reader.number
    anchors: list[str] = []
    while not reader.done() and reader.peek().startswith("@@"):
        header = reader.next()
        anchor = header[2:].strip()
        if anchor:
            anchors.append(anchor)
    if number == reader.number and not first:
        raise PatchFormatError(
            f"patch line {number}: expected an @@ line to start the next hunk of {path}, got "
            f"{_quote(reader.peek())}"
        )
    old: list[str] = []
    new: list[str] = []
    at_eof = False
    body_lines = 0
    while not reader.done():
        line = reader.peek()
        if line.strip() == EOF_MARKER:
            reader.next()
            at_eof = True
            break
        if not take_hunk_line(line, old, new):
            if body_lines == 0:
                raise PatchFormatError(
                    f"patch line {reader.number}: unexpected line {_quote(line)} in a hunk of "
                    f"{path}; every hunk line starts with ' ' (context), '-' (removed) or '+' "
                    "(added)"
                )
            break
        reader.next()
        body_lines += 1
    if body_lines == 0:
        raise PatchFormatError(
            f"patch line {number}: a hunk of {path} has no lines; add ' ', '-' and '+' lines "
            "after its @@ line"
        )
    return Hunk(tuple(old), tuple(new), anchors=tuple(anchors), at_eof=at_eof, patch_line=number)


def _path(header: str, marker: str, number: int) -> str:
    path = header[len(marker) :].strip()
    if not path:
        raise PatchFormatError(f"patch line {number}: {_quote(header)} names no file")
    return path


def _unwrap(lines: list[str]) -> list[str]:
    """`lines` without a heredoc wrapper or a Markdown fence around the patch."""
    heredoc = HEREDOC_START.search(lines[0]) if len(lines) >= 4 else None
    if heredoc and lines[1].strip() == BEGIN and lines[-1].strip() == heredoc[2]:
        lines = lines[1:-1]
    if len(lines) >= 4 and lines[0].strip().startswith("```") and lines[-1].strip() == "```":
        lines = lines[1:-1]
    return lines


def _quote(line: str) -> str:
    return repr(line if len(line) <= 80 else line[:77] + "...")
