"""codesift's glob rules for strategy "shell": the engine's own matcher (the host's `find`
only pre-filters names) and brace expansion for `find -name` / `grep --include`."""

from __future__ import annotations

from collections.abc import Iterable

from .. import _core

MAX_BRACE_EXPANSIONS = 64


def normalize_glob(pattern: str) -> str:
    return _core.normalize_glob(pattern)


def PathPattern(patterns: Iterable[str], *, case_sensitive: bool = True) -> _core.GlobMatcher:  # noqa: N802
    """codesift's own glob matcher (the engine's), so strategy "shell" matches names exactly
    as a local search would."""
    return _core.GlobMatcher(list(patterns), case_sensitive)


def expand_braces(glob: str, limit: int = MAX_BRACE_EXPANSIONS) -> list[str] | None:
    """`a.{b,c}` as `["a.b", "a.c"]` (nested braces too); None past `limit` expansions or
    for unbalanced braces."""
    start = -1
    depth = 0
    i = 0
    while i < len(glob):
        c = glob[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            end = glob.find("]", i + 2)
            i = end + 1 if end > 0 else i + 1
            continue
        if c == "{":
            if depth == 0:
                start = i
            depth += 1
        elif c == "}" and depth:
            depth -= 1
            if depth == 0:
                body = glob[start + 1 : i]
                alternatives: list[str] = []
                current: list[str] = []
                level = 0
                for ch in body:
                    if ch == "{":
                        level += 1
                    elif ch == "}":
                        level -= 1
                    if ch == "," and level == 0:
                        alternatives.append("".join(current))
                        current = []
                    else:
                        current.append(ch)
                alternatives.append("".join(current))
                result: list[str] = []
                for alternative in alternatives:
                    expanded = expand_braces(glob[:start] + alternative + glob[i + 1 :], limit)
                    if expanded is None:
                        return None
                    result.extend(expanded)
                    if len(result) > limit:
                        return None
                return result
        i += 1
    return None if depth else [glob]
