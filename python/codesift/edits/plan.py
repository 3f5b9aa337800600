"""Edit planning: where an `old -> new` edit applies in a file's text, and what it writes.

Everything here works on decoded text (`surrogateescape` keeps undecodable bytes exact) and
does no I/O. Strategies are tried in order, each requiring a unique match unless
`replace_all`; the first one that finds anything decides (several matches stop with a
`MatchError`, never falling through to a fuzzier strategy):

1. ``exact``: `old` as written.
2. ``line_endings``: `old` with `\\n` / `\\r\\n` swapped to the file's endings.
3. ``trimmed_lines`` (fuzzy): whole lines compared with surrounding whitespace ignored.
4. ``blank_lines`` (fuzzy): as 3, ignoring blank lines that `old` has and the file lacks
   or the other way round.
5. ``escapes+...`` (fuzzy): `old` and `new` over-escaped (`\\n`, `\\t`, `\\"` written out)
   are unescaped and 1-4 tried again.

A fuzzy match is applied as a change, not a paste: `old -> new` is diffed line by line; lines
the two share keep the file's own bytes, and only inserted or changed lines are written,
re-indented from `old`'s indentation to the file's (a uniform shift, or tabs for spaces) and
with trailing whitespace trimmed. `new` always gets the line endings of the region it
replaces.
"""

from __future__ import annotations

import difflib
import heapq
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..arguments import check_writable_text
from ..errors import (
    CodesiftError,
    Concept,
    Hint,
    InvalidArgumentError,
    MatchError,
    hinted,
    problem_of,
    reworded,
)
from ..text import linediff
from .text import (
    Line,
    convert_newlines,
    dominant_newline,
    line_number_at,
    newline_near,
    newline_of,
    split_lines,
)

if TYPE_CHECKING:
    from ..patches.model import Replacement

IndentMapper = Callable[[str], str | None]

MAX_LISTED_MATCHES = 10
ALIGNMENT_ONLY = 1 << 30  # a "unit" so wide that spaces never add up to a level
SIMILAR_CONTEXT_LINES = 2


@dataclass(frozen=True)
class Change:
    """Replace `text[start:end]` by `replacement`."""

    start: int
    end: int
    replacement: str


@dataclass(frozen=True)
class Plan:
    changes: list[Change]
    strategy: str


def indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def find_overlapping(text: str, needle: str) -> list[int]:
    """Every position of `needle` in `text`, except those that would split a `\r\n` pair
    (a match must not start on its `\n` or end on its `\r`)."""
    found = []
    pos = text.find(needle)
    while pos >= 0:
        end = pos + len(needle)
        splits_start = needle[0] == "\n" and pos > 0 and text[pos - 1] == "\r"
        splits_end = needle[-1] == "\r" and text[end : end + 1] == "\n"
        if not (splits_start or splits_end):
            found.append(pos)
        pos = text.find(needle, pos + 1)
    return found


def non_overlapping(positions: Sequence[int], length: int) -> list[int]:
    kept: list[int] = []
    for pos in positions:
        if not kept or pos >= kept[-1] + length:
            kept.append(pos)
    return kept


# -- planning ------------------------------------------------------------------------------


def plan_edit(
    text: str, old: str, new: str, *, replace_all: bool = False, fuzzy: bool = True
) -> Plan:
    """Where and how `old -> new` applies to `text`. Raises `MatchError` when it does not
    apply to exactly one place (or to any, with `replace_all`)."""
    if not isinstance(old, str) or not isinstance(new, str):
        raise InvalidArgumentError("old_string and new_string must be strings")
    if old == "":
        raise hinted(
            InvalidArgumentError,
            "old_string is empty; give the exact text to replace",
            Hint("(use {option} to create or overwrite a whole file)", (Concept.WRITE,), "", " "),
        )
    if old == new:
        raise InvalidArgumentError("old_string and new_string are identical; nothing to change")
    check_writable_text("new_string", new)
    attempts = _attempts(text, old, new, replace_all=replace_all, fuzzy=fuzzy)
    plan = _first_match(attempts)
    if plan is None and fuzzy and _looks_escaped(old):
        unescaped_old, unescaped_new = _unescape(old), _unescape(new)
        if unescaped_old != old:
            inner = _attempts(text, unescaped_old, unescaped_new, replace_all=replace_all)
            plan = _first_match(inner)
            if plan is not None:
                plan = Plan(plan.changes, f"escapes+{plan.strategy}")
    if plan is None:
        raise _no_match(text, old)
    return plan


def _first_match(attempts) -> Plan | None:
    for attempt in attempts:
        plan = attempt()
        if plan is not None:
            return plan
    return None


def _attempts(text: str, old: str, new: str, *, replace_all: bool, fuzzy: bool = True):
    default_newline = dominant_newline(text)
    strategies = [
        lambda: _exact(text, old, new, replace_all, default_newline),
        lambda: _line_endings(text, old, new, replace_all, default_newline),
    ]
    if fuzzy:
        strategies.append(lambda: _fuzzy_lines(text, old, new, replace_all, blank_lines=False))
        strategies.append(lambda: _fuzzy_lines(text, old, new, replace_all, blank_lines=True))
    return strategies


def _exact(text, old, new, replace_all, default_newline, strategy="exact") -> Plan | None:
    positions = [p for p in find_overlapping(text, old) if not _inside_indentation(text, p, old)]
    if not positions:
        return None
    if len(positions) > 1 and not replace_all:
        raise _several(text, [(p, p + len(old)) for p in positions], strategy)
    if replace_all:
        positions = non_overlapping(positions, len(old))
    changes = []
    for pos in positions:
        _check_continuation_indent(text, pos, old, new)
        region = text[pos : pos + len(old)]
        newline = newline_of(region, newline_near(text, pos, default_newline))
        changes.append(Change(pos, pos + len(old), convert_newlines(new, newline)))
    return Plan(changes, strategy)


def _line_prefix(text: str, pos: int) -> str:
    return text[text.rfind("\n", 0, pos) + 1 : pos]


def _inside_indentation(text: str, pos: int, old: str) -> bool:
    """`old` starts with whitespace and would match from inside a line's indentation (as
    `"  x"` inside `"    x"`): never what is meant, so not an exact match."""
    if not old[:1].isspace() or old[0] == "\n":
        return False
    prefix = _line_prefix(text, pos)
    return prefix != "" and prefix.strip(" \t") == ""


def _check_continuation_indent(text: str, pos: int, old: str, new: str) -> None:
    """A one-line `old` that starts after a line's indentation, with a `new` of several
    lines, says nothing of where those lines go: if they are indented less than the line
    they start on, refuse rather than guess."""
    if "\n" in old.rstrip("\r\n") or "\n" not in new.rstrip("\r\n"):
        return
    prefix = _line_prefix(text, pos)
    anchor = indent_of(prefix)
    if not anchor:
        return
    for line in new.replace("\r\n", "\n").split("\n")[1:]:
        if line.strip() and not line.startswith(anchor):
            raise MatchError(
                f"old_string is part of line {line_number_at(text, pos)}, which is indented "
                f"by {anchor!r}, and new_string has lines indented less than that. Put whole "
                "lines, with their indentation, in old_string and new_string."
            )


def _line_endings(text, old, new, replace_all, default_newline) -> Plan | None:
    if "\n" not in old:
        return None
    lf = old.replace("\r\n", "\n")
    variants = {lf, lf.replace("\n", "\r\n")} - {old}
    spans: list[tuple[int, int]] = []
    for variant in variants:
        spans.extend((p, p + len(variant)) for p in find_overlapping(text, variant))
    if not spans:
        return None
    spans.sort()
    if len(spans) > 1 and not replace_all:
        raise _several(text, spans, "line_endings")
    kept: list[tuple[int, int]] = []
    for start, end in spans:
        if not kept or start >= kept[-1][1]:
            kept.append((start, end))
    changes = [
        Change(s, e, convert_newlines(new, newline_of(text[s:e], default_newline))) for s, e in kept
    ]
    return Plan(changes, "line_endings")


# -- fuzzy line matching -----------------------------------------------------------------


def _old_new_lines(
    old: str, new: str, *, drop_blank_margins: bool
) -> tuple[list[str], list[str]] | None:
    """`old` and `new` as lines for line matching, or None when the change cannot be
    expressed on whole lines.

    A newline that `old` starts or ends with stands for the end of the line before or after,
    so it is peeled off, but only when `new` has it too (otherwise the edit joins lines); one
    that only `new` has is a blank line it adds.
    With `drop_blank_margins`, the blank lines `old` starts or ends with are dropped as well,
    and only if `new` keeps the same blank lines: a change there could not be placed.
    """
    old, new = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
    # A newline only `new` starts (or ends) with is a blank line it adds there; one only
    # `old` has would join two lines, which whole lines cannot express.
    if old.startswith("\n") and not new.startswith("\n"):
        return None
    if old.startswith("\n"):
        old, new = old[1:], new[1:]
    # Checked after the first peel: in "\n" one newline is both the first and the last.
    if old.endswith("\n") and not new.endswith("\n"):
        return None
    if old.endswith("\n"):
        old, new = old[:-1], new[:-1]
    old_lines, new_lines = old.split("\n"), new.split("\n")
    if not any(line.strip() for line in old_lines):
        return None
    if not drop_blank_margins:
        return old_lines, new_lines
    lead = next(i for i, line in enumerate(old_lines) if line.strip())
    trail = next(i for i, line in enumerate(reversed(old_lines)) if line.strip())
    if len(new_lines) < lead + trail:
        return None
    if any(line.strip() for line in new_lines[:lead]) or any(
        line.strip() for line in new_lines[len(new_lines) - trail :]
    ):
        return None
    return old_lines[lead : len(old_lines) - trail], new_lines[lead : len(new_lines) - trail]


def _longest_blank_run(text: str) -> int:
    """The most consecutive blank lines in `text`."""
    longest = run = 0
    lines = text.replace("\r\n", "\n").split("\n")
    if lines[-1] == "":  # the piece after a final newline is no line
        lines.pop()
    for line in lines:
        run = run + 1 if not line.strip() else 0
        longest = max(longest, run)
    return longest


def _fuzzy_lines(text, old, new, replace_all, *, blank_lines: bool) -> Plan | None:
    split = _old_new_lines(old, new, drop_blank_margins=blank_lines)
    dropped_blanks = 0
    if split is None and blank_lines and not new.startswith(("\n", "\r\n")):
        # Blank lines `old` starts with and `new` lacks (a model adds them spuriously, as
        # Aider notes) are not looked for: the lines after them are. Only when `new` has no
        # such run of blank lines anywhere (else they may be what new text goes before:
        # `old` = blanks + x, `new` = y + blanks + x) and the file has no such blank lines
        # before the match (else `old` may mean to delete them).
        lead = old.lstrip("\r\n")
        blanks = old[: len(old) - len(lead)].count("\n")
        if lead != old and blanks and _longest_blank_run(new) < blanks:
            split = _old_new_lines(lead, new, drop_blank_margins=True)
            dropped_blanks = blanks
    if split is None:
        return None
    old_lines, new_lines = split
    strategy = "blank_lines" if blank_lines else "trimmed_lines"
    lines = split_lines(text)
    stripped = [text[ln.start : ln.content_end].strip() for ln in lines]
    if blank_lines:
        old_key = [k for k in (s.strip() for s in old_lines) if k]
        if len(old_key) < 2:
            return None
        regions = _match_skeleton(stripped, old_key)
    else:
        old_key = [s.strip() for s in old_lines]
        regions = _match_consecutive(stripped, old_key)
    if not regions:
        return None
    if dropped_blanks and any(
        r[0] >= dropped_blanks and not any(stripped[r[0] - dropped_blanks : r[0]]) for r in regions
    ):
        # The file does have those blank lines there: `old` may mean to remove them, or
        # not; which is a guess, so the edit is left unmatched.
        return None
    spans = [(lines[r[0]].start, lines[r[-1]].end) for r in regions]
    if len(regions) > 1 and not replace_all:
        raise _several(text, spans, strategy)
    changes = []
    last_end = -1
    for aligned in regions:
        region_start = lines[aligned[0]].start
        if region_start < last_end:
            continue
        replacement = apply_line_change(text, lines, aligned, old_lines, new_lines)
        if replacement is None:
            raise hinted(
                MatchError,
                f"old_string matches lines {aligned[0] + 1}-{aligned[-1] + 1} only when "
                "whitespace is ignored, and its indentation cannot be mapped onto the file's "
                "consistently.",
                Hint(
                    "Copy the exact text from the file (read it with {option}).",
                    (Concept.READ,),
                    "Copy the exact text from the file.",
                    " ",
                ),
                Hint("Or edit by {option}.", (Concept.HIT_ID,), "", " "),
            )
        last_end = lines[aligned[-1]].end
        changes.append(Change(region_start, last_end, replacement))
    return Plan(changes, strategy)


def _match_consecutive(stripped: list[str], key: list[str]) -> list[list[int]]:
    """Windows of file lines equal to `key` line by line; each as its list of indices."""
    m = len(key)
    found = []
    for i in range(len(stripped) - m + 1):
        if stripped[i] == key[0] and stripped[i : i + m] == key:
            found.append(list(range(i, i + m)))
    return found


def _match_skeleton(stripped: list[str], key: list[str]) -> list[list[int]]:
    """Runs of non-blank file lines equal to `key` (blank lines skipped on both sides); each
    as the indices of the file lines aligned with `key`."""
    nonblank = [i for i, s in enumerate(stripped) if s]
    skeleton = [stripped[i] for i in nonblank]
    return [nonblank[i : i + len(key)] for i in _window_starts(skeleton, key)]


def _window_starts(seq: list[str], key: list[str]) -> list[int]:
    m = len(key)
    return [i for i in range(len(seq) - m + 1) if seq[i] == key[0] and seq[i : i + m] == key]


def apply_line_change(
    text: str,
    lines: list[Line],
    aligned: list[int],
    old_lines: list[str],
    new_lines: list[str],
) -> str | None:
    """The replacement for the file lines `aligned[0]..aligned[-1]`: the change from
    `old_lines` to `new_lines` applied to them. `aligned` maps each non-blank (or, without
    blank-line tolerance, each) old line to its file line; file lines in the region that no
    old line maps to are blank lines the file has and `old` lacks."""
    first, last = aligned[0], aligned[-1]
    old_to_file: dict[int, int] = {}
    if len(aligned) == len(old_lines):
        old_to_file = dict(enumerate(aligned))
    else:
        k = 0
        previous = first - 1  # the file line the last old line was mapped to
        for i, line in enumerate(old_lines):
            if line.strip():
                old_to_file[i] = aligned[k]
                previous = aligned[k]
                k += 1
            elif previous + 1 < (aligned[k] if k < len(aligned) else last + 1):
                # A blank line `old` has where the file has one too (the file lines between
                # two aligned ones are blank): the same line, so that what `new` puts after
                # it goes after it in the file too.
                previous += 1
                old_to_file[i] = previous
    file_line = [text[lines[i].start : lines[i].content_end] for i in range(first, last + 1)]
    pairs = [
        (indent_of(old_lines[i]), indent_of(file_line[f - first]))
        for i, f in old_to_file.items()
        if old_lines[i].strip()
    ]
    mapper = indent_mapper(pairs, old_lines + new_lines, file_line, text)
    if mapper is None:
        return None
    region_text = text[lines[first].start : lines[last].end]
    newline = newline_of(region_text, dominant_newline(text))
    ends_without_newline = lines[last].end == lines[last].content_end

    out: list[str] = []
    emitted = first - 1  # last file line written or dropped

    def whole(f: int) -> str:
        """File line `f` with its line ending; the last line of a file without a final newline
        gets one here (taken away again at the end), so that lines added after it stay lines."""
        kept = text[lines[f].start : lines[f].end]
        return kept if lines[f].end != lines[f].content_end else kept + newline

    def flush_unaligned(upto: int) -> None:
        """Writes the unaligned (blank) file lines before file line `upto`."""
        nonlocal emitted
        for f in range(emitted + 1, upto):
            out.append(whole(f))
        emitted = max(emitted, upto - 1)

    def render(line: str) -> str | None:
        body = line.strip()
        if not body:
            return newline
        indent = mapper(indent_of(line))
        if indent is None:
            return None
        return indent + line.lstrip(" \t").rstrip() + newline

    old_cmp = [s.rstrip() for s in old_lines]
    new_cmp = [s.rstrip() for s in new_lines]
    opcodes = linediff.opcodes(old_cmp, new_cmp)
    for tag, i1, i2, j1, j2 in opcodes:
        mapped = [old_to_file[i] for i in range(i1, i2) if i in old_to_file]
        if tag == "equal":
            for f in mapped:
                flush_unaligned(f)
                out.append(whole(f))
                emitted = f
            continue
        if tag == "delete":
            if mapped:
                flush_unaligned(mapped[0])
                emitted = mapped[-1]
            continue
        # replace or insert: blank file lines strictly inside a replaced range have no
        # place in `new` unless old and new lines pair up one to one.
        if mapped and tag == "replace":
            inner_blanks = (mapped[-1] - mapped[0] + 1) - len(mapped)
            if inner_blanks and (i2 - i1) != (j2 - j1):
                return None
            if (i2 - i1) == (j2 - j1) and len(mapped) == i2 - i1:
                for f, j in zip(mapped, range(j1, j2), strict=True):
                    flush_unaligned(f)
                    rendered = render(new_lines[j])
                    if rendered is None:
                        return None
                    out.append(rendered)
                    emitted = f
                continue
            flush_unaligned(mapped[0])
            emitted = mapped[-1]
        for j in range(j1, j2):
            rendered = render(new_lines[j])
            if rendered is None:
                return None
            out.append(rendered)
    flush_unaligned(last + 1)
    result = "".join(out)
    if ends_without_newline and result.endswith(newline):
        result = result[: -len(newline)]
    return result


# -- indentation ---------------------------------------------------------------------------


def indent_mapper(
    pairs: list[tuple[str, str]],
    llm_lines: list[str],
    file_region: list[str],
    text: str,
) -> IndentMapper | None:
    """A function from an indentation written in `old`/`new` to the file's, fitted on the
    `(old indent, file indent)` pairs of matched lines; None when no consistent one exists."""
    if all(o == f for o, f in pairs):
        return lambda x: x
    shifted = _prefix_mapper(pairs)
    if shifted is not None:
        return shifted
    return _level_mapper(pairs, llm_lines, text)


def _prefix_mapper(pairs: list[tuple[str, str]]) -> IndentMapper | None:
    """`old` indented by a uniform shift of the file's indentation, in the same style."""
    base_old, base_file = min(pairs, key=lambda p: (len(p[0].expandtabs(4)), len(p[0])))
    for o, f in pairs:
        if not o.startswith(base_old) or f != base_file + o[len(base_old) :]:
            return None

    def mapper(indent: str) -> str | None:
        if indent.startswith(base_old):
            return base_file + indent[len(base_old) :]
        cut = base_old[len(indent) :] if base_old.startswith(indent) else None
        if cut is not None and base_file.endswith(cut):
            return base_file[: len(base_file) - len(cut)]
        return None

    return mapper


def _unit(lines: list[str], default: int) -> int:
    """The indentation step in spaces: the most common increase of indentation from one
    non-blank line to the next (aligned continuation lines make rarer, odd steps)."""
    steps: Counter[int] = Counter()
    previous = 0
    for line in lines:
        if not line.strip():
            continue
        indent = indent_of(line)
        if "\t" in indent:
            continue
        if len(indent) > previous:
            steps[len(indent) - previous] += 1
        previous = len(indent)
    for step, _ in steps.most_common():
        if step in (2, 3, 4, 8):
            return step
    return default


def _levels(indent: str, unit: int) -> tuple[int, int] | None:
    """(levels, extra spaces) of an indentation of tabs then spaces."""
    tabs = len(indent) - len(indent.lstrip("\t"))
    rest = indent[tabs:]
    if "\t" in rest:
        return None
    return tabs + len(rest) // unit, len(rest) % unit


def _level_mapper(
    pairs: list[tuple[str, str]], llm_lines: list[str], text: str
) -> IndentMapper | None:
    """`old` indented with tabs where the file has spaces, or the other way round, possibly
    shifted by whole levels."""
    file_lines = [text[ln.start : ln.content_end] for ln in split_lines(text)]
    file_indents = [indent_of(line) for line in file_lines if line.strip()]
    file_uses_tabs = sum(i.startswith("\t") for i in file_indents) > sum(
        i.startswith(" ") for i in file_indents
    )
    file_unit = _unit(file_lines, 4)
    llm_unit = _unit(llm_lines, 4)
    offset = None
    for o, f in pairs:
        # In a tab-indented file, spaces after the tabs align text: they stay as they are.
        ol = _levels(o, llm_unit)
        fl = _levels(f, ALIGNMENT_ONLY if file_uses_tabs else file_unit)
        if ol is None or fl is None or ol[1] != fl[1]:
            return None
        if offset is None:
            offset = fl[0] - ol[0]
        elif offset != fl[0] - ol[0]:
            return None
    if offset is None:
        return None
    step = "\t" if file_uses_tabs else " " * file_unit

    def mapper(indent: str) -> str | None:
        levels = _levels(indent, llm_unit)
        if levels is None or levels[0] + offset < 0:
            return None
        return step * (levels[0] + offset) + " " * levels[1]

    return mapper


# -- escapes ---------------------------------------------------------------------------------

ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "'": "'", "\\": "\\"}


def _looks_escaped(old: str) -> bool:
    return "\\n" in old or "\\t" in old


def _unescape(text: str) -> str:
    out = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] in ESCAPES:
            out.append(ESCAPES[text[i + 1]])
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


# -- messages --------------------------------------------------------------------------------


def _several(text: str, spans: list[tuple[int, int]], strategy: str) -> CodesiftError:
    # Each line once: "o" four times on two lines is at lines 1, 2 (not 1, 1, 2, 2).
    starts = list(dict.fromkeys(line_number_at(text, s) for s, _ in spans))
    shown = ", ".join(str(n) for n in starts[:MAX_LISTED_MATCHES])
    more = (
        f" and {len(starts) - MAX_LISTED_MATCHES} more" if len(starts) > MAX_LISTED_MATCHES else ""
    )
    how = "" if strategy == "exact" else f" (when compared by {strategy.replace('_', ' ')})"
    return hinted(
        MatchError,
        f"old_string matches {len(spans)} places{how}, at lines {shown}{more}.",
        Hint(
            "Include more surrounding lines to make it unique, or pass {option} to change "
            "every one.",
            (Concept.REPLACE_ALL,),
            "Include more surrounding lines to make it unique.",
            " ",
        ),
        Hint("Or edit one hit by its {option}.", (Concept.HIT_ID,), "", " "),
    )


def _no_match(text: str, old: str) -> CodesiftError:
    """The error of an edit whose text matched nowhere, with the most similar region of the
    file, line breaks and all, for the caller to copy exactly."""
    lines = split_lines(text)
    old_lines = [s for s in old.replace("\r\n", "\n").split("\n")]
    while len(old_lines) > 1 and not old_lines[-1].strip():
        old_lines.pop()
    problem = "old_string was not found in the file"
    best = most_similar(text, lines, old_lines)
    if best is None:
        return hinted(
            MatchError,
            problem,
            Hint(
                "read the region first with {option} and copy the text exactly",
                (Concept.READ,),
                "copy the text exactly from the file",
            ),
        )
    start, end = best
    numbered = "\n".join(
        f"{i + 1:6}\t{text[lines[i].start : lines[i].content_end]}" for i in range(start, end)
    )
    return hinted(
        MatchError,
        f"{problem}. The most similar region is lines {start + 1}-{end}:\n{numbered}",
        Hint(
            "Copy the exact text from there (or read the region first with {option}) and retry.",
            (Concept.READ,),
            "Copy the exact text from there and retry.",
            "\n",
        ),
    )


def most_similar(text: str, lines: list[Line], old_lines: list[str]) -> tuple[int, int] | None:
    """The region of `lines` most like `old_lines` (whitespace around each line ignored), as
    `(start, end)` line indexes (end exclusive) with `SIMILAR_CONTEXT_LINES` around it: what
    a failed edit's error shows; None when nothing is similar enough."""
    if not lines:
        return None
    stripped = [text[ln.start : ln.content_end].strip() for ln in lines]
    key = [s.strip() for s in old_lines]
    m = max(1, len(key))
    joined_key = "\n".join(key)
    # Cheap pre-filter: windows that share the most lines with `old` (counted as the window
    # slides, so linear in the file), then a real ratio for the best few.
    key_set = set(key)
    inside = [s in key_set for s in stripped]
    count = sum(inside[:m])
    scored = [(count, 0)]
    for i in range(1, max(1, len(stripped) - m + 1)):
        count += inside[i + m - 1] - inside[i - 1]
        scored.append((count, i))
    best, best_ratio = None, 0.0
    key_pairs: list[Counter[str]] = []
    # At most 20 candidates, fewer for a long text, so that the comparisons stay bounded.
    candidates = max(1, min(20, SIMILARITY_BUDGET // max(1, len(joined_key))))
    for _, i in heapq.nsmallest(candidates, scored, key=lambda p: (-p[0], p[1])):
        ratio = _similarity(stripped[i : i + m], joined_key, key_pairs)
        if ratio > best_ratio:
            best, best_ratio = i, ratio
    if best is None or best_ratio < 0.3:
        return None
    start = max(0, best - SIMILAR_CONTEXT_LINES)
    end = min(len(lines), best + m + SIMILAR_CONTEXT_LINES)
    return start, end


#: The longest text compared by `SequenceMatcher` for "the most similar region" (that
#: comparison is quadratic); longer ones are compared by their character pairs, in linear time.
MAX_SIMILARITY_CHARS = 600
#: Characters of wanted text compared in all, over the candidate regions.
SIMILARITY_BUDGET = 400_000


def _similarity(window: list[str], joined_key: str, key_pairs: list[Counter[str]]) -> float:
    """How alike a window of file lines and the wanted lines are, from 0 to 1:
    `SequenceMatcher.ratio` of their texts, or for long texts the same ratio taken over their
    multisets of adjacent character pairs (the Dice coefficient). `key_pairs` caches the
    wanted text's pairs."""
    joined = "\n".join(window)
    if len(joined) <= MAX_SIMILARITY_CHARS and len(joined_key) <= MAX_SIMILARITY_CHARS:
        return difflib.SequenceMatcher(None, joined, joined_key, autojunk=False).ratio()
    if not key_pairs:
        key_pairs.append(_pairs(joined_key))
    have, want = _pairs(joined), key_pairs[0]
    total = sum(have.values()) + sum(want.values())
    return 2.0 * sum((have & want).values()) / total if total else 1.0


def _pairs(text: str) -> Counter[str]:
    return Counter(map(str.__add__, text, text[1:]))


def plan_sequential(
    text: str, replacements: tuple[Replacement, ...] | list[Replacement], shown: str
) -> tuple[list[Change], str]:
    """SEARCH/REPLACE blocks applied one after the other, each to the text the previous ones
    left, with `edit_many`'s strategies; each must match one place, or one place after the
    previous block (the blocks' order). Returns one change covering everything that changed."""
    current = text
    cursor = 0
    strategies: list[str] = []
    for number, block in enumerate(replacements, start=1):
        label = f"block {number}" + (f" (line {block.patch_line})" if block.patch_line else "")
        try:
            if block.old == "":
                if current.strip():
                    raise hinted(
                        InvalidArgumentError,
                        "its SEARCH section is empty, which only fills an empty file; put the "
                        "lines to replace in SEARCH",
                        Hint("(or write the whole file with {option})", (Concept.WRITE,), "", " "),
                    )
                current, cursor = block.new, len(block.new)
                strategies.append("exact")
                continue
            try:
                changes, strategy = plan_in_order(current, block.old, block.new, cursor)
            except MatchError:
                at_end = _last_lines_without_newline(current, block.old, block.new)
                if at_end is None:
                    raise
                changes, strategy = [at_end], "exact"
        except (MatchError, InvalidArgumentError) as exc:
            raise reworded(exc, f"{label} of {shown}: {_as_search(problem_of(exc))}") from None
        current = apply_changes(current, changes)
        change = changes[0]
        cursor = change.start + len(change.replacement)
        strategies.append(strategy)
    if current == text:
        return [], "exact"
    fuzzy = [s for s in dict.fromkeys(strategies) if s != "exact"]
    return [covering_change(text, current)], "+".join(fuzzy) or "exact"


def _last_lines_without_newline(text: str, old: str, new: str) -> Change | None:
    """SEARCH/REPLACE sections are whole lines, each ending with a newline (as Cline reads
    them), so a block for the last lines of a file without a final newline has one newline
    more than the file: it is matched without it at the very end of the file. The file still
    ends without a newline unless the lines are deleted whole (then the line before ends the
    file, with its newline)."""
    if not text or text.endswith("\n") or not old.endswith("\n"):
        return None
    ending = "\r\n" if old.endswith("\r\n") else "\n"
    wanted = old.removesuffix(ending)
    start = len(text) - len(wanted)
    if not wanted or not text.endswith(wanted) or (start > 0 and text[start - 1] != "\n"):
        return None
    return Change(start, len(text), new.removesuffix(ending) if new.endswith(ending) else new)


def plan_in_order(text: str, old: str, new: str, cursor: int) -> tuple[list[Change], str]:
    """`plan_edit` of one edit; when `old` matches several places, the one place at or after
    `cursor` (where the previous edit ended) is taken, if there is exactly one."""
    try:
        plan = plan_edit(text, old, new)
    except MatchError as first_error:
        line_start = text.rfind("\n", 0, cursor) + 1
        if line_start == 0:
            raise
        try:
            tail = plan_edit(text[line_start:], old, new)
        except MatchError:
            raise first_error from None
        return [
            Change(c.start + line_start, c.end + line_start, c.replacement) for c in tail.changes
        ], tail.strategy
    return plan.changes, plan.strategy


def covering_change(before: str, after: str) -> Change:
    """One change that turns `before` into `after`: the span between their common prefix and
    suffix."""
    limit = min(len(before), len(after))
    prefix = 0
    while prefix < limit and before[prefix] == after[prefix]:
        prefix += 1
    suffix = 0
    while (
        suffix < limit - prefix
        and before[len(before) - 1 - suffix] == after[len(after) - 1 - suffix]
    ):
        suffix += 1
    return Change(prefix, len(before) - suffix, after[prefix : len(after) - suffix])


def _as_search(problem: str) -> str:
    return problem.replace("old_string", "the SEARCH section").replace(
        "new_string", "the REPLACE section"
    )


def apply_changes(text: str, changes: Sequence[Change]) -> str:
    """`text` with non-overlapping `changes` applied. A replacement that could not be written
    (a lone surrogate other than the `surrogateescape` ones) is an `InvalidArgumentError`."""
    for change in changes:
        check_writable_text("new_string", change.replacement)
    out = []
    pos = 0
    for change in sorted(changes, key=lambda c: c.start):
        out.append(text[pos : change.start])
        out.append(change.replacement)
        pos = change.end
    out.append(text[pos:])
    return "".join(out)


def check_disjoint(changes: Sequence[Change], text: str) -> None:
    ordered = sorted(changes, key=lambda c: (c.start, c.end))
    for a, b in zip(ordered, ordered[1:], strict=False):
        if b.start < a.end:
            raise InvalidArgumentError(
                f"two edits overlap (at lines {line_number_at(text, a.start)} and "
                f"{line_number_at(text, b.start)}); merge them into one edit"
            )


# -- edit items ------------------------------------------------------------------------------


def old_new(item: object, *, sequential: bool) -> tuple[Any, Any, bool]:
    """(old, new, replace_all) of an `old -> new` edit in any of the accepted shapes."""
    if isinstance(item, Mapping):
        if sequential and ("search_result_id" in item or "searchResultId" in item):
            raise InvalidArgumentError(
                "edits by search_result_id cannot be applied one after the other (the ids "
                "address the original text); leave sequential off"
            )
        old = _first_key(item, ("old_string", "old", "oldText", "old_str"))
        new = _first_key(item, ("new_string", "new", "newText", "new_str"))
        replace_all = item.get("replace_all", item.get("replaceAll", False))
        if not isinstance(replace_all, bool):
            raise InvalidArgumentError("replace_all must be true or false")
        return old, new, replace_all
    if isinstance(item, tuple | list) and len(item) == 2:
        return item[0], item[1], False
    raise InvalidArgumentError(
        "each edit is (old, new), {old_string, new_string, replace_all} or {search_result_id, new}"
    )


def _first_key(item: Mapping[str, Any], names: tuple[str, ...]) -> Any:
    for name in names:
        if name in item:
            return item[name]
    return None


def fit_newlines(new: str, text: str, change: Change) -> str:
    """`new` with the line endings of the text it replaces (or of its line)."""
    region = text[change.start : change.end]
    newline = newline_of(region, newline_near(text, change.start, dominant_newline(text)))
    return convert_newlines(new, newline)


__all__ = [
    "Change",
    "Plan",
    "apply_changes",
    "apply_line_change",
    "check_disjoint",
    "covering_change",
    "fit_newlines",
    "most_similar",
    "old_new",
    "plan_edit",
    "plan_in_order",
    "plan_sequential",
]
