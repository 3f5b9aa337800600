"""MCP tool annotations (title, readOnlyHint, destructiveHint, idempotentHint,
openWorldHint) for every tool name a profile may expose.

The tools' behaviour is known by name: the table below covers codesift's tools and the
names of the agents' tool sets (profiles). An unknown name gets the protocol's cautious
defaults (not read-only, destructive, not idempotent) and a title made from its name.
`openWorldHint` is true only for a tool that takes `host` (or `ip`) while remote search is
configured: only then can a call reach beyond the workspace.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcp import types


@dataclass(frozen=True)
class Behaviour:
    read_only: bool
    destructive: bool
    idempotent: bool
    #: Searches file contents (a persistent index is built before such a call, see server).
    searches_contents: bool = False


READ = Behaviour(read_only=True, destructive=False, idempotent=True)
SEARCH = Behaviour(read_only=True, destructive=False, idempotent=True, searches_contents=True)
#: Writes a whole file: the same call twice leaves the same file.
OVERWRITE = Behaviour(read_only=False, destructive=True, idempotent=True)
#: Changes part of a file (or moves one): repeating it may change more.
EDIT = Behaviour(read_only=False, destructive=True, idempotent=False)
#: Only adds (a directory): nothing existing is changed.
CREATE = Behaviour(read_only=False, destructive=False, idempotent=True)
UNKNOWN = Behaviour(read_only=False, destructive=True, idempotent=False)

#: name -> (title, behaviour). Names are matched exactly, then case-insensitively.
TOOLS: dict[str, tuple[str, Behaviour]] = {
    # codesift
    "grep_search": ("Search file contents", SEARCH),
    "glob_search": ("Find files by name", READ),
    "read_file": ("Read a file", READ),
    "list_dir": ("List a directory", READ),
    "edit": ("Edit a file", EDIT),
    "write_file": ("Write a file", OVERWRITE),
    "edit_many": ("Edit a file in several places", EDIT),
    "apply_patch": ("Apply a patch", EDIT),
    # claude-code
    "Grep": ("Search file contents", SEARCH),
    "Glob": ("Find files by name", READ),
    "Read": ("Read a file", READ),
    "LS": ("List a directory", READ),
    "Edit": ("Edit a file", EDIT),
    "MultiEdit": ("Edit a file in several places", EDIT),
    "Write": ("Write a file", OVERWRITE),
    # opencode
    "grep": ("Search file contents", SEARCH),
    "glob": ("Find files by name", READ),
    "list": ("List a directory", READ),
    "read": ("Read a file", READ),
    "multiedit": ("Edit a file in several places", EDIT),
    "write": ("Write a file", OVERWRITE),
    # gemini-cli
    "list_directory": ("List a directory", READ),
    "read_many_files": ("Read several files", READ),
    "replace": ("Replace text in a file", EDIT),
    # cline (search_files is a content search there, a name glob in mcp-filesystem: both read)
    "search_files": ("Search files", SEARCH),
    "list_files": ("List files", READ),
    "replace_in_file": ("Edit a file with SEARCH/REPLACE blocks", EDIT),
    "write_to_file": ("Write a file", OVERWRITE),
    # codex
    "grep_files": ("Find files containing a pattern", SEARCH),
    # swe-agent: one tool that views and edits
    "str_replace_editor": ("View and edit files", EDIT),
    "str_replace_based_edit_tool": ("View and edit files", EDIT),
    # mcp-filesystem
    "read_text_file": ("Read a text file", READ),
    "read_media_file": ("Read a media file", READ),
    "read_multiple_files": ("Read several files", READ),
    "edit_file": ("Edit a file", EDIT),
    "directory_tree": ("Show a directory tree", READ),
    "list_directory_with_sizes": ("List a directory with sizes", READ),
    "get_file_info": ("Get file information", READ),
    "list_allowed_directories": ("List allowed directories", READ),
    "create_directory": ("Create a directory", CREATE),
    "move_file": ("Move a file", EDIT),
    # the tool sets codesift replaces
    # codesift's `search` answers a question in words; simple-coder's searches contents.
    "search": ("Search the code", SEARCH),
    "file_search": ("Search file contents", SEARCH),
    "ace-text_search": ("Search file contents", SEARCH),
    "filesystem-edit_search": ("Edit a search result", EDIT),
    "invalid": ("Unknown tool", READ),
}

_BY_LOWER_NAME = {name.lower(): entry for name, entry in TOOLS.items()}


def describe(name: str) -> tuple[str, Behaviour]:
    """The title and behaviour of the tool `name` (defaults for a name not in the table)."""
    found = TOOLS.get(name) or _BY_LOWER_NAME.get(name.lower())
    if found is not None:
        return found
    return name.replace("_", " ").replace("-", " ").strip().capitalize() or name, UNKNOWN


def tool_annotations(
    name: str, input_schema: dict[str, Any], *, remote: bool
) -> types.ToolAnnotations:
    """The annotations of tool `name`; `remote`: whether remote search is configured."""
    title, behaviour = describe(name)
    parameters = input_schema.get("properties") or {}
    takes_host = "host" in parameters or "ip" in parameters
    return types.ToolAnnotations(
        title=title,
        read_only_hint=behaviour.read_only,
        destructive_hint=behaviour.destructive,
        idempotent_hint=behaviour.idempotent,
        open_world_hint=takes_host and remote,
    )


__all__ = ["Behaviour", "TOOLS", "describe", "tool_annotations"]
