"""Unified diffs (`diff -u`, `git diff`), one file or several, parsed into file operations.

`--- a/x` / `+++ b/x` headers (git's `a/` and `b/` prefixes are removed when both sides have
them, a /dev/null side counting as either, or after a `diff --git` line; timestamps after a tab
are removed too), `@@ -l,n +l,n @@` hunks, `\\ No newline at end of file` markers (an empty
last line so marked is read as the end of the line before it, which keeps its newline),
`/dev/null` for an added or deleted file, a changed path (or git's `rename from` /
`rename to`) for a move.
`diff --git`, `index`, mode and similarity lines are read for what they say and otherwise
skipped.

A hunk header without line numbers (Aider's `@@ ... @@`, a bare `@@`) is found by its lines
alone, its body ending at the first line that is not a hunk line (a closing fence, prose).
Hunk line counts are used when they agree with the body; models often miscount, so a hunk
whose counts do not add up is read up to the next `@@`, file header or end of text instead
(blank lines at its end dropped).
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..errors import PatchFormatError
from .model import FileOp, Hunk, ParsedPatch, take_hunk_line

HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
#: A hunk header without line numbers (Aider's `@@ ... @@`, or a bare `@@`): the hunk is found
#: by its lines alone, and its body ends at the first line that is not a hunk line.
BARE_HUNK_HEADER = re.compile(r"^@@(?:\s.*)?$")
NO_NEWLINE = "\\ No newline at end of file"
DEV_NULL = "/dev/null"


def looks_like_unified(text: str) -> bool:
    lines = text.split("\n")
    for i, line in enumerate(lines[:-1]):
        if line.startswith("--- ") and lines[i + 1].startswith("+++ "):
            return True
    # git writes a pure rename, or an empty file added or deleted, as headers alone.
    return any(HUNK_HEADER.match(line) or line.startswith("diff --git ") for line in lines)


def parse_unified(text: str, *, path: str | None = None) -> ParsedPatch:
    """The file operations of a unified diff. `path` names the file for a diff that has hunks
    but no `---`/`+++` headers."""
    raw = text.split("\n")
    if raw and raw[-1] == "":
        raw.pop()
    lines = [line.removesuffix("\r") for line in raw]
    if _crlf_transport(raw):
        # The whole patch was sent with CRLF line endings: its "\r"s are not the files'.
        raw = lines
    ops: list[FileOp] = []
    i = 0
    git: dict[str, str] = {}
    while i < len(lines):
        line = lines[i]
        if line.startswith("diff --git "):
            ops.extend(_header_only(git))
            git = {"header_line": str(i + 1), "git": "1", **_git_names(line)}
            i += 1
            continue
        if git and _git_extended(line, git):
            i += 1
            continue
        if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            if git and not _same_file(git, lines[i], lines[i + 1]):
                # A `diff --git` section with headers only, then a plain diff of another file.
                ops.extend(_header_only(git))
                git = {}
            op, i = _file(lines, raw, i, git)
            ops.append(op)
            git = {}
            continue
        if _header(line):
            if path is None:
                raise PatchFormatError(
                    f"diff line {i + 1}: a hunk without '--- a/PATH' and '+++ b/PATH' "
                    "headers; add them, or pass path"
                )
            hunks, i = _hunks(lines, raw, i, path)
            ops.append(FileOp("update", path, hunks=tuple(hunks), patch_line=1))
            continue
        i += 1
    ops.extend(_header_only(git))
    if any(h.raw is not None for op in ops for h in op.hunks):
        # Some hunk lines kept their carriage returns: the diff was made from the bytes, so
        # lines without one end in "\n" alone, and are tried byte for byte first too.
        ops = [
            replace(op, hunks=tuple(h if h.raw else replace(h, raw=h) for h in op.hunks))
            for op in ops
        ]
    if not ops:
        raise PatchFormatError(
            "no file changes found in the diff; a unified diff has '--- a/PATH' and "
            "'+++ b/PATH' lines followed by '@@ -l,n +l,n @@' hunks"
        )
    return ParsedPatch("unified", tuple(replace(op, format="unified") for op in ops))


def _crlf_transport(raw: list[str]) -> bool:
    """Whether every header line of the diff ends with "\\r" (git writes none there)."""
    headers = [
        line for line in raw if line.startswith(("--- ", "+++ ", "@@ ", "diff --git ", "\\"))
    ]
    return bool(headers) and all(line.endswith("\r") for line in headers)


def _git_extended(line: str, git: dict[str, str]) -> bool:
    """Reads a git extended header line into `git`; False when `line` is not one."""
    for key, prefix in (
        ("rename_from", "rename from "),
        ("rename_to", "rename to "),
        ("new_file", "new file mode "),
        ("deleted", "deleted file mode "),
    ):
        if line.startswith(prefix):
            git[key] = _unquote(line[len(prefix) :])
            return True
    return line.startswith(
        ("index ", "old mode ", "new mode ", "similarity index ", "dissimilarity index ")
    ) or line.startswith(("copy from ", "copy to ", "Binary files "))


def _git_names(line: str) -> dict[str, str]:
    """The two paths of `diff --git a/X b/Y` (when they can be told apart: X == Y, or a single
    ` b/` separates them)."""
    rest = line[len("diff --git ") :]
    if rest.startswith("a/"):
        half = (len(rest) - 1) // 2
        if rest[half : half + 3] == " b/" and rest[2:half] == rest[half + 3 :]:
            return {"a": rest[2:half], "b": rest[half + 3 :]}
        if rest.count(" b/") == 1:
            a, b = rest.split(" b/")
            return {"a": a[2:], "b": b}
    return {}


def _same_file(git: dict[str, str], old_header: str, new_header: str) -> bool:
    """Whether the `---`/`+++` lines are the files the `diff --git` line names."""
    if "a" not in git:
        return True
    old_name = _strip_prefix(_header_path(old_header[4:]), "a/")
    new_name = _strip_prefix(_header_path(new_header[4:]), "b/")
    return old_name in (git["a"], DEV_NULL) and new_name in (git["b"], DEV_NULL)


def _header_only(git: dict[str, str]) -> list[FileOp]:
    """The operation a `diff --git` section says with headers alone (no `---`/`+++`): a pure
    rename, or an empty file added or deleted."""
    if not git or "header_line" not in git:
        return []
    line = int(git["header_line"])
    if git.get("rename_from"):
        source = git["rename_from"]
        return [FileOp("update", source, move_to=git.get("rename_to") or source, patch_line=line)]
    if "deleted" in git and "a" in git:
        return [FileOp("delete", git["a"], patch_line=line, deletes_empty=True)]
    if "new_file" in git and "b" in git:
        return [FileOp("add", git["b"], content="", patch_line=line)]
    return []


def _file(lines: list[str], raw: list[str], i: int, git: dict[str, str]) -> tuple[FileOp, int]:
    number = i + 1
    old_name = _header_path(lines[i][4:])
    new_name = _header_path(lines[i + 1][4:])
    if git or _prefixed(old_name, new_name):
        old_name, new_name = _strip_prefix(old_name, "a/"), _strip_prefix(new_name, "b/")
    if old_name == DEV_NULL and new_name == DEV_NULL:
        raise PatchFormatError(f"diff line {number}: both sides are /dev/null")
    shown = new_name if old_name == DEV_NULL else old_name
    hunks, i = _hunks(lines, raw, i + 2, shown)
    if not hunks and (old_name == DEV_NULL or new_name == DEV_NULL):
        side = "new" if old_name == DEV_NULL else "deleted"
        if ("new_file" if side == "new" else "deleted") not in git:
            # A diff cut short after its headers: what the file holds is not said.
            raise PatchFormatError(
                f"diff line {number}: no hunks for the {side} file "
                f"{new_name if side == 'new' else old_name} (is the diff cut short?); list its "
                f"lines in a hunk ({'+' if side == 'new' else '-'} lines)"
            )
    if old_name == DEV_NULL:
        if any(h.old_lines for h in hunks):
            raise PatchFormatError(
                f"diff line {number}: the new file {new_name} has hunks with '-' or context lines"
            )
        # The new file's lines as the diff has them, carriage returns included.
        exact = [h.raw or h for h in hunks]
        content = "".join(line + "\n" for h in exact for line in h.new_lines)
        if exact and exact[-1].new_eol is False:
            content = content.removesuffix("\n")
        return FileOp("add", new_name, content=content, patch_line=number), i
    if new_name == DEV_NULL:
        return (
            FileOp(
                "delete", old_name, hunks=tuple(hunks), patch_line=number, deletes_empty=not hunks
            ),
            i,
        )
    move_to = new_name if new_name != old_name else None
    if not hunks and move_to is None:
        raise PatchFormatError(f"diff line {number}: no hunks for {old_name}")
    return FileOp("update", old_name, move_to=move_to, hunks=tuple(hunks), patch_line=number), i


def _hunks(lines: list[str], raw: list[str], i: int, path: str) -> tuple[list[Hunk], int]:
    hunks: list[Hunk] = []
    while i < len(lines):
        header = _header(lines[i])
        if not header:
            if _next_file(lines, i):
                break
            if not hunks and lines[i].strip() == "":
                i += 1
                continue
            if hunks:
                break
            raise PatchFormatError(
                f"diff line {i + 1}: expected an '@@ -l,n +l,n @@' hunk header for {path}, got "
                f"{lines[i][:80]!r}"
            )
        hunk, i = _hunk(lines, raw, i, header)
        hunks.append(hunk)
    return hunks, i


def _header(line: str) -> re.Match[str] | None:
    return HUNK_HEADER.match(line) or BARE_HUNK_HEADER.match(line)


def _next_file(lines: list[str], i: int) -> bool:
    line = lines[i]
    return line.startswith("diff ") or (
        line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ ")
    )


def _hunk(lines: list[str], raw: list[str], i: int, header: re.Match[str]) -> tuple[Hunk, int]:
    number = i + 1
    bare = header.re is BARE_HUNK_HEADER
    old_start = None if bare else int(header[1])
    counted = None
    if not bare:
        old_count = 1 if header[2] is None else int(header[2])
        new_count = 1 if header[4] is None else int(header[4])
        counted = _counted_body(lines, i + 1, old_count, new_count)
    if counted is not None:
        body, end = counted
    else:
        end = i + 1
        while end < len(lines) and not _header(lines[end]) and not _next_file(lines, end):
            if bare and lines[end][:1] not in ("", " ", "-", "+", "\\"):
                # The end of the diff (a closing ``` fence, prose).
                break
            end += 1
        body = lines[i + 1 : end]
        while body and body[-1].strip() == "":
            body.pop()
    hunk = _sides(body, i + 2, old_start, number)
    raw_body = raw[i + 1 : i + 1 + len(body)]
    if raw_body != body:
        try:
            exact = _sides(raw_body, i + 2, old_start, number)
        except PatchFormatError:
            exact = None
        if exact is not None:
            hunk = replace(hunk, raw=exact)
    return hunk, end


def _sides(body: list[str], first_line: int, old_start: int | None, number: int) -> Hunk:
    """The hunk a body of `' '`, `'-'`, `'+'` and `\\` lines says."""
    old: list[str] = []
    new: list[str] = []
    old_eol: bool | None = None
    new_eol: bool | None = None
    last_kind = ""
    marker_line = 0
    for offset, line in enumerate(body):
        kind = line[:1]
        if line.startswith("\\"):
            # "\ No newline at end of file" (in any language): the line before has none.
            if last_kind in (" ", "-"):
                old_eol = False
            if last_kind in (" ", "+"):
                new_eol = False
            marker_line = first_line + offset
            continue
        side = kind or " "
        if (old_eol is False and side in (" ", "-")) or (new_eol is False and side in (" ", "+")):
            # A line after the one the marker called the last: the diff contradicts itself,
            # and where it applies would be a guess.
            raise PatchFormatError(
                f"diff line {marker_line}: '{NO_NEWLINE}' follows a line that is not the last "
                f"of its side (diff line {first_line + offset} comes after it); the marker "
                "belongs after a file's last line only: move or remove it"
            )
        if not take_hunk_line(line, old, new):
            raise PatchFormatError(
                f"diff line {first_line + offset}: {line[:80]!r} is not a hunk line; hunk lines "
                "start with ' ', '-' or '+'"
            )
        last_kind = side
    # A marker only on one side says the other side's last line does end with a newline.
    if old_eol is False and new_eol is None:
        new_eol = True
    if new_eol is False and old_eol is None:
        old_eol = True
    if not old and not new:
        raise PatchFormatError(f"diff line {number}: an empty hunk")
    # A marker on the old side says its last line is the file's last line.
    at_eof = old_eol is False
    # An empty last line without a newline is no line at all (a text split on "\n" ends with
    # one, as `"a\n".split("\n")` does): the text ends right after the line before, whose
    # "\n" therefore stays.
    if old_eol is False and old and old[-1] == "":
        old.pop()
        old_eol = True
        if not old and old_start is not None:
            # Nothing left to find: insert where the empty line was, after line old_start - 1.
            old_start -= 1
    if new_eol is False and new and new[-1] == "":
        new.pop()
        new_eol = True
    return Hunk(
        tuple(old),
        tuple(new),
        at_eof=at_eof,
        old_start=old_start,
        old_eol=old_eol,
        new_eol=new_eol,
        patch_line=number,
    )


def _counted_body(
    lines: list[str], i: int, old_count: int, new_count: int
) -> tuple[list[str], int] | None:
    """The hunk body read by its header's counts, or None when they do not fit the text."""
    body: list[str] = []
    old_seen = new_seen = 0
    while old_seen < old_count or new_seen < new_count:
        if i >= len(lines):
            return None
        line = lines[i]
        kind = line[:1]
        if kind == " " or line == "":
            old_seen += 1
            new_seen += 1
        elif kind == "-":
            old_seen += 1
        elif kind == "+":
            new_seen += 1
        elif not line.startswith("\\"):
            return None
        body.append(line)
        i += 1
    if old_seen != old_count or new_seen != new_count:
        return None
    while i < len(lines) and lines[i].startswith("\\"):
        body.append(lines[i])
        i += 1
    # More hunk-looking lines before the next header: the counts were wrong.
    if i < len(lines) and lines[i][:1] in ("+", "-", " ") and not _next_file(lines, i):
        return None
    return body, i


def _header_path(raw: str) -> str:
    """The path of a `---`/`+++` header: a timestamp after a tab removed, quotes undone."""
    name = raw.split("\t", 1)[0].rstrip()
    return _unquote(name)


def _unquote(name: str) -> str:
    """git's C-style quoted path (`"a/sp ace\\tx"`) as plain text."""
    if len(name) >= 2 and name[0] == '"' and name[-1] == '"':
        body = name[1:-1]
        raw = body.encode("latin-1", "backslashreplace").decode("unicode_escape")
        try:
            return raw.encode("latin-1").decode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            return raw
    return name


def _prefixed(old: str, new: str) -> bool:
    """Whether the names carry git's `a/` and `b/` prefixes (a /dev/null side has none)."""
    return (old == DEV_NULL or old.startswith("a/")) and (new == DEV_NULL or new.startswith("b/"))


def _strip_prefix(name: str, prefix: str) -> str:
    return name[len(prefix) :] if name.startswith(prefix) else name
