"""`codesift apply-hit`: the linked edit of a search hit given as JSON on stdin, which remote
search runs on a host."""

from __future__ import annotations

import sys

from ..arguments import MAX_COUNT, MAX_LINES, check_int, check_unicode, check_writable_text
from ..errors import CodesiftError, InvalidArgumentError
from .exits import EXIT_FOUND
from .output import print_json
from .parser import add_shared_options

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any

    from rich.console import Console

    from ..workspace import Workspace

#: apply-hit reads at most this much JSON from stdin (a hit and its replacement).
MAX_APPLY_HIT_BYTES = 256 * 1024 * 1024


def add_arguments(ah: argparse.ArgumentParser) -> None:
    add_shared_options(
        ah, root="the root the hit's file is relative to (default: the current directory)"
    )


def run(ws: Workspace, args: argparse.Namespace, console: Console | None) -> int:
    request = _read_hit_request()
    line = request.get("line", 0)
    before = _read_or_empty(ws, request["file"])
    result = ws.apply_hit(
        request["file"],
        request["byte_offset"],
        request["byte_length"],
        request["content"],
        request["new"],
        unique=bool(request.get("unique", False)),
        line=line if isinstance(line, int) and not isinstance(line, bool) else 0,
    )
    data = result.to_dict()
    data["span"] = _changed_span(before, _read_or_empty(ws, request["file"]))
    print_json(data)
    return EXIT_FOUND


def _read_hit_request() -> dict[str, Any]:
    """apply-hit's request from stdin, checked field by field."""
    usage = (
        "apply-hit reads one JSON object on stdin: {file, byte_offset, byte_length, content, "
        "new} (strings and non-negative integers), optionally unique and line"
    )
    import json

    raw = sys.stdin.buffer.read(MAX_APPLY_HIT_BYTES + 1)
    if len(raw) > MAX_APPLY_HIT_BYTES:
        raise InvalidArgumentError(f"{usage}; the input is over {MAX_APPLY_HIT_BYTES} bytes")
    try:
        request = json.loads(raw or b"null")
    except RecursionError:
        raise InvalidArgumentError(f"{usage}; the input is nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise InvalidArgumentError(
            f"{usage}; the input is not valid JSON ({exc.msg} at line {exc.lineno} column "
            f"{exc.colno})"
        ) from None
    except ValueError:  # not UTF-8, or a number with thousands of digits
        raise InvalidArgumentError(f"{usage}; the input is not readable JSON text") from None
    fields = {"file": str, "byte_offset": int, "byte_length": int, "content": str, "new": str}
    if not isinstance(request, dict) or any(
        not isinstance(request.get(k), t) or isinstance(request.get(k), bool)
        for k, t in fields.items()
    ):
        raise InvalidArgumentError(usage)
    check_int("byte_offset", request["byte_offset"], minimum=0, maximum=MAX_COUNT)
    check_int("byte_length", request["byte_length"], minimum=0, maximum=MAX_COUNT)
    line = request.get("line", 0)
    if isinstance(line, int) and not isinstance(line, bool):
        check_int("line", line, minimum=0, maximum=MAX_LINES)
    check_unicode("content", request["content"], hint="send the hit's text as grep found it")
    check_writable_text("new", request["new"])
    return request


def _read_or_empty(ws: Workspace, path: str) -> bytes:
    try:
        return ws.read_bytes(path)
    except (CodesiftError, OSError):
        return b""


def _changed_span(before: bytes, after: bytes) -> dict[str, int]:
    """The bytes an edit changed: `[start, start + old_length)` of `before` became
    `new_length` bytes, with `line_delta` more lines (so a caller can shift cached hits)."""
    shortest = min(len(before), len(after))
    start, step = 0, 1 << 16
    while step:  # longest common prefix, compared in blocks
        while (
            start + step <= shortest and before[start : start + step] == after[start : start + step]
        ):
            start += step
        step //= 2
    end, step = 0, 1 << 16
    room = shortest - start
    while step:  # longest common suffix that does not overlap the prefix
        while (
            end + step <= room
            and before[len(before) - end - step : len(before) - end]
            == after[len(after) - end - step : len(after) - end]
        ):
            end += step
        step //= 2
    old_length, new_length = len(before) - start - end, len(after) - start - end
    return {
        "byte_offset": start,
        "old_length": old_length,
        "new_length": new_length,
        "line_delta": after.count(b"\n", start, start + new_length)
        - before.count(b"\n", start, start + old_length),
    }
