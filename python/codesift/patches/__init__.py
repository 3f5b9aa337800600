"""Every edit format agents send, parsed into the operations one engine applies.

- `apply_patch` (Codex, opencode): the `*** Begin Patch` envelope (`envelope`);
- `unified`: unified diffs, several files, /dev/null for added and deleted files (`unified`);
- `search_replace`: Cline's and Aider's SEARCH/REPLACE blocks for one file (`search_replace`).

MultiEdit, mcp-filesystem `edit_file`, str_replace and insert need no parser: they are
`Workspace.edit_many(..., sequential=True)`, `Workspace.edit(..., fuzzy=False)` and
`Workspace.insert`. The `Editor` applies a parsed patch (`codesift.edits.patch`): it plans
every file with `edit_many`'s matching, then commits all files or none
(`codesift.edits.transaction`).
"""

from __future__ import annotations

from ..errors import Concept, Hint, InvalidArgumentError, PatchFormatError, hinted
from .envelope import looks_like_envelope, parse_envelope
from .model import FileOp, Hunk, ParsedPatch, Replacement
from .search_replace import looks_like_search_replace, parse_search_replace
from .unified import looks_like_unified, parse_unified

FORMATS = ("auto", "apply_patch", "unified", "search_replace")
MAX_PATCH_CHARS = 16 * 1024 * 1024


def detect_format(text: str) -> str:
    """ "apply_patch", "search_replace" or "unified" for a patch text; `PatchFormatError` when
    it is none of them."""
    if looks_like_envelope(text):
        return "apply_patch"
    if looks_like_search_replace(text):
        return "search_replace"
    if looks_like_unified(text):
        return "unified"
    raise PatchFormatError(
        "the patch format is not recognised: send an apply_patch envelope ('*** Begin Patch' "
        "... '*** End Patch'), a unified diff ('--- a/PATH', '+++ b/PATH', '@@ -l,n +l,n @@' "
        "hunks) or SEARCH/REPLACE blocks ('------- SEARCH' / '=======' / '+++++++ REPLACE')"
    )


def parse_patch(text: str, *, format: str = "auto", path: str | None = None) -> ParsedPatch:
    """The file operations of a patch `text` in `format` ("auto" detects it). SEARCH/REPLACE
    blocks need the `path` of the file they edit; a unified diff without file headers may
    take it too."""
    if not isinstance(text, str):
        raise InvalidArgumentError(f"the patch must be a string, not {type(text).__name__}")
    if format not in FORMATS:
        raise InvalidArgumentError(
            f"format must be one of {', '.join(FORMATS)}, not {str(format)[:40]!r}"
        )
    if len(text) > MAX_PATCH_CHARS:
        raise InvalidArgumentError(
            f"the patch is too long ({len(text)} characters; the limit is {MAX_PATCH_CHARS}); "
            "split it into several patches"
        )
    if not text.strip():
        raise PatchFormatError("the patch is empty; send the changes to apply")
    if format == "auto":
        format = detect_format(text)
    if path is not None and not isinstance(path, str):
        raise InvalidArgumentError("path must be a string")
    if format == "apply_patch":
        return parse_envelope(text)
    if format == "unified":
        return parse_unified(text, path=path)
    if path is None:
        raise hinted(
            InvalidArgumentError,
            "SEARCH/REPLACE blocks edit one file",
            Hint("pass its path ({option})", (Concept.PATCH_FILE,), "name it in the patch", ": "),
        )
    return parse_search_replace(text, path)


__all__ = [
    "FORMATS",
    "FileOp",
    "Hunk",
    "ParsedPatch",
    "Replacement",
    "detect_format",
    "parse_patch",
]
