"""Argument checks shared by the local and remote workspaces: each bad value is an
`InvalidArgumentError` saying what is allowed, and grep's options are normalised once."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .errors import InvalidArgumentError

GLOB_SORTS = ("path", "mtime", "none")


@dataclass(frozen=True)
class GrepArgs:
    """grep's options, checked and normalised (context split into before/after, filters as
    lists of globs)."""

    pattern: str
    include: list[str]
    exclude: list[str]
    literal: bool
    case_sensitive: bool
    multiline: bool | None
    before: int
    after: int
    max_matches: int | None
    count_total: bool
    timeout: float | None


def grep_arguments(
    pattern: str,
    *,
    include: str | Iterable[str] | None,
    exclude: str | Iterable[str] | None,
    literal: bool,
    case_sensitive: bool,
    multiline: bool | None,
    context_lines: int,
    before: int | None,
    after: int | None,
    max_matches: int | None,
    count_total: bool,
    timeout: float | None,
) -> GrepArgs:
    check_text("pattern", pattern, allow_empty=True)
    check_int("context_lines", context_lines, minimum=0, required=True)
    check_int("before", before, minimum=0)
    check_int("after", after, minimum=0)
    check_int("max_matches", max_matches, minimum=1)
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0
    ):
        raise InvalidArgumentError(f"timeout must be a positive number of seconds, not {timeout!r}")
    return GrepArgs(
        pattern=pattern,
        include=glob_list("include", include),
        exclude=glob_list("exclude", exclude),
        literal=bool(literal),
        case_sensitive=bool(case_sensitive),
        multiline=None if multiline is None else bool(multiline),
        before=context_lines if before is None else before,
        after=context_lines if after is None else after,
        max_matches=max_matches,
        count_total=bool(count_total),
        timeout=None if timeout is None else float(timeout),
    )


def check_glob_arguments(pattern: object, limit: object, sort: object) -> None:
    check_text("pattern", pattern)
    check_int("limit", limit, minimum=0, required=True)
    if sort not in GLOB_SORTS:
        raise InvalidArgumentError(f'sort must be one of "path", "mtime", "none", not {sort!r}')


def check_text(name: str, value: object, *, allow_empty: bool = False) -> None:
    if not isinstance(value, str):
        raise InvalidArgumentError(f"{name} must be a string, not {type(value).__name__}")
    if not allow_empty and not value:
        raise InvalidArgumentError(f"{name} must not be empty")
    if "\x00" in value:
        raise InvalidArgumentError(f"{name} must not contain a NUL byte")


def check_int(name: str, value: object, *, minimum: int, required: bool = False) -> None:
    if value is None and not required:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgumentError(f"{name} must be an integer, not {value!r}")
    if value < minimum:
        raise InvalidArgumentError(f"{name} must be at least {minimum}, not {value}")


def glob_list(name: str, value: str | Iterable[str] | None) -> list[str]:
    """Glob filters as a list; a string may hold several, separated by commas outside braces
    (`"*.ts,*.tsx"` = `["*.ts", "*.tsx"]`, `"*.{ts,tsx}"` stays whole)."""
    if value is None:
        return []
    items = [value] if isinstance(value, str) else list(value)
    globs: list[str] = []
    for item in items:
        if not isinstance(item, str):
            raise InvalidArgumentError(f"{name} must be a glob or a list of globs, not {item!r}")
        globs.extend(part for part in split_top_level(item) if part)
    return globs


def split_top_level(text: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        if ch == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    parts.append("".join(current).strip())
    return parts
