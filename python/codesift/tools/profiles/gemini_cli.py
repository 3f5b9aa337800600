"""The `gemini-cli` profile: gemini-cli's file tools (grep_search, glob, list_directory,
read_file, replace, write_file) with their parameter names and output text.

Source: google-gemini/gemini-cli `packages/core/src/tools/definitions/model-family-sets/
default-legacy.ts` (schemas: the ripgrep `grep_search`), `ripGrep.ts` + `grep-utils.ts` (grep
text, auto-context, `exclude_pattern` as a line regex), `glob.ts`, `ls.ts`, `read-file.ts` +
`utils/fileUtils.ts`, `edit.ts`, `write-file.ts`.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any

from ...errors import InvalidArgumentError
from .. import schema
from ..lines import absolute, child_sizes, read_lines
from ..spec import Profile, Tool
from ..tool_result import ToolResult

if TYPE_CHECKING:
    from ..toolbox import Toolbox

DEFAULT_TOTAL_MAX_MATCHES = 100
MAX_LINE_LENGTH = 2000
READ_LIMIT = 2000
#: Files changed within a day are listed first by glob, newest first.
RECENT_MS = 24 * 60 * 60 * 1000


def grep_search(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    pattern = args["pattern"]
    dir_path = args.get("dir_path") or "."
    case_sensitive = bool(args.get("case_sensitive", False))
    exclude = None
    if args.get("exclude_pattern"):
        try:
            exclude = re.compile(args["exclude_pattern"], 0 if case_sensitive else re.IGNORECASE)
        except re.error as exc:
            raise InvalidArgumentError(
                "Invalid exclude regular expression pattern provided: "
                f"{args['exclude_pattern']}. Error: {exc}"
            ) from None
    total_max = args.get("total_max_matches", DEFAULT_TOTAL_MAX_MATCHES)
    per_file = args.get("max_matches_per_file")
    requested = {k: args[k] for k in ("context", "before", "after") if k in args}
    workspace = box.unignored() if args.get("no_ignore") else box.workspace

    def search(context: int | None, before: int, after: int) -> list[tuple[str, int, str, bool]]:
        result = workspace.grep(
            pattern,
            dir_path,
            include=args.get("include_pattern"),
            literal=bool(args.get("fixed_strings", False)),
            case_sensitive=case_sensitive,
            before=context if context is not None else before,
            after=context if context is not None else after,
            max_matches=None if exclude is not None or per_file else total_max,
        )
        base = workspace.sandbox.relative(dir_path)
        rows: dict[tuple[str, int], tuple[str, bool]] = {}
        kept = 0
        per: dict[str, int] = {}
        for m in result.matches:
            if exclude is not None and exclude.search(m.text):
                continue
            if (m.file, m.line) in rows and rows[(m.file, m.line)][1]:
                continue  # one entry per matching line, as ripgrep reports them
            if per_file and per.get(m.file, 0) >= per_file:
                continue
            per[m.file] = per.get(m.file, 0) + 1
            shown = _relative(m.file, base)
            for k, text in enumerate(m.before):
                number = m.line - len(m.before) + k
                if exclude is None or not exclude.search(text):
                    rows.setdefault((shown, number), (text, False))
            rows[(shown, m.line)] = (m.text, True)
            for k, text in enumerate(m.after):
                if exclude is None or not exclude.search(text):
                    rows.setdefault((shown, m.end_line + 1 + k), (text, False))
            kept += 1
            if kept >= total_max:
                break
        return [(f, n, t, hit) for (f, n), (t, hit) in rows.items()]

    context = requested.get("context")
    rows = search(context, requested.get("before", 0), requested.get("after", 0))
    hits = sum(1 for row in rows if row[3])
    if 1 <= hits <= 3 and not args.get("names_only") and not requested:
        # gemini-cli adds context to few hits so the model need not read the files.
        rows = search(50 if hits == 1 else 15, 0, 0)
    where = f'in path "{dir_path}"'
    include = args.get("include_pattern")
    filter_note = f' (filter: "{include}")' if include else ""
    data: dict[str, Any] = {"matches": hits}
    if not rows:
        text = f'No matches found for pattern "{pattern}" {where}{filter_note}.'
        return box.finish("grep_search", text, data)
    truncated = hits >= total_max
    limited = f" (results limited to {total_max} matches for performance)" if truncated else ""
    by_file: dict[str, list[tuple[int, str, bool]]] = {}
    for file, number, line, hit in rows:
        by_file.setdefault(file, []).append((number, line, hit))
    if args.get("names_only"):
        files = sorted(by_file)
        text = (
            f'Found {len(files)} files with matches for pattern "{pattern}" {where}'
            f"{filter_note}{limited}:\n" + "\n".join(files)
        )
        return box.finish("grep_search", text.strip(), data, truncated=truncated)
    term = "match" if hits == 1 else "matches"
    out = [f'Found {hits} {term} for pattern "{pattern}" {where}{filter_note}{limited}:', "---"]
    for file, lines in by_file.items():
        out.append(f"File: {file}")
        for number, line, hit in sorted(lines):
            line = line.rstrip()
            if len(line) > MAX_LINE_LENGTH:
                line = line[:MAX_LINE_LENGTH] + "... [truncated]"
            out.append(f"L{number}{':' if hit else '-'} {line}")
        out.append("---")
    return box.finish("grep_search", "\n".join(out).strip(), data, truncated=truncated)


def _relative(file: str, base: str) -> str:
    if base in (".", ""):
        return file
    if file == base:
        return file.rsplit("/", 1)[-1]
    return file[len(base) + 1 :] if file.startswith(base + "/") else file


def glob(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    workspace = box.workspace if args.get("respect_git_ignore", True) else box.unignored()
    dir_path = args.get("dir_path") or "."
    result = workspace.glob(
        args["pattern"],
        dir_path,
        limit=1_000_000,
        sort="path",
        case_sensitive=bool(args.get("case_sensitive", False)),
    )
    where = absolute(workspace, workspace.sandbox.relative(dir_path))
    if not result.files:
        text = f'No files found matching pattern "{args["pattern"]}" within {where}'
        return box.finish("glob", text, {"count": 0})
    now = time.time() * 1000

    def order(f: Any) -> tuple[int, float, str]:
        recent = now - f.mtime_ms < RECENT_MS
        return (0, -f.mtime_ms, "") if recent else (1, 0, absolute(workspace, f.path))

    files = [absolute(workspace, f.path) for f in sorted(result.files, key=order)]
    text = (
        f'Found {len(files)} file(s) matching "{args["pattern"]}" within {where}, sorted by '
        "modification time (newest first):\n" + "\n".join(files)
    )
    return box.finish("glob", text, {"count": len(files)})


def list_directory(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    options = args.get("file_filtering_options") or {}
    workspace = box.workspace if options.get("respect_git_ignore", True) else box.unignored()
    path = args["dir_path"]
    listing = workspace.list_dir(path, limit=1_000_000)
    rel = workspace.sandbox.relative(path)
    where = absolute(workspace, rel)
    ignore = [re.compile(_glob_regex(g)) for g in args.get("ignore") or []]
    entries = [e for e in listing.entries if not any(r.match(e.rstrip("/")) for r in ignore)]
    if not entries:
        return box.finish("list_directory", f"Directory {where} is empty.", {"count": 0})
    sizes = child_sizes(workspace, rel)
    dirs = sorted((e[:-1] for e in entries if e.endswith("/")), key=str.lower)
    files = sorted((e for e in entries if not e.endswith("/")), key=str.lower)
    lines = [f"[DIR] {d}" for d in dirs] + [f"{f} ({sizes.get(f, 0)} bytes)" for f in files]
    text = f"Directory listing for {where}:\n" + "\n".join(lines)
    ignored = listing.ignored
    if ignored:
        text += f"\n\n({ignored} ignored)"
    return box.finish("list_directory", text, {"count": len(lines), "ignored": ignored})


def _glob_regex(pattern: str) -> str:
    """gemini-cli's `shouldIgnore`: `*` and `?` wildcards over the whole name."""
    return "^" + re.escape(pattern).replace(r"\*", ".*").replace(r"\?", ".") + "$"


def read_file(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    path = args["file_path"]
    if not path.strip():
        raise InvalidArgumentError("The 'file_path' parameter must be non-empty.")
    start, end = args.get("start_line"), args.get("end_line")
    first = start or 1
    limit = (end - first + 1) if end is not None else READ_LIMIT
    if limit < 1:
        raise InvalidArgumentError("end_line must be at least start_line")
    workspace = box.read_workspace(path)
    lines = read_lines(workspace, path, first, limit)
    texts = [
        line.text + "... [truncated]" if line.cut_from is not None else line.text
        for line in lines.lines
    ]
    content = "\n".join(texts)
    shown_end = first + len(texts) - 1
    truncated = (
        first > 1
        or shown_end < lines.total
        or any(line.cut_from is not None for line in lines.lines)
    )
    if truncated:
        text = (
            "\nIMPORTANT: The file content has been truncated.\n"
            f"Status: Showing lines {first}-{shown_end} of {lines.total} total lines.\n"
            "Action: To read more of the file, you can use the 'start_line' and 'end_line' "
            "parameters in a subsequent 'read_file' call. For example, to read the next section "
            f"of the file, use start_line: {shown_end + 1}.\n\n"
            f"--- FILE CONTENT (truncated) ---\n{content}"
        )
    else:
        text = content
    data = {"lines": len(texts), "total_lines": lines.total}
    return box.finish("read_file", text, data, truncated=truncated, allow_spill=False)


def replace(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    path, old, new = args["file_path"], args["old_string"], args["new_string"]
    if old == "":
        result = box.workspace.write(path, new)
        return box.finish(
            "replace",
            f"Created new file: {absolute(box.workspace, result.path)} with provided content.",
            {"path": result.path},
        )
    if old == new:
        raise InvalidArgumentError(
            "No changes to apply. The old_string and new_string are identical."
        )
    allow_multiple = bool(args.get("allow_multiple", False))
    done = box.workspace.edit(path, old, new, replace_all=allow_multiple)
    count = done.replacements
    shown = absolute(box.workspace, done.path)
    text = f"Successfully modified file: {shown} ({count} replacements)."
    return box.finish("replace", text, {"path": done.path, "replacements": count})


def write_file(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    path = args["file_path"]
    result = box.workspace.write(path, args["content"])
    shown = absolute(box.workspace, result.path)
    text = (
        f"Successfully created and wrote to new file: {shown}."
        if result.created
        else f"Successfully overwrote file: {shown}."
    )
    return box.finish("write_file", text, {"path": result.path, "created": result.created})


GREP_PARAMETERS = {
    "pattern": schema.string(
        "The pattern to search for. By default, treated as a Rust-flavored "
        "regular expression. Use '\\b' for precise symbol matching (e.g., '\\bMatchMe\\b').",
        required=True,
    ),
    "dir_path": schema.path(
        "Directory or file to search. Directories are searched recursively. "
        "Relative paths are resolved against current working directory. Defaults to current "
        "working directory ('.') if omitted."
    ),
    "include_pattern": schema.string(
        "Glob pattern to filter files (e.g., '*.ts', 'src/**'). Recommended for "
        "large repositories to reduce noise. Defaults to all files if omitted."
    ),
    "exclude_pattern": schema.string(
        "Optional: A regular expression pattern to exclude from the search "
        "results. If a line matches both the pattern and the exclude_pattern, it will be "
        "omitted."
    ),
    "names_only": schema.boolean(
        "Optional: If true, only the file paths of the matches will be returned, without the "
        "line content or line numbers. This is useful for gathering a list of files."
    ),
    "case_sensitive": schema.boolean(
        "If true, search is case-sensitive. Defaults to false (ignore case) if omitted."
    ),
    "fixed_strings": schema.boolean(
        "If true, treats the `pattern` as a literal string instead of a regular expression. "
        "Defaults to false (basic regex) if omitted."
    ),
    "context": schema.integer(
        "Show this many lines of context around each match (equivalent to grep -C). Defaults "
        "to 0 if omitted.",
        minimum=0,
    ),
    "after": schema.integer(
        "Show this many lines after each match (equivalent to grep -A). Defaults to 0 if omitted.",
        minimum=0,
    ),
    "before": schema.integer(
        "Show this many lines before each match (equivalent to grep -B). Defaults to 0 if omitted.",
        minimum=0,
    ),
    "no_ignore": schema.boolean(
        "If true, searches all files including those usually ignored (like in .gitignore, "
        "build/, dist/, etc). Defaults to false if omitted."
    ),
    "max_matches_per_file": schema.integer(
        "Optional: Maximum number of matches to return per file. Use this to prevent being "
        "overwhelmed by repetitive matches in large files.",
        minimum=1,
    ),
    "total_max_matches": schema.integer(
        "Optional: Maximum number of total matches to return. Use this to limit the overall "
        "size of the response. Defaults to 100 if omitted.",
        minimum=1,
    ),
}

PROFILE = Profile(
    name="gemini-cli",
    summary="gemini-cli: grep_search, glob, list_directory, read_file, replace, write_file",
    tools=(
        Tool(
            name="grep_search",
            description="Searches for a regular expression pattern within file contents.",
            properties=GREP_PARAMETERS,
            handler=grep_search,
        ),
        Tool(
            name="glob",
            description=(
                "Efficiently finds files matching specific glob patterns (e.g., `src/**/*.ts`, "
                "`**/*.md`), returning absolute paths sorted by modification time (newest "
                "first). Ideal for quickly locating files based on their name or path "
                "structure, especially in large codebases."
            ),
            properties={
                "pattern": schema.string(
                    "The glob pattern to match against (e.g., '**/*.py', 'docs/*.md').",
                    required=True,
                ),
                "dir_path": schema.path(
                    "Optional: The absolute path to the directory to search "
                    "within. If omitted, searches the root directory."
                ),
                "case_sensitive": schema.boolean(
                    "Optional: Whether the search should be case-sensitive. Defaults to false."
                ),
                "respect_git_ignore": schema.boolean(
                    "Optional: Whether to respect .gitignore patterns when finding files. Only "
                    "available in git repositories. Defaults to true."
                ),
                "respect_gemini_ignore": schema.boolean(
                    "Optional: Whether to respect .geminiignore patterns when finding files. "
                    "Defaults to true."
                ),
            },
            handler=glob,
        ),
        Tool(
            name="list_directory",
            description=(
                "Lists the names of files and subdirectories directly within a specified "
                "directory path. Can optionally ignore entries matching provided glob patterns."
            ),
            properties={
                "dir_path": schema.path("The path to the directory to list", required=True),
                "ignore": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "List of glob patterns to ignore",
                },
                "file_filtering_options": {
                    "type": "object",
                    "description": "Optional: Whether to respect ignore patterns from "
                    ".gitignore or .geminiignore",
                    "properties": {
                        "respect_git_ignore": schema.boolean(
                            "Optional: Whether to respect .gitignore patterns when listing "
                            "files. Only available in git repositories. Defaults to true."
                        ),
                        "respect_gemini_ignore": schema.boolean(
                            "Optional: Whether to respect .geminiignore patterns when listing "
                            "files. Defaults to true."
                        ),
                    },
                },
            },
            handler=list_directory,
        ),
        Tool(
            name="read_file",
            description=(
                "Reads and returns the content of a specified file. If the file is large, the "
                "content will be truncated. The tool's response will clearly indicate if "
                "truncation has occurred and will provide details on how to read more of the "
                "file using the 'start_line' and 'end_line' parameters. For text files, it can "
                "read specific line ranges."
            ),
            properties={
                "file_path": schema.path("The path to the file to read.", required=True),
                "start_line": schema.integer(
                    "Optional: The 1-based line number to start reading from.", minimum=1
                ),
                "end_line": schema.integer(
                    "Optional: The 1-based line number to end reading at (inclusive).", minimum=1
                ),
            },
            handler=read_file,
        ),
        Tool(
            name="replace",
            description=(
                "Replaces text within a file. By default, the tool expects to find and replace "
                "exactly ONE occurrence of `old_string`. If you want to replace multiple "
                "occurrences of the exact same string, set `allow_multiple` to true. This tool "
                "requires providing significant context around the change to ensure precise "
                "targeting."
            ),
            properties={
                "file_path": schema.path("The path to the file to modify.", required=True),
                "instruction": schema.string(
                    "A clear, semantic instruction for the code change, acting as "
                    "a high-quality prompt for an expert LLM assistant. It must be "
                    "self-contained and explain the goal of the change.",
                    required=True,
                ),
                "old_string": schema.string(
                    "The exact literal text to replace, preferably unescaped. "
                    "For single replacements (default), include at least 3 lines of context "
                    "BEFORE and AFTER the target text, matching whitespace and indentation "
                    "precisely.",
                    required=True,
                ),
                "new_string": schema.text(
                    "The exact literal text to replace `old_string` with, "
                    "preferably unescaped. Provide the EXACT text. Ensure the resulting code is "
                    "correct and idiomatic.",
                    required=True,
                ),
                "allow_multiple": schema.boolean(
                    "If true, the tool will replace all occurrences of `old_string`. If false "
                    "(default), it will only succeed if exactly one occurrence is found."
                ),
            },
            handler=replace,
            read_only=False,
        ),
        Tool(
            name="write_file",
            description="Writes content to a specified file in the local filesystem.",
            properties={
                "file_path": schema.path("The path to the file to write to.", required=True),
                "content": schema.text(
                    "The content to write to the file. Do not use omission "
                    "placeholders like '(rest of methods ...)', '...', or 'unchanged code'; "
                    "provide complete literal content.",
                    required=True,
                ),
            },
            handler=write_file,
            read_only=False,
        ),
    ),
    instructions=(
        "gemini-cli's file tools over one workspace: grep_search, glob and list_directory "
        "search, read_file reads, replace and write_file change files."
    ),
    spill_hint='read_file(file_path="{spill}", start_line={offset})',
)
