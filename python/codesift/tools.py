"""The LLM tool layer: tool schemas in the formats model APIs want, and a dispatcher that turns
any call (canonical or another agent's tool and parameter names) into a `ToolResult` and
never raises.

The recommended flow for a model: `grep_search`, then `edit` with a hit's
`search_result_id`; `old_string`/`new_string` is the compatibility mode.
"""

from __future__ import annotations

import itertools
import json
import os
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema

from .arguments import check_writable_text
from .errors import CodesiftError, InvalidArgumentError
from .escapes import escape_surrogates, unescape_path
from .output_schemas import output_schema
from .results import GrepResult, plural
from .sandbox import PathArg
from .workspace import Workspace

MAX_OUTPUT_LINES = 2000
MAX_OUTPUT_BYTES = 50 * 1024
MAX_LINE_CHARS = 250
LOCAL_HOSTS = frozenset({"", "local", "localhost", "127.0.0.1", "::1"})
#: Arguments nested deeper than this are refused before parsing or validation goes further
#: (the deepest real argument, a list of globs in the arguments object, is 2 levels deep).
MAX_ARGUMENT_DEPTH = 32
#: Argument errors explained at once (a hostile list can hold millions).
MAX_EXPLAINED_ERRORS = 5
#: Longest echo of a bad value (a tool name, a schema message) in an error text.
MAX_ECHO_CHARS = 200
#: Parameters that are paths in the workspace (taken literally if such a file exists, else
#: with `\xNN` escapes decoded: see `codesift.escapes`).
PATH_PARAMETERS = ("path",)
#: Parameters whose text is written to files: it must be encodable.
TEXT_PARAMETERS = ("content", "new_string")


@dataclass(frozen=True)
class ToolResult:
    """What a tool call gives back: `text` for the model, `data` (JSON-ready) for programs."""

    text: str
    data: dict[str, Any] | None
    is_error: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "data": self.data, "is_error": self.is_error}


# -- schemas -------------------------------------------------------------------------------

_HOST = {
    "type": "string",
    "description": "Remote host ([user@]host[:port], or several comma-separated) to search "
    "over SSH instead of the local workspace.",
}
_PATH_IN_WORKSPACE = "Path relative to the workspace root (absolute paths inside it work too)."

TOOLS: dict[str, dict[str, Any]] = {
    "grep_search": {
        "description": (
            "Search file contents with a regex (Rust syntax; literal=true for plain text). "
            "Case-insensitive unless case_sensitive=true. Each hit is one line "
            "`path:line:col [sr_id] text`. To change a hit, call edit with its "
            "search_result_id (the sr_id) and new_string: it replaces exactly that match."
        ),
        "properties": {
            "pattern": {"type": "string", "description": "Regex (or text with literal=true)."},
            "path": {"type": "string", "description": "Directory or file to search (default .)."},
            "include": {
                "type": ["string", "array"],
                "items": {"type": "string"},
                "description": 'Only files matching these globs, e.g. "*.ts" or ["*.ts","*.tsx"].',
            },
            "exclude": {
                "type": ["string", "array"],
                "items": {"type": "string"},
                "description": "Skip files or directories matching these globs.",
            },
            "literal": {"type": "boolean", "description": "Treat pattern as plain text."},
            "case_sensitive": {"type": "boolean"},
            "multiline": {
                "type": "boolean",
                "description": "Let matches span lines (automatic when the pattern has \\n).",
            },
            "context_lines": {"type": "integer", "minimum": 0, "maximum": 50},
            "max_matches": {"type": "integer", "minimum": 1, "maximum": 100000},
            "host": _HOST,
        },
        "required": ["pattern"],
    },
    "edit": {
        "description": (
            "Change a file. Preferred: {search_result_id, new_string} replaces exactly a hit "
            "from grep_search. Compatibility mode: {path, old_string, new_string} replaces "
            "old_string, which must match one place (whitespace differences are tolerated; "
            "replace_all=true changes every match)."
        ),
        "properties": {
            "search_result_id": {"type": "string", "description": "An sr_id from grep_search."},
            "new_string": {"type": "string", "description": "The replacement text."},
            "path": {"type": "string", "description": _PATH_IN_WORKSPACE},
            "old_string": {"type": "string", "description": "Exact text to replace."},
            "replace_all": {"type": "boolean"},
        },
        "required": ["new_string"],
    },
    "glob_search": {
        "description": (
            'Find files by glob pattern ("*.md" matches at any depth, "src/**/*.ts" under src). '
            "Honours .gitignore. Sorted by path unless sort is given."
        ),
        "properties": {
            "pattern": {"type": "string"},
            "path": {"type": "string", "description": "Directory to search (default .)."},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100000},
            "sort": {"type": "string", "enum": ["path", "mtime", "none"]},
            "host": _HOST,
        },
        "required": ["pattern"],
    },
    "read_file": {
        "description": (
            "Read a text file with line numbers. Use offset/limit (or path:START-END) for a "
            "part of a long file."
        ),
        "properties": {
            "path": {"type": "string", "description": _PATH_IN_WORKSPACE},
            "offset": {"type": "integer", "minimum": 1, "description": "First line (1-based)."},
            "limit": {"type": "integer", "minimum": 1, "description": "Lines to read (2000)."},
        },
        "required": ["path"],
    },
    "list_dir": {
        "description": "List one directory: subdirectories first (with /), then files.",
        "properties": {
            "path": {"type": "string", "description": "Directory (default .)."},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100000},
        },
        "required": [],
    },
    "write_file": {
        "description": "Create or overwrite a whole file (parent directories are created).",
        "properties": {
            "path": {"type": "string", "description": _PATH_IN_WORKSPACE},
            "content": {"type": "string"},
        },
        "required": ["path", "content"],
    },
}

TOOL_ALIASES = {
    "grep_search": (
        "grep",
        "search",
        "rg",
        "ripgrep",
        "search_files",
        "grep_files",
        "content_search",
        "search_file_content",
        "find_in_files",
    ),
    "glob_search": (
        "glob",
        "find",
        "find_files",
        "file_search",
        "glob_files",
        "search_file_names",
        "find_by_name",
        "glob_file_search",
    ),
    "read_file": ("read", "view", "cat", "open", "open_file", "read_text_file", "view_file"),
    "list_dir": ("list", "ls", "list_directory", "list_files", "dir", "list_dir_contents"),
    "edit": (
        "replace",
        "edit_file",
        "str_replace",
        "str_replace_editor",
        "search_replace",
        "replace_in_file",
        "apply_edit",
        "update_file",
        "edit_result",
    ),
    "write_file": ("write", "create", "create_file", "write_to_file", "save_file"),
}

# Other agents' parameter names, mapped onto the canonical ones (value unchanged).
PARAM_ALIASES = {
    "ip": "host",
    "filePath": "path",
    "file_path": "path",
    "filepath": "path",
    "target_file": "path",
    "directory": "path",
    "dir_path": "path",
    "fileGlob": "include",
    "file_glob": "include",
    "includePattern": "include",
    "searchResultId": "search_result_id",
    "result_id": "search_result_id",
    "searchContent": "old_string",
    "replaceContent": "new_string",
    "old_str": "old_string",
    "new_str": "new_string",
    "oldString": "old_string",
    "newString": "new_string",
    "replaceAll": "replace_all",
    "caseSensitive": "case_sensitive",
    "maxMatches": "max_matches",
    "maxResults": "max_matches",
    "contextLines": "context_lines",
    "query": "pattern",
    "regex": "pattern",
}
# Aliases whose value is negated: isRegex=true means literal=false.
NEGATED_ALIASES = {
    "isRegex": "literal",
    "is_regex": "literal",
    "ignore_case": "case_sensitive",
    "ignoreCase": "case_sensitive",
    "case_insensitive": "case_sensitive",
    "caseInsensitive": "case_sensitive",
}
# Per-tool aliases that mean different things elsewhere.
TOOL_PARAM_ALIASES = {"grep_search": {"glob": "include"}}


def _input_schema(name: str) -> dict[str, Any]:
    spec = TOOLS[name]
    return {
        "type": "object",
        "properties": spec["properties"],
        "required": spec["required"],
        "additionalProperties": False,
    }


def _output_schema(name: str) -> dict[str, Any]:
    return output_schema(name)


# -- the toolbox -----------------------------------------------------------------------------


class Toolbox:
    """codesift's tools over one workspace.

    Args:
        workspace: the `Workspace` every tool works in (and whose search cache edits use).
        remote: settings for `host` on glob/grep (a `codesift.remote.RemoteSettings`).
        spill_dir: where outputs over the size cap are saved (default: a new temp dir).
        max_output_lines / max_output_bytes: the cap on a result's text.
        max_line_chars: longer grep lines are shown as a window around the match.
    """

    def __init__(
        self,
        workspace: Workspace,
        *,
        remote: Any = None,
        spill_dir: PathArg | None = None,
        max_output_lines: int = MAX_OUTPUT_LINES,
        max_output_bytes: int = MAX_OUTPUT_BYTES,
        max_line_chars: int = MAX_LINE_CHARS,
    ) -> None:
        self.workspace = workspace
        self.remote = remote
        self._spill_root = Path(spill_dir) if spill_dir is not None else None
        self._spill_workspace: Workspace | None = None
        self._spill_count = 0
        self.max_output_lines = max_output_lines
        self.max_output_bytes = max_output_bytes
        self.max_line_chars = max_line_chars
        self._validators = {
            name: jsonschema.Draft202012Validator(_input_schema(name)) for name in TOOLS
        }
        self._handlers: dict[str, Callable[[dict[str, Any]], ToolResult]] = {
            "grep_search": self._grep,
            "glob_search": self._glob,
            "read_file": self._read,
            "list_dir": self._list,
            "edit": self._edit,
            "write_file": self._write,
        }
        self._aliases = {name: name for name in TOOLS}
        for name, aliases in TOOL_ALIASES.items():
            self._aliases.update(dict.fromkeys(aliases, name))

    @property
    def names(self) -> list[str]:
        return list(TOOLS)

    def description(self, name: str) -> str:
        return str(TOOLS[name]["description"])

    def input_schema(self, name: str) -> dict[str, Any]:
        return _input_schema(name)

    def output_schema(self, name: str) -> dict[str, Any]:
        return _output_schema(name)

    def schemas(self, format: str = "json") -> list[dict[str, Any]]:
        """The tools' JSON Schemas: `"json"` (name, description, parameters and output
        schema), `"openai"` (chat-completions `tools`) or `"anthropic"` (messages `tools`)."""
        out = []
        for name in TOOLS:
            description, schema = self.description(name), self.input_schema(name)
            if format == "openai":
                out.append(
                    {
                        "type": "function",
                        "function": {
                            "name": name,
                            "description": description,
                            "parameters": schema,
                        },
                    }
                )
            elif format == "anthropic":
                out.append({"name": name, "description": description, "input_schema": schema})
            elif format == "json":
                out.append(
                    {
                        "name": name,
                        "description": description,
                        "parameters": schema,
                        "output_schema": self.output_schema(name),
                    }
                )
            else:
                raise ValueError(f'format must be "json", "openai" or "anthropic", not {format!r}')
        return out

    def resolve_name(self, name: object) -> str | None:
        if not isinstance(name, str):
            return None
        key = name.strip().lower().replace("-", "_").replace(" ", "_")
        return self._aliases.get(key) or self._aliases.get(key.removeprefix("codesift_"))

    def call(self, name: str, args: Mapping[str, Any] | str | None = None) -> ToolResult:
        """Runs a tool. Never raises: bad names, bad arguments (including JSON that cannot be
        parsed, or is nested absurdly deep) and every failure come back as a `ToolResult` with
        `is_error=True` and a message saying what to do. Only `KeyboardInterrupt` and
        `SystemExit` pass through."""
        canonical: str | None = None
        try:
            canonical = self.resolve_name(name)
            if canonical is None:
                return _error(
                    f"Unknown tool {_echo(name)}. Available tools: {', '.join(TOOLS)}.",
                    "UnknownTool",
                )
            try:
                arguments = self._arguments(canonical, args)
            except _BadArguments as exc:
                return _error(f"{canonical}: {exc}", "InvalidArguments")
            return self._handlers[canonical](arguments)
        except CodesiftError as exc:
            return _error(str(exc), type(exc).__name__)
        except (KeyboardInterrupt, SystemExit):
            raise
        except RecursionError:
            return _error(
                f"{canonical or 'tool call'}: the arguments are nested too deeply to handle; "
                'pass a flat JSON object such as {"pattern": "TODO"}',
                "InvalidArguments",
            )
        except MemoryError:
            return _error(
                f"{canonical or 'tool call'}: out of memory; narrow the request (a smaller "
                "path, limit or max_matches)",
                "InternalError",
            )
        # Anything else is a bug (or an engine panic, which is a BaseException): reported in
        # one line, never as a traceback.
        except BaseException as exc:
            return _error(
                f"{canonical or 'tool call'} failed unexpectedly ({type(exc).__name__}: "
                f"{_first_line(exc)}); try different arguments, and please report it",
                "InternalError",
            )

    # -- arguments ---------------------------------------------------------------------------

    def _arguments(self, tool: str, args: Mapping[str, Any] | str | None) -> dict[str, Any]:
        if args is None:
            args = {}
        if isinstance(args, str | bytes | bytearray):
            args = _parse_json(args)
        if not isinstance(args, Mapping):
            raise _BadArguments(
                f"arguments must be a JSON object, not {_json_kind(args)}; "
                'pass e.g. {"pattern": "TODO"}'
            )
        if _deeper_than(args, MAX_ARGUMENT_DEPTH):
            raise _BadArguments(
                f"arguments are nested more than {MAX_ARGUMENT_DEPTH} levels deep; pass a flat "
                'JSON object such as {"pattern": "TODO", "include": ["*.py"]}'
            )
        names = list(args)
        bad_names = [k for k in names if not isinstance(k, str)]
        if bad_names:
            raise _BadArguments(
                f"parameter names must be strings, not {_echo(bad_names[0])}; "
                f"parameters: {', '.join(TOOLS[tool]['properties'])}"
            )
        out: dict[str, Any] = {}
        extra = TOOL_PARAM_ALIASES.get(tool, {})
        for key, value in args.items():
            if value is None:
                continue  # an explicit null means "not given"
            if key in NEGATED_ALIASES and NEGATED_ALIASES[key] in TOOLS[tool]["properties"]:
                target, value = (
                    NEGATED_ALIASES[key],
                    (not value if isinstance(value, bool) else value),
                )
            else:
                target = extra.get(key) or PARAM_ALIASES.get(key, key)
            if target in out and out[target] != value:
                raise _BadArguments(
                    f"{_echo(key)} and another name for {target!r} disagree; give one"
                )
            out[target] = value
        found = itertools.islice(self._validators[tool].iter_errors(out), 4 * MAX_EXPLAINED_ERRORS)
        errors = sorted(found, key=lambda e: [str(p) for p in e.path])
        if errors:
            raise _BadArguments(self._explain(tool, errors))
        for key in PATH_PARAMETERS:
            if isinstance(out.get(key), str):
                out[key] = self._path_argument(key, out[key])
        for key in TEXT_PARAMETERS:
            if isinstance(out.get(key), str):
                try:
                    check_writable_text(key, out[key])
                except InvalidArgumentError as exc:
                    raise _BadArguments(str(exc)) from None
        return out

    def _path_argument(self, key: str, value: str) -> str:
        r"""A path as given if a file by that name exists, else with its `\xNN` escapes
        decoded (the form tool text shows non-UTF-8 file names in)."""
        if "\\x" in value and not os.path.lexists(self.workspace.root / value):
            value = unescape_path(value)
        try:
            os.fsencode(value)
        except UnicodeError:
            raise _BadArguments(
                f"{key} {_echo(value)} is not a possible file name: it holds a lone surrogate; "
                r"pass the path as text (a byte that is not UTF-8 as \xNN, e.g. t\xff.txt, as "
                "tool output shows it)"
            ) from None
        return value

    def _explain(self, tool: str, errors: list[jsonschema.ValidationError]) -> str:
        allowed = ", ".join(TOOLS[tool]["properties"])
        problems = []
        for error in errors[:MAX_EXPLAINED_ERRORS]:
            where = ".".join(str(p) for p in error.absolute_path)
            if error.validator == "additionalProperties":
                unknown = sorted(set(error.instance) - set(TOOLS[tool]["properties"]), key=str)
                problems.append(f"unknown parameter {', '.join(_echo(u) for u in unknown[:5])}")
            elif error.validator == "required":
                problems.append(error.message.replace("is a required property", "is required"))
            else:
                problems.append(f"{where or 'arguments'}: {_cut(error.message)}")
        return f"invalid arguments: {'; '.join(problems)}. Parameters: {allowed}."

    # -- handlers --------------------------------------------------------------------------------

    def _local_only(self, args: dict[str, Any]) -> Any:
        host = args.pop("host", None)
        if host is None or str(host).strip().lower() in LOCAL_HOSTS:
            return None
        if self.remote is None:
            raise CodesiftError(
                f"host {host!r} given but remote search is not configured for this toolbox; "
                "search the local workspace (leave host out)"
            )
        return self.remote.workspace(str(host))

    def _edit_target(self, search_result_id: str) -> Any:
        """Where a search result lives: the local workspace, or the remote workspace (of the
        toolbox's remote settings) whose search returned it."""
        if self.remote is not None and self.workspace.cache.get(search_result_id) is None:
            owner = getattr(self.remote, "owner", None)
            found = owner(search_result_id) if owner is not None else None
            if found is not None:
                return found
        return self.workspace

    def _grep(self, args: dict[str, Any]) -> ToolResult:
        remote = self._local_only(args)
        target = remote if remote is not None else self.workspace
        result = target.grep(
            args.pop("pattern"),
            args.pop("path", "."),
            include=args.get("include"),
            exclude=args.get("exclude"),
            literal=args.get("literal", False),
            case_sensitive=args.get("case_sensitive", False),
            multiline=args.get("multiline"),
            context_lines=args.get("context_lines", 0),
            max_matches=args.get("max_matches", 500),
        )
        text, windowed = self._grep_text(result)
        return self._finish("grep_search", text, result.to_dict(), truncated=windowed)

    def _glob(self, args: dict[str, Any]) -> ToolResult:
        remote = self._local_only(args)
        target = remote if remote is not None else self.workspace
        result = target.glob(
            args["pattern"],
            args.get("path", "."),
            limit=args.get("limit", 2000),
            sort=args.get("sort", "path"),
        )
        lines = [result.summary]
        for f in result.files:
            host = getattr(f, "host", None)
            lines.append(f"{host}:{f.path}" if host else f.path)
        return self._finish("glob_search", "\n".join(lines), result.to_dict())

    def _read(self, args: dict[str, Any]) -> ToolResult:
        workspace = self._workspace_for(args["path"])
        result = workspace.read(
            args["path"], offset=args.get("offset", 1), limit=args.get("limit", 2000)
        )
        if result.end_line < result.start_line:
            text = result.summary
        elif result.truncated or result.long_lines:
            text = f"{result.content}\n\n{result.summary}"
        else:
            text = result.content
        return self._finish("read_file", text, result.to_dict(), allow_spill=False)

    def _list(self, args: dict[str, Any]) -> ToolResult:
        result = self.workspace.list_dir(args.get("path", "."), limit=args.get("limit", 1000))
        text = result.text or "(empty directory)"
        return self._finish("list_dir", text, result.to_dict())

    def _edit(self, args: dict[str, Any]) -> ToolResult:
        new = args["new_string"]
        if "search_result_id" in args:
            if "old_string" in args:
                raise _argument_error("give either search_result_id or old_string, not both")
            target = self._edit_target(args["search_result_id"])
            result = target.edit_result(args["search_result_id"], new, path=args.get("path"))
        elif "path" in args and "old_string" in args:
            result = self.workspace.edit(
                args["path"], args["old_string"], new, replace_all=args.get("replace_all", False)
            )
        else:
            raise _argument_error(
                "edit needs either {search_result_id, new_string} (preferred, after grep_search) "
                "or {path, old_string, new_string}"
            )
        return self._finish("edit", f"{result.summary}\n{result.diff}".rstrip(), result.to_dict())

    def _write(self, args: dict[str, Any]) -> ToolResult:
        result = self.workspace.write(args["path"], args["content"])
        return self._finish("write_file", result.summary, result.to_dict())

    # -- output ------------------------------------------------------------------------------------

    def _grep_text(self, result: GrepResult) -> tuple[str, bool]:
        """One line per hit, `path:line:col [sr_id] text`, grouped by file; context lines
        as `path-line- text`. Returns the text and whether a line was cut to a window."""
        lines = [result.summary]
        windowed = False
        current = None
        shown_context: set[tuple[str, int]] = set()
        hit_lines = {(m.file, m.line) for m in result.matches}
        for m in result.matches:
            prefix = f"{m.host}:{m.file}" if getattr(m, "host", None) else m.file
            if (m.host, m.file) != current:
                lines.append("")
                current = (m.host, m.file)
            for k, before in enumerate(m.before):
                number = m.line - len(m.before) + k
                if (prefix, number) not in shown_context and (m.file, number) not in hit_lines:
                    shown_context.add((prefix, number))
                    lines.append(f"{prefix}-{number}- {self._clip(before, 1, 0)[0]}")
            text, cut = self._clip(m.text, m.column, len(m.content))
            windowed |= cut
            lines.append(f"{prefix}:{m.line}:{m.column} [{m.id}] {text}")
            for k, after in enumerate(m.after):
                number = m.end_line + 1 + k
                if (prefix, number) not in shown_context and (m.file, number) not in hit_lines:
                    shown_context.add((prefix, number))
                    lines.append(f"{prefix}-{number}- {self._clip(after, 1, 0)[0]}")
        if result.errors:
            lines.append("")
            lines.extend(f"[host {h} failed: {msg}]" for h, msg in result.errors.items())
        return "\n".join(lines), windowed

    def _clip(self, text: str, column: int, length: int) -> tuple[str, bool]:
        """A window of at most `max_line_chars` characters around the match."""
        limit = self.max_line_chars
        if len(text) <= limit:
            return text, False
        start = max(0, min(column - 1 - (limit - min(length, limit)) // 2, len(text) - limit))
        window = text[start : start + limit]
        return ("…" if start else "") + window + ("…" if start + limit < len(text) else ""), True

    def _finish(
        self,
        tool: str,
        text: str,
        data: dict[str, Any],
        *,
        truncated: bool = False,
        allow_spill: bool = True,
    ) -> ToolResult:
        """Applies the output cap: over `max_output_lines` lines or `max_output_bytes` bytes,
        the text becomes a preview and the whole of it goes to a spill file. Lone surrogates
        (non-UTF-8 file names) are escaped in the text (`\\xff`); `data` keeps exact strings."""
        data = dict(data)
        text = escape_surrogates(text)
        lines = text.split("\n")
        size = len(text.encode())
        over = len(lines) > self.max_output_lines or size > self.max_output_bytes
        spill = None
        if over and allow_spill:
            spill = self._spill(tool, text)
            preview: list[str] = []
            used = 0
            for line in lines[: self.max_output_lines]:
                used += len(line.encode()) + 1
                if used > self.max_output_bytes:
                    break
                preview.append(line)
            shown = (
                f"the first {plural(len(preview), 'line is', 'lines are')} shown"
                if preview
                else "its first line alone is over the size cap, so none is shown"
            )
            text = "\n".join(preview) + (
                f"\n\n[TRUNCATED: output was {plural(len(lines), 'line')} "
                f"({plural(size, 'byte')}); {shown}. The full output is in {spill}; read it "
                f'with read_file(path="{spill}", offset={len(preview) + 1})]'
            )
            truncated = True
        data["truncated"] = bool(data.get("truncated")) or truncated
        data["spill_file"] = str(spill) if spill else None
        return ToolResult(text=text, data=data, is_error=False)

    def _spill(self, tool: str, text: str) -> Path:
        if self._spill_root is None:
            self._spill_root = Path(tempfile.mkdtemp(prefix="codesift-spill-"))
        self._spill_root.mkdir(parents=True, exist_ok=True)
        self._spill_count += 1
        path = self._spill_root.resolve() / f"{tool}-{self._spill_count}.txt"
        path.write_text(text, encoding="utf-8")
        return path

    def _workspace_for(self, path: str) -> Workspace:
        """The workspace for read_file: the spill directory is the one exception to the
        sandbox (a workspace of its own, so nothing else outside the root is reachable)."""
        if self._spill_root is not None:
            spill = self._spill_root.resolve()
            candidate = Path(path.split(":")[0]) if path.startswith("/") else None
            if candidate is not None and (candidate == spill or spill in candidate.parents):
                if self._spill_workspace is None:
                    self._spill_workspace = Workspace(spill)
                return self._spill_workspace
        return self.workspace


class _BadArguments(Exception):
    pass


def _argument_error(message: str) -> CodesiftError:
    return InvalidArgumentError(message)


def _error(message: str, kind: str) -> ToolResult:
    message = escape_surrogates(message)
    return ToolResult(
        text=f"Error: {message}", data={"error": {"type": kind, "message": message}}, is_error=True
    )


def _cut(text: str, limit: int = MAX_ECHO_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _echo(value: object) -> str:
    """A bad value shown in an error: its repr, cut short (it may be huge)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    try:
        return _cut(repr(value))
    except Exception:
        return f"a {type(value).__name__}"


def _first_line(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception:
        return "(no message)"
    return _cut(text.strip().split("\n", 1)[0] or "(no message)")


def _parse_json(raw: str | bytes | bytearray) -> Any:
    """Arguments handed over as JSON text, as model APIs do."""
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except RecursionError:
        raise _BadArguments(
            f"arguments are nested more than {MAX_ARGUMENT_DEPTH} levels deep; pass a flat JSON "
            'object such as {"pattern": "TODO"}'
        ) from None
    except json.JSONDecodeError as exc:
        raise _BadArguments(
            f"arguments are not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); "
            'pass a JSON object such as {"pattern": "TODO"}'
        ) from None
    except UnicodeDecodeError:
        raise _BadArguments(
            'arguments are not UTF-8 text; pass a JSON object such as {"pattern": "TODO"}'
        ) from None
    except ValueError:  # a number with thousands of digits
        raise _BadArguments(
            "arguments hold a number too long to read; pass numbers of at most a few digits"
        ) from None


def _json_kind(value: object) -> str:
    kinds = {str: "a string", list: "an array", bool: "a boolean", int: "a number"}
    if value is None:
        return "null"
    for kind, name in kinds.items():
        if isinstance(value, kind):
            return name
    return "a number" if isinstance(value, float) else f"a {type(value).__name__}"


def _deeper_than(value: object, limit: int) -> bool:
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


__all__ = ["TOOLS", "ToolResult", "Toolbox"]
