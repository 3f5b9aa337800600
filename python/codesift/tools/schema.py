"""The JSON-schema fragments the profiles' tool parameters are made of, built one way: a
parameter is its type, its bounds and the agent's own description (in that order: the
schemas a profile publishes stay byte for byte what the agent publishes)."""

from __future__ import annotations

from typing import Any


def integer(description: str, *, minimum: int) -> dict[str, Any]:
    """An integer parameter of at least `minimum`."""
    return {"type": "integer", "minimum": minimum, "description": description}


def boolean(description: str) -> dict[str, Any]:
    return {"type": "boolean", "description": description}


def number(description: str) -> dict[str, Any]:
    return {"type": "number", "description": description}


def string(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}
