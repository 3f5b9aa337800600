"""What a profile is made of: `Tool` (one tool's name, schema and handler) and `Profile` (one
agent's set of tools, with how it resolves names and renames arguments)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .schema import Parameter

if TYPE_CHECKING:
    from ..errors.hints import Option
    from .tool_result import ToolResult
    from .toolbox import Toolbox

Handler = Callable[["Toolbox", dict[str, Any]], "ToolResult"]


@dataclass(frozen=True)
class Tool:
    """One tool as a model sees it, and the function that answers it.

    `properties`/`required` are the JSON Schema of the arguments (an object; unknown
    parameters are refused). `path_parameters` name arguments that are workspace paths (their
    `\\xNN` escapes are decoded when no file has that literal name); `text_parameters` name
    arguments whose text is written to files (it must be encodable). A parameter can say so
    of itself where it is declared (`schema.path`, `schema.text`, `required=True`: see
    `codesift.tools.schema`); those join the three lists. `read_only` says whether the tool
    can change the workspace.
    """

    name: str
    description: str
    properties: Mapping[str, Any]
    handler: Handler
    required: tuple[str, ...] = ()
    output_required: tuple[str, ...] = ()
    path_parameters: tuple[str, ...] = ()
    text_parameters: tuple[str, ...] = ()
    read_only: bool = True
    #: A valid argument object, as JSON text, shown in argument errors ("" = made up from
    #: the required parameters).
    example: str = ""
    #: The complete JSON Schema of the result's data, when the tool has one (else an object
    #: with `output_required`).
    output: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        # What a parameter declares of itself (`schema.path`, `schema.text`, `required=True`)
        # joins the lists above, in the order of the properties; the published schema is
        # the parameter's plain dict.
        declared = {n: p for n, p in self.properties.items() if isinstance(p, Parameter)}
        if not declared:
            return

        def joined(given: tuple[str, ...], says: Callable[[Parameter], bool]) -> tuple[str, ...]:
            return tuple(
                n for n in self.properties if n in given or (n in declared and says(declared[n]))
            )

        settle = object.__setattr__  # a frozen dataclass sets its own fields this way
        settle(self, "required", joined(self.required, lambda p: p.required))
        settle(self, "path_parameters", joined(self.path_parameters, lambda p: p.role == "path"))
        settle(self, "text_parameters", joined(self.text_parameters, lambda p: p.role == "text"))
        settle(self, "properties", {n: dict(p) for n, p in self.properties.items()})

    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": dict(self.properties),
            "required": list(self.required),
            "additionalProperties": False,
        }

    def output_schema(self) -> dict[str, Any]:
        if self.output is not None:
            return dict(self.output)
        return {"type": "object", "required": list(self.output_required)}


def tools_of(
    specs: Mapping[str, Mapping[str, Any]],
    handlers: Mapping[str, Handler],
    output_required: Mapping[str, tuple[str, ...]],
    *,
    read_only: Callable[[str], bool],
    examples: Mapping[str, str] | None = None,
    output: Callable[[str], Mapping[str, Any] | None] = lambda name: None,
) -> tuple[Tool, ...]:
    """A profile's tools, in the order of `specs`: each name's spec (its `description` and
    JSON Schema `properties`, whose parameters say which are required) with its handler,
    output fields, example and output schema by the same name."""
    return tuple(
        Tool(
            name=name,
            description=spec["description"],
            properties=spec["properties"],
            handler=handlers[name],
            output_required=output_required[name],
            read_only=read_only(name),
            example=(examples or {}).get(name, ""),
            output=output(name),
        )
        for name, spec in specs.items()
    )


@dataclass(frozen=True)
class Profile:
    """One agent's tool set.

    Names resolve exactly, then case-insensitively (with `-`/space read as `_`), then through
    `aliases` (lower-case alias → tool name). `refused` maps a lower-case name to the error
    given for it (a name that means different things in different agents). `rename` rewrites
    a tool's arguments (other agents' parameter names) before validation; it returns a new
    dict and raises `BadArguments` when two names for one parameter disagree.
    """

    name: str
    summary: str
    tools: tuple[Tool, ...]
    instructions: str
    aliases: Mapping[str, str] = field(default_factory=dict)
    refused: Mapping[str, str] = field(default_factory=dict)
    rename: Callable[[Tool, Mapping[Any, Any]], dict[str, Any]] | None = None
    #: How an error's text reads (`{message}` is the message): "Error: {message}" for most
    #: agents.
    error_format: str = "Error: {message}"
    #: How a capped output tells the model to read the rest, in this profile's own read
    #: tool (formatted with `spill`, the file, and `offset`, the first line not shown).
    spill_hint: str = 'read_file(path="{spill}", offset={offset})'
    #: The tool that answers a call of an unknown name (with `{"tool": name}`), for agents
    #: whose tool set has one (opencode's `invalid`); None: the call is an error result.
    unknown_tool: str | None = None
    #: How this profile names the options an error's hints need, by concept (a tool's
    #: parameter or another tool: `codesift.errors.hints.Option`); None: the names the agents'
    #: tool sets share (`error_hints.DEFAULT_OPTIONS`). Only those the called tool's schema
    #: has (or the profile's tools) are ever named.
    hint_options: Mapping[str, tuple[Option, ...]] | None = None

    def tool(self, name: str) -> Tool:
        for tool in self.tools:
            if tool.name == name:
                return tool
        raise KeyError(name)

    @property
    def names(self) -> list[str]:
        return [tool.name for tool in self.tools]

    def resolve(self, name: object) -> str | None:
        """The tool `name` stands for in this profile, or None."""
        if not isinstance(name, str):
            return None
        if name in self.names:
            return name
        key = name.strip().lower().replace("-", "_").replace(" ", "_")
        for tool in self.tools:
            if tool.name.lower().replace("-", "_") == key:
                return tool.name
        return self.aliases.get(key) or self.aliases.get(key.removeprefix("codesift_"))

    def refusal(self, name: object) -> str | None:
        """The error for a name this profile refuses to guess about, or None."""
        if not isinstance(name, str):
            return None
        key = name.strip().lower().replace("-", "_").replace(" ", "_")
        return self.refused.get(key) or self.refused.get(key.removeprefix("codesift_"))
