"""Regex translation for strategy "shell": codesift's Rust regex syntax as a GNU grep ERE
(which selects the lines) and as a Python `re` pattern (which places each match on a
selected line)."""

from __future__ import annotations

import re

from ..errors import PatternError

_PY_POSIX_CLASSES = {
    "alpha": "a-zA-Z",
    "digit": "0-9",
    "alnum": "a-zA-Z0-9",
    "upper": "A-Z",
    "lower": "a-z",
    "space": r"\s",
    "blank": r" \t",
    "xdigit": "0-9A-Fa-f",
    "word": r"\w",
    "punct": re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
    "cntrl": r"\x00-\x1f\x7f",
    "print": r"\x20-\x7e",
    "graph": r"\x21-\x7e",
}


_ERE_ESCAPES = {"d": "[0-9]", "D": "[^0-9]", "t": "\t", "A": "^", "z": "$"}


def to_ere(pattern: str) -> tuple[str, bool]:
    """The pattern (codesift's Rust regex syntax) as a GNU grep ERE, and whether it asked for
    case-insensitivity with a leading `(?i)`. The lines it selects are the same; Rust-only
    syntax without an ERE equivalent is a `PatternError`."""
    ignore_case = False
    if pattern.startswith("(?i)"):
        pattern, ignore_case = pattern[4:], True
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            d = pattern[i + 1]
            if d in _ERE_ESCAPES:
                out.append(_ERE_ESCAPES[d])
            elif not d.isalnum() and d not in ".[]()*+?{}|^$\\":
                out.append(d)  # `\-`, `\#`, `\ `: plain characters in an ERE
            else:
                out.append(c + d)
            i += 2
        elif c == "[":
            i = _ere_class(pattern, i, out)
        elif pattern.startswith("(?", i):
            m = re.match(r"\(\?(?::|P?<[A-Za-z_][A-Za-z0-9_]*>)", pattern[i:])
            if m is None:
                raise PatternError(
                    f"/{pattern}/ uses a (?...) group that the host's grep cannot run (strategy "
                    "shell); rewrite it with plain (...) groups or install codesift on the host"
                )
            out.append("(")
            i += m.end()
        elif c in "*+?}" and pattern.startswith("?", i + 1):
            out.append(c)  # a lazy quantifier selects the same lines as a greedy one
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out), ignore_case


def _ere_class(pattern: str, i: int, out: list[str]) -> int:
    """Translates the bracket expression at `pattern[i]`; returns the index after it."""
    n = len(pattern)
    j = i + 1
    negate = j < n and pattern[j] == "^"
    if negate:
        j += 1
    items: list[str] = []
    rbracket = dash = caret = False
    first = True
    while j < n:
        c = pattern[j]
        if c == "]" and not first:
            break
        first = False
        if pattern.startswith("[:", j) and (k := pattern.find(":]", j + 2)) > 0:
            items.append(pattern[j : k + 2])
            j = k + 2
        elif c == "\\" and j + 1 < n:
            d = pattern[j + 1]
            j += 2
            if d == "]":
                rbracket = True
            elif d == "-":
                dash = True
            elif d == "^":
                caret = True
            else:
                items.append({"d": "0-9", "w": "[:alnum:]_", "s": "[:space:]", "t": "\t"}.get(d, d))
        elif c == "]":
            rbracket = True
            j += 1
        else:
            items.append(c)
            j += 1
    if j >= n:
        out.append(pattern[i:])  # unclosed: let grep report it
        return n
    if not items and not rbracket and not dash and caret and not negate:
        out.append("\\^")
    else:
        out.append(
            "["
            + ("^" if negate else "")
            + ("]" if rbracket else "")
            + "".join(items)
            + ("^" if caret else "")
            + ("-" if dash else "")
            + "]"
        )
    return j + 1


def python_regex(pattern: str, literal: bool, case_sensitive: bool) -> re.Pattern[str] | None:
    """The pattern for Python's `re`, to find each match's columns on a line grep selected;
    None when `re` cannot compile it (each selected line then counts as one hit)."""
    flags = 0 if case_sensitive else re.IGNORECASE
    if literal:
        return re.compile(re.escape(pattern), flags)
    translated = re.sub(
        r"\[:(\w+):\]", lambda m: _PY_POSIX_CLASSES.get(m[1], m[0]), pattern
    ).replace("(?<", "(?P<")
    translated = re.sub(r"\(\?P<([=!])", r"(?<\1", translated).replace("\\z", "\\Z")
    try:
        return re.compile(translated, flags)
    except (re.error, OverflowError, RecursionError):
        return None
