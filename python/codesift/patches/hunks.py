"""Where a patch's hunks apply in a file's text, and what they write there, as the `Change`s
`edit_many` commits.

A hunk's old lines (context and removed lines) are looked up as whole lines, with Codex's
`seek_sequence` levels: ``exact``, then ``trailing_whitespace`` (lines compared with trailing
whitespace removed), then ``trimmed`` (surrounding whitespace removed), then ``punctuation``
(trimmed, and typographic dashes, quotes and spaces read as ASCII). The first level that finds
the lines decides; several places at that level are resolved only by what the patch itself
says, in this order:

1. `@@ anchor` lines (apply_patch): each anchor is the first line equal to it (by the same
   levels; failing that, the first line that holds it) after the previous hunk or
   anchor; the old lines must follow the last anchor, the
   nearest place after it is taken, and no other line equal to the anchor may come between
   (otherwise the anchor does not govern that place and the hunk is refused);
2. `*** End of File`: the place that ends the file;
3. a unified diff's line number: the place that starts exactly there (shifted by how far the
   previous hunk was from its own line number);
4. the order of hunks: the only place after the previous hunk.

Otherwise the hunk fails with every candidate's line number. All hunks are planned against
the original text and must not overlap.

An exact match writes the new lines as the patch has them. A fuzzy match is applied as a
change, exactly as `edit_many`'s fuzzy strategies do (`codesift.edits.plan`): lines that old
and new share keep the file's bytes; added lines are re-indented from the patch's indentation
to the file's. New lines get the line endings of the region they replace; the file's final newline
(or its absence) is kept unless a unified diff's `\\ No newline at end of file` says otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from ..edits.plan import Change, apply_line_change, check_disjoint, most_similar
from ..edits.text import Line, dominant_newline, newline_of, split_lines
from ..errors import MatchError
from ..text import linediff
from .model import Hunk

MAX_LISTED = 10

PUNCTUATION = str.maketrans(
    {
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
        **dict.fromkeys(
            "\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000", " "
        ),
    }
)


def _punctuation(line: str) -> str:
    return line.strip().translate(PUNCTUATION)


LEVELS: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("exact", lambda line: line),
    ("trailing_whitespace", str.rstrip),
    ("trimmed", str.strip),
    ("punctuation", _punctuation),
)


@dataclass(frozen=True)
class HunkPlan:
    """The changes of a file's hunks, and the loosest level any of them needed."""

    changes: list[Change]
    strategy: str


class _Text:
    """A file's text split into lines once, with a cache of each level's keys."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines: list[Line] = split_lines(text)
        self.contents = [text[ln.start : ln.content_end] for ln in self.lines]
        #: Each line without its "\n" only (a "\r" before it kept).
        self.raw = [text[ln.start : ln.end].removesuffix("\n") for ln in self.lines]
        self._keys: dict[str, list[str]] = {}

    def keys(self, level: str, key: Callable[[str], str]) -> list[str]:
        if level not in self._keys:
            self._keys[level] = [key(line) for line in self.contents]
        return self._keys[level]


def plan_hunks(text: str, hunks: Sequence[Hunk], where: str) -> HunkPlan:
    """The changes that apply `hunks` to `text`. `where` names the file in messages
    (`"src/a.py"`). Raises `MatchError` for a hunk that does not apply to exactly one place."""
    file = _Text(text)
    changes: list[Change] = []
    levels: list[str] = []
    cursor = 0  # the line after the previous hunk
    shift = 0  # how far the previous hunk was found from its line number
    for number, hunk in enumerate(hunks, start=1):
        label = f"hunk {number}" + (f" (patch line {hunk.patch_line})" if hunk.patch_line else "")
        try:
            start_at, same_anchor = _anchors(file, hunk, cursor)
            old, new = list(hunk.old_lines), list(hunk.new_lines)
            raw = hunk.raw
            if not old:
                index = _insertion_index(file, hunk, start_at)
                if raw is not None and not raw.old_lines:
                    changes.append(_insertion(file, index, list(raw.new_lines), raw, "\n"))
                else:
                    changes.append(_insertion(file, index, new, hunk))
                cursor = index
                continue
            if raw is not None and raw.old_lines:
                first = _locate_raw(file, raw, start_at, cursor, shift, same_anchor)
                if first is not None:
                    raw_old, raw_new = list(raw.old_lines), list(raw.new_lines)
                    changes.append(_replace(file, first, raw_old, raw_new, "exact", raw, "\n"))
                    levels.append("exact")
                    cursor = first + len(raw_old)
                    if raw.old_start is not None:
                        shift = first - (raw.old_start - 1)
                    continue
            found = _locate(file, old, hunk, start_at, cursor, shift, same_anchor)
            # Blank context lines that end a hunk are often separators, not file lines.
            while found is None and old and new and old[-1].strip() == "" and new[-1].strip() == "":
                old.pop()
                new.pop()
                # A `\\ No newline` marker spoke of the dropped line, not of the file's.
                hunk = replace(hunk, old_eol=None, new_eol=None)
                if not old:
                    break
                found = _locate(file, old, hunk, start_at, cursor, shift, same_anchor)
            if found is None:
                raise MatchError(_not_found(file, list(hunk.old_lines)))
            first, level = found
            changes.append(_replace(file, first, old, new, level, hunk))
            levels.append(level)
            cursor = first + len(old)
            if hunk.old_start is not None:
                shift = first - (hunk.old_start - 1)
        except MatchError as exc:
            raise MatchError(f"{label} of {where}: {exc}") from None
    try:
        check_disjoint(changes, text)
    except Exception as exc:
        raise MatchError(
            f"hunks of {where} overlap: {exc}. Merge the overlapping hunks into one"
        ) from None
    loosest = max((LEVEL_ORDER[level] for level in levels), default=0)
    return HunkPlan(changes, LEVEL_NAMES[loosest])


LEVEL_NAMES = [name for name, _ in LEVELS]
LEVEL_ORDER = {name: i for i, name in enumerate(LEVEL_NAMES)}


def _anchors(file: _Text, hunk: Hunk, cursor: int) -> tuple[int, Callable[[str], bool]]:
    """The line index after the hunk's last anchor (or `cursor` without anchors), and how the
    last anchor was recognised (to tell whether another line is the same anchor)."""
    position = cursor
    same: Callable[[str], bool] = lambda line: False  # noqa: E731
    for anchor in hunk.anchors:
        found = _seek_line(file, anchor, position)
        if found is None:
            where = f"after line {position}" if position else "in the file"
            raise MatchError(
                f"the @@ line {anchor!r} was not found {where}. Use a line that is in the file "
                "(a class or function header), or re-read the file and regenerate the patch"
            )
        index, same = found
        position = index + 1
    return position, same


def _seek_line(file: _Text, wanted: str, start: int) -> tuple[int, Callable[[str], bool]] | None:
    """The first line from `start` equal to the anchor `wanted` (by the levels), or else the
    first that holds it (`@@ class A` for `class A(Base):`, `@@ Usage` for `## Usage`), with the
    test that recognised it."""
    for _, key in LEVELS:
        target = key(wanted)

        def equal(line: str, key: Callable[[str], str] = key, target: str = target) -> bool:
            return key(line) == target

        for index in range(start, len(file.contents)):
            if equal(file.contents[index]):
                return index, equal
    folded = _punctuation(wanted)

    def holds(line: str) -> bool:
        return bool(folded) and folded in _punctuation(line)

    for index in range(start, len(file.contents)):
        if holds(file.contents[index]):
            return index, holds
    return None


def _locate(
    file: _Text,
    old: list[str],
    hunk: Hunk,
    start_at: int,
    cursor: int,
    shift: int,
    same_anchor: Callable[[str], bool],
) -> tuple[int, str] | None:
    """(first line index, level) of the one place the old lines apply, None if nowhere."""
    for level, key in LEVELS:
        keys = file.keys(level, key)
        wanted = [key(line) for line in old]
        candidates = _windows(keys, wanted)
        if hunk.anchors:
            candidates = [c for c in candidates if c >= start_at]
        if not candidates:
            continue
        choice = _choose(file, candidates, old, hunk, start_at, cursor, shift, level, same_anchor)
        return choice, level
    return None


def _locate_raw(
    file: _Text,
    raw: Hunk,
    start_at: int,
    cursor: int,
    shift: int,
    same_anchor: Callable[[str], bool],
) -> int | None:
    """The first line index of the one place a hunk's lines, carriage returns included, are
    the file's lines byte for byte; None if nowhere."""
    candidates = _windows(file.raw, list(raw.old_lines))
    if raw.anchors:
        candidates = [c for c in candidates if c >= start_at]
    if not candidates:
        return None
    old = list(raw.old_lines)
    return _choose(file, candidates, old, raw, start_at, cursor, shift, "exact", same_anchor)


def _windows(keys: list[str], wanted: list[str]) -> list[int]:
    m = len(wanted)
    first = wanted[0]
    return [i for i in range(len(keys) - m + 1) if keys[i] == first and keys[i : i + m] == wanted]


def _choose(
    file: _Text,
    candidates: list[int],
    old: list[str],
    hunk: Hunk,
    start_at: int,
    cursor: int,
    shift: int,
    level: str,
    same_anchor: Callable[[str], bool],
) -> int:
    if hunk.anchors:
        nearest = candidates[0]
        between = [i for i in range(start_at, nearest) if same_anchor(file.contents[i])]
        if between:
            raise MatchError(
                f"the @@ line {hunk.anchors[-1]!r} occurs again at line {between[0] + 1} before "
                f"the hunk's lines (found at line {nearest + 1}); the anchor does not say which "
                "block is meant. Use a more specific @@ line or more context lines"
            )
        return nearest
    if len(candidates) == 1:
        return candidates[0]
    if hunk.at_eof and candidates[-1] == len(file.lines) - len(old):
        return candidates[-1]
    if hunk.old_start is not None:
        expected = hunk.old_start - 1 + shift
        if expected in candidates:
            return expected
        if hunk.old_start - 1 in candidates:
            return hunk.old_start - 1
    after = [c for c in candidates if c >= cursor]
    if cursor > 0 and len(after) == 1:
        return after[0]
    shown = ", ".join(str(c + 1) for c in candidates[:MAX_LISTED])
    more = f" and {len(candidates) - MAX_LISTED} more" if len(candidates) > MAX_LISTED else ""
    how = "" if level == "exact" else f" (compared {level.replace('_', ' ')})"
    # The marker would have chosen the place that ends the file: none of them does.
    eof = ", none of them at the end of the file its '*** End of File' line names" * hunk.at_eof
    raise MatchError(
        f"its context and removed lines match {len(candidates)} places{how}, starting at lines "
        f"{shown}{more}{eof}. Add more context lines (or an @@ line naming the enclosing "
        "function) so that the hunk matches one place"
    )


def _insertion_index(file: _Text, hunk: Hunk, start_at: int) -> int:
    """Where a hunk without old lines inserts: after its anchor, at a unified diff's line,
    or at the end of the file."""
    if hunk.old_start is not None:
        if hunk.old_start > len(file.lines):
            raise MatchError(
                f"it inserts after line {hunk.old_start}, but the file has "
                f"{len(file.lines)} lines; re-read the file and regenerate the diff"
            )
        return hunk.old_start
    if hunk.anchors:
        return start_at
    return len(file.lines)


def _newline(file: _Text, first: int, last: int) -> str:
    region = file.text[file.lines[first].start : file.lines[last].end] if file.lines else ""
    return newline_of(region, dominant_newline(file.text))


def _insertion(
    file: _Text, index: int, new: list[str], hunk: Hunk, newline: str | None = None
) -> Change:
    """`newline` is the line ending to write after each new line (the region's by default)."""
    text = file.text
    if not file.lines:
        newline = "\n"
        body = "".join(line + newline for line in new)
        if hunk.new_eol is False:
            body = body.removesuffix(newline)
        return Change(0, 0, body)
    anchor = min(index, len(file.lines) - 1)
    newline = newline or _newline(file, anchor, anchor)
    if index < len(file.lines):
        position = file.lines[index].start
        return Change(position, position, "".join(line + newline for line in new))
    last = file.lines[-1]
    if last.end == last.content_end:
        # The file does not end with a newline: it still does not (unless the diff says).
        body = newline + newline.join(new)
        if hunk.new_eol is True:
            body += newline
        return Change(len(text), len(text), body)
    body = "".join(line + newline for line in new)
    if hunk.new_eol is False:
        body = body.removesuffix(newline)
    return Change(len(text), len(text), body)


def _replace(
    file: _Text,
    first: int,
    old: list[str],
    new: list[str],
    level: str,
    hunk: Hunk,
    newline: str | None = None,
) -> Change:
    """`newline` is the line ending to write after each new line (the region's by default)."""
    last = first + len(old) - 1
    lines = file.lines
    newline = newline or _newline(file, first, last)
    at_end = last == len(lines) - 1
    had_newline = lines[last].end != lines[last].content_end
    if level == "exact":
        replacement = _exact_replacement(file, first, old, new, newline)
    else:
        aligned = list(range(first, last + 1))
        rendered = apply_line_change(file.text, lines, aligned, old, new)
        if rendered is None:
            raise MatchError(
                f"its lines match lines {first + 1}-{last + 1} only when whitespace is ignored, "
                "and their indentation cannot be mapped onto the file's consistently; re-read "
                "the file and copy its lines exactly"
            )
        replacement = rendered
    if at_end and replacement:
        keep_newline = had_newline if hunk.new_eol is None else hunk.new_eol
        if keep_newline and not replacement.endswith("\n"):
            replacement += newline
        elif not keep_newline and replacement.endswith("\n"):
            # One line ending only: a last new line that is empty keeps the "\n" before it.
            ending = newline if replacement.endswith(newline) else "\n"
            replacement = replacement.removesuffix(ending)
    return Change(lines[first].start, lines[last].end, replacement)


def _exact_replacement(
    file: _Text, first: int, old: list[str], new: list[str], newline: str
) -> str:
    """The new lines as the patch has them; lines shared with the old ones keep the file's
    bytes (their own line endings). Every line ends with a newline here; `_replace` takes the
    last one away again where the file has none."""
    out: list[str] = []
    for tag, i1, i2, j1, j2 in linediff.opcodes(old, new):
        if tag == "equal":
            for i in range(i1, i2):
                line = file.lines[first + i]
                kept = file.text[line.start : line.end]
                out.append(kept if line.end != line.content_end else kept + newline)
        else:
            out.extend(line + newline for line in new[j1:j2])
    return "".join(out)


def _not_found(file: _Text, old: list[str]) -> str:
    message = "its context and removed lines were not found in the file"
    best = most_similar(file.text, file.lines, old)
    if best is None:
        return message + "; re-read the file and regenerate the patch against its current text"
    start, end = best
    numbered = "\n".join(f"{i + 1:6}\t{file.contents[i]}" for i in range(start, end))
    return (
        f"{message}. The most similar lines are {start + 1}-{end}:\n{numbered}\n"
        "Re-read the file and regenerate the patch against its current text"
    )
