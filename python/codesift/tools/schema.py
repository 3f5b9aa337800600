"""The JSON-schema fragments the profiles' tool parameters are made of, built one way: a
parameter is its type, its bounds and the agent's own description (in that order: the
schemas a profile publishes stay byte for byte what the agent publishes).

A fragment can also say what the tool does with its argument, which is not published: that
it is required, a workspace path (`path`) or text written to a file (`text`). A `Tool` adds
those to its `required`, `path_parameters` and `text_parameters`, so that a parameter's name
is written once, where the parameter is declared."""

from __future__ import annotations

from typing import Any


class Parameter(dict[str, Any]):
    """A parameter's JSON Schema (the dict itself, as published) and, apart from it, whether
    it is `required` and its `role` ("path", "text" or None)."""

    def __init__(
        self, schema: dict[str, Any], *, required: bool = False, role: str | None = None
    ) -> None:
        super().__init__(schema)
        self.required = required
        self.role = role


def integer(description: str, *, minimum: int) -> dict[str, Any]:
    """An integer parameter of at least `minimum`."""
    return {"type": "integer", "minimum": minimum, "description": description}


def boolean(description: str) -> dict[str, Any]:
    return {"type": "boolean", "description": description}


def number(description: str) -> dict[str, Any]:
    return {"type": "number", "description": description}


def string(description: str, *, required: bool = False) -> dict[str, Any]:
    fragment = {"type": "string", "description": description}
    return Parameter(fragment, required=True) if required else fragment


def path(description: str | None = None, *, required: bool = False) -> dict[str, Any]:
    """A workspace path (its `\\xNN` escapes are decoded when no file has that literal name);
    a string, described unless `description` is None."""
    return Parameter(_string(description), required=required, role="path")


def text(description: str | None = None, *, required: bool = False) -> dict[str, Any]:
    """Text the tool writes to a file (it must be encodable); a string, described unless
    `description` is None."""
    return Parameter(_string(description), required=required, role="text")


def _string(description: str | None) -> dict[str, Any]:
    if description is None:
        return {"type": "string"}
    return {"type": "string", "description": description}


def required(schema: dict[str, Any]) -> dict[str, Any]:
    """Any parameter's schema, required."""
    return Parameter(schema, required=True)
