"""A file's lines as the agents' read tools need them: read through the Workspace (so the
sandbox, the access-ignore rules and binary detection apply), numbered, with the total count,
and long lines marked so each profile can show its own cut marker."""

from __future__ import annotations

from pathlib import Path

from ..errors import CodesiftError, NotFoundError
from ..results import EditResult, FileLine, FileLines
from ..workspace import Workspace

#: A line as read (number, text cut at 2000 characters, the length it was cut from).
Line = FileLine
#: Lines `start ..` of a file as read, with the file's line count (`total`) and whether it
#: ends with a newline.
Lines = FileLines


def read_lines(workspace: Workspace, path: str, offset: int = 1, limit: int | None = None) -> Lines:
    """Lines `offset .. offset+limit-1` (all lines from `offset` without `limit`) of the text
    file `path` and the file's line count."""
    offset = max(1, offset)
    end = None if limit is None else offset + max(1, limit) - 1
    return workspace.lines(path, offset, end)


def read_text(workspace: Workspace, path: str) -> str:
    """The whole text of a file, lines joined with `\\n` (for diffs and snippets)."""
    return "\n".join(read_lines(workspace, path).texts)


def absolute(workspace: Workspace, rel: str) -> str:
    """The absolute path of a workspace-relative path (agents that show absolute paths)."""
    rel = rel.removeprefix("./")
    return str(workspace.root) if rel in ("", ".") else str(Path(workspace.root) / rel)


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


def full_text(workspace: Workspace, path: str) -> str:
    """The whole text of a file with its final newline when it has one (what an agent that
    reads the file whole sees)."""
    lines = read_lines(workspace, path)
    text = "\n".join(lines.texts)
    return text + "\n" if text and lines.ends_with_newline else text


def edited_lines(
    workspace: Workspace, path: str, result: EditResult, start: int, end: int
) -> list[str]:
    """`full_text(workspace, path).split("\\n")[start:end]` after the edit `result`: taken
    from the result's snippet when it holds those lines (the file is read again only for a
    window it does not hold)."""
    total, shown = result.total_lines, result.snippet
    wanted = range(start + 1, min(end, total) + 1)
    if not wanted or (shown and shown[0].number <= wanted[0] and wanted[-1] <= shown[-1].number):
        rows = [line.text for line in shown if line.number in wanted]
        first_text = shown[0].text if shown and shown[0].number == 1 else None
    else:
        lines = workspace.lines(path, wanted[0], wanted[-1])
        total = lines.total
        rows = lines.texts
        first_text = rows[0] if rows and wanted[0] == 1 else None
    # `full_text` adds the final newline (an empty last element here) to a non-empty text;
    # an empty text splits into one empty element.
    nonempty = total > 1 or (total == 1 and first_text != "")
    if (total == 0 or (result.ends_with_newline and nonempty)) and start <= total < end:
        rows.append("")
    return rows
