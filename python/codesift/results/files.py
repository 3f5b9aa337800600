"""Result objects of reading, listing, writing and editing files: the structured data
(`to_dict()`) and the one-line `summary` an LLM reads. `codesift.results` exports them too;
they live apart so that a search does not pay for defining them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .matches import field_values, plural
from .skipped import Skipped, few


@dataclass(frozen=True)
class ReadResult:
    """Numbered lines of a file (`cat -n` style: `     12\\ttext`)."""

    path: str
    content: str
    start_line: int
    end_line: int
    truncated: bool
    #: Lines in the file, when the read reached its end (None when it stopped early).
    total_lines: int | None
    long_lines: int = 0
    encoding: str = "utf-8"

    @property
    def summary(self) -> str:
        if self.end_line < self.start_line:
            if self.total_lines == 0:
                return f"{self.path} is empty"
            return (
                f"{self.path} has {plural(self.total_lines or 0, 'line')}; nothing at "
                f"offset {self.start_line}"
            )
        text = (
            f"Read line {self.start_line} of {self.path}"
            if self.start_line == self.end_line
            else f"Read lines {self.start_line}-{self.end_line} of {self.path}"
        )
        if self.total_lines is not None:
            text += f" ({plural(self.total_lines, 'line')})"
        if self.long_lines:
            text += f"; {plural(self.long_lines, 'long line')} cut at 2000 characters"
        if self.truncated:
            text += f" [TRUNCATED: more lines follow; continue with offset={self.end_line + 1}]"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {**field_values(self), "summary": self.summary}


@dataclass(frozen=True)
class ListResult:
    """One directory's entries: directories first (with a trailing `/`), then files."""

    path: str
    entries: Sequence[str]
    total: int
    truncated: bool
    ignored: int = 0
    #: Levels listed: 1 is the directory's own entries; None is the whole tree.
    depth: int | None = 1
    #: Entries that are symlinks (listed as what they point to, never entered).
    links: frozenset[str] = frozenset()
    #: What the listing passed over (see `codesift.results.skipped`).
    skipped: Skipped = field(default_factory=Skipped)

    @property
    def tree(self) -> str:
        """The entries as an indented tree (two spaces a level, names only, `/` after
        directories), with the truncation note when cut."""
        lines = []
        for entry in self.entries:
            parts = entry.rstrip("/").split("/")
            lines.append("  " * (len(parts) - 1) + parts[-1] + ("/" if entry.endswith("/") else ""))
        if self.truncated:
            lines.append(self.truncation_note)
        return "\n".join(lines)

    @property
    def hint(self) -> str | None:
        """When the listing shows little and entries were passed over: what, in one line."""
        return self.skipped.hint() if few(len(self.entries), self.truncated) else None

    @property
    def text(self) -> str:
        lines = list(self.entries)
        if self.truncated:
            lines.append(self.truncation_note)
        return "\n".join(lines)

    @property
    def truncation_note(self) -> str:
        return f"[TRUNCATED: first {plural(len(self.entries), 'item')}]"

    @property
    def summary(self) -> str:
        dirs = sum(1 for e in self.entries if e.endswith("/"))
        many = "at least " if self.truncated and self.depth != 1 else ""
        text = f"Listed {many}{plural(self.total, 'entry', 'entries')} in {self.path}"
        shown = (
            f"{plural(dirs, 'directory', 'directories')}, "
            f"{plural(len(self.entries) - dirs, 'file')} shown"
        )
        if self.depth != 1:
            levels = "whole tree" if self.depth is None else f"{self.depth} levels"
            shown = f"{levels}, symlinks not entered: {shown}"
        text += f" ({shown})"
        if self.truncated:
            text += f" {self.truncation_note}"
        if self.hint:
            text += f" {self.hint}"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            **field_values(self),
            "entries": list(self.entries),
            "links": sorted(self.links),
            "skipped": self.skipped.to_dict(),
            "hint": self.hint,
            "summary": self.summary,
        }


@dataclass(frozen=True)
class WriteResult:
    """A whole file written (or, with `dry_run`, what writing it would do)."""

    path: str
    #: Bytes written (with `dry_run`: that a write would write).
    bytes_written: int
    #: Whether the file was (would be) created rather than overwritten.
    created: bool
    #: True when nothing was written: `diff` shows what the write would change.
    dry_run: bool = False
    #: The unified diff from the current content (`/dev/null` when created); dry runs only.
    diff: str | None = None

    @property
    def summary(self) -> str:
        if self.dry_run:
            verb = "Would create" if self.created else "Would overwrite"
            return (
                f"{verb} {self.path} ({plural(self.bytes_written, 'byte')}) "
                "(dry run: nothing written)"
            )
        verb = "Created" if self.created else "Overwrote"
        return f"{verb} {self.path} ({plural(self.bytes_written, 'byte')})"

    def to_dict(self) -> dict[str, Any]:
        return {**field_values(self), "summary": self.summary}


STRATEGY_NOTES = {
    "line_endings": "old_string matched after normalising line endings",
    "trimmed_lines": "old_string matched with whitespace differences; new_string re-indented",
    "blank_lines": "old_string matched ignoring blank lines; the file's blank lines kept",
    "trailing_whitespace": "lines matched ignoring trailing whitespace",
    "trimmed": "lines matched with whitespace differences; new lines re-indented",
    "punctuation": "lines matched with whitespace and typographic punctuation differences; new "
    "lines re-indented",
}


#: `Workspace.read` cuts longer lines (and marks the cut).
MAX_LINE_CHARS = 2000


@dataclass(frozen=True)
class FileLine:
    """One line of a text file as `Workspace.read` shows it: its number, its text (without
    the line ending, cut at `MAX_LINE_CHARS` characters) and, when cut, its full length."""

    number: int
    text: str
    cut_from: int | None = None


@dataclass(frozen=True)
class FileLines:
    """Lines of a text file (`Workspace.lines`), with what the file holds in all."""

    path: str
    lines: tuple[FileLine, ...]
    #: Lines in the whole file.
    total: int
    #: Whether the file's last character is a newline.
    ends_with_newline: bool
    #: The first line asked for.
    start: int = 1

    @property
    def texts(self) -> list[str]:
        return [line.text for line in self.lines]

    @property
    def last(self) -> int:
        return self.lines[-1].number if self.lines else self.start - 1

    @property
    def more(self) -> bool:
        return self.last < self.total


@dataclass(frozen=True)
class EditResult:
    path: str
    replacements: int
    strategy: str
    first_line: int
    last_line: int
    diff: str
    #: For an edit by search_result_id that was relocated: the line it was found at.
    moved_from: int | None = None
    #: True when nothing was written: `diff` shows what the edit would do.
    dry_run: bool = False
    #: The file after the edit around the change, as `read` shows it: lines
    #: `first_line - 5 .. last_line + 5` (`codesift.edits.text.SNIPPET_CONTEXT`), so that a
    #: tool can show the result without reading the file again.
    snippet: tuple[FileLine, ...] = ()
    #: Lines in the file after the edit.
    total_lines: int = 0
    #: Whether the file ends with a newline after the edit.
    ends_with_newline: bool = False
    #: The whole text before and after the edit, decoded as the Editor read it under its
    #: lock (a UTF-8 BOM left out): a tool shows any part of the file from these without
    #: reading it again. Not in `to_dict`; None on results built elsewhere (a remote edit).
    old_text: str | None = field(default=None, repr=False, compare=False)
    new_text: str | None = field(default=None, repr=False, compare=False)

    @property
    def summary(self) -> str:
        where = (
            f"line {self.first_line}"
            if self.first_line == self.last_line
            else f"lines {self.first_line}-{self.last_line}"
        )
        if self.strategy == "insert":
            count = self.last_line - self.first_line + 1
            verb = "Would insert" if self.dry_run else "Inserted"
            text = f"{verb} {plural(count, 'line')} into {self.path} at {where}"
            return text + (" (dry run: nothing written)" if self.dry_run else "")
        verb = "Would edit" if self.dry_run else "Edited"
        text = f"{verb} {self.path}: {plural(self.replacements, 'replacement')} at {where}"
        if self.moved_from is not None:
            text += f" (moved from line {self.moved_from} to {self.first_line})"
        if self.strategy not in ("exact", "search_result", "search_result_moved"):
            note = STRATEGY_NOTES.get(self.strategy.removeprefix("escapes+"), "")
            if self.strategy.startswith("escapes+"):
                note = "over-escaped \\n and quotes in old_string/new_string were unescaped" + (
                    f"; {note}" if note else ""
                )
            text += f" (strategy: {self.strategy}{': ' + note if note else ''})"
        if self.dry_run:
            text += " (dry run: nothing written)"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "replacements": self.replacements,
            "strategy": self.strategy,
            "first_line": self.first_line,
            "last_line": self.last_line,
            "diff": self.diff,
            "moved_from": self.moved_from,
            "dry_run": self.dry_run,
            "summary": self.summary,
        }


PATCH_LETTERS = {"add": "A", "update": "M", "delete": "D", "move": "R"}


@dataclass(frozen=True)
class FileChange:
    """One file's part of an applied patch. `action` is "add", "update", "delete" or "move"
    (an update that also renames: `new_path` is where the file went)."""

    path: str
    action: str
    diff: str
    new_path: str | None = None
    #: How the hunks were matched: "exact", or the loosest fuzzy level any hunk needed.
    strategy: str = "exact"
    added_lines: int = 0
    removed_lines: int = 0
    #: The file's text after the change (None for a deletion): decoded as the Editor read
    #: it for an update or move, the patch's content for an added file. Not in `to_dict`.
    new_text: str | None = field(default=None, repr=False, compare=False)

    @property
    def line(self) -> str:
        """`M src/a.py (+3 -1)`, `R old.py -> new.py`, `A docs/x.md`, `D gone.txt`."""
        name = f"{self.path} -> {self.new_path}" if self.new_path else self.path
        counts = f" (+{self.added_lines} -{self.removed_lines})" if self.action != "delete" else ""
        strategy = (
            f" [matched: {self.strategy.replace('_', ' ')}]" if self.strategy != "exact" else ""
        )
        return f"{PATCH_LETTERS[self.action]} {name}{counts}{strategy}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "action": self.action,
            "new_path": self.new_path,
            "strategy": self.strategy,
            "added_lines": self.added_lines,
            "removed_lines": self.removed_lines,
            "diff": self.diff,
        }


@dataclass(frozen=True)
class PatchResult:
    """A patch applied (or, with `dry_run`, checked) all or nothing: one `FileChange` per
    file, in the patch's order."""

    files: tuple[FileChange, ...]
    format: str
    dry_run: bool = False
    #: The call was cancelled while the files were being written: the patch was applied all
    #: the same (it is never half applied), and the result says so.
    cancelled_after_commit: bool = False

    @property
    def diff(self) -> str:
        """The unified diff of every file, concatenated."""
        return "".join(f.diff for f in self.files)

    @property
    def summary(self) -> str:
        head = (
            f"Patch checked ({self.format}), nothing written: it would change "
            if self.dry_run
            else f"Applied patch ({self.format}): changed "
        )
        lines = "\n".join(f.line for f in self.files)
        late = (
            " (the call was cancelled after the files were written: the patch stays applied; "
            "undo_edit restores a file)"
            if self.cancelled_after_commit
            else ""
        )
        return f"{head}{plural(len(self.files), 'file')}{late}\n{lines}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "dry_run": self.dry_run,
            "cancelled_after_commit": self.cancelled_after_commit,
            "files": [f.to_dict() for f in self.files],
            "diff": self.diff,
            "summary": self.summary,
        }


@dataclass(frozen=True)
class UndoResult:
    """An edit undone: `action` is "restored" (the previous content is back), "deleted" (the
    file codesift had created is gone) or "recreated" (the file codesift had deleted is back)."""

    path: str
    action: str
    diff: str
    #: Earlier versions of the file still kept for further undos.
    remaining: int
    #: The file's text after the undo (None when the undo deleted it). Not in `to_dict`.
    new_text: str | None = field(default=None, repr=False, compare=False)

    @property
    def summary(self) -> str:
        what = {
            "restored": "restored its previous content",
            "deleted": "deleted it (codesift had created it)",
            "recreated": "recreated it (codesift had deleted it)",
        }[self.action]
        more = (
            f"{plural(self.remaining, 'earlier version')} kept"
            if self.remaining
            else "no earlier version kept"
        )
        return f"Undid the last edit of {self.path}: {what}; {more}"

    def to_dict(self) -> dict[str, Any]:
        return {**field_values(self), "summary": self.summary}
