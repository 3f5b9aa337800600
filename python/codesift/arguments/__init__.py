"""Argument checks shared by the local and remote workspaces: each bad value is an
`InvalidArgumentError` saying what is allowed; grep's and glob's requests are made once
(`grep_request`, `glob_request`) and checked by the engine.

Limits (documented in the README, "Argument limits"): every integer argument is at most
`MAX_COUNT` (2**63 - 1, what the engine's 64-bit counters hold), except line numbers and line
counts of context (`MAX_LINES`, 2**31 - 1), `threads` (`MAX_THREADS`) and `port`; `timeout` is a
finite number of seconds up to `MAX_TIMEOUT_SECONDS` (one day). Patterns and globs must be
valid Unicode text: a lone surrogate (what `surrogateescape` makes of a byte that is not
UTF-8) cannot be matched by the engine, whose patterns are UTF-8.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .. import _core
from .._lazy import lazy_exports
from ..errors import CodesiftError, InvalidArgumentError, PatternError
from .options import OPTION_TYPES

#: The largest integer any count or size argument may be (the engine counts in 64 bits).
MAX_COUNT = 2**63 - 1
#: The largest line number or number of context lines.
MAX_LINES = 2**31 - 1
#: The most worker threads a workspace may start.
MAX_THREADS = 1024
#: The longest grep `timeout`, in seconds (one day).
MAX_TIMEOUT_SECONDS = 86_400.0
#: The deepest nesting of `{...}` alternatives in a glob (the engine's glob compiler fails
#: past about 120 levels).
MAX_GLOB_BRACE_DEPTH = 32
#: Per-argument maxima; every other integer argument is bounded by `MAX_COUNT`.
MAXIMA = {
    "context_lines": MAX_LINES,
    "before": MAX_LINES,
    "after": MAX_LINES,
    "offset": MAX_LINES,
    "line": MAX_LINES,
    "threads": MAX_THREADS,
    "port": 65_535,
}

# What a remote host is asked (`GrepArgs`, `grep_arguments`) lives in `grep_args`, loaded on
# first use: a local search does not define its dataclass.
_GREP_ARGS = frozenset(("GrepArgs", "grep_arguments"))
# `typing` is not imported at run time (a start-up cost of every command).
TYPE_CHECKING = False
if TYPE_CHECKING:  # re-exported for type checkers
    from collections.abc import Callable
    from typing import Any

    from .grep_args import GrepArgs, grep_arguments  # noqa: F401
    from .options import (  # noqa: F401
        GlobFilters,
        GlobOptions,
        GrepMatching,
        GrepOptions,
        GrepStreamOptions,
        RemoteGrepOptions,
    )


def check_names(call: str, options: Mapping[str, object], allowed: frozenset[str]) -> None:
    """Refuses a keyword argument `call` does not take (`allowed`: its option names, e.g.
    `codesift.arguments.options.GREP_OPTIONS`), as Python refuses one a signature does not name."""
    for name in options:
        if name not in allowed:
            raise TypeError(f"{call}() got an unexpected keyword argument {name!r}")


def grep_request(pattern: object, search_path: str = ".", **options: object) -> _core.GrepRequest:
    """The one grep request of every caller (`Workspace.grep` and `grep_iter`, the remote
    workspace, and through them the CLI and the tools), made from `Workspace.grep`'s keyword
    arguments. Here each value only becomes what the engine takes (text, lists of globs and
    type names, integers it can hold); the engine checks what each option allows
    (`crate::request`), once, and refuses a name it does not know."""
    check_text("pattern", pattern, allow_empty=True)
    assert isinstance(pattern, str)  # for mypy: check_text raised otherwise
    check_unicode("pattern", pattern, error=PatternError)
    converted = {
        _RENAMED.get(name, name): _CONVERSIONS.get(name, _as_is)(name, value)
        for name, value in options.items()
    }
    return _core.GrepRequest(search_path, pattern=pattern, **converted)


def glob_request(
    pattern: object, search_path: str = ".", *, root: str | None = None, **options: object
) -> _core.GlobRequest:
    """The one glob request of every caller (`Workspace.glob` and `glob_iter`, the remote
    workspace), made from `Workspace.glob`'s keyword arguments as `grep_request` makes grep's:
    the pattern is checked here (text, no lone surrogate, braces not nested too deep; with
    `root`, an absolute pattern inside it is made relative to it), each option becomes what
    the engine takes, and the engine checks what each allows (`crate::request`)."""
    check_text("pattern", pattern)
    assert isinstance(pattern, str)  # for mypy: check_text raised otherwise
    check_unicode("pattern", pattern)
    check_glob_nesting("pattern", pattern)
    if root is not None:
        prefix = root.rstrip("/") + "/"
        pattern = pattern.removeprefix(prefix)
    converted = {
        _RENAMED.get(name, name): _GLOB_CONVERSIONS.get(name, _as_is)(name, value)
        for name, value in options.items()
    }
    return _core.GlobRequest(search_path, pattern=pattern, **converted)


def check_text(name: str, value: object, *, allow_empty: bool = False) -> None:
    if not isinstance(value, str):
        raise InvalidArgumentError(f"{name} must be a string, not {type(value).__name__}")
    if not allow_empty and not value:
        raise InvalidArgumentError(f"{name} must not be empty")
    if "\x00" in value:
        raise InvalidArgumentError(f"{name} must not contain a NUL byte")


def check_unicode(
    name: str,
    value: str,
    *,
    error: type[CodesiftError] = InvalidArgumentError,
    hint: str = "pass text, and match an unknown character with ? in a glob or . in a regex",
) -> None:
    """Rejects text with a lone surrogate: it is not Unicode text and cannot be matched."""
    if value.isascii():  # the common case, without compiling a regex at every start
        return
    import re

    found = re.search("[\ud800-\udfff]", value)
    if found is not None:
        raise error(
            f"{name} is not valid Unicode text: it contains the lone surrogate "
            f"U+{ord(found[0]):04X} at position {found.start()} (an undecodable byte or half of "
            f"an escaped character pair); {hint}"
        )


def check_glob_nesting(name: str, glob: str) -> None:
    """Rejects a glob whose `{...}` alternatives nest deeper than `MAX_GLOB_BRACE_DEPTH`."""
    depth = deepest = 0
    escaped = False
    for char in glob:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "{":
            depth += 1
            deepest = max(deepest, depth)
        elif char == "}":
            depth = max(0, depth - 1)
    if deepest > MAX_GLOB_BRACE_DEPTH:
        raise PatternError(
            f"{name} nests {{...}} alternatives {deepest} levels deep; at most "
            f"{MAX_GLOB_BRACE_DEPTH} are allowed: flatten the alternatives or split the glob"
        )


def check_ignore_files(value: object) -> tuple[str, ...]:
    """Access-ignore file names (`Workspace(ignore_files=...)`): one name or an iterable of
    names, each a plain file name in valid Unicode (the engine takes them as UTF-8 text)."""
    if isinstance(value, str):
        value = (value,)
    if not isinstance(value, Iterable) or isinstance(value, bytes | Mapping):
        raise InvalidArgumentError(
            f"ignore_files must be a file name or a list of file names, not {_short(value)}"
        )
    names = tuple(value)
    for name in names:
        if not isinstance(name, str) or not name or "/" in name or "\x00" in name:
            raise InvalidArgumentError(
                f"ignore_files must be plain file names such as .codesiftignore, not {_short(name)}"
            )
        check_unicode("ignore_files", name, hint="name the file in valid Unicode text")
    return names


def check_writable_text(name: str, value: str) -> None:
    """Text to be written must encode: `\\udc80`-`\\udcff` stand for raw bytes
    (`surrogateescape`, as in a latin-1 file's text); any other lone surrogate is not text."""
    try:
        value.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as exc:
        raise InvalidArgumentError(
            f"{name} holds the lone surrogate U+{ord(value[exc.start]):04X} at position "
            f"{exc.start}, which is not text and cannot be written; send valid Unicode text"
        ) from None


def check_int(
    name: str,
    value: object,
    *,
    minimum: int,
    maximum: int | None = None,
    required: bool = False,
) -> None:
    """`value` is an integer in `[minimum, maximum]` (None allowed unless `required`); the
    default maximum is `MAXIMA[name]`, else `MAX_COUNT`."""
    if value is None and not required:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgumentError(f"{name} must be an integer, not {_short(value)}")
    if value < minimum:
        raise InvalidArgumentError(f"{name} must be at least {minimum}, not {_short(value)}")
    top = MAXIMA.get(name, MAX_COUNT) if maximum is None else maximum
    if value > top:
        raise InvalidArgumentError(f"{name} must be at most {top}, not {_short(value)}")


def check_seconds(name: str, value: object, *, maximum: float) -> None:
    """`value` is a finite number of seconds in `(0, maximum]`."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidArgumentError(
            f"{name} must be a positive number of seconds, not {_short(value)}"
        )
    # Written so that NaN, infinities and integers too large for a float all fail.
    if not 0 < value <= maximum:
        raise InvalidArgumentError(
            f"{name} must be a positive number of seconds up to {maximum:g}, not {_short(value)}"
        )


def _short(value: object, limit: int = 60) -> str:
    """`repr(value)`, cut to `limit` characters (a hostile value may be huge)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    try:
        text = repr(value)
    except Exception:
        return f"a {type(value).__name__}"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _strings(name: str, value: str | Iterable[str], expected: str) -> list[str]:
    """`value` as a list of strings (a string is one), each valid Unicode; `expected` says
    what a bad value should have been ("a glob or a list of globs")."""
    if not isinstance(value, str | Iterable) or isinstance(value, bytes | Mapping):
        raise InvalidArgumentError(f"{name} must be {expected}, not {_short(value)}")
    items = [value] if isinstance(value, str) else list(value)
    for item in items:
        if not isinstance(item, str):
            raise InvalidArgumentError(f"{name} must be {expected}, not {_short(item)}")
        check_unicode(name, item)
    return items


def glob_list(name: str, value: str | Iterable[str] | None) -> list[str]:
    """Glob filters as a list; a string may hold several, separated by commas outside braces
    (`"*.ts,*.tsx"` = `["*.ts", "*.tsx"]`, `"*.{ts,tsx}"` stays whole)."""
    if value is None:
        return []
    globs: list[str] = []
    for item in _strings(name, value, "a glob or a list of globs"):
        check_glob_nesting(name, item)
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


def type_list(name: str, value: str | Iterable[str] | None) -> list[str]:
    """ripgrep file type names as a list; a string may hold several, comma-separated
    (`"py,rust"`). The engine checks the names (an unknown one is an error naming close ones)."""
    if value is None:
        return []
    expected = "a file type such as py or rust, or a list of them"
    return [
        part.strip()
        for item in _strings(name, value, expected)
        for part in item.split(",")
        if part.strip()
    ]


def check_flag(name: str, value: object) -> bool | None:
    """An optional per-call override: True, False or None (the workspace's setting)."""
    if value is not None and not isinstance(value, bool):
        raise InvalidArgumentError(
            f"{name} must be true, false or left out (the workspace's setting), not {_short(value)}"
        )
    return value


def _as_is(name: str, value: object) -> object:
    return value


def _truth(name: str, value: object) -> bool | None:
    return None if value is None and name == "multiline" else bool(value)


def _count(name: str, value: object) -> object:
    """An integer the engine can hold (it checks the least each option allows)."""
    check_int(name, value, minimum=-MAX_COUNT - 1)
    return value


def _seconds(name: str, value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidArgumentError(
            f"{name} must be a positive number of seconds, not {_short(value)}"
        )
    try:
        return float(value)
    except OverflowError:  # an integer past any float: past any timeout too
        return float("inf")


def _text(name: str, value: object) -> str:
    return value if isinstance(value, str) else _short(value)


#: How each of `Workspace.grep`'s options becomes a value of the engine's request.
_CONVERSIONS: dict[str, Callable[[str, Any], object]] = {
    "include": glob_list,
    "exclude": glob_list,
    "type": type_list,
    "type_not": type_list,
    "literal": _truth,
    "case_sensitive": _truth,
    "multiline": _truth,
    "count_total": _truth,
    "stream": _truth,
    "one_hit_per_line": _truth,
    "skip_unique": _truth,
    "rank": _truth,
    "budget_tokens": _count,
    "context_lines": _count,
    "before": _count,
    "after": _count,
    "max_matches": _count,
    "offset": _count,
    "timeout": _seconds,
    "mode": _text,
    "hidden": check_flag,
    "no_ignore": check_flag,
}


def _required_count(name: str, value: object) -> object:
    check_int(name, value, minimum=-MAX_COUNT - 1, required=True)
    return value


#: How each of `Workspace.glob`'s options becomes a value of the engine's request.
_GLOB_CONVERSIONS: dict[str, Callable[[str, Any], object]] = {
    "type": type_list,
    "type_not": type_list,
    "case_sensitive": _truth,
    "limit": _required_count,
    "sort": _text,
    "hidden": check_flag,
    "no_ignore": check_flag,
}
#: `Workspace.grep`'s and `glob`'s option names that the engine's requests spell otherwise.
_RENAMED = {"type": "types", "type_not": "types_not"}


__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {**dict.fromkeys(_GREP_ARGS, "grep_args"), **dict.fromkeys(OPTION_TYPES, "options")},
)
