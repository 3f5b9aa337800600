"""A stand-in for the `anthropic` package in the documentation's examples: a scripted model
that asks for one grep_search call and then answers, so the example's tool loop really runs."""

from __future__ import annotations

from types import SimpleNamespace


class _Messages:
    def __init__(self) -> None:
        self.calls = 0

    def create(self, *, model: str, max_tokens: int, tools: list, messages: list):
        assert tools and all("input_schema" in t for t in tools), tools
        self.calls += 1
        if self.calls == 1:
            use = SimpleNamespace(
                type="tool_use", id="toolu_1", name="grep_search", input={"pattern": "getUser"}
            )
            return SimpleNamespace(content=[use])
        results = messages[-1]["content"]
        assert results[0]["type"] == "tool_result" and "getUser" in results[0]["content"]
        return SimpleNamespace(content=[SimpleNamespace(type="text", text="Done.")])


class Anthropic:
    def __init__(self, **_: object) -> None:
        self.messages = _Messages()
