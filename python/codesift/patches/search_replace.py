"""SEARCH/REPLACE blocks, as Cline's `replace_in_file` and Aider write them, for one file:

    ------- SEARCH                  <<<<<<< SEARCH
    exact lines to find             exact lines to find
    =======                         =======
    lines to put there              lines to put there
    +++++++ REPLACE                 >>>>>>> REPLACE

Markers are matched as Cline does (src/core/assistant-message/diff.ts): three or more `-`,
`<`, `=`, `+` or `>`, the word, nothing else on the line (trailing whitespace is tolerated).
Each block's SEARCH and REPLACE sections are whole lines: every line keeps its newline, as in
Cline. Lines outside blocks (Aider's file name and ``` fences, prose) are ignored. A block that
is not closed is an error, never half applied.
"""

from __future__ import annotations

import re

from ..errors import PatchFormatError
from .model import FileOp, ParsedPatch, Replacement

SEARCH_START = re.compile(r"^(?:-{3,}|<{3,}) ?SEARCH>?\s*$")
DIVIDER = re.compile(r"^={3,}\s*$")
REPLACE_END = re.compile(r"^(?:\+{3,}|>{3,}) ?REPLACE<?\s*$")


def looks_like_search_replace(text: str) -> bool:
    return any(SEARCH_START.match(line) for line in text.split("\n"))


def parse_search_replace(text: str, path: str) -> ParsedPatch:
    """The blocks of `text` as replacements in the file `path`."""
    lines = text.split("\n")
    blocks: list[Replacement] = []
    i = 0
    while i < len(lines):
        if not SEARCH_START.match(lines[i].removesuffix("\r")):
            if DIVIDER.match(lines[i].removesuffix("\r")) or REPLACE_END.match(
                lines[i].removesuffix("\r")
            ):
                raise PatchFormatError(
                    f"diff line {i + 1}: {lines[i].strip()!r} outside a block; every block "
                    "starts with '------- SEARCH'"
                )
            i += 1
            continue
        start = i
        search, i = _section(lines, i + 1, DIVIDER, start, "=======")
        replace, i = _section(lines, i + 1, REPLACE_END, start, "+++++++ REPLACE")
        blocks.append(Replacement(search, replace, patch_line=start + 1))
        i += 1
    if not blocks:
        raise PatchFormatError(
            "no SEARCH/REPLACE block found; write each change as '------- SEARCH', the exact "
            "lines to find, '=======', the new lines, '+++++++ REPLACE'"
        )
    update = FileOp("update", path, replacements=tuple(blocks), format="search_replace")
    return ParsedPatch("search_replace", (update,))


def _section(
    lines: list[str], i: int, end: re.Pattern[str], start: int, expected: str
) -> tuple[str, int]:
    """The text of the lines from `i` up to the line matching `end`, and that line's index."""
    body: list[str] = []
    while i < len(lines):
        line = lines[i].removesuffix("\r")
        if end.match(line):
            return "".join(part + "\n" for part in body), i
        if SEARCH_START.match(line) or (end is not DIVIDER and DIVIDER.match(line)):
            break
        body.append(lines[i])
        i += 1
    raise PatchFormatError(
        f"diff line {start + 1}: the block that starts there has no {expected!r} line "
        f"{'after its SEARCH section' if end is DIVIDER else 'after its REPLACE section'}; "
        "close every block (was the diff cut short?)"
    )
