"""Errors rendered per surface. An error's hints name the options they need by concept
(`codesift.errors.Concept`: a literal search, replacing every occurrence, reading the region
first...); each surface names each concept in its own words, or leaves the advice out where
it has no such option:

- a tool profile: a parameter of the tool that was called (`literal=true`, `replaceAll=true`,
  `fixed_strings=true`), or another of the profile's tools (`Read`, `list_directory`), found
  in the profile's own schemas (`tool_options`, `render_for_tool`);
- the CLI: its flags and commands (`-F (--fixed-strings)`, `codesift read`:
  `render_cli_error`);
- HTTP: the JSON fields of its requests (`render_http_error`).

Line breaks in a problem (a regex's caret line, the region to copy) are kept as they are.
This module is imported only when there is an error to show, and imports nothing heavy.
"""

from __future__ import annotations

from . import Concept, hints_of, message_in, problem_of, render_hint

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from typing import Any


class Option:
    """How a tool profile can name a concept: a parameter of the called tool (`parameter`,
    shown as `parameter=value`, or alone when `value` is None), or one of the profile's tools
    (`tool`). It applies only where the called tool's schema has the parameter, or the
    profile has the tool."""

    __slots__ = ("parameter", "tool", "value")

    def __init__(
        self, parameter: str | None = None, value: str | None = "true", *, tool: str | None = None
    ) -> None:
        self.parameter = parameter
        self.value = value
        self.tool = tool

    def __repr__(self) -> str:
        if self.tool is not None:
            return f"Option(tool={self.tool!r})"
        return f"Option({self.parameter!r}, {self.value!r})"

    def phrase(self) -> str:
        if self.tool is not None:
            return self.tool
        return str(self.parameter) if self.value is None else f"{self.parameter}={self.value}"


_GLOB = '"*.ext"'

#: The options a profile's tools may have for each concept, under the names the agents' tool
#: sets use; a profile can give its own (`Profile.hint_options`). Only those the called tool
#: (or the profile) has are named, the first that applies for each concept.
DEFAULT_OPTIONS: dict[str, tuple[Option, ...]] = {
    Concept.LITERAL: (Option("literal"), Option("fixed_strings"), Option("isRegex", "false")),
    Concept.MULTILINE: (Option("multiline"),),
    Concept.FILE_GLOB: tuple(
        Option(name, _GLOB)
        for name in ("include", "glob", "include_pattern", "file_pattern", "fileGlob")
    ),
    Concept.REPLACE_ALL: (Option("replace_all"), Option("replaceAll"), Option("allow_multiple")),
    Concept.HIT_ID: (Option("search_result_id", None), Option("searchResultId", None)),
    Concept.READ: tuple(
        Option(tool=name) for name in ("read_file", "Read", "read", "read_text_file")
    ),
    Concept.LIST_DIR: tuple(
        Option(tool=name) for name in ("list_dir", "list_directory", "list", "list_files")
    ),
    Concept.FIND_FILES: tuple(Option(tool=name) for name in ("glob_search", "Glob", "glob")),
    Concept.WRITE: tuple(
        Option(tool=name) for name in ("write_file", "Write", "write", "write_to_file")
    ),
    Concept.PATCH_FILE: (Option("path", "..."),),
}


def parameter_names(schema: Mapping[str, Any]) -> set[str]:
    """Every parameter name in a JSON Schema: its properties, and those of the objects in
    them (an array's items, a nested object), at any depth."""
    names: set[str] = set()
    pending = [schema]
    while pending:
        node = pending.pop()
        properties = node.get("properties")
        if isinstance(properties, dict):
            for name, sub in properties.items():
                names.add(name)
                if isinstance(sub, dict):
                    pending.append(sub)
        items = node.get("items")
        if isinstance(items, dict):
            pending.append(items)
    return names


def tool_parameters(profile: Any, tool_name: str | None) -> set[str]:
    """The parameter names of `profile`'s tool `tool_name` (none for a tool it lacks)."""
    if tool_name not in set(profile.names):
        return set()
    return parameter_names(profile.tool(tool_name).input_schema())


def tool_options(
    profile: Any, tool_name: str | None, parameters: set[str] | None = None
) -> Callable[[str], str | None]:
    """A profile's name for each concept when `tool_name` was called: the phrase of its first
    option the tool (or the profile) has, None when it has none. With no tool (an unknown
    one), only the profile's tools can be named. `parameters`: the tool's, when known."""
    options: Mapping[str, Iterable[Option]] = (
        getattr(profile, "hint_options", None) or DEFAULT_OPTIONS
    )
    tools = set(profile.names)
    if parameters is None:
        parameters = tool_parameters(profile, tool_name)

    def name_of(concept: str) -> str | None:
        for option in options.get(concept, ()):
            if option.tool is not None and option.tool in tools:
                return option.phrase()
            if option.parameter is not None and option.parameter in parameters:
                return option.phrase()
        return None

    return name_of


#: The library's names of an edit's two texts, and the names the agents' tools give them
#: (the first the called tool has is used where it has not the library's own).
TEXT_PARAMETERS: dict[str, tuple[str, ...]] = {
    "old_string": ("oldString", "oldText", "old_str", "searchContent"),
    "new_string": ("newString", "newText", "new_str", "replaceContent"),
}


def text_names(parameters: Iterable[str]) -> dict[str, str]:
    """What a tool with `parameters` calls an edit's texts, where it calls them otherwise
    than the library (`{"old_string": "oldString", ...}`)."""
    have = set(parameters)
    names = {}
    for library, theirs in TEXT_PARAMETERS.items():
        own = next((name for name in theirs if name in have), None)
        if library not in have and own is not None:
            names[library] = own
    return names


def texts_said(text: str, names: Mapping[str, str]) -> str:
    """`text` with the texts' names standing alone (not in a path such as `old_string.py`)
    said as `names` says them."""
    import re

    return re.sub(
        r"(?<![\w./-])(?:old_string|new_string)(?![\w./-])",
        lambda m: names.get(m.group(0), m.group(0)),
        text,
    )


def name_texts(error: BaseException, names: Mapping[str, str]) -> BaseException:
    """`error` with the texts' names in the first line of its problem said as `names` says
    them (`old_string` is `oldString` for opencode's edit, `OLD` for `codesift edit`). Only
    the first line: the lines after it may quote the file, exactly."""
    if not names:
        return error
    from . import reworded

    first, newline, rest = problem_of(error).partition("\n")
    said = texts_said(first, names)
    return error if said == first else reworded(error, said + newline + rest)


def render_for_tool(error: BaseException, profile: Any, tool_name: str | None) -> str:
    """`error`'s message as a tool of `profile` gives it: the edit's texts named as the tool
    names them, and its hints naming only parameters of `tool_name` and tools of the
    profile."""
    parameters = tool_parameters(profile, tool_name)
    named = name_texts(error, text_names(parameters))
    return message_in(named, tool_options(profile, tool_name, parameters))


#: The CLI's flags and commands for each concept (a hit id has none: no command takes one;
#: nor has writing a whole file).
CLI_OPTIONS: dict[str, str] = {
    Concept.LITERAL: "-F (--fixed-strings)",
    Concept.MULTILINE: "-U (--multiline)",
    Concept.FILE_GLOB: f"-g {_GLOB}",
    Concept.LIST_DIR: "codesift ls",
    Concept.FIND_FILES: "codesift glob",
    Concept.READ: "codesift read",
    Concept.REPLACE_ALL: "--replace-all",
    Concept.PATCH_FILE: "--path FILE",
}


#: The CLI's flags for the library's option names that an option check's problem names: the
#: checks (the library's and the engine's) open with the option ("max_matches must be at
#: least 1, not -1") or name it after "in" ("unknown file type "x" in type."), and say
#: "pass None" to mean leaving it out.
CLI_PARAMETERS: dict[str, str] = {
    "max_matches": "-m (--max-count)",
    "timeout": "--timeout",
    "context_lines": "-C (--context)",
    "before": "-B (--before-context)",
    "after": "-A (--after-context)",
    "budget_tokens": "--budget-tokens",
    "type": "-t (--type)",
    "type_not": "-T (--type-not)",
    "max_results": "-n (--max-results)",
    "limit": "--limit",
    "offset": "--offset",
    "threads": "-j (--threads)",
}


def name_parameters(problem: str, names: Mapping[str, str]) -> str:
    """`problem` with the option an option check names given its surface's name from
    `names` (unchanged where the option is not there, or the problem is no option check's)."""
    import re

    def named(match: re.Match[str]) -> str:
        return names.get(match.group(0), match.group(0))

    problem = re.sub(r"^\w+(?= must )", named, problem, count=1)
    problem = re.sub(r"(?<= in )type(_not)?(?=\.)", named, problem, count=1)
    leave_out = f"leave out {names.get('timeout', 'timeout')}"
    return problem.replace("pass None to search without", f"{leave_out} to search without")


def render_cli_error(error: BaseException) -> str:
    """`error`'s message as the `codesift` command prints it (after `codesift: `): its hints
    name the command's own flags and commands, an option check names the flag, and its
    line breaks are kept."""
    from . import InvalidArgumentError

    text = message_in(error, CLI_OPTIONS.get)
    if isinstance(error, InvalidArgumentError):
        text = name_parameters(text, CLI_PARAMETERS)
    return text


def error_fields(
    error: BaseException,
    name_of: Callable[[str], str | None],
    parameters: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """An error as a JSON answer's `error` object: its `type`, its whole `message`, and the
    same apart as data: `problem` (what went wrong) and `hints` (what to do next, each in
    the words `name_of` gives; an option check names its option from `parameters`)."""
    from . import InvalidArgumentError

    problem = problem_of(error)
    if parameters is not None and isinstance(error, InvalidArgumentError):
        problem = name_parameters(problem, parameters)
    hints = [text for text in (render_hint(h, name_of) for h in hints_of(error)) if text]
    message = message_in(error, name_of)
    if parameters is not None and isinstance(error, InvalidArgumentError):
        message = name_parameters(message, parameters)
    return {"type": type(error).__name__, "message": message, "problem": problem, "hints": hints}


def cli_error_fields(error: BaseException) -> dict[str, Any]:
    """`error_fields` in the command line's words (its `--json-full` error)."""
    return error_fields(error, CLI_OPTIONS.get, CLI_PARAMETERS)


def http_error_fields(error: BaseException) -> dict[str, Any]:
    """`error_fields` in HTTP's words: JSON fields and routes."""
    return error_fields(error, HTTP_OPTIONS.get)


#: HTTP's names for each concept: the fields of its JSON requests (`/api/preview`, the
#: tools' arguments) and its routes.
HTTP_OPTIONS: dict[str, str] = {
    Concept.LITERAL: '"literal": true',
    Concept.MULTILINE: '"multiline": true',
    Concept.FILE_GLOB: '"include": "*.ext"',
    Concept.LIST_DIR: "POST /api/tools/list_dir",
    Concept.FIND_FILES: "POST /api/tools/glob_search",
    Concept.READ: "POST /api/tools/read_file",
    Concept.REPLACE_ALL: '"replace_all": true',
    Concept.HIT_ID: '"search_result_id"',
    Concept.WRITE: "POST /api/tools/write_file",
    Concept.PATCH_FILE: '"path": "FILE"',
}


def render_http_error(error: BaseException) -> str:
    """`error`'s message as an HTTP route of `codesift serve` answers it (other than a tool
    call, which its profile renders): its hints name JSON fields and routes."""
    return message_in(error, HTTP_OPTIONS.get)


__all__ = [
    "CLI_OPTIONS",
    "CLI_PARAMETERS",
    "cli_error_fields",
    "error_fields",
    "http_error_fields",
    "name_parameters",
    "name_texts",
    "texts_said",
    "TEXT_PARAMETERS",
    "text_names",
    "DEFAULT_OPTIONS",
    "HTTP_OPTIONS",
    "Option",
    "hints_of",
    "parameter_names",
    "problem_of",
    "render_cli_error",
    "render_for_tool",
    "render_http_error",
    "tool_options",
    "tool_parameters",
]
