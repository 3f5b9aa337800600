"""The `swe-agent` profile: the text-editor tool of SWE-agent and OpenHands (Anthropic's
`str_replace_editor`): one tool, `command` = view | create | str_replace | insert | undo_edit.

Source: SWE-agent/SWE-agent `tools/edit_anthropic/config.yaml` (schema, from OpenHands'
`function_calling.py`) and `tools/edit_anthropic/bin/str_replace_editor` (texts: `Here's the
result of running `cat -n` on ...`, 4-line snippets, 16,000-character `<response clipped>`,
`find -maxdepth 2` directory view, every error message).
Differences, on purpose: str_replace and insert never expand tabs in the file (codesift never
rewrites bytes outside the change), and undo_edit uses codesift's bounded edit history.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING, Any

from ...errors import Concept, InvalidArgumentError, NotAFileError
from ...errors.hints import DEFAULT_OPTIONS, Option
from ..lines import absolute, edited_text, exists, full_text
from ..spec import declared_profile
from ..tool_result import ToolResult

if TYPE_CHECKING:
    from ..toolbox import Toolbox

MAX_RESPONSE_LEN = 16000
SNIPPET_LINES = 4
TRUNCATED_MESSAGE = (
    "<response clipped><NOTE>To save on context only part of this file has been shown to you. "
    "You should retry this tool after you have searched inside the file with `grep -n` in order "
    "to find the line numbers of what you are looking for.</NOTE>"
)


def make_output(content: str, descriptor: str, init_line: int = 1) -> str:
    """`str_replace_editor`'s `_make_output`: clipped at 16,000 characters, tabs expanded,
    `cat -n` numbering."""
    if len(content) > MAX_RESPONSE_LEN:
        content = content[:MAX_RESPONSE_LEN] + TRUNCATED_MESSAGE
    content = content.expandtabs()
    numbered = "\n".join(f"{k + init_line:6}\t{line}" for k, line in enumerate(content.split("\n")))
    return f"Here's the result of running `cat -n` on {descriptor}:\n{numbered}\n"


def _file_text(box: Toolbox, path: str) -> str:
    """The file's text as Python's `read_text` gives it (with its final newline)."""
    return full_text(box.workspace, path)


def str_replace_editor(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    command, path = args["command"], args["path"]
    if not path.startswith("/"):
        suggested = absolute(box.workspace, path)
        raise InvalidArgumentError(
            f"The path {path} is not an absolute path, it should start with `/`. Maybe you "
            f"meant {suggested}?"
        )
    present = exists(box.workspace, path)
    if not present and command != "create":
        raise InvalidArgumentError(f"The path {path} does not exist. Please provide a valid path.")
    if present and command == "create":
        raise InvalidArgumentError(
            f"File already exists at: {path}. Cannot overwrite files using command `create`."
        )
    handler = _COMMANDS[command]
    return handler(box, path, args)


def _view(box: Toolbox, path: str, args: dict[str, Any]) -> ToolResult:
    view_range = args.get("view_range")
    try:
        text = _file_text(box, path)
    except NotAFileError:
        if view_range:
            raise InvalidArgumentError(
                "The `view_range` parameter is not allowed when `path` points to a directory."
            ) from None
        return _view_directory(box, path)
    init_line = 1
    if view_range:
        if len(view_range) != 2:
            raise InvalidArgumentError("Invalid `view_range`. It should be a list of two integers.")
        lines = text.split("\n")
        first, last = view_range
        if first < 1 or first > len(lines):
            raise InvalidArgumentError(
                f"Invalid `view_range`: {view_range}. Its first element `{first}` should be "
                f"within the range of lines of the file: {[1, len(lines)]}"
            )
        if last > len(lines):
            raise InvalidArgumentError(
                f"Invalid `view_range`: {view_range}. Its second element `{last}` should be "
                f"smaller than the number of lines in the file: `{len(lines)}`"
            )
        if last != -1 and last < first:
            raise InvalidArgumentError(
                f"Invalid `view_range`: {view_range}. Its second element `{last}` should be "
                f"larger or equal than its first `{first}`"
            )
        last = len(lines) if last == -1 else last
        text = "\n".join(lines[first - 1 : last])
        init_line = first
    return box.finish("str_replace_editor", make_output(text, path, init_line), {"path": path})


def _view_directory(box: Toolbox, path: str) -> ToolResult:
    """`find PATH -maxdepth 2 -not -path '*/.*'`: the directory, then its non-hidden entries
    two levels deep, each directory followed by its contents."""
    base = box.workspace.sandbox.relative(path)
    shown = path.rstrip("/") or "/"
    lines = [path]

    def walk(rel: str, prefix: str, depth: int) -> None:
        for entry in sorted(box.workspace.list_dir(rel, limit=1_000_000).entries):
            name = entry.rstrip("/")
            if name.startswith("."):
                continue
            lines.append(f"{prefix}/{name}")
            if entry.endswith("/") and depth < 2:
                walk(
                    name if rel == "." else posixpath.join(rel, name), f"{prefix}/{name}", depth + 1
                )

    walk(base, shown, 1)
    text = (
        f"Here's the files and directories up to 2 levels deep in {path}, excluding hidden "
        "items:\n" + "\n".join(lines) + "\n"
    )
    return box.finish("str_replace_editor", text, {"path": path, "entries": len(lines) - 1})


def _create(box: Toolbox, path: str, args: dict[str, Any]) -> ToolResult:
    if "file_text" not in args:
        raise InvalidArgumentError("Parameter `file_text` is required for command: create")
    parent = posixpath.dirname(path.rstrip("/"))
    if parent and not exists(box.workspace, parent):
        raise InvalidArgumentError(
            f"The parent directory {parent} does not exist. Please create it first."
        )
    box.workspace.write(path, args["file_text"])
    return box.finish("str_replace_editor", f"File created successfully at: {path}", {"path": path})


def _str_replace(box: Toolbox, path: str, args: dict[str, Any]) -> ToolResult:
    if "old_str" not in args:
        raise InvalidArgumentError("Parameter `old_str` is required for command: str_replace")
    old, new = args["old_str"], args.get("new_str", "")
    text = _file_text(box, path)
    occurrences = text.count(old) if old else 0
    if occurrences == 0:
        raise InvalidArgumentError(
            f"No replacement was performed, old_str `{old}` did not appear verbatim in {path}."
        )
    if occurrences > 1:
        lines = [k + 1 for k, line in enumerate(text.split("\n")) if old in line]
        raise InvalidArgumentError(
            f"No replacement was performed. Multiple occurrences of old_str `{old}` in lines "
            f"{lines}. Please ensure it is unique"
        )
    if new == old:
        raise InvalidArgumentError(
            f"No replacement was performed, old_str `{old}` is the same as new_str `{new}`."
        )
    result = box.workspace.edit(path, old, new, fuzzy=False)
    after = edited_text(result.new_text, result.path)
    replaced_at = text.split(old)[0].count("\n")
    start = max(1, replaced_at - SNIPPET_LINES)
    end = min(replaced_at + SNIPPET_LINES + new.count("\n"), len(after.splitlines()))
    snippet = "\n".join(after.split("\n")[start - 1 : end])
    message = (
        f"The file {path} has been edited. "
        + make_output(snippet, f"a snippet of {path}", start)
        + "Review the changes and make sure they are as expected. Edit the file again if "
        "necessary."
    )
    return box.finish("str_replace_editor", message, result.to_dict())


def _insert(box: Toolbox, path: str, args: dict[str, Any]) -> ToolResult:
    if "insert_line" not in args:
        raise InvalidArgumentError("Parameter `insert_line` is required for command: insert")
    if "new_str" not in args:
        raise InvalidArgumentError("Parameter `new_str` is required for command: insert")
    line, new = args["insert_line"], args["new_str"]
    text = _file_text(box, path)
    old_lines = text.split("\n")
    if line < 0 or line > len(old_lines):
        raise InvalidArgumentError(
            f"Invalid `insert_line` parameter: {line}. It should be within the range of lines "
            f"of the file: {[0, len(old_lines)]}"
        )
    result = box.workspace.insert(path, line, new)
    new_lines = new.split("\n")
    snippet = "\n".join(
        old_lines[max(0, line - SNIPPET_LINES) : line]
        + new_lines
        + old_lines[line : line + SNIPPET_LINES]
    )
    message = (
        f"The file {path} has been edited. "
        + make_output(snippet, "a snippet of the edited file", max(1, line - SNIPPET_LINES + 1))
        + "Review the changes and make sure they are as expected (correct indentation, no "
        "duplicate lines, etc). Edit the file again if necessary."
    )
    return box.finish("str_replace_editor", message, result.to_dict())


def _undo_edit(box: Toolbox, path: str, args: dict[str, Any]) -> ToolResult:
    try:
        result = box.workspace.undo_edit(path)
    except InvalidArgumentError:
        raise
    except Exception as exc:
        if type(exc).__name__ == "NotFoundError":
            raise InvalidArgumentError(f"No edit history found for {path}.") from None
        raise
    restored = edited_text(result.new_text, result.path) if result.action != "deleted" else ""
    message = f"Last edit to {path} undone successfully. {make_output(restored, path)}"
    return box.finish("str_replace_editor", message, result.to_dict())


_COMMANDS = {
    "view": _view,
    "create": _create,
    "str_replace": _str_replace,
    "insert": _insert,
    "undo_edit": _undo_edit,
}

PROFILE = declared_profile(
    __name__,
    {"str_replace_editor": str_replace_editor},
    aliases={"str_replace_based_edit_tool": "str_replace_editor"},
    # The one tool reads too: `command="view"` (with `view_range` for a region).
    hint_options={**DEFAULT_OPTIONS, Concept.READ: (Option("command", '"view"'),)},
)
