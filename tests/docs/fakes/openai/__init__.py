"""A stand-in for the `openai` package in the documentation's examples: a scripted model that
asks for one grep_search call and then answers, so the example's tool loop really runs."""

from __future__ import annotations

import json
from types import SimpleNamespace


class _Completions:
    def __init__(self) -> None:
        self.calls = 0

    def create(self, *, model: str, messages: list, tools: list) -> SimpleNamespace:
        assert tools and all(t["type"] == "function" for t in tools), tools
        self.calls += 1
        if self.calls == 1:
            call = SimpleNamespace(
                id="call_1",
                type="function",
                function=SimpleNamespace(
                    name="grep_search", arguments=json.dumps({"pattern": "getUser"})
                ),
            )
            message = SimpleNamespace(role="assistant", content=None, tool_calls=[call])
        else:
            results = [m for m in messages if isinstance(m, dict) and m.get("role") == "tool"]
            assert results and "getUser" in results[-1]["content"], messages
            message = SimpleNamespace(role="assistant", content="Done.", tool_calls=None)
        return SimpleNamespace(choices=[SimpleNamespace(message=message)])


class OpenAI:
    def __init__(self, **_: object) -> None:
        self.chat = SimpleNamespace(completions=_Completions())
