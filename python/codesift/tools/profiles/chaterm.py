"""The `chaterm` profile: Chaterm's `glob_search` and `grep_search`, the search tools codesift
was first written to back. They are codesift's own search with Chaterm's parameter names
(`ip` names the hosts to search over SSH, with the toolbox's remote settings) and Chaterm's
result shape (`files: [{path, mtimeMs, size}]`, `ignored: {git, cline}`;
`matches: [{file, line, text}]`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...results.matches import GlobResult, GrepResult, plural
from ...workspace import Workspace
from ..call_arguments import renaming
from ..spec import Tool, declared_profile
from ..tool_result import ToolResult

if TYPE_CHECKING:
    from ..toolbox import Toolbox

#: limit's and max_matches's defaults (chaterm.json publishes them).
DEFAULT_GLOB_LIMIT = 2000
DEFAULT_MAX_MATCHES = 500

#: Other spellings of the parameters, as codesift's own profile takes them.
PARAM_ALIASES = {"host": "ip", "maxMatches": "max_matches", "contextLines": "context_lines"}


def argument_name(tool: Tool, key: Any, value: Any) -> tuple[Any, Any]:
    alias = PARAM_ALIASES.get(key)
    return (alias if alias in tool.properties else key), value


# -- handlers ------------------------------------------------------------------------------


def glob_search(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    target = _target(box, args)
    pattern, path = args["pattern"], args.get("path", ".")
    limit, sort = args.get("limit", DEFAULT_GLOB_LIMIT), args.get("sort", "path")
    result = target.glob(pattern, path, limit=limit, sort=sort)
    if target is box.workspace:
        ignored = ignored_by_kind(box.workspace, result, pattern, path, limit=limit, sort=sort)
    else:  # a remote search applies no access-ignore files of its own
        ignored = {"git": result.ignored, "cline": 0}
    files = []
    for f in result.files:
        entry: dict[str, Any] = {"path": f.path, "mtimeMs": f.mtime_ms, "size": f.size}
        if f.host is not None:
            entry["host"] = f.host
        files.append(entry)
    data: dict[str, Any] = {
        "files": files,
        "total": result.total,
        "truncated": result.truncated,
        "ignored": ignored,
        "summary": _summary(result),
    }
    if result.errors:
        data["errors"] = dict(result.errors)
    lines = [_summary(result)]
    lines.extend(f"{f.host}:{f.path}" if f.host else f.path for f in result.files)
    if not result.files:
        lines.extend(_hidden_note(ignored))
    lines.extend(_host_failures(result))
    return box.finish("glob_search", "\n".join(lines), data)


def grep_search(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    target = _target(box, args)
    context = args.get("context_lines", 0)
    result = target.grep(
        args["pattern"],
        args.get("path", "."),
        include=args.get("include"),
        case_sensitive=args.get("case_sensitive", False),
        context_lines=context,
        max_matches=args.get("max_matches", DEFAULT_MAX_MATCHES),
    )
    matches = []
    for m in result.matches:
        entry: dict[str, Any] = {"file": m.file, "line": m.line, "text": m.text}
        if m.host is not None:
            entry["host"] = m.host
        if context:
            entry["before"] = list(m.before)
            entry["after"] = list(m.after)
        matches.append(entry)
    data: dict[str, Any] = {
        "matches": matches,
        "total": result.total,
        "truncated": result.truncated,
        "summary": _summary(result),
    }
    if result.errors:
        data["errors"] = dict(result.errors)
    text, windowed = grep_text(box, result)
    return box.finish("grep_search", text, data, truncated=windowed)


# -- helpers -------------------------------------------------------------------------------


def _target(box: Toolbox, args: dict[str, Any]) -> Any:
    if "ip" in args:
        args["host"] = args.pop("ip")
    return box.search_target(args)


def ignored_by_kind(
    workspace: Workspace, result: GlobResult, pattern: str, path: str, *, limit: int, sort: str
) -> dict[str, int]:
    """`result.ignored` split into what `.gitignore`-style rules hid (`git`) and what
    access-ignore files (`.clineignore`, `.codesiftignore`) denied (`cline`).

    The walk counts both together; the split comes from the same glob in a view of the tree
    without access-ignore files, run only when something was hidden and the root has an
    access-ignore file (where Cline and Chaterm keep theirs). An entry both rules hide counts
    as `cline` (access rules decide first)."""
    if result.ignored == 0 or not _has_access_file(workspace):
        return {"git": result.ignored, "cline": 0}
    view = Workspace(
        workspace.root,
        gitignore=workspace.gitignore,
        ignore_files=(),
        hidden=workspace.hidden,
        follow_symlinks=workspace.follow_symlinks,
        max_filesize=workspace.max_filesize,
    )
    git_only = view.glob(pattern, path, limit=limit, sort=sort).ignored
    cline = max(0, result.ignored - git_only)
    return {"git": result.ignored - cline, "cline": cline}


def _has_access_file(workspace: Workspace) -> bool:
    names = set(workspace.ignore_files)
    if not names:
        return False
    return any(entry in names for entry in workspace.list_dir(".", limit=100_000).entries)


def _hidden_note(ignored: dict[str, int]) -> list[str]:
    parts = []
    if ignored["git"]:
        parts.append(f"{plural(ignored['git'], 'path')} hidden by .gitignore rules")
    if ignored["cline"]:
        parts.append(f"{plural(ignored['cline'], 'path')} denied by .clineignore")
    return [f"({' and '.join(parts)})"] if parts else []


def _host_failures(result: GlobResult | GrepResult) -> list[str]:
    return [f"[host {h} failed: {msg}]" for h, msg in result.errors.items()]


def grep_text(box: Toolbox, result: GrepResult) -> tuple[str, bool]:
    """The summary, then grep's own format: `file:line:text` per hit, `file-line-text` for
    context lines, a blank line between files; remote hits prefixed with `host:`. Returns the
    text and whether a long line was cut to a window around its match."""
    clip = box.output.clip
    lines = [_summary(result)]
    windowed = False
    current: tuple[str | None, str] | None = None
    hit_lines = {(m.host, m.file, m.line) for m in result.matches}
    shown: set[tuple[str | None, str, int]] = set()

    def context(host: str | None, prefix: str, number: int, text: str) -> None:
        if (host, prefix, number) in shown or (host, prefix, number) in hit_lines:
            return
        shown.add((host, prefix, number))
        lines.append(f"{prefix}-{number}-{clip(text, 1, 0)[0]}")

    for m in result.matches:
        prefix = f"{m.host}:{m.file}" if m.host else m.file
        if (m.host, m.file) != current:
            lines.append("")
            current = (m.host, m.file)
        for k, before in enumerate(m.before):
            context(m.host, m.file, m.line - len(m.before) + k, before)
        if (m.host, m.file, m.line) not in shown:
            shown.add((m.host, m.file, m.line))
            text, cut = clip(m.text, m.column, len(m.content))
            windowed |= cut
            lines.append(f"{prefix}:{m.line}:{text}")
        for k, after in enumerate(m.after):
            context(m.host, m.file, m.end_line + 1 + k, after)
    failures = _host_failures(result)
    if failures:
        lines.append("")
        lines.extend(failures)
    return "\n".join(lines), windowed


PROFILE = declared_profile(
    __name__,
    {"glob_search": glob_search, "grep_search": grep_search},
    rename=renaming(argument_name),
)


def _summary(result: GlobResult | GrepResult) -> str:
    """Chaterm's summary line: what the library appends for a search that found little (the
    hint) is said by chaterm's own `ignored` line instead."""
    return result.summary.removesuffix(f" {result.hint}") if result.hint else result.summary
