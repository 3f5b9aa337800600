"""A host's answers, checked before anything here uses them. Whatever a host prints is
untrusted input (a broken or compromised host may print anything): every value must have
the type and range a codesift search gives, and every file it names must be a plain path
inside the searched path, so that a hit can neither crash the caller nor point a later
linked edit (or a reader of the result) at a file the search did not cover. Any other
answer is a `RemoteError` of that host."""

from __future__ import annotations

import math
import posixpath
from collections.abc import Mapping
from typing import Any

from ..arguments import MAX_COUNT, MAX_LINES
from ..text.escapes import has_surrogates
from .errors import RemoteError
from .queries import GlobQuery, GrepQuery, Hit, HostGlob, HostGrep

MIN_MTIME_MS = -(2**63)


class Answer:
    """Reads the fields of one host's JSON answer strictly: an int is an int (not a bool, a
    float or a string) in range, a string a string, a list of strings a list of strings."""

    def __init__(self, label: str) -> None:
        self.label = label

    def bad(self, what: str) -> RemoteError:
        return RemoteError(
            f"{self.label} sent an answer that cannot be trusted ({what}); its results are "
            "left out: check the codesift version and the host itself"
        )

    def object(self, value: object, name: str) -> Mapping[str, Any]:
        if not isinstance(value, dict):
            raise self.bad(f"{name} is not an object")
        return value

    def items(self, data: Mapping[str, Any], key: str) -> list[Any]:
        value = data.get(key)
        if not isinstance(value, list):
            raise self.bad(f"{key} is not a list")
        return value

    def count(
        self,
        data: Mapping[str, Any],
        key: str,
        *,
        default: int | None = None,
        minimum: int = 0,
        maximum: int = MAX_COUNT,
    ) -> int:
        value = data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.bad(f"{key} is {_shown(value)}, not a whole number")
        if not minimum <= value <= maximum:
            raise self.bad(f"{key} is {_shown(value)}, out of range")
        return value

    def text(self, data: Mapping[str, Any], key: str, *, default: str | None = None) -> str:
        value = data.get(key, default)
        if not isinstance(value, str):
            raise self.bad(f"{key} is {_shown(value)}, not a string")
        return value

    def texts(self, data: Mapping[str, Any], key: str) -> list[str]:
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.bad(f"{key} is not a list of strings")
        return value

    def flag(self, data: Mapping[str, Any], key: str, *, default: bool = False) -> bool:
        value = data.get(key, default)
        if not isinstance(value, bool):
            raise self.bad(f"{key} is {_shown(value)}, not true or false")
        return value


def check_grep(answer: HostGrep, query: GrepQuery, label: str) -> HostGrep:
    """`answer` when it holds at most `max_matches` hits, each a sane hit in a file under
    the search path; else `RemoteError`."""
    reader = Answer(label)
    if query.max_matches is not None and len(answer.hits) > query.max_matches:
        raise reader.bad(f"{len(answer.hits)} hits, over max_matches={query.max_matches}")
    for name, count in {"total": answer.total, **answer.counts}.items():
        _in_range(reader, name, count, 0, MAX_COUNT)
    for hit in answer.hits:
        check_hit(reader, hit, query.start)
    return answer


def check_hit(reader: Answer, hit: Hit, start: str) -> None:
    check_file(reader, hit.file, start)
    _in_range(reader, "line", hit.line, 1, MAX_LINES)
    _in_range(reader, "end_line", hit.end_line, hit.line, MAX_LINES)
    _in_range(reader, "column", hit.column, 1, MAX_COUNT)
    _in_range(reader, "byte_offset", hit.byte_offset, 0, MAX_COUNT)
    _in_range(reader, "byte_length", hit.byte_length, 0, MAX_COUNT)
    for name in ("content", "text", "encoding"):
        value = getattr(hit, name)
        if not isinstance(value, str) or has_surrogates(value):
            raise reader.bad(f"{name} of a hit in {_shown(hit.file)} is not text")
    for name in ("before", "after"):
        lines = getattr(hit, name)
        if not all(isinstance(v, str) and not has_surrogates(v) for v in lines):
            raise reader.bad(f"{name} of a hit in {_shown(hit.file)} is not lines of text")


def check_glob(answer: HostGlob, query: GlobQuery, label: str) -> HostGlob:
    """`answer` when it holds at most `limit` files, each under the search path with a sane
    mtime and size; else `RemoteError`."""
    reader = Answer(label)
    if len(answer.files) > query.limit:
        raise reader.bad(f"{len(answer.files)} files, over limit={query.limit}")
    for name in ("total", "ignored", "unreadable"):
        _in_range(reader, name, getattr(answer, name), 0, MAX_COUNT)
    for path, mtime_ms, size in answer.files:
        check_file(reader, path, query.start)
        _in_range(reader, "mtime_ms", mtime_ms, MIN_MTIME_MS, MAX_COUNT)
        _in_range(reader, "size", size, 0, MAX_COUNT)
    return answer


def check_file(reader: Answer, file: object, start: str) -> None:
    """A root-relative POSIX path in normal form (no `.`, `..` or empty part, no NUL), at or
    under the search path `start`. A name that is not UTF-8 comes as `surrogateescape`
    text and is kept."""
    if not isinstance(file, str) or not file:
        raise reader.bad(f"a file name is {_shown(file)}")
    if (
        "\x00" in file
        or file.startswith("/")
        or any(part in ("", ".", "..") for part in file.split("/"))
    ):
        raise reader.bad(f"the file name {_shown(file)} is not a plain path under the root")
    if start != "." and file != start and not file.startswith(posixpath.join(start, "")):
        raise reader.bad(f"the file {_shown(file)} is outside the searched path {start}")


def _in_range(reader: Answer, name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise reader.bad(f"{name} is {_shown(value)}, out of range")


def _shown(value: object) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def check_edit(data: Mapping[str, Any], file: str, label: str) -> dict[str, Any]:
    """The fields of `codesift apply-hit`'s answer for an edit of `file`: the host must
    report an edit of that very file (the one the search named), with sane numbers."""
    a = Answer(label)
    path = a.text(data, "path")
    if path != file:
        raise a.bad(f"it reports an edit of {_shown(path)}, but the hit is in {_shown(file)}")
    moved_from = data.get("moved_from")
    if moved_from is not None:
        moved_from = a.count(data, "moved_from", minimum=1, maximum=MAX_LINES)
    span = a.object(data.get("span", {}), "span")
    return {
        "path": path,
        "replacements": a.count(data, "replacements"),
        "strategy": a.text(data, "strategy"),
        "first_line": a.count(data, "first_line", maximum=MAX_LINES),
        "last_line": a.count(data, "last_line", maximum=MAX_LINES),
        "diff": a.text(data, "diff"),
        "moved_from": moved_from,
        "span": {
            key: a.count(span, key, minimum=minimum)
            for key, minimum in (
                ("byte_offset", 0),
                ("old_length", 0),
                ("new_length", 0),
                ("line_delta", -MAX_COUNT),
            )
            if key in span
        },
    }
