"""The `codex` profile: the OpenAI Codex CLI's file tools (apply_patch, grep_files,
read_file, list_dir) with their parameter names and output text.

Source: openai/codex `codex-rs/core/src/tools/handlers/apply_patch.rs` and
`codex-rs/apply-patch` (the `*** Begin Patch` envelope; `Success. Updated the following files:`
then `A`/`M`/`D` lines), `grep_files.rs` (paths only, newest first, limit 100, `No matches
found.`), `read_file.rs` (`L12: text`, 500-byte lines, slice and indentation modes),
`list_dir.rs` (`Absolute path: ...`, depth 2, 25 entries from offset 1, 2-space indent, `/` for
directories).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import InvalidArgumentError
from ...patches import parse_patch
from ..lines import Line, absolute, read_lines
from ..spec import declared_profile
from ..tool_result import ToolResult

if TYPE_CHECKING:
    from ..toolbox import Toolbox

GREP_LIMIT = 100
GREP_MAX_LIMIT = 2000
MAX_LINE_BYTES = 500
TAB_WIDTH = 4
COMMENT_PREFIXES = ("#", "//", "--")


def apply_patch(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    result = box.workspace.apply_patch(args["input"], format="apply_patch")
    # Codex names each file as the patch does (relative or absolute, a move by its
    # destination); the result's files are the patch's sections, in order.
    ops = parse_patch(args["input"], format="apply_patch").ops
    named = [(f.action, op.move_to or op.path) for f, op in zip(result.files, ops, strict=True)]
    added = [name for action, name in named if action == "add"]
    modified = [name for action, name in named if action in ("update", "move")]
    deleted = [name for action, name in named if action == "delete"]
    lines = ["Success. Updated the following files:"]
    lines += [f"A {p}" for p in added] + [f"M {p}" for p in modified]
    lines += [f"D {p}" for p in deleted]
    return box.finish("apply_patch", "\n".join(lines) + "\n", result.to_dict())


def grep_files(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    pattern = args["pattern"].strip()
    if not pattern:
        raise InvalidArgumentError("pattern must not be empty")
    limit = args.get("limit", GREP_LIMIT)
    if limit == 0:
        raise InvalidArgumentError("limit must be greater than zero")
    limit = min(limit, GREP_MAX_LIMIT)
    include = (args.get("include") or "").strip() or None
    result = box.workspace.grep(
        pattern, args.get("path", "."), include=include, case_sensitive=True, max_matches=None
    )
    newest: dict[str, int] = {}
    for m in result.matches:
        newest.setdefault(m.file, m.file_mtime_ns)
    files = sorted(newest, key=lambda f: (-newest[f], f))[:limit]
    if not files:
        return box.finish("grep_files", "No matches found.", {"files": []})
    shown = [absolute(box.workspace, f) for f in files]
    return box.finish("grep_files", "\n".join(shown), {"files": files})


def _display(text: str) -> str:
    """A line cut to 500 bytes at a character boundary, as Codex shows it."""
    data = text.encode()
    if len(data) <= MAX_LINE_BYTES:
        return text
    return data[:MAX_LINE_BYTES].decode("utf-8", "ignore")


def read_file(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    path = args["file_path"]
    offset, limit = args.get("offset", 1), args.get("limit", 2000)
    if offset == 0:
        raise InvalidArgumentError("offset must be a 1-indexed line number")
    if limit == 0:
        raise InvalidArgumentError("limit must be greater than zero")
    workspace = box.read_workspace(path)
    if args.get("mode", "slice") == "indentation":
        lines = list(read_lines(workspace, path).lines)
        shown = _indentation_block(lines, offset, limit, args.get("indentation") or {})
    else:
        found = read_lines(workspace, path, offset, limit)
        if found.total < offset:
            raise InvalidArgumentError("offset exceeds file length")
        shown = list(found.lines)
    text = "\n".join(f"L{line.number}: {_display(line.text)}" for line in shown)
    return box.finish("read_file", text, {"lines": len(shown)}, allow_spill=False)


def _indent(text: str) -> int:
    width = 0
    for c in text:
        if c == " ":
            width += 1
        elif c == "\t":
            width += TAB_WIDTH
        else:
            break
    return width


def _indentation_block(
    lines: list[Line], offset: int, limit: int, options: dict[str, Any]
) -> list[Line]:
    """Codex's indentation mode: the block around an anchor line, grown up and down while
    lines are indented at least `max_levels` levels less than the anchor."""
    anchor = options.get("anchor_line", offset)
    if anchor == 0:
        raise InvalidArgumentError("anchor_line must be a 1-indexed line number")
    guard = options.get("max_lines", limit)
    if guard == 0:
        raise InvalidArgumentError("max_lines must be greater than zero")
    if not lines or anchor > len(lines):
        raise InvalidArgumentError("anchor_line exceeds file length")
    max_levels = options.get("max_levels", 0)
    siblings = bool(options.get("include_siblings", False))
    header = bool(options.get("include_header", True))
    effective: list[int] = []
    previous = 0
    for line in lines:
        if line.text.strip():
            previous = _indent(line.text)
        effective.append(previous)
    index = anchor - 1
    floor = 0 if max_levels == 0 else max(0, effective[index] - max_levels * TAB_WIDTH)
    final = min(limit, guard, len(lines))
    if final == 1:
        return [lines[index]]
    up, down = index - 1, index + 1
    up_count = down_count = 0
    out = [lines[index]]
    while len(out) < final:
        progressed = 0
        if up >= 0:
            if effective[up] >= floor:
                out.insert(0, lines[up])
                progressed += 1
                taken, up = up, up - 1
                if effective[taken] == floor and not siblings:
                    comment = header and lines[taken].text.strip().startswith(COMMENT_PREFIXES)
                    if comment or up_count == 0:
                        up_count += 1
                    else:
                        out.pop(0)
                        progressed -= 1
                        up = -1
                if len(out) >= final:
                    break
            else:
                up = -1
        if down < len(lines):
            if effective[down] >= floor:
                out.append(lines[down])
                progressed += 1
                taken, down = down, down + 1
                if effective[taken] == floor and not siblings:
                    if down_count > 0:
                        out.pop()
                        progressed -= 1
                        down = len(lines)
                    down_count += 1
            else:
                down = len(lines)
        if progressed == 0:
            break
    while out and not out[0].text.strip():
        out.pop(0)
    while out and not out[-1].text.strip():
        out.pop()
    return out


def list_dir(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    dir_path = args["dir_path"]
    offset, limit, depth = args.get("offset", 1), args.get("limit", 25), args.get("depth", 2)
    if offset == 0:
        raise InvalidArgumentError("offset must be a 1-indexed entry number")
    if limit == 0:
        raise InvalidArgumentError("limit must be greater than zero")
    if depth == 0:
        raise InvalidArgumentError("depth must be greater than zero")
    base = box.workspace.sandbox.relative(dir_path)
    entries: list[tuple[str, str, int, bool]] = []  # (sort key, name, depth, is_dir)
    queue = [(base, "", depth)]
    while queue:
        directory, prefix, remaining = queue.pop(0)
        for entry in box.workspace.list_dir(directory, limit=1_000_000).entries:
            is_dir = entry.endswith("/")
            name = entry.rstrip("/")
            rel = f"{prefix}{name}"
            entries.append((rel, name, prefix.count("/"), is_dir))
            if is_dir and remaining > 1:
                child = name if directory == "." else f"{directory}/{name}"
                queue.append((child, rel + "/", remaining - 1))
    entries.sort(key=lambda e: e[0].encode("utf-8", "surrogateescape"))
    lines = [f"Absolute path: {absolute(box.workspace, base)}"]
    if entries:
        start = offset - 1
        if start >= len(entries):
            raise InvalidArgumentError("offset exceeds directory entry count")
        chosen = entries[start : start + limit]
        lines += [f"{'  ' * d}{name}{'/' if is_dir else ''}" for _, name, d, is_dir in chosen]
        if start + len(chosen) < len(entries):
            lines.append(f"More than {len(chosen)} entries found")
    return box.finish("list_dir", "\n".join(lines), {"entries": len(entries)})


PROFILE = declared_profile(
    __name__,
    {
        "apply_patch": apply_patch,
        "grep_files": grep_files,
        "read_file": read_file,
        "list_dir": list_dir,
    },
)
