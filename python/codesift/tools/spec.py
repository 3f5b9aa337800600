"""What a profile is made of: `Tool` (one tool's name, schema and handler) and `Profile` (one
agent's set of tools, with how it resolves names and renames arguments), and `declared_profile`,
which makes a profile of its data file and its handlers."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import TYPE_CHECKING, Any

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
    arguments whose text is written to files (it must be encodable). `read_only` says
    whether the tool can change the workspace.
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


#: A tool's fields that a profile's data file gives as JSON arrays.
_NAME_LISTS = ("required", "output_required", "path_parameters", "text_parameters")


def declared_profile(
    module: str,
    handlers: Mapping[str, Handler],
    *,
    output: Callable[[str], Mapping[str, Any] | None] = lambda name: None,
    **behaviour: Any,
) -> Profile:
    """The profile the module `module` (a module of `codesift.tools.profiles`) declares in its
    data file, the JSON file of the same name beside it, with `handlers` answering its tools.

    The data file is what the profile publishes and what it says of itself: the `Profile`'s
    text fields (`name`, `summary`, `instructions`, ...), and `tools`, each one a `Tool`'s
    fields but the handler (`name`, `description`, `properties`, `required`, the names of path
    and text parameters, `output_required`, `read_only`, `example`). `handlers` maps every tool
    name to its handler, `output` a tool name to its result's complete schema (None: none), and
    `behaviour` holds the Profile's other fields (`rename`, `aliases`, ...)."""
    package, _, stem = module.rpartition(".")
    data = json.loads(resources.files(package).joinpath(f"{stem}.json").read_text("utf-8"))
    declared = data.pop("tools")
    names = [entry["name"] for entry in declared]
    if sorted(names) != sorted(handlers):
        raise ValueError(f"{module}: tools {names} and handlers {list(handlers)} differ")
    tools = []
    for entry in declared:
        lists = {key: tuple(entry.get(key, ())) for key in _NAME_LISTS}
        named = {*lists["required"], *lists["path_parameters"], *lists["text_parameters"]}
        unknown = named - set(entry["properties"])
        if unknown:
            raise ValueError(f"{module}: {entry['name']} lists parameters it lacks: {unknown}")
        tools.append(
            Tool(
                **{**entry, **lists},
                handler=handlers[entry["name"]],
                output=output(entry["name"]),
            )
        )
    return Profile(**data, tools=tuple(tools), **behaviour)
