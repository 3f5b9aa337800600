"""A file's lines as the agents' read tools need them: read through the Workspace (so the
sandbox, the access-ignore rules and binary detection apply), numbered, with the total count,
and long lines marked so each profile can show its own cut marker."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import CodesiftError, NotFoundError
from ..workspace import Workspace

#: `Workspace.read`'s marker on a line cut at 2000 characters.
_CUT = re.compile(r"\.\.\. \[line truncated: (\d+) characters\]$")
#: Reads as far as any file goes.
_ALL = 2**31 - 1


@dataclass(frozen=True)
class Line:
    number: int
    text: str
    #: The line's length when it was cut at 2000 characters (`text` holds the first 2000).
    cut_from: int | None = None


@dataclass(frozen=True)
class Lines:
    """Lines `start ..` of a file, as read."""

    path: str
    lines: list[Line]
    #: Lines in the whole file.
    total: int

    @property
    def texts(self) -> list[str]:
        return [line.text for line in self.lines]

    @property
    def last(self) -> int:
        return self.lines[-1].number if self.lines else self.start - 1

    start: int = 1

    @property
    def more(self) -> bool:
        return self.last < self.total


def read_lines(workspace: Workspace, path: str, offset: int = 1, limit: int = _ALL) -> Lines:
    """Lines `offset .. offset+limit-1` of the text file `path` and the file's line count."""
    offset = max(1, offset)
    result = workspace.read(path, offset=offset, limit=max(1, limit))
    lines = [_parse(row) for row in result.content.split("\n")] if result.content else []
    total = result.total_lines
    if total is None:
        total = workspace.read(path, offset=_ALL, limit=1).total_lines or 0
    return Lines(path=result.path, lines=lines, total=total, start=offset)


def read_text(workspace: Workspace, path: str) -> str:
    """The whole text of a file, lines joined with `\\n` (for diffs and snippets)."""
    return "\n".join(read_lines(workspace, path).texts)


def absolute(workspace: Workspace, rel: str) -> str:
    """The absolute path of a workspace-relative path (agents that show absolute paths)."""
    rel = rel.removeprefix("./")
    return str(workspace.root) if rel in ("", ".") else str(Path(workspace.root) / rel)


def _parse(row: str) -> Line:
    number, _, text = row.partition("\t")
    found = _CUT.search(text)
    if found is not None and found.start() == 2000:
        return Line(int(number), text[: found.start()], int(found.group(1)))
    return Line(int(number), text)


def child_sizes(workspace: Workspace, rel_dir: str) -> dict[str, int]:
    """The size of each file directly in the directory `rel_dir` (workspace-relative)."""
    rel_dir = rel_dir.strip("/") or "."
    prefix = "" if rel_dir == "." else rel_dir + "/"
    pattern = "*" if rel_dir == "." else _escape_glob(rel_dir) + "/*"
    found = workspace.glob(pattern, rel_dir, limit=100_000, sort="none")
    return {
        f.path[len(prefix) :]: f.size
        for f in found.files
        if f.path.startswith(prefix) and "/" not in f.path[len(prefix) :]
    }


def _escape_glob(text: str) -> str:
    return "".join(f"[{c}]" if c in "*?[]{}" else c for c in text)


def exists(workspace: Workspace, path: str) -> bool:
    """Whether `path` names something in the workspace (a file or a directory)."""
    try:
        workspace.read(path, limit=1)
    except NotFoundError:
        return False
    except CodesiftError:
        return True
    return True


def ends_with_newline(workspace: Workspace, path: str) -> bool:
    """Whether the file's last byte is a newline (agents that print a file's text whole
    show it)."""
    found = workspace.grep(r"\n\z", path, multiline=True, max_matches=1)
    return bool(found.matches)


def full_text(workspace: Workspace, path: str) -> str:
    """The whole text of a file with its final newline when it has one (what an agent that
    reads the file whole sees)."""
    text = read_text(workspace, path)
    return text + "\n" if text and ends_with_newline(workspace, path) else text
