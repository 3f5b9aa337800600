"""The `codesift` profile: codesift's own tools, which also answer to the tool and parameter
names other agents use (when a name means the same thing everywhere).

The recommended flow for a model: `grep_search`, then `edit` with a hit's
`search_result_id`; `old_string`/`new_string` is the compatibility mode.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...errors import InvalidArgumentError
from ...output_schemas import output_schema
from ...results import GrepResult
from ..arguments import BadArguments
from ..result import ToolResult, echo
from ..spec import Profile, Tool

if TYPE_CHECKING:
    from ..toolbox import Toolbox

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

OUTPUT_REQUIRED: dict[str, tuple[str, ...]] = {
    "grep_search": ("matches", "total", "truncated", "summary"),
    "glob_search": ("files", "total", "truncated", "summary"),
    "read_file": ("path", "content", "start_line", "end_line", "summary"),
    "list_dir": ("path", "entries", "total", "truncated", "summary"),
    "edit": ("path", "replacements", "strategy", "diff", "summary"),
    "write_file": ("path", "bytes_written", "created", "summary"),
}

TOOL_ALIASES = {
    "grep_search": (
        "grep",
        "search",
        "rg",
        "ripgrep",
        "grep_files",
        "content_search",
        "search_file_content",
        "find_in_files",
    ),
    "glob_search": (
        "glob",
        "find",
        "find_files",
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

#: Names that mean a file-name search in some agents and a content search in others: the
#: codesift profile does not guess.
AMBIGUOUS_TOOLS = {
    "file_search": (
        "file_search is ambiguous: a file-name search in some agents and a content search in "
        "others. Here, call glob_search for file names or grep_search for contents; or serve "
        'the profile "file-search" (codesift mcp --profile file-search, '
        'Toolbox(ws, profile="file-search")) for its content search'
    ),
    "search_files": (
        "search_files is ambiguous: a file-name glob in the MCP filesystem server and a content "
        "regex in Cline. Here, call glob_search for file names or grep_search for contents; or "
        'serve the agent\'s own profile: "mcp-filesystem" or "cline" (codesift mcp --profile '
        "NAME, Toolbox(ws, profile=NAME))"
    ),
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


def rename(tool: Tool, args: Mapping[Any, Any]) -> dict[str, Any]:
    """Other agents' parameter names as codesift's; two names for one parameter must agree."""
    out: dict[str, Any] = {}
    extra = TOOL_PARAM_ALIASES.get(tool.name, {})
    for key, value in args.items():
        if value is None:
            continue  # an explicit null means "not given"
        if key in NEGATED_ALIASES and NEGATED_ALIASES[key] in tool.properties:
            target, value = (
                NEGATED_ALIASES[key],
                (not value if isinstance(value, bool) else value),
            )
        else:
            target = extra.get(key) or PARAM_ALIASES.get(key, key)
        if target in out and out[target] != value:
            raise BadArguments(f"{echo(key)} and another name for {target!r} disagree; give one")
        out[target] = value
    return out


# -- handlers ------------------------------------------------------------------------------


def grep_search(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    target = box.search_target(args)
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
    text, windowed = grep_text(box, result)
    return box.finish("grep_search", text, result.to_dict(), truncated=windowed)


def glob_search(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    target = box.search_target(args)
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
    return box.finish("glob_search", "\n".join(lines), result.to_dict())


def read_file(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    workspace = box.read_workspace(args["path"])
    result = workspace.read(
        args["path"], offset=args.get("offset", 1), limit=args.get("limit", 2000)
    )
    if result.end_line < result.start_line:
        text = result.summary
    elif result.truncated or result.long_lines:
        text = f"{result.content}\n\n{result.summary}"
    else:
        text = result.content
    return box.finish("read_file", text, result.to_dict(), allow_spill=False)


def list_dir(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    result = box.workspace.list_dir(args.get("path", "."), limit=args.get("limit", 1000))
    text = result.text or "(empty directory)"
    return box.finish("list_dir", text, result.to_dict())


def edit(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    new = args["new_string"]
    if "search_result_id" in args:
        if "old_string" in args:
            raise InvalidArgumentError("give either search_result_id or old_string, not both")
        target = box.edit_target(args["search_result_id"])
        result = target.edit_result(args["search_result_id"], new, path=args.get("path"))
    elif "path" in args and "old_string" in args:
        result = box.workspace.edit(
            args["path"], args["old_string"], new, replace_all=args.get("replace_all", False)
        )
    else:
        raise InvalidArgumentError(
            "edit needs either {search_result_id, new_string} (preferred, after grep_search) "
            "or {path, old_string, new_string}"
        )
    return box.finish("edit", f"{result.summary}\n{result.diff}".rstrip(), result.to_dict())


def write_file(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    result = box.workspace.write(args["path"], args["content"])
    return box.finish("write_file", result.summary, result.to_dict())


def grep_text(box: Toolbox, result: GrepResult) -> tuple[str, bool]:
    """One line per hit, `path:line:col [sr_id] text`, grouped by file; context lines
    as `path-line- text`. Returns the text and whether a line was cut to a window."""
    clip = box.output.clip
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
                lines.append(f"{prefix}-{number}- {clip(before, 1, 0)[0]}")
        text, cut = clip(m.text, m.column, len(m.content))
        windowed |= cut
        lines.append(f"{prefix}:{m.line}:{m.column} [{m.id}] {text}")
        for k, after in enumerate(m.after):
            number = m.end_line + 1 + k
            if (prefix, number) not in shown_context and (m.file, number) not in hit_lines:
                shown_context.add((prefix, number))
                lines.append(f"{prefix}-{number}- {clip(after, 1, 0)[0]}")
    if result.errors:
        lines.append("")
        lines.extend(f"[host {h} failed: {msg}]" for h, msg in result.errors.items())
    return "\n".join(lines), windowed


_HANDLERS = {
    "grep_search": grep_search,
    "edit": edit,
    "glob_search": glob_search,
    "read_file": read_file,
    "list_dir": list_dir,
    "write_file": write_file,
}
_EXAMPLES = {"grep_search": '{"pattern": "TODO", "include": ["*.py"]}'}
_READ_ONLY = {"grep_search", "glob_search", "read_file", "list_dir"}

PROFILE = Profile(
    name="codesift",
    summary="codesift's own tools (search, then edit by search_result_id), with other "
    "agents' names as aliases",
    tools=tuple(
        Tool(
            name=name,
            description=spec["description"],
            properties=spec["properties"],
            required=tuple(spec["required"]),
            handler=_HANDLERS[name],
            output_required=OUTPUT_REQUIRED[name],
            path_parameters=("path",),
            text_parameters=("content", "new_string"),
            read_only=name in _READ_ONLY,
            example=_EXAMPLES.get(name, ""),
            output=output_schema(name),
        )
        for name, spec in TOOLS.items()
    ),
    instructions=(
        "Search with grep_search, then change a hit with edit {search_result_id, new_string}: "
        "it replaces exactly what the search found. glob_search finds files, read_file reads "
        "them, list_dir lists a directory, write_file writes a whole file. Paths are relative "
        "to the workspace root."
    ),
    aliases={alias: name for name, aliases in TOOL_ALIASES.items() for alias in aliases},
    refused=AMBIGUOUS_TOOLS,
    rename=rename,
)
