"""The `codesift` profile: codesift's own tools, which also answer to the tool and parameter
names other agents use (when a name means the same thing everywhere).

The recommended flow for a model: `grep_search`, then `edit` with a hit's
`search_result_id`; `old_string`/`new_string` is the compatibility mode.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...errors import InvalidArgumentError
from ...results.matches import GrepResult, plural
from ..call_arguments import renamed
from ..output_schemas import output_schema
from ..spec import Tool, declared_profile
from ..tool_result import ToolResult

if TYPE_CHECKING:
    from ..toolbox import Toolbox

TOOL_ALIASES = {
    "grep_search": (
        "grep",
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
    "edit_many": ("multiedit", "multi_edit", "edit_multiple", "multi_replace"),
    "apply_patch": ("patch", "applypatch", "apply_diff"),
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
    "oldText": "old_string",
    "newText": "new_string",
    "new_str": "new_string",
    "oldString": "old_string",
    "newString": "new_string",
    "replaceAll": "replace_all",
    "caseSensitive": "case_sensitive",
    "maxMatches": "max_matches",
    "maxResults": "max_matches",
    "contextLines": "context_lines",
    "context": "context_lines",
    "-C": "context_lines",
    "-B": "before",
    "-A": "after",
    "outputMode": "output_mode",
    "dryRun": "dry_run",
    "noIgnore": "no_ignore",
    "startLine": "start_line",
    "endLine": "end_line",
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
    "-i": "case_sensitive",
}
# Per-tool aliases that mean different things elsewhere.
TOOL_PARAM_ALIASES = {
    "grep_search": {"glob": "include"},
    "search": {"query": "question", "glob": "include", "limit": "max_results"},
    "apply_patch": {"input": "patch", "patchText": "patch", "patch_text": "patch", "diff": "patch"},
}


def rename(tool: Tool, args: Mapping[Any, Any]) -> dict[str, Any]:
    """Other agents' parameter names as codesift's; two names for one parameter must agree."""
    extra = TOOL_PARAM_ALIASES.get(tool.name, {})

    def name_of(key: Any, value: Any) -> tuple[Any, Any]:
        if key in NEGATED_ALIASES and NEGATED_ALIASES[key] in tool.properties:
            return NEGATED_ALIASES[key], (not value if isinstance(value, bool) else value)
        return extra.get(key) or PARAM_ALIASES.get(key, key), value

    out = renamed(args, name_of)
    if tool.name == "edit_many" and isinstance(out.get("edits"), list):
        out["edits"] = [_renamed_edit(item) for item in out["edits"]]
    return out


def _renamed_edit(item: Any) -> Any:
    """One edit of edit_many with other agents' key names (oldText, oldString, ...) as
    codesift's; anything but an object is left for the schema to refuse."""
    if not isinstance(item, Mapping):
        return item
    return renamed(
        item,
        lambda key, value: (PARAM_ALIASES.get(key, key) if isinstance(key, str) else key, value),
        "an edit's {key} and another name for {target!r} disagree",
    )


# -- handlers ------------------------------------------------------------------------------

#: grep_search's output_mode → the Workspace's grep mode.
_GREP_MODES = {"content": "content", "files_with_matches": "files", "count": "count"}
#: Options of a local search that remote search (host) does not have.
_LOCAL_ONLY = (
    "output_mode",
    "offset",
    "type",
    "type_not",
    "no_ignore",
    "hidden",
    "rank",
    "budget_tokens",
)
#: How this profile spells what a skipped-entry hint suggests (`Skipped.hint`).
_HINT_OPTIONS = {"no_ignore": "no_ignore=true", "hidden": "hidden=true", "path": 'path="{path}"'}


def grep_search(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    target = box.search_target(args)
    options: dict[str, Any] = {
        "include": args.get("include"),
        "exclude": args.get("exclude"),
        "literal": args.get("literal", False),
        "case_sensitive": args.get("case_sensitive", False),
        "multiline": args.get("multiline"),
        "context_lines": args.get("context_lines", 0),
        "before": args.get("before"),
        "after": args.get("after"),
        "max_matches": args.get("max_matches", 500),
        "timeout": args.get("timeout"),
    }
    if target is box.workspace:
        options.update(
            mode=_GREP_MODES[args.get("output_mode", "content")],
            offset=args.get("offset", 0),
            type=args.get("type"),
            type_not=args.get("type_not"),
            no_ignore=args.get("no_ignore"),
            hidden=args.get("hidden"),
            rank=args.get("rank", True),
        )
    else:
        _refuse_local_only(args)
    budget = args.get("budget_tokens")
    if budget is not None and target is box.workspace:
        # The best hits that fit are known once every hit is ranked: one whole answer, no
        # pages (the budget says what it left out instead).
        if args.get("rank") is False:
            raise InvalidArgumentError(
                "budget_tokens keeps the best ranked hits: drop rank=false or budget_tokens"
            )
        if args.get("offset"):
            raise InvalidArgumentError(
                "budget_tokens answers at once and has no pages: drop offset, or drop "
                "budget_tokens and page with offset"
            )
        if args.get("output_mode", "content") != "content":
            raise InvalidArgumentError(
                "budget_tokens fits hits' lines: drop output_mode or budget_tokens"
            )
        options.update(budget_tokens=budget, rank=True, max_matches=args.get("max_matches"))
        result = box.workspace.grep(args.pop("pattern"), args.pop("path", "."), **options)
    elif target is box.workspace:
        # Pages of one search read on one kept stream (`Workspace.grep_page`).
        result = box.workspace.grep_page(args.pop("pattern"), args.pop("path", "."), **options)
    else:
        result = target.grep(args.pop("pattern"), args.pop("path", "."), **options)
    text, windowed = grep_text(box, result)
    return box.finish("grep_search", text, result.to_dict(), truncated=windowed)


def search(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    result = box.workspace.search(
        args["question"],
        args.get("path", "."),
        max_results=args.get("max_results", 10),
        include=args.get("include"),
        exclude=args.get("exclude"),
        type=args.get("type"),
    )
    return box.finish("search", f"{result.summary}\n\n{result.text()}", result.to_dict())


def glob_search(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    target = box.search_target(args)
    options: dict[str, Any] = {"limit": args.get("limit", 2000), "sort": args.get("sort", "path")}
    if target is box.workspace:
        options.update(
            type=args.get("type"),
            type_not=args.get("type_not"),
            no_ignore=args.get("no_ignore"),
            hidden=args.get("hidden"),
        )
    else:
        _refuse_local_only(args)
    result = target.glob(args["pattern"], args.get("path", "."), **options)
    lines = [summary(result)]
    for f in result.files:
        host = getattr(f, "host", None)
        lines.append(f"{host}:{f.path}" if host else f.path)
    return box.finish("glob_search", "\n".join(lines), result.to_dict())


def read_file(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    workspace = box.read_workspace(args["path"])
    by_lines = "start_line" in args or "end_line" in args
    if by_lines:
        if "offset" in args or "limit" in args:
            raise InvalidArgumentError(
                "read_file: give the lines one way: start_line/end_line (inclusive) or "
                "offset/limit, not both"
            )
        result = workspace.read(
            args["path"], start_line=args.get("start_line"), end_line=args.get("end_line")
        )
    else:
        result = workspace.read(
            args["path"], offset=args.get("offset", 1), limit=args.get("limit", 2000)
        )
    said = result.summary
    if by_lines:
        # The caller asked for these lines: more lines after them is not a cut.
        said = said.replace(
            "[TRUNCATED: more lines follow; continue with offset=",
            "[more lines follow; continue with start_line=",
        )
    return box.finish_read(result, said)


def list_dir(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    result = box.workspace.list_dir(
        args.get("path", "."),
        limit=args.get("limit", 1000),
        recursive=args.get("recursive", False),
        depth=args.get("depth"),
        no_ignore=args.get("no_ignore"),
        hidden=args.get("hidden"),
    )
    text = (result.text if result.depth == 1 else result.tree) or "(empty directory)"
    hint = own_hint(result)
    if hint:
        text += f"\n{hint}"
    return box.finish("list_dir", text, result.to_dict())


def edit(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    new = args["new_string"]
    dry_run = args.get("dry_run", False)
    if "search_result_id" in args:
        if "old_string" in args:
            raise InvalidArgumentError("give either search_result_id or old_string, not both")
        result_id = args["search_result_id"]
        target = box.edit_target(result_id)
        if not dry_run:
            result = target.edit_result(result_id, new, path=args.get("path"))
        elif target is box.workspace:
            result = target.edit_result(result_id, new, path=args.get("path"), dry_run=True)
        else:
            raise InvalidArgumentError(
                "dry_run is not available for a hit of a remote search; read the file on the "
                "host, or leave dry_run out to edit"
            )
    elif "path" in args and "old_string" in args:
        result = box.workspace.edit(
            args["path"],
            args["old_string"],
            new,
            replace_all=args.get("replace_all", False),
            dry_run=dry_run,
        )
    else:
        raise InvalidArgumentError(
            "edit needs either {search_result_id, new_string} (preferred, after grep_search) "
            "or {path, old_string, new_string}"
        )
    return box.finish("edit", f"{result.summary}\n{result.diff}".rstrip(), result.to_dict())


def edit_many(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    result = box.workspace.edit_many(
        args["path"],
        args["edits"],
        sequential=args.get("sequential", False),
        dry_run=args.get("dry_run", False),
    )
    return box.finish("edit_many", f"{result.summary}\n{result.diff}".rstrip(), result.to_dict())


def apply_patch(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    result = box.workspace.apply_patch(
        args["patch"],
        format=args.get("format", "auto"),
        path=args.get("path"),
        dry_run=args.get("dry_run", False),
    )
    return box.finish("apply_patch", f"{result.summary}\n{result.diff}".rstrip(), result.to_dict())


def write_file(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    result = box.workspace.write(args["path"], args["content"], dry_run=args.get("dry_run", False))
    text = f"{result.summary}\n{result.diff}".rstrip() if result.dry_run else result.summary
    return box.finish("write_file", text, result.to_dict())


def _refuse_local_only(args: dict[str, Any]) -> None:
    given = [name for name in _LOCAL_ONLY if name in args]
    if given:
        one = len(given) == 1
        raise InvalidArgumentError(
            f"{', '.join(given)} {'works' if one else 'work'} on the local workspace only; "
            f"leave {'it' if one else 'them'} out to search with host, or leave host out"
        )


def own_hint(result: Any) -> str | None:
    """The result's skipped-entry hint (when it has one) in this profile's parameter names."""
    if not getattr(result, "hint", None):
        return None
    return result.skipped.hint(**_HINT_OPTIONS)  # type: ignore[no-any-return]


def summary(result: Any) -> str:
    """The result's summary line, ending with its hint in this profile's parameter names."""
    hint = getattr(result, "hint", None)
    if not hint:
        return result.summary  # type: ignore[no-any-return]
    return f"{result.summary.removesuffix(f' {hint}')} {own_hint(result)}"


def page_note(result: GrepResult) -> str | None:
    """Which results a paged grep shows and how to get the next page, or None when it
    shows them all."""
    offset = getattr(result, "offset", 0)
    shown = len(result.matches)
    if getattr(result, "budget", None) is not None:
        # A budgeted answer has no next page: its summary says what the budget left out.
        return None
    if result.truncated and not result.timed_out and shown:
        return (
            f"[results {offset + 1}-{offset + shown} shown; for the next page call again "
            f"with offset={offset + shown}]"
        )
    if offset and not shown and result.total:
        return (
            f"[offset={offset} is past the last result ({plural(result.total, 'result')}); "
            "pass a smaller offset]"
        )
    return None


def grep_text(box: Toolbox, result: GrepResult) -> tuple[str, bool]:
    """The summary (and page note), then the hits: in content mode one line per hit,
    `path:line:col [sr_id] text`, grouped by file, context lines as `path-line- text`; in
    files mode one path per line; in count mode `path:N`. Returns the text and whether a
    line was cut to a window."""
    lines = [summary(result)]
    note = page_note(result)
    if note:
        lines.append(note)
    mode = getattr(result, "mode", "content")
    windowed = False
    if mode == "files":
        lines.extend(result.files)
    elif mode == "count":
        lines.extend(f"{file}:{count}" for file, count in result.file_counts)
    else:
        windowed = _content_lines(box, result, lines)
    if result.errors:
        lines.append("")
        lines.extend(f"[host {h} failed: {msg}]" for h, msg in result.errors.items())
    return "\n".join(lines), windowed


def _content_lines(box: Toolbox, result: GrepResult, lines: list[str]) -> bool:
    """Appends content mode's hit and context lines; whether a line was cut to a window."""
    clip = box.output.clip
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
        head_line = getattr(m, "signature_line", None)
        if head_line is not None and m.signature is not None and head_line < m.line - len(m.before):
            # A budgeted hit comes under the head of the definition around it, once.
            if (prefix, head_line) not in shown_context and (m.file, head_line) not in hit_lines:
                shown_context.add((prefix, head_line))
                lines.append(f"{prefix}-{head_line}- {clip(m.signature, 1, 0)[0]}")
        text, cut = clip(m.text, m.column, len(m.content))
        windowed |= cut
        role = getattr(m, "role", None)
        mark = f"[definition: {m.kind}] " if role == "definition" else ""
        lines.append(f"{prefix}:{m.line}:{m.column} [{m.id}] {mark}{text}")
        for k, after in enumerate(m.after):
            number = m.end_line + 1 + k
            if (prefix, number) not in shown_context and (m.file, number) not in hit_lines:
                shown_context.add((prefix, number))
                lines.append(f"{prefix}-{number}- {clip(after, 1, 0)[0]}")
    return windowed


PROFILE = declared_profile(
    __name__,
    {
        "grep_search": grep_search,
        "edit": edit,
        "edit_many": edit_many,
        "apply_patch": apply_patch,
        "glob_search": glob_search,
        "read_file": read_file,
        "list_dir": list_dir,
        "write_file": write_file,
        "search": search,
    },
    output=output_schema,
    aliases={alias: name for name, aliases in TOOL_ALIASES.items() for alias in aliases},
    refused=AMBIGUOUS_TOOLS,
    rename=rename,
)
#: Each tool's description and parameters (its JSON Schema `properties`), by name.
TOOLS: dict[str, dict[str, Any]] = {
    tool.name: {"description": tool.description, "properties": tool.properties}
    for tool in PROFILE.tools
}
