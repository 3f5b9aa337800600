"""What a tool call gives back (`ToolResult`) and the one way failures become results."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..text.escapes import escape_surrogates

#: Longest echo of a bad value (a tool name, a schema message) in an error text.
MAX_ECHO_CHARS = 200


@dataclass(frozen=True)
class ToolResult:
    """What a tool call gives back: `text` for the model, `data` (JSON-ready) for programs."""

    text: str
    data: dict[str, Any] | None
    is_error: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "data": self.data, "is_error": self.is_error}


def error_result(message: str, kind: str, *, template: str = "Error: {message}") -> ToolResult:
    """A failed call: the message in `template` as text, `{"error": {type, message}}` as
    data."""
    message = escape_surrogates(message)
    return ToolResult(
        text=template.replace("{message}", message),
        data={"error": {"type": kind, "message": message}},
        is_error=True,
    )


def cut(text: str, limit: int = MAX_ECHO_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def echo(value: object) -> str:
    """A bad value shown in an error: its repr, cut short (it may be huge)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    try:
        return cut(repr(value))
    except Exception:
        return f"a {type(value).__name__}"
