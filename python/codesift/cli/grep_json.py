"""`codesift grep --json`: the result as one JSON object per PATH (with `root`), printed
whole or streamed as the search settles its hits (the same document, byte for byte)."""

from __future__ import annotations

from ..text.escapes import json_escape_surrogates
from .output import json_with_root, print_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..results.matches import GrepResult
    from ..results.streams import GrepIter
    from ..workspace import Workspace
    from .grep import Capped


def print_grep_json(ws: Workspace, result: GrepResult, full: bool) -> None:
    """The result as one JSON object (one per PATH, one per line, when several are given)."""
    data = result.to_dict()
    if full:
        for hit, match in zip(data["matches"], result.matches, strict=True):
            hit.update(byte_length=match.byte_length, unique=match.unique, encoding=match.encoding)
    print_json(json_with_root(ws, data))


def stream_grep_json(
    ws: Workspace, hits: GrepIter | Capped, full: bool, out: Any
) -> tuple[GrepResult | None, bool]:
    """`--json`, streamed: the same document `print_grep_json` prints, byte for byte, its
    "matches" written as the search settles them (every other field follows them, known once
    the search is done). The files and counts listed after the matches are kept meanwhile:
    one name and one number per file."""
    import json

    # Opened with the first settled hits (or at the end): a search that fails at its start
    # (a bad path, a path inside .git) prints its one error document, not half of this one.
    sep = '{"matches": ['
    files: list[str] = []
    counts: list[int] = []
    for group, matches, continued in hits.pieces():
        encoded = []
        for m in group:
            hit = m.to_dict()
            if full:
                hit.update(byte_length=m.byte_length, unique=m.unique, encoding=m.encoding)
            encoded.append(json.dumps(hit, ensure_ascii=False))
        if encoded:  # a piece past the cap only adds to its file's count
            out.write(json_escape_surrogates(sep + ", ".join(encoded)))
            out.flush()
            sep = ", "
        if continued and counts:
            counts[-1] += matches
        else:
            files.append(group[0].file)
            counts.append(matches)
    return end_grep_json(ws, hits.result, files, counts, sep == ", ", out), bool(files)


def end_grep_json(
    ws: Workspace,
    result: GrepResult | None,
    files: list[str],
    counts: list[int],
    opened: bool,
    out: Any,
) -> GrepResult | None:
    """Ends a streamed `--json` document whose hits are printed (`opened`: its array of
    matches is): every field after the matches, known once the search is done."""
    opening = "" if opened else '{"matches": ['
    if result is None:  # the search stopped without its figures (it raised instead)
        out.write(opening + "]}\n")
        return None
    import dataclasses
    import json

    data = dataclasses.replace(result, counts=counts).to_dict()
    del data["matches"]
    data["files"] = files
    rest = json_escape_surrogates(json.dumps(json_with_root(ws, data), ensure_ascii=False))
    out.write(opening + "], " + rest[1:] + "\n")
    out.flush()
    return result
