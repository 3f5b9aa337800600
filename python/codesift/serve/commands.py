"""The command language of `POST /api/agent`: one line (or a few) such as
`Search 'regex' 'getUser\\(' in src` turned into one tool call.

Grammar (keywords are case-insensitive; `[...]` is optional, `|` an alternative)::

    command  := read | list | glob | search | replace | text
    read     := ("Read" | "Open" | "Cat" | "View") PATH[":"START["-"END]]
    list     := ("List" | "Ls") [DIR | GLOB] ["in" DIR]
    glob     := ("Glob" | "Find") GLOB ["in" DIR]
    search   := ("Search" | "Grep") {FLAG} PATTERN ["in" PATH]
    replace  := "Replace" OLD "with" NEW "in" FILE
    FLAG     := "regex" | "case-sensitive" | "contains" | "case-insensitive"  (quoted or not)
    PATH, DIR, GLOB, PATTERN, OLD, NEW, FILE := STRING | WORDS
    STRING   := "'" ... "'" | '"' ... '"'   (\\' \\" and \\\\ are escapes; any other
                                             backslash is kept, so '\\d+' is the regex \\d+)
    WORDS    := unquoted words, taken verbatim from the prompt (spaces included)
    text     := anything else: searched for as plain text

`in` and `with` separate parts only where they are unquoted words; quote a part that
contains them. A flag is a flag only while a pattern still follows it (`Search regex` looks
for the word "regex").

Routing (`tool="auto"`): the keyword picks the tool; `List` of a glob (`*?[{`) is a glob
search; `List` of a file lists that one file; `Read` of a directory lists it; a prompt without
a keyword is a plain-text search. With an explicit `tool` the prompt may leave the keyword
out (`tool="read"`, `src/a.py:1-20`); a keyword for another tool is an error.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidArgumentError

#: How a path probe answers: "file", "dir" or None (missing or not reachable).
PathKind = Callable[[str], str | None]

TOOL_CHOICES = ("auto", "read", "list", "glob", "search", "replace")

VERBS = {
    "read": "read",
    "open": "read",
    "cat": "read",
    "view": "read",
    "list": "list",
    "ls": "list",
    "glob": "glob",
    "find": "glob",
    "search": "search",
    "grep": "search",
    "replace": "replace",
}

FLAGS = {
    "regex": ("regex", True),
    "contains": ("regex", False),
    "literal": ("regex", False),
    "case-sensitive": ("case_sensitive", True),
    "case-insensitive": ("case_sensitive", False),
}

ACCEPTED_FORMS = (
    "Read PATH[:START-END]",
    "List DIR  |  List GLOB (e.g. List src/**/*.java)",
    "Glob PATTERN [in DIR]",
    "Search ['regex'] ['case-sensitive'] 'PATTERN' [in PATH]",
    "Replace 'OLD' with 'NEW' in FILE",
    "or any other text, which is searched for as plain text",
)

GLOB_CHARS = re.compile(r"[*?\[{]")

#: Search options a caller (the page) may add to a search: name -> accepted Python type.
SEARCH_OPTIONS: Mapping[str, type | tuple[type, ...]] = {
    "regex": bool,
    "case_sensitive": bool,
    "include": (str, list),
    "exclude": (str, list),
    "context_lines": int,
    "max_matches": int,
    "path": str,
}


class CommandError(InvalidArgumentError):
    """A prompt that is not a command; the message ends with the accepted forms."""

    def __init__(self, problem: str) -> None:
        forms = "\n".join(f"  {form}" for form in ACCEPTED_FORMS)
        super().__init__(f"{problem}. Accepted forms:\n{forms}")
        self.problem = problem


@dataclass(frozen=True)
class ToolCall:
    """What a prompt means: a tool (canonical name), its arguments, and a note when routing
    chose another tool than the keyword named."""

    tool: str
    arguments: dict[str, Any]
    note: str | None = None


@dataclass(frozen=True)
class _Token:
    value: str
    quoted: bool
    start: int
    end: int

    def word(self, text: str) -> bool:
        return not self.quoted and self.value.lower() == text


@dataclass
class _Parsed:
    verb: str
    tokens: list[_Token] = field(default_factory=list)


def plan(
    prompt: str,
    tool: str = "auto",
    *,
    kind_of: PathKind | None = None,
    options: Mapping[str, Any] | None = None,
) -> ToolCall:
    """The tool call a prompt stands for. `kind_of` tells files from directories for the
    routing fallbacks (without it, none apply); `options` are search options (`regex`,
    `case_sensitive`, `include`, `exclude`, `context_lines`, `max_matches`, `path`) applied
    when the prompt is a search. Raises `CommandError` (an `InvalidArgumentError`)."""
    if not isinstance(prompt, str):
        raise CommandError("prompt must be a string")
    if not isinstance(tool, str) or tool.strip().lower() not in TOOL_CHOICES:
        raise InvalidArgumentError(
            f"tool must be one of {', '.join(TOOL_CHOICES)}, not {str(tool)[:40]!r}"
        )
    tool = tool.strip().lower()
    search_options = _check_options(options or {})
    source = prompt.strip()
    if not source:
        raise CommandError("the prompt is empty")
    tokens = _tokenize(source)
    keyword = tokens[0].value.lower() if not tokens[0].quoted else None
    verb = VERBS.get(keyword or "")
    if verb is not None:
        rest = tokens[1:]
        if tool != "auto" and verb != tool and {verb, tool} != {"list", "glob"}:
            raise CommandError(
                f"the prompt is a {tokens[0].value} command but the tool is {tool}; choose "
                f"auto or {verb}, or leave the keyword out"
            )
    else:
        verb = "search" if tool == "auto" else tool
        rest = tokens
    parsed = _Parsed(verb, rest)
    if verb == "read":
        return _read(parsed, source, kind_of if tool == "auto" else None)
    if verb in ("list", "glob"):
        return _list(parsed, source, kind_of)
    if verb == "search":
        return _search(parsed, source, search_options, bare=keyword not in VERBS)
    return _replace(parsed, source)


# -- the commands ------------------------------------------------------------------------


def _read(parsed: _Parsed, source: str, kind_of: PathKind | None) -> ToolCall:
    if not parsed.tokens:
        raise CommandError("Read needs a file, e.g. Read src/app.py or Read src/app.py:10-40")
    path = _part(parsed.tokens, source, "the file to read")
    if kind_of is not None:
        if kind_of(path) == "dir":
            return ToolCall("list_dir", {"path": path}, f"{path} is a directory, so it was listed")
        if GLOB_CHARS.search(path) and kind_of(path) is None:
            return ToolCall(
                "glob_search",
                {"pattern": path},
                f"{path} is a pattern, so matching files are listed",
            )
    return ToolCall("read_file", {"path": path})


def _list(parsed: _Parsed, source: str, kind_of: PathKind | None) -> ToolCall:
    tokens, where = _split_last(parsed.tokens, "in", source)
    if not tokens:
        if parsed.verb == "glob":
            raise CommandError("Glob needs a pattern, e.g. Glob src/**/*.ts")
        return ToolCall("list_dir", {"path": "."})
    if parsed.verb == "list" and len(tokens) == 2 and tokens[0].word("in"):
        tokens = tokens[1:]  # "List in src" lists src
    target = _part(tokens, source, "the directory or pattern")
    if parsed.verb == "glob" or GLOB_CHARS.search(target) or where is not None:
        arguments: dict[str, Any] = {"pattern": target}
        if where is not None:
            arguments["path"] = where
        return ToolCall("glob_search", arguments)
    if kind_of is not None and kind_of(target) == "file":
        return ToolCall(
            "glob_search", {"pattern": target}, f"{target} is a file, so that one file is listed"
        )
    return ToolCall("list_dir", {"path": target})


def _search(parsed: _Parsed, source: str, options: dict[str, Any], *, bare: bool) -> ToolCall:
    flags: dict[str, bool] = {}
    if bare:
        # Text without a keyword is searched for as it stands (quotes around all of it go).
        tokens, where = parsed.tokens, None
        if len(tokens) == 1 and tokens[0].quoted:
            pattern = tokens[0].value
        else:
            pattern = source[tokens[0].start : tokens[-1].end] if tokens else ""
    else:
        tokens, where = _split_last(parsed.tokens, "in", source)
        while len(tokens) > 1 and tokens[0].value.lower() in FLAGS:
            name, value = FLAGS[tokens[0].value.lower()]
            flags[name] = value
            tokens = tokens[1:]
        if not tokens:
            raise CommandError("Search needs a pattern, e.g. Search 'getUser' in src")
        pattern = _part(tokens, source, "the pattern")
    if pattern == "":
        raise CommandError("the search pattern is empty")
    regex = flags.get("regex", options.get("regex", False))
    case_sensitive = flags.get("case_sensitive", options.get("case_sensitive", False))
    arguments: dict[str, Any] = {
        "pattern": pattern,
        "literal": not regex,
        "case_sensitive": case_sensitive,
    }
    path = where if where is not None else options.get("path")
    if path is not None:
        arguments["path"] = path
    for key in ("include", "exclude", "context_lines", "max_matches"):
        if key in options and options[key] not in (None, "", []):
            arguments[key] = options[key]
    return ToolCall("grep_search", arguments)


def _replace(parsed: _Parsed, source: str) -> ToolCall:
    usage = "write Replace 'OLD' with 'NEW' in FILE"
    tokens, path = _split_last(parsed.tokens, "in", source)
    if path is None:
        raise CommandError(f"Replace needs the file: {usage}")
    splits = [i for i, t in enumerate(tokens) if t.word("with")]
    if not splits:
        raise CommandError(f"Replace needs 'with' between the old and the new text: {usage}")
    if len(splits) > 1:
        quoted = [i for i in splits if 0 < i < len(tokens) - 1]
        if len(quoted) != 1:
            raise CommandError(f"'with' occurs more than once; quote the texts: {usage}")
        splits = quoted
    at = splits[0]
    if at == 0 or at == len(tokens) - 1:
        raise CommandError(f"Replace needs both an old and a new text: {usage}")
    old = _part(tokens[:at], source, "the old text")
    new = _part(tokens[at + 1 :], source, "the new text")
    if old == "":
        raise CommandError("the old text is empty; say what to replace")
    if old == new:
        raise CommandError("the old and the new text are the same; nothing would change")
    return ToolCall("edit", {"path": path, "old_string": old, "new_string": new})


# -- tokens --------------------------------------------------------------------------------


def _tokenize(source: str) -> list[_Token]:
    """Words and quoted strings, with where each stands in `source`."""
    tokens: list[_Token] = []
    i, n = 0, len(source)
    while i < n:
        if source[i].isspace():
            i += 1
            continue
        start = i
        if source[i] in "'\"":
            quote = source[i]
            i += 1
            chars: list[str] = []
            while True:
                if i >= n:
                    raise CommandError(
                        f"the quote {quote} at character {start + 1} is never closed; close it "
                        f"or write a quote inside the text as \\{quote}"
                    )
                c = source[i]
                if c == "\\" and i + 1 < n and source[i + 1] in (quote, "\\"):
                    chars.append(source[i + 1])
                    i += 2
                elif c == quote:
                    i += 1
                    break
                else:
                    chars.append(c)
                    i += 1
            if i < n and not source[i].isspace():
                raise CommandError(
                    f"the quoted text ending at character {i} is followed by "
                    f"{source[i : i + 10]!r}; put a space after the closing quote"
                )
            tokens.append(_Token("".join(chars), True, start, i))
        else:
            while i < n and not source[i].isspace():
                i += 1
            tokens.append(_Token(source[start:i], False, start, i))
    return tokens


def _split_last(tokens: list[_Token], keyword: str, source: str) -> tuple[list[_Token], str | None]:
    """Splits `... KEYWORD PART` at the last unquoted keyword followed by exactly one part
    (a quoted string or a word); returns the tokens before it and the part."""
    if len(tokens) >= 3 and tokens[-2].word(keyword):
        return tokens[:-2], tokens[-1].value
    return tokens, None


def _part(tokens: list[_Token], source: str, what: str) -> str:
    """One argument: a single token, or unquoted words taken verbatim from the source."""
    if len(tokens) == 1:
        return tokens[0].value
    if any(t.quoted for t in tokens):
        raise CommandError(
            f"{what} is partly quoted ({source[tokens[0].start : tokens[-1].end]!r}); quote "
            "all of it as one string"
        )
    return source[tokens[0].start : tokens[-1].end]


def _check_options(options: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(options, Mapping):
        raise InvalidArgumentError("options must be a JSON object")
    out: dict[str, Any] = {}
    for key, value in options.items():
        expected = SEARCH_OPTIONS.get(key)
        if expected is None:
            raise InvalidArgumentError(
                f"unknown option {str(key)[:40]!r}; options are {', '.join(SEARCH_OPTIONS)}"
            )
        if value is None:
            continue
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise InvalidArgumentError(f"option {key} has the wrong type ({type(value).__name__})")
        out[key] = value
    return out


__all__ = ["ACCEPTED_FORMS", "TOOL_CHOICES", "CommandError", "ToolCall", "plan"]
