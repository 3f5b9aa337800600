"""What a parsed patch says, whatever format it came in: file operations (add, delete,
update, with an optional move) and, for an update, its hunks or its search/replace pairs.
Nothing here reads a file; locating the hunks is `codesift.patches.hunks`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Action = Literal["add", "delete", "update"]


@dataclass(frozen=True)
class Hunk:
    """A change to a run of lines: `old_lines` (context and removed lines, without line
    terminators) become `new_lines` (context and added lines)."""

    old_lines: tuple[str, ...]
    new_lines: tuple[str, ...]
    #: `@@ def foo` lines of an apply_patch hunk: each is looked up in turn, and the hunk's
    #: lines must follow the last one.
    anchors: tuple[str, ...] = ()
    #: `*** End of File`: the old lines are at the end of the file.
    at_eof: bool = False
    #: A unified diff's `-START`: the 1-based line of the first old line in the original
    #: file (for an insertion without context, the line after which to insert).
    old_start: int | None = None
    #: A unified diff's `\ No newline at end of file`: whether the old (new) side's last line
    #: ends with a newline; None when the diff says nothing (the file's state is kept).
    old_eol: bool | None = None
    new_eol: bool | None = None
    #: The line of the patch text where the hunk starts, for messages.
    patch_line: int = 0
    #: A unified diff's hunk as its lines really are, carriage returns included (`"x\r"` of a
    #: CRLF file, a lone `\r` ending the file), when that differs from the lines above (which
    #: have one `\r` before the newline removed). Tried first, it writes the exact bytes, as
    #: `git apply` does; the lines above serve patches whose line endings were changed on the
    #: way (written again in the file's own endings).
    raw: Hunk | None = None


@dataclass(frozen=True)
class Replacement:
    """A search/replace pair (a SEARCH/REPLACE block or an `{old, new}` edit): `old` is found
    in the text as it is after the previous pairs were applied."""

    old: str
    new: str
    patch_line: int = 0


@dataclass(frozen=True)
class FileOp:
    """One file's part of a patch."""

    action: Action
    path: str
    #: apply_patch's `*** Move to:` (or a unified diff's rename): where the updated file goes.
    move_to: str | None = None
    #: The new file's text for `add`.
    content: str | None = None
    hunks: tuple[Hunk, ...] = ()
    replacements: tuple[Replacement, ...] = ()
    #: The line of the patch text where this file's section starts, for messages.
    patch_line: int = 0
    #: A unified diff's deletion without lines (git's header-only `deleted file mode`): the
    #: file must be empty.
    deletes_empty: bool = False
    #: The format the section was written in (`ParsedPatch.format`): messages speak its words.
    format: str = "apply_patch"

    @property
    def label(self) -> str:
        """How an apply_patch envelope's messages name this section: `Update File: src/a.py`
        (the other formats' messages name the file and the hunk or block: `said`)."""
        verb = {"add": "Add File", "delete": "Delete File", "update": "Update File"}[self.action]
        return f"{verb}: {self.path}"

    def said(self, problem: str) -> str:
        """`problem` as said of this section: after its header in an envelope, whose sections
        a reader finds by their headers; as it is in the other formats, whose messages name
        the file and the hunk or block (`hunk 1 (patch line 3) of a.txt`)."""
        if self.format != "apply_patch" or problem.startswith(self.label):
            return problem
        return f"{self.label}: {problem}"


@dataclass(frozen=True)
class ParsedPatch:
    """A whole patch: its format and its file operations, in the patch's order."""

    format: str
    ops: tuple[FileOp, ...] = field(default_factory=tuple)


def take_hunk_line(line: str, old: list[str], new: list[str]) -> bool:
    """Adds a hunk's body line to the sides it is on: a `' '` line (or an empty one: context
    whose space was lost) to both, a `'-'` line to `old`, a `'+'` line to `new`, each without
    its marker. False, adding nothing, for any other line."""
    marker = line[:1]
    if marker in (" ", ""):
        old.append(line[1:])
        new.append(line[1:])
    elif marker == "-":
        old.append(line[1:])
    elif marker == "+":
        new.append(line[1:])
    else:
        return False
    return True
