"""The `cline` profile: Cline's file tools (search_files, list_files, read_file,
replace_in_file, write_to_file) with their parameter names and output text.

Source: cline/cline `src/core/prompts/system-prompt/tools/*.ts` (parameters),
`src/services/ripgrep/index.ts` (search text: `Found N results.`, `│` lines, 300 results),
`src/services/glob/list-files.ts` + `src/core/prompts/responses.ts` (`formatFilesList`, 200
entries; `fileEditWithoutUserChanges`, `diffError`, `toolError`),
`src/core/task/tools/handlers/ReadFileToolHandler.ts` (`N | line` labels, 1000 lines).
Cline sends parameters as text (XML tool calls): `recursive: "true"` and `start_line: "10"`
are accepted beside JSON booleans and integers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import CodesiftError, InvalidArgumentError
from ..lines import edited_text, full_text, read_lines, written_text
from ..spec import declared_profile
from ..tool_result import ToolResult

if TYPE_CHECKING:
    from ..toolbox import Toolbox

MAX_RESULTS = 300
MAX_SEARCH_BYTES = 256 * 1024
LIST_LIMIT = 200
READ_LIMIT = 1000
#: Directories a recursive listing skips (besides .gitignore'd ones).
LIST_SKIPPED = frozenset(
    {
        "node_modules",
        "__pycache__",
        "env",
        "venv",
        "target",
        "build",
        "dist",
        "out",
        "bundle",
        "vendor",
        "tmp",
        "temp",
        "deps",
        "pkg",
        "Pods",
        ".git",
    }
)


def search_files(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    result = box.workspace.grep(
        args["regex"],
        args["path"],
        include=args.get("file_pattern") or None,
        case_sensitive=True,
        context_lines=1,
        max_matches=MAX_RESULTS,
    )
    matches = list(result.matches)
    if len(matches) >= MAX_RESULTS:
        out = f"Showing first {MAX_RESULTS} of {MAX_RESULTS}+ results. Use a more specific search if necessary.\n\n"  # noqa: E501
    else:
        out = f"Found {'1 result' if len(matches) == 1 else f'{len(matches):,} results'}.\n\n"
    base = box.workspace.sandbox.relative(args["path"])
    groups: dict[str, list[Any]] = {}
    for m in matches:
        groups.setdefault(_relative(m.file, base), []).append(m)
    size = len(out.encode())
    cut = False
    for file, hits in groups.items():
        chunk = f"{file}\n│----\n"
        for k, m in enumerate(hits):
            chunk += "".join(f"│{line.rstrip()}\n" for line in [*m.before, m.text, *m.after])
            if k < len(hits) - 1:
                chunk += "│----\n"
        chunk += "│----\n\n"
        if size + len(chunk.encode()) >= MAX_SEARCH_BYTES:
            cut = True
            break
        out += chunk
        size += len(chunk.encode())
    if cut:
        out += (
            "\n[Results truncated due to exceeding the 0.25MB size limit. Please use a more "
            "specific search pattern.]"
        )
    return box.finish("search_files", out.strip(), {"results": len(matches)})


def _relative(file: str, base: str) -> str:
    if base in (".", ""):
        return file
    return file[len(base) + 1 :] if file.startswith(base + "/") else file


def list_files(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    path = args["path"]
    recursive = _flag(args.get("recursive", False), "recursive")
    base = box.workspace.sandbox.relative(path)
    entries: list[str] = []
    queue = [base]
    while queue and len(entries) < LIST_LIMIT:
        directory = queue.pop(0)
        listing = box.workspace.list_dir(directory, limit=1_000_000)
        for entry in listing.entries:
            rel = entry if directory == "." else f"{directory}/{entry}"
            shown = rel if base == "." else rel[len(base) + 1 :]
            name = entry.rstrip("/")
            if entry.endswith("/") and recursive and name in LIST_SKIPPED:
                continue
            entries.append(shown)
            if entry.endswith("/") and recursive:
                queue.append(rel.rstrip("/"))
            if len(entries) >= LIST_LIMIT:
                break
    hit_limit = len(entries) >= LIST_LIMIT
    ordered = sorted(entries, key=_tree_key)
    if hit_limit:
        text = (
            "\n".join(ordered) + "\n\n(File list truncated. Use list_files on specific "
            "subdirectories if you need to explore further.)"
        )
    elif not ordered:
        text = "No files found."
    else:
        text = "\n".join(ordered)
    return box.finish("list_files", text, {"entries": ordered, "truncated": hit_limit})


def _tree_key(entry: str) -> list[tuple[int, str]]:
    """Cline's order: files under their directories, a directory before its siblings' files
    at the level where they differ, names compared case-insensitively."""
    parts = entry.rstrip("/").split("/")
    key = []
    for k, part in enumerate(parts):
        is_last = k == len(parts) - 1
        deeper = not is_last or entry.endswith("/")
        key.append((0 if deeper else 1, part.lower()))
    return key


def read_file(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    path = args["path"]
    start = _integer(args.get("start_line"), "start_line") or 1
    end = _integer(args.get("end_line"), "end_line")
    if end is not None and end < start:
        start, end = end, start
    limit = (end - start + 1) if end is not None else READ_LIMIT
    lines = read_lines(box.read_workspace(path), path, start, limit)
    if lines.total == 0:
        return box.finish("read_file", "", {"lines": 0}, allow_spill=False)
    shown_end = start + len(lines.lines) - 1
    body = "\n".join(f"{line.number} | {line.text}" for line in lines.lines)
    if shown_end < lines.total:
        body += (
            f"\n\n(Showing lines {start}-{shown_end} of {lines.total} total. Use "
            f"start_line={shown_end + 1} to continue reading.)"
        )
    else:
        body += f"\n\n(File has {lines.total} lines total.)"
    return box.finish("read_file", body, {"lines": len(lines.lines)}, allow_spill=False)


def replace_in_file(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    path = args["path"]
    try:
        result = box.workspace.apply_patch(args["diff"], format="search_replace", path=path)
    except CodesiftError as exc:
        # Nothing was written (a patch applies all or nothing): the file is as it was.
        original = full_text(box.workspace, path)
        message = box.message(exc, "replace_in_file")
        return box.error(
            f"{message}\n\n{_diff_error(result_path(box, path), original)}", "MatchError"
        )
    change = result.files[0]
    if change.action == "add":
        content = written_text(change.new_text or "", change.path)
    else:
        content = edited_text(change.new_text, change.path)
    return _saved(box, change.path, content)


def write_to_file(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    path = args.get("path") or args.get("absolutePath")
    if not path:
        raise InvalidArgumentError("Missing value for required parameter 'path'.")
    result = box.workspace.write(path, args["content"])
    return _saved(box, result.path, written_text(args["content"], result.path))


def result_path(box: Toolbox, path: str) -> str:
    return box.workspace.sandbox.relative(path)


def _saved(box: Toolbox, rel: str, content: str) -> ToolResult:
    """Cline's answer to a saved file: `content` is the file as a read would show it now."""
    rel = rel.removeprefix("./")
    text = (
        f"The content was successfully saved to {rel}.\n\n"
        "Here is the full, updated content of the file that was saved:\n\n"
        f'<final_file_content path="{rel}">\n{content}\n</final_file_content>\n\n'
        "IMPORTANT: For any future changes to this file, use the final_file_content shown "
        "above as your reference. This content reflects the current state of the file, "
        "including any auto-formatting (e.g., if you used single quotes but the formatter "
        "converted them to double quotes). Always base your SEARCH/REPLACE operations on this "
        "final version to ensure accuracy.\n\n"
    )
    return box.finish("write", text, {"path": rel})


def _diff_error(rel: str, original: str) -> str:
    return (
        "This is likely because the SEARCH block content doesn't match exactly with what's in "
        "the file, or if you used multiple SEARCH/REPLACE blocks they may not have been in the "
        "order they appear in the file. (Please also ensure that when using the replace_in_file "
        "tool, Do NOT add extra characters to the markers (e.g., ------- SEARCH> is INVALID). "
        "Do NOT forget to use the closing +++++++ REPLACE marker. Do NOT modify the marker "
        "format in any way. Malformed XML will cause complete tool failure and break the entire "
        "editing process.)\n\n"
        "The file was reverted to its original state:\n\n"
        f'<file_content path="{rel}">\n{original}\n</file_content>\n\n'
        "Now that you have the latest state of the file, try the operation again with fewer, "
        "more precise SEARCH blocks. For large files especially, it may be prudent to try to "
        "limit yourself to <5 SEARCH/REPLACE blocks at a time, then wait for the user to "
        "respond with the result of the operation before following up with another "
        "replace_in_file call to make additional edits.\n(If you run into this error 3 times "
        "in a row, you may use the write_to_file tool as a fallback.)"
    )


def _flag(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise InvalidArgumentError(f'{name} must be true or false (or "true" / "false")')


def _integer(value: Any, name: str) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise InvalidArgumentError(f"{name} must be a line number")
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"{name} must be a line number, not {value!r}") from None
    if number < 1:
        raise InvalidArgumentError(f"{name} must be at least 1")
    return number


PROFILE = declared_profile(
    __name__,
    {
        "search_files": search_files,
        "list_files": list_files,
        "read_file": read_file,
        "replace_in_file": replace_in_file,
        "write_to_file": write_to_file,
    },
)
