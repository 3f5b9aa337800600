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
from ..spec import declared_profile
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


PROFILE = declared_profile(
    __name__,
    {
        "read_text_file": read_text_file,
        "read_file": read_text_file,
        "read_multiple_files": read_multiple_files,
        "write_file": write_file,
        "edit_file": edit_file,
        "create_directory": create_directory,
        "list_directory": list_directory,
        "list_directory_with_sizes": list_directory_with_sizes,
        "directory_tree": directory_tree,
        "move_file": move_file,
        "search_files": search_files,
        "get_file_info": get_file_info,
        "list_allowed_directories": list_allowed_directories,
    },
)
