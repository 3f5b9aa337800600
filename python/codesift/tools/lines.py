"""A file's lines as the agents' read tools need them: read through the Workspace (so the
sandbox, the access-ignore rules and binary detection apply), numbered, with the total count,
and long lines marked so each profile can show its own cut marker."""

from __future__ import annotations

from pathlib import Path

from ..edits.text import shown_line, shown_text
from ..errors import CodesiftError, NotFoundError
from ..results.files import EditResult, FileLine, FileLines
from ..text.files import text_as_read
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
    """`full_text(workspace, path).split("\\n")[start:end]` after the edit `result`, taken from
    the result's text: the file is not read again (only a result without its text, a remote
    edit's, is read back)."""
    if result.new_text is None:
        return full_text(workspace, path).split("\n")[start:end]
    text = result.new_text
    rows = text.split("\n")
    ends = text.endswith("\n")
    if ends:
        rows.pop()
    total = len(rows)
    shown = [shown_line(n, rows[n - 1]).text for n in range(start + 1, min(end, total) + 1)]
    # `full_text` adds the final newline (an empty last element here) to a text that shows
    # something; an empty text splits into one empty element.
    nonempty = total > 1 or (total == 1 and rows[0] not in ("", "\r"))
    if (total == 0 or (ends and nonempty)) and start <= total < end:
        shown.append("")
    return shown


def written_text(content: str, shown: str) -> str:
    """`full_text` of a file just written with `content` (a write's, or a patch's added
    file's), without reading it: decoded as a read decodes it, lines as `read` shows them."""
    return shown_text(text_as_read(content.encode("utf-8", "surrogateescape"), shown))


def edited_text(text: str | None, shown: str) -> str:
    """`full_text` of a file after an edit, from the edit result's `new_text`."""
    return shown_text(_after(text, shown))


def _after(text: str | None, shown: str) -> str:
    if text is None:
        raise ValueError(f"the edit result of {shown} holds no text (a remote edit's)")
    return text
