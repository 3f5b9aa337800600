"""Turning what a model sent into checked arguments: JSON text parsed, nesting bounded,
other agents' names renamed (by the profile), the JSON Schema enforced with errors an LLM can
act on, paths decoded and written text checked."""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import jsonschema

from ..arguments import check_writable_text
from ..errors import InvalidArgumentError
from ..text.escapes import unescape_path
from .spec import Profile, Tool
from .tool_result import cut, echo

#: Arguments nested deeper than this are refused before parsing or validation goes further
#: (the deepest real argument, a list of edits in the arguments object, is 3 levels deep).
MAX_ARGUMENT_DEPTH = 32
#: No list in the arguments may hold more items than this (the longest real one, a glob
#: list, holds at most 1,000): checked before the schema, whose check of each item of a
#: hostile list of millions took half a minute.
MAX_LIST_ITEMS = 10_000
#: Argument errors explained at once (a hostile list can hold millions).
MAX_EXPLAINED_ERRORS = 5


class BadArguments(Exception):
    """Arguments that do not fit the tool; the message says what to send instead."""


def renamed(
    args: Mapping[Any, Any],
    name_of: Callable[[Any, Any], tuple[Any, Any]],
    disagree: str = "{key} and another name for {target!r} disagree; give one",
) -> dict[Any, Any]:
    """What a profile's `rename` does: `args` without explicit nulls (a null means "not
    given"), each `key: value` as `name_of(key, value)` gives it; two names for one parameter
    must agree (else `BadArguments`, `disagree` formatted with the key echoed and the name)."""
    out: dict[Any, Any] = {}
    for key, value in args.items():
        if value is None:
            continue
        target, value = name_of(key, value)
        if target in out and out[target] != value:
            raise BadArguments(disagree.format(key=echo(key), target=target))
        out[target] = value
    return out


def renaming(
    argument_name: Callable[[Tool, Any, Any], tuple[Any, Any]],
) -> Callable[[Tool, Mapping[Any, Any]], dict[Any, Any]]:
    """A profile's `rename` made of `argument_name(tool, key, value)`: what one argument of
    a call of `tool` is called in its schema, with its value (see `renamed`)."""

    def rename(tool: Tool, args: Mapping[Any, Any]) -> dict[Any, Any]:
        return renamed(args, lambda key, value: argument_name(tool, key, value))

    return rename


class ArgumentReader:
    """Reads the arguments of one profile's tools (a validator per tool, built once)."""

    def __init__(self, profile: Profile, root: Path) -> None:
        self.profile = profile
        self.root = root
        self._validators = {
            tool.name: jsonschema.Draft202012Validator(tool.input_schema())
            for tool in profile.tools
        }

    def read(self, tool: Tool, args: Mapping[str, Any] | str | bytes | None) -> dict[str, Any]:
        if args is None:
            args = {}
        if isinstance(args, str | bytes | bytearray):
            args = parse_json(args)
        if not isinstance(args, Mapping):
            raise BadArguments(
                f"arguments must be a JSON object, not {json_kind(args)}; pass e.g. {example(tool)}"
            )
        longest = longest_list_over(args, MAX_LIST_ITEMS)
        if longest is not None:
            raise BadArguments(
                f"{longest[0]} holds {longest[1]} items; at most {MAX_LIST_ITEMS} are allowed "
                "in one list (at most 1000 globs): send fewer, e.g. globs merged with braces "
                "({a,b}) or a narrower path"
            )
        if deeper_than(args, MAX_ARGUMENT_DEPTH):
            raise BadArguments(
                f"arguments are nested more than {MAX_ARGUMENT_DEPTH} levels deep; pass a flat "
                f"JSON object such as {example(tool)}"
            )
        bad_names = [k for k in args if not isinstance(k, str)]
        if bad_names:
            raise BadArguments(
                f"parameter names must be strings, not {echo(bad_names[0])}; "
                f"parameters: {', '.join(tool.properties)}"
            )
        if self.profile.rename is not None:
            out = self.profile.rename(tool, args)
        else:
            # An explicit null means "not given".
            out = {k: v for k, v in args.items() if v is not None}
        found = itertools.islice(
            self._validators[tool.name].iter_errors(out), 4 * MAX_EXPLAINED_ERRORS
        )
        errors = sorted(found, key=lambda e: [str(p) for p in e.path])
        if errors:
            raise BadArguments(explain(tool, errors))
        for key in tool.path_parameters:
            if isinstance(out.get(key), str):
                out[key] = self.path_argument(key, out[key])
        for key in tool.text_parameters:
            if isinstance(out.get(key), str):
                try:
                    check_writable_text(key, out[key])
                except InvalidArgumentError as exc:
                    raise BadArguments(str(exc)) from None
        return out

    def path_argument(self, key: str, value: str) -> str:
        r"""A path as given if a file by that name exists, else with its `\xNN` escapes
        decoded (the form tool text shows non-UTF-8 file names in)."""
        if "\\x" in value and not os.path.lexists(self.root / value):
            value = unescape_path(value)
        try:
            os.fsencode(value)
        except UnicodeError:
            raise BadArguments(
                f"{key} {echo(value)} is not a possible file name: it holds a lone surrogate; "
                r"pass the path as text (a byte that is not UTF-8 as \xNN, e.g. t\xff.txt, as "
                "tool output shows it)"
            ) from None
        return value


def example(tool: Tool) -> str:
    """A minimal valid-looking argument object for `tool`, for error messages."""
    if tool.example:
        return tool.example
    if not tool.required:
        return "{}"
    first = tool.required[0]
    return json.dumps({first: "TODO" if first in ("pattern", "query", "regex") else "..."})


def explain(tool: Tool, errors: list[jsonschema.ValidationError]) -> str:
    allowed = ", ".join(tool.properties)
    problems = []
    for error in errors[:MAX_EXPLAINED_ERRORS]:
        where = ".".join(str(p) for p in error.absolute_path)
        if error.validator == "additionalProperties" and not error.absolute_path:
            unknown = sorted(set(error.instance) - set(tool.properties), key=str)
            problems.append(f"unknown parameter {', '.join(echo(u) for u in unknown[:5])}")
        elif error.validator == "required":
            prefix = f"{where}: " if where else ""
            problems.append(prefix + error.message.replace("is a required property", "is required"))
        else:
            problems.append(f"{where or 'arguments'}: {cut(error.message)}")
    return f"invalid arguments: {'; '.join(problems)}. Parameters: {allowed}."


def parse_json(raw: str | bytes | bytearray) -> Any:
    """Arguments handed over as JSON text, as model APIs do."""
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except RecursionError:
        raise BadArguments(
            f"arguments are nested more than {MAX_ARGUMENT_DEPTH} levels deep; pass a flat JSON "
            'object such as {"pattern": "TODO"}'
        ) from None
    except json.JSONDecodeError as exc:
        raise BadArguments(
            f"arguments are not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); "
            'pass a JSON object such as {"pattern": "TODO"}'
        ) from None
    except UnicodeDecodeError:
        raise BadArguments(
            'arguments are not UTF-8 text; pass a JSON object such as {"pattern": "TODO"}'
        ) from None
    except ValueError:  # a number with thousands of digits
        raise BadArguments(
            "arguments hold a number too long to read; pass numbers of at most a few digits"
        ) from None


def json_kind(value: object) -> str:
    kinds = {str: "a string", list: "an array", bool: "a boolean", int: "a number"}
    if value is None:
        return "null"
    for kind, name in kinds.items():
        if isinstance(value, kind):
            return name
    return "a number" if isinstance(value, float) else f"a {type(value).__name__}"


def longest_list_over(value: object, limit: int) -> tuple[str, int] | None:
    """The first list found in `value` holding more than `limit` items, as `(where, length)`
    (`where` the parameter's name), else None. A list's length is read before any of its
    items, so an oversized one costs nothing to refuse."""
    stack: list[tuple[object, str, int]] = [(value, "the arguments", 0)]
    while stack:
        item, where, depth = stack.pop()
        if depth > MAX_ARGUMENT_DEPTH:
            continue  # refused for its depth next
        if isinstance(item, Mapping):
            for key, child in item.items():
                name = echo(key) if depth == 0 else where
                stack.append((child, name, depth + 1))
        elif isinstance(item, list | tuple):
            if len(item) > limit:
                return where, len(item)
            stack.extend(
                (child, where, depth + 1)
                for child in item
                if isinstance(child, list | tuple | Mapping)
            )
    return None


def deeper_than(value: object, limit: int) -> bool:
    """Whether containers nest more than `limit` levels deep in `value` (iteratively: a
    recursive walk is what fails on hostile input; a container that holds itself counts as
    infinitely deep)."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, Mapping):
            children: Any = item.values()
        elif isinstance(item, list | tuple | set | frozenset):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False
