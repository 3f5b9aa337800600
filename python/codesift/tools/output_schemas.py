"""JSON Schemas of the tools' structured results (`ToolResult.data`, MCP `structuredContent`):
the `to_dict()` of each result type plus the two keys the tool layer adds (`truncated` also
set when the text was cut, `spill_file`).

Every key a result always has is listed and required, with its type; keys that only some
results carry (`host` on a remote hit, `hosts` on a remote search) are listed, not required.
Objects stay open (no `additionalProperties: false`) so that a result gaining a field does
not break clients that validate against an older schema. An error result (`is_error`) holds
`{"error": {"type", "message"}}` instead and is not validated against these (MCP clients
validate successful results only).
"""

from __future__ import annotations

import copy
from typing import Any

_COUNT = {"type": "integer", "minimum": 0}
_LINE = {"type": "integer", "minimum": 0}
_STRINGS = {"type": "array", "items": {"type": "string"}}
_ERRORS = {
    "type": "object",
    "additionalProperties": {"type": "string"},
    "description": "Failed hosts of a remote search and their messages (empty when local).",
}
_SPILL = {
    "type": ["string", "null"],
    "description": "Where the full text was saved when the text was cut to a preview.",
}
_SUMMARY = {"type": "string", "description": "The one-line summary the text starts with."}
_HOST = {"type": ["string", "null"], "description": "The host of a remote result."}


def _object(properties: dict[str, Any], *, optional: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": [name for name in properties if name not in optional],
    }


_GREP_MATCH = _object(
    {
        "id": {"type": "string", "description": "search_result_id: pass it to edit."},
        "file": {"type": "string"},
        "line": _LINE,
        "column": _LINE,
        "end_line": _LINE,
        "byte_offset": _COUNT,
        "content": {"type": "string", "description": "The matched text."},
        "text": {"type": "string", "description": "The line(s) holding the match."},
        "before": _STRINGS,
        "after": _STRINGS,
        "host": _HOST,
        "role": {"type": "string", "enum": ["definition", "reference"]},
        "kind": {"type": "string", "description": "A definition's kind: function, class, ..."},
        "score": {"type": "number"},
        "why": {"type": "string", "description": "Why a ranked hit is where it is."},
        "signature": {"type": "string", "description": "The enclosing definition's head."},
        "signature_line": _LINE,
    },
    optional=("host", "role", "kind", "score", "why", "signature", "signature_line"),
)

_GLOB_FILE = _object(
    {"path": {"type": "string"}, "mtime_ms": {"type": "integer"}, "size": _COUNT, "host": _HOST},
    optional=("host",),
)

_FILE_CHANGE = _object(
    {
        "path": {"type": "string"},
        "action": {"type": "string", "enum": ["add", "update", "delete", "move"]},
        "new_path": {"type": ["string", "null"], "description": "Where a moved file went."},
        "strategy": {"type": "string", "description": "How the hunks were matched."},
        "added_lines": _COUNT,
        "removed_lines": _COUNT,
        "diff": {"type": "string"},
    }
)

_SKIP_COUNT = _object({"count": _COUNT, "examples": _STRINGS})
_SKIPPED = {
    **_object(
        {
            reason: _SKIP_COUNT
            for reason in (
                "gitignored",
                "hidden",
                "symlink",
                "too_large",
                "binary",
                "unreadable",
                "denied",
            )
        }
    ),
    "description": "What the walk passed over, by reason: a count and a few example paths.",
}
_HINT = {
    "type": ["string", "null"],
    "description": "When little was found while entries were passed over: what and how to "
    "include them.",
}
_TOOL_KEYS = {"truncated": {"type": "boolean"}, "spill_file": _SPILL, "summary": _SUMMARY}

OUTPUT_SCHEMAS: dict[str, dict[str, Any]] = {
    "grep_search": _object(
        {
            "matches": {"type": "array", "items": _GREP_MATCH},
            "total": _COUNT,
            "pattern": {"type": "string"},
            "path": {"type": "string"},
            "include": _STRINGS,
            "exclude": _STRINGS,
            "files_searched": _COUNT,
            "files_with_matches": _COUNT,
            "binary_files": _COUNT,
            "unreadable": _COUNT,
            "ignored": _COUNT,
            "timed_out": {"type": "boolean"},
            "note": {"type": ["string", "null"], "description": "Why the result is partial."},
            "errors": _ERRORS,
            "indexed": {"type": "boolean"},
            "mode": {"type": "string", "enum": ["content", "files", "count"]},
            "offset": _COUNT,
            "files": {**_STRINGS, "description": "The files with hits, in order."},
            "counts": {
                "type": "array",
                "items": _COUNT,
                "description": "Matches per file, in the order of files (count mode).",
            },
            "skipped": _SKIPPED,
            "ranked": {"type": "boolean", "description": "Hits ordered by relevance."},
            "budget": {
                "type": ["object", "null"],
                "description": "With budget_tokens: tokens spent, hits left out and where.",
            },
            "hint": _HINT,
            "hosts": _STRINGS,
            **_TOOL_KEYS,
        },
        optional=(
            "hosts",
            "mode",
            "offset",
            "files",
            "counts",
            "skipped",
            "ranked",
            "budget",
            "hint",
        ),
    ),
    "glob_search": _object(
        {
            "files": {"type": "array", "items": _GLOB_FILE},
            "total": _COUNT,
            "ignored": _COUNT,
            "pattern": {"type": "string"},
            "path": {"type": "string"},
            "sort": {"type": "string", "enum": ["path", "mtime", "none"]},
            "limit": _COUNT,
            "unreadable": _COUNT,
            "errors": _ERRORS,
            "skipped": _SKIPPED,
            "hint": _HINT,
            "hosts": _STRINGS,
            **_TOOL_KEYS,
        },
        optional=("hosts", "skipped", "hint"),
    ),
    "search": _object(
        {
            "results": {
                "type": "array",
                "items": _object(
                    {
                        "file": {"type": "string"},
                        "score": {"type": "number"},
                        "why": {"type": "string"},
                        "lines": {
                            "type": "array",
                            "items": _object({"line": _LINE, "text": {"type": "string"}}),
                        },
                        "symbols": _STRINGS,
                    }
                ),
            },
            "question": {"type": "string"},
            "path": {"type": "string"},
            "terms": _STRINGS,
            "files_searched": _COUNT,
            "indexed": {"type": "boolean"},
            **_TOOL_KEYS,
        }
    ),
    "read_file": _object(
        {
            "path": {"type": "string"},
            "content": {"type": "string", "description": "Numbered lines, cat -n style."},
            "start_line": _LINE,
            "end_line": _LINE,
            "total_lines": {"type": ["integer", "null"], "minimum": 0},
            "long_lines": _COUNT,
            "encoding": {"type": "string"},
            **_TOOL_KEYS,
        }
    ),
    "list_dir": _object(
        {
            "path": {"type": "string"},
            "entries": {**_STRINGS, "description": "Directories first, with a trailing /."},
            "total": _COUNT,
            "ignored": _COUNT,
            "depth": {"type": ["integer", "null"]},
            "links": _STRINGS,
            "skipped": _SKIPPED,
            "hint": _HINT,
            **_TOOL_KEYS,
        },
        optional=("depth", "links", "skipped", "hint"),
    ),
    "edit": _object(
        {
            "path": {"type": "string"},
            "replacements": _COUNT,
            "strategy": {"type": "string"},
            "first_line": _LINE,
            "last_line": _LINE,
            "diff": {"type": "string", "description": "Unified diff of the change."},
            "moved_from": {"type": ["integer", "null"]},
            "dry_run": {"type": "boolean", "description": "True: nothing was written."},
            "host": {"type": "string"},
            **_TOOL_KEYS,
        },
        optional=("host",),
    ),
    "write_file": _object(
        {
            "path": {"type": "string"},
            "bytes_written": _COUNT,
            "created": {"type": "boolean"},
            "dry_run": {"type": "boolean", "description": "True: nothing was written."},
            "diff": {
                "type": ["string", "null"],
                "description": "A dry run's unified diff from the current content.",
            },
            **_TOOL_KEYS,
        }
    ),
    "apply_patch": _object(
        {
            "format": {
                "type": "string",
                "enum": ["apply_patch", "unified", "search_replace"],
                "description": "The format the patch was read as.",
            },
            "dry_run": {"type": "boolean", "description": "True: nothing was written."},
            "cancelled_after_commit": {
                "type": "boolean",
                "description": "True: the call was cancelled after the files were written; "
                "the patch stays applied.",
            },
            "files": {"type": "array", "items": _FILE_CHANGE},
            "diff": {"type": "string", "description": "Unified diff of every file."},
            **_TOOL_KEYS,
        }
    ),
}
#: edit_many returns what edit does (one file, every edit in one diff).
OUTPUT_SCHEMAS["edit_many"] = OUTPUT_SCHEMAS["edit"]


def output_schema(tool: str) -> dict[str, Any]:
    """The schema of `tool`'s structured result (a copy: callers may change it)."""
    return copy.deepcopy(OUTPUT_SCHEMAS[tool])


__all__ = ["OUTPUT_SCHEMAS", "output_schema"]
