"""The `mcp-filesystem` profile: the tools of the reference MCP filesystem server
(read_text_file, read_multiple_files, write_file, edit_file, create_directory, list_directory,
list_directory_with_sizes, directory_tree, move_file, search_files, get_file_info,
list_allowed_directories, and the deprecated read_file), with their schemas and texts.

Source: modelcontextprotocol/servers `src/filesystem/index.ts` (schemas, texts, annotations)
and `src/filesystem/lib.ts` (`applyFileEdits`: sequential edits, exact then whitespace-flexible
lines, a `createTwoFilesPatch(path, path, old, new, 'original', 'modified')` diff in a
backtick fence; `formatSize`; `searchFilesWithValidation`: minimatch on the path relative to
`path`, full paths back). Every result's structured content is `{content: text}`, as there.
"""

from __future__ import annotations

import json
import posixpath
import re
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from ...errors import CodesiftError, InvalidArgumentError, NotAFileError
from .. import schema
from ..diffs import two_files_patch
from ..lines import (
    absolute,
    child_sizes,
    edited_text,
    exists,
    full_text,
    read_lines,
    read_text,
)
from ..spec import Profile, Tool
from ..tool_result import ToolResult

if TYPE_CHECKING:
    from ..toolbox import Toolbox

#: A file `create_directory` writes and deletes again: writing is how the sandbox makes
#: directories.
_DIRECTORY_MARKER = ".codesift-create-directory"


def _done(box: Toolbox, tool: str, text: str) -> ToolResult:
    return box.finish(tool, text, {"content": text})


def _content(box: Toolbox, path: str) -> str:
    return full_text(box.read_workspace(path), path)


def read_text_file(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    path, head, tail = args["path"], args.get("head"), args.get("tail")
    if head and tail:
        raise InvalidArgumentError("Cannot specify both head and tail parameters simultaneously")
    workspace = box.read_workspace(path)
    if tail:
        lines = read_lines(workspace, path)
        text = "\n".join(lines.texts[-int(tail) :])
    elif head:
        text = "\n".join(read_lines(workspace, path, 1, int(head)).texts)
    else:
        text = _content(box, path)
    return box.finish("read_text_file", text, {"content": text}, allow_spill=False)


def read_multiple_files(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    parts = []
    for path in args["paths"]:
        try:
            parts.append(f"{path}:\n{_content(box, path)}\n")
        except CodesiftError as exc:
            parts.append(f"{path}: Error - {box.message(exc, 'read_multiple_files')}")
    return _done(box, "read_multiple_files", "\n---\n".join(parts))


def write_file(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    box.workspace.write(args["path"], args["content"])
    return _done(box, "write_file", f"Successfully wrote to {args['path']}")


def edit_file(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    path = args["path"]
    shown = absolute(box.workspace, box.workspace.sandbox.relative(path))
    dry_run = bool(args.get("dryRun", False))
    try:
        result = box.workspace.edit_many(
            path, list(args["edits"]), sequential=True, dry_run=dry_run
        )
    except CodesiftError:
        # The server reads the file before it edits it: a file that cannot be read fails as
        # reading it does (nothing was written).
        _content(box, path)
        raise
    if dry_run:
        diff = _reheaded(result.diff, shown)
    else:
        before = edited_text(result.old_text, result.path).replace("\r\n", "\n")
        after = edited_text(result.new_text, result.path).replace("\r\n", "\n")
        diff = two_files_patch(shown, shown, before, after, "original", "modified")
    fence = 3
    while "`" * fence in diff:
        fence += 1
    text = f"{'`' * fence}diff\n{diff}{'`' * fence}\n\n"
    return _done(box, "edit_file", text)


def _reheaded(diff: str, shown: str) -> str:
    """The engine's dry-run diff under the server's headers."""
    hunks = diff.split("\n@@", 1)
    body = "@@" + hunks[1] if len(hunks) == 2 else ""
    header = f"Index: {shown}\n{'=' * 67}\n--- {shown}\toriginal\n+++ {shown}\tmodified\n"
    return header + body + ("" if body.endswith("\n") or not body else "\n")


def create_directory(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    path = args["path"]
    rel = box.workspace.sandbox.relative(path)
    if not exists(box.workspace, path):
        marker = posixpath.join(rel, _DIRECTORY_MARKER)
        box.workspace.write(marker, "")
        box.workspace.apply_patch(f"*** Begin Patch\n*** Delete File: {marker}\n*** End Patch")
    elif not _is_directory(box, path):
        raise InvalidArgumentError(f"{path} exists and is not a directory")
    return _done(box, "create_directory", f"Successfully created directory {path}")


def _is_directory(box: Toolbox, path: str) -> bool:
    try:
        box.workspace.read(path, limit=1)
    except NotAFileError:
        return True
    except CodesiftError:
        return False
    return False


def _entries(box: Toolbox, path: str) -> list[tuple[str, bool]]:
    listing = box.workspace.list_dir(path, limit=1_000_000)
    return [(e.rstrip("/"), e.endswith("/")) for e in listing.entries]


def list_directory(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    lines = [f"{'[DIR]' if d else '[FILE]'} {name}" for name, d in _entries(box, args["path"])]
    return _done(box, "list_directory", "\n".join(lines))


def format_size(size: int) -> str:
    units = ["B", "KB", "MB", "GB", "TB"]
    if size == 0:
        return "0 B"
    unit = 0
    while unit < len(units) - 1 and size >= 1024 ** (unit + 1):
        unit += 1
    return f"{size} B" if unit == 0 else f"{size / 1024**unit:.2f} {units[unit]}"


def list_directory_with_sizes(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    path = args["path"]
    entries = _entries(box, path)
    sizes = child_sizes(box.workspace, box.workspace.sandbox.relative(path))
    rows = [(name, d, 0 if d else sizes.get(name, 0)) for name, d in entries]
    if args.get("sortBy", "name") == "size":
        rows.sort(key=lambda r: -r[2])
    else:
        rows.sort(key=lambda r: r[0].lower())
    lines = [
        f"{'[DIR]' if d else '[FILE]'} {name.ljust(30)} {'' if d else format_size(s).rjust(10)}"
        for name, d, s in rows
    ]
    files = sum(1 for r in rows if not r[1])
    lines += [
        "",
        f"Total: {files} files, {len(rows) - files} directories",
        f"Combined size: {format_size(sum(r[2] for r in rows))}",
    ]
    return _done(box, "list_directory_with_sizes", "\n".join(lines))


def _minimatch(pattern: str) -> re.Pattern[str]:
    """A minimatch pattern (with `dot: true`) as a regex over a relative path."""
    out = ""
    k = 0
    while k < len(pattern):
        c = pattern[k]
        if pattern.startswith("**/", k):
            out += "(?:.*/)?"
            k += 3
            continue
        if pattern.startswith("**", k):
            out += ".*"
            k += 2
            continue
        if c == "*":
            out += "[^/]*"
        elif c == "?":
            out += "[^/]"
        elif c == "{":
            end = pattern.find("}", k)
            if end > k:
                out += "(?:" + "|".join(re.escape(p) for p in pattern[k + 1 : end].split(",")) + ")"
                k = end + 1
                continue
            out += re.escape(c)
        else:
            out += re.escape(c)
        k += 1
    return re.compile(f"^{out}$")


def _excluded(rel: str, patterns: list[str]) -> bool:
    for pattern in patterns:
        candidates = [pattern] if "*" in pattern else [pattern, f"**/{pattern}", f"**/{pattern}/**"]
        if any(_minimatch(p).match(rel) for p in candidates):
            return True
    return False


def directory_tree(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    root = box.workspace.sandbox.relative(args["path"])
    excludes = list(args.get("excludePatterns") or [])

    def build(rel: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for name, is_dir in _entries(box, rel):
            child = name if rel == "." else f"{rel}/{name}"
            relative = child if root == "." else child[len(root) + 1 :]
            if _excluded(relative, excludes):
                continue
            entry: dict[str, Any] = {"name": name, "type": "directory" if is_dir else "file"}
            if is_dir:
                entry["children"] = build(child)
            out.append(entry)
        return out

    return _done(box, "directory_tree", json.dumps(build(root), indent=2, ensure_ascii=False))


def move_file(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    source, destination = args["source"], args["destination"]
    if _is_directory(box, source):
        raise InvalidArgumentError(
            f"{source} is a directory; codesift moves files only (move its files one by one)"
        )
    if exists(box.workspace, destination):
        raise InvalidArgumentError(f"Destination already exists: {destination}")
    src = box.workspace.sandbox.relative(source)
    dst = box.workspace.sandbox.relative(destination)
    box.workspace.apply_patch(
        f"*** Begin Patch\n*** Update File: {src}\n*** Move to: {dst}\n*** End Patch",
        format="apply_patch",
    )
    return _done(box, "move_file", f"Successfully moved {source} to {destination}")


def search_files(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    path, pattern = args["path"], args["pattern"]
    base = box.workspace.sandbox.relative(path)
    excludes = list(args.get("excludePatterns") or [])
    matcher = _minimatch(pattern)
    found = box.workspace.glob("*", path, limit=1_000_000, sort="path")
    results: list[str] = []
    seen_dirs: set[str] = set()
    for f in found.files:
        rel = f.path if base == "." else f.path[len(base) + 1 :]
        parts = rel.split("/")
        for k in range(1, len(parts)):
            directory = "/".join(parts[:k])
            if directory not in seen_dirs:
                seen_dirs.add(directory)
                if matcher.match(directory) and not _excluded(directory, excludes):
                    results.append(absolute(box.workspace, f.path.rsplit("/", len(parts) - k)[0]))
        if matcher.match(rel) and not _excluded(rel, excludes):
            results.append(absolute(box.workspace, f.path))
    text = "\n".join(results) if results else "No matches found"
    return _done(box, "search_files", text)


def _js_date(ms: float) -> str:
    """A time as JavaScript's `Date.toString()` writes it (UTC)."""
    moment = datetime.fromtimestamp(ms / 1000, tz=timezone.utc)
    return moment.strftime("%a %b %d %Y %H:%M:%S GMT+0000 (Coordinated Universal Time)")


def get_file_info(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    path = args["path"]
    rel = box.workspace.sandbox.relative(path)
    if _is_directory(box, path):
        info = {"size": 0, "isDirectory": "true", "isFile": "false"}
    else:
        parent = rel.rpartition("/")[0]
        escaped = "".join(f"[{c}]" if c in "*?[]{}" else c for c in rel)
        found = [
            f for f in box.workspace.glob(escaped, parent or ".", limit=10).files if f.path == rel
        ]
        if not found:
            read_text(box.workspace, path)  # raises the not-found error
            raise InvalidArgumentError(f"{path} is not visible to search (ignored)")
        info = {
            "size": found[0].size,
            "modified": _js_date(found[0].mtime_ms),
            "isDirectory": "false",
            "isFile": "true",
        }
    text = "\n".join(f"{key}: {value}" for key, value in info.items())
    return _done(box, "get_file_info", text)


def list_allowed_directories(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    return _done(box, "list_allowed_directories", f"Allowed directories:\n{box.workspace.root}")


def _path() -> dict[str, Any]:
    """A path parameter: every one of this server's is required."""
    return schema.path(required=True)


_READ_PARAMETERS = {
    "path": _path(),
    "tail": {
        "type": "number",
        "description": "If provided, returns only the last N lines of the file",
    },
    "head": {
        "type": "number",
        "description": "If provided, returns only the first N lines of the file",
    },
}
_READ_DESCRIPTION = (
    "Read the complete contents of a file from the file system as text. Handles various text "
    "encodings and provides detailed error messages if the file cannot be read. Use this tool "
    "when you need to examine the contents of a single file. Use the 'head' parameter to read "
    "only the first N lines of a file, or the 'tail' parameter to read only the last N lines of "
    "a file. Operates on the file as text regardless of extension. Only works within allowed "
    "directories."
)
_OUT = ("content",)


def _tool(name: str, description: str, properties: dict[str, Any], handler: Any, **kw: Any) -> Tool:
    return Tool(
        name=name,
        description=description,
        properties=properties,
        handler=handler,
        output_required=_OUT,
        **kw,
    )


PROFILE = Profile(
    name="mcp-filesystem",
    summary="the MCP filesystem server: read_text_file, edit_file, directory_tree, ...",
    tools=(
        _tool(
            "read_text_file",
            _READ_DESCRIPTION,
            _READ_PARAMETERS,
            read_text_file,
        ),
        _tool(
            "read_file",
            "Read the complete contents of a file as text. DEPRECATED: Use read_text_file instead.",
            _READ_PARAMETERS,
            read_text_file,
        ),
        _tool(
            "read_multiple_files",
            "Read the contents of multiple files simultaneously. This is more efficient than "
            "reading files one by one when you need to analyze or compare multiple files. Each "
            "file's content is returned with its path as a reference. Failed reads for "
            "individual files won't stop the entire operation. Only works within allowed "
            "directories.",
            {
                "paths": schema.required(
                    {
                        "type": "array",
                        "items": {"type": "string"},
                        "minItems": 1,
                        "description": "Array of file paths to read. Each path must be a string "
                        "pointing to a valid file within allowed directories.",
                    }
                )
            },
            read_multiple_files,
        ),
        _tool(
            "write_file",
            "Create a new file or completely overwrite an existing file with new content. Use "
            "with caution as it will overwrite existing files without warning. Handles text "
            "content with proper encoding. Only works within allowed directories.",
            {"path": _path(), "content": schema.text(required=True)},
            write_file,
            read_only=False,
        ),
        _tool(
            "edit_file",
            "Make line-based edits to a text file. Each edit replaces exact line sequences with "
            "new content. Returns a git-style diff showing the changes made. Only works within "
            "allowed directories.",
            {
                "path": _path(),
                "edits": schema.required(
                    {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "oldText": schema.string("Text to search for - must match exactly"),
                                "newText": schema.string("Text to replace with"),
                            },
                            "required": ["oldText", "newText"],
                            "additionalProperties": False,
                        },
                    }
                ),
                "dryRun": {
                    "type": "boolean",
                    "default": False,
                    "description": "Preview changes using git-style diff format",
                },
            },
            edit_file,
            read_only=False,
        ),
        _tool(
            "create_directory",
            "Create a new directory or ensure a directory exists. Can create multiple nested "
            "directories in one operation. If the directory already exists, this operation will "
            "succeed silently. Perfect for setting up directory structures for projects or "
            "ensuring required paths exist. Only works within allowed directories.",
            {"path": _path()},
            create_directory,
            read_only=False,
        ),
        _tool(
            "list_directory",
            "Get a detailed listing of all files and directories in a specified path. Results "
            "clearly distinguish between files and directories with [FILE] and [DIR] prefixes. "
            "This tool is essential for understanding directory structure and finding specific "
            "files within a directory. Only works within allowed directories.",
            {"path": _path()},
            list_directory,
        ),
        _tool(
            "list_directory_with_sizes",
            "Get a detailed listing of all files and directories in a specified path, including "
            "sizes. Results clearly distinguish between files and directories with [FILE] and "
            "[DIR] prefixes. This tool is useful for understanding directory structure and "
            "finding specific files within a directory. Only works within allowed directories.",
            {
                "path": _path(),
                "sortBy": {
                    "type": "string",
                    "enum": ["name", "size"],
                    "default": "name",
                    "description": "Sort entries by name or size",
                },
            },
            list_directory_with_sizes,
        ),
        _tool(
            "directory_tree",
            "Get a recursive tree view of files and directories as a JSON structure. Each entry "
            "includes 'name', 'type' (file/directory), and 'children' for directories. Files "
            "have no children array, while directories always have a children array (which may "
            "be empty). The output is formatted with 2-space indentation for readability. Only "
            "works within allowed directories.",
            {
                "path": _path(),
                "excludePatterns": {"type": "array", "items": {"type": "string"}, "default": []},
            },
            directory_tree,
        ),
        _tool(
            "move_file",
            "Move or rename files and directories. Can move files between directories and "
            "rename them in a single operation. If the destination exists, the operation will "
            "fail. Works across different directories and can be used for simple renaming "
            "within the same directory. Both source and destination must be within allowed "
            "directories.",
            {"source": _path(), "destination": _path()},
            move_file,
            read_only=False,
        ),
        _tool(
            "search_files",
            "Recursively search for files and directories matching a pattern. The patterns "
            "should be glob-style patterns that match paths relative to the working directory. "
            "Use pattern like '*.ext' to match files in current directory, and '**/*.ext' to "
            "match files in all subdirectories. Returns full paths to all matching items. Great "
            "for finding files when you don't know their exact location. Only searches within "
            "allowed directories.",
            {
                "path": _path(),
                "pattern": schema.required({"type": "string"}),
                "excludePatterns": {"type": "array", "items": {"type": "string"}, "default": []},
            },
            search_files,
        ),
        _tool(
            "get_file_info",
            "Retrieve detailed metadata about a file or directory. Returns comprehensive "
            "information including size, creation time, last modified time, permissions, and "
            "type. This tool is perfect for understanding file characteristics without reading "
            "the actual content. Only works within allowed directories.",
            {"path": _path()},
            get_file_info,
        ),
        _tool(
            "list_allowed_directories",
            "Returns the list of directories that this server is allowed to access. "
            "Subdirectories within these allowed directories are also accessible. Use this to "
            "understand which directories and their nested paths are available before trying "
            "to access files.",
            {},
            list_allowed_directories,
        ),
    ),
    instructions=(
        "The MCP filesystem server's tools over one allowed directory (the workspace root): read, "
        "list, search, edit, write and move files inside it."
    ),
    error_format="{message}",
    spill_hint='read_text_file(path="{spill}") (from line {offset})',
)
