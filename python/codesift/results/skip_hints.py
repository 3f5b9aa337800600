"""The one-line hint of what a search passed over (see `codesift.results.skipped`), made from the
engine's counts as they come (`reason -> (count, examples)`): `Skipped.hint` words it, and
a piped `codesift grep` says it straight from the engine's figures, without building a
result (whose dataclasses cost start-up the `dataclasses` and `inspect` imports)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

#: A result with fewer hits (matches, files or entries) than this "found little": its hint
#: is shown. Five: a search for something that exists usually finds more, and a reader scans
#: five hits at a glance without missing a one-line note after them.
FEW_HITS = 5

_NONE: tuple[int, Sequence[str]] = (0, ())


def few(found: int, truncated: bool) -> bool:
    """Whether a result "found little": its skipped entries deserve a hint."""
    return not truncated and found < FEW_HITS


def skip_hint(
    skipped: Mapping[str, tuple[int, Sequence[str]]],
    *,
    no_ignore: str | None = "no_ignore=true",
    hidden: str | None = "hidden=true",
    path: str | None = 'path="{path}"',
) -> str | None:
    """One line saying what was passed over (`reason -> (count, examples)`) and how to
    include it, or None when nothing was; the options as `Skipped.hint` takes them."""
    parts: list[str] = []

    def ways(*options: str | None) -> str:
        given = [o for o in options if o]
        return f" — pass {' or '.join(given)}" if given else ""

    def at(count: int, examples: Sequence[str]) -> str | None:
        # A directory is the likelier place of what was missed; one file of many is not
        # worth a search of its own.
        dirs = [e for e in examples if e.endswith("/")]
        every = list(examples) if count <= len(examples) else []
        candidates = dirs or every
        first = candidates[0] if candidates else None
        return path.format(path=first.rstrip("/")) if path and first else None

    count, examples = skipped.get("gitignored", _NONE)
    if count:
        parts.append(
            f"{_noun(count, 'gitignored path')} hidden{_shown(count, examples)}"
            + ways(no_ignore, at(count, examples))
        )
    count, examples = skipped.get("hidden", _NONE)
    if count:
        parts.append(
            f"{_noun(count, 'hidden path')} skipped{_shown(count, examples)}"
            + ways(hidden, at(count, examples))
        )
    count, examples = skipped.get("symlink", _NONE)
    if count:
        parts.append(
            f"{_noun(count, 'symlink')} not followed{_shown(count, examples)}"
            + ways(at(count, examples))
        )
    count, examples = skipped.get("too_large", _NONE)
    if count:
        parts.append(f"{_noun(count, 'file')} over max_filesize skipped{_shown(count, examples)}")
    count, examples = skipped.get("binary", _NONE)
    if count:
        parts.append(f"{_noun(count, 'binary file')} not searched{_shown(count, examples)}")
    count, examples = skipped.get("unreadable", _NONE)
    if count:
        parts.append(f"{_noun(count, 'unreadable path')} skipped{_shown(count, examples)}")
    return f"({'; '.join(parts)})" if parts else None


def _noun(count: int, singular: str) -> str:
    return f"{count} {singular}" if count == 1 else f"{count} {singular}s"


def _shown(count: int, examples: Sequence[str]) -> str:
    if not examples:
        return ""
    more = ", ..." if count > len(examples) else ""
    return ": " + ", ".join(examples) + more
