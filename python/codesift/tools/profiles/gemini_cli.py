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
from ..lines import absolute, child_sizes, read_lines
from ..spec import declared_profile
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
        if box.workspace.exists(path):
            # gemini-cli's own refusal: an empty old_string creates a file, never overwrites.
            raise InvalidArgumentError(f"File already exists, cannot create: {path}")
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


PROFILE = declared_profile(
    __name__,
    {
        "grep_search": grep_search,
        "glob": glob,
        "list_directory": list_directory,
        "read_file": read_file,
        "replace": replace,
        "write_file": write_file,
    },
)
