"""Helpers of the remote tests: grep queries as a `RemoteWorkspace` makes them, and the tree
of the index tests with a way to compare hits."""

from __future__ import annotations

import time
from pathlib import Path

from codesift.arguments import grep_arguments
from codesift.remote.queries import GrepQuery
from codesift.results.matches import GrepResult

#: Files changed less than 2 s before a build are searched from disk until they are older;
#: the tree is left alone this long so that the index trusts it (see tests/index/test_index.py).
RACY_SECONDS = 2.1
FILES = 40


def grep_query(pattern: str, start: str = ".", **options: object) -> GrepQuery:
    """The query a `RemoteWorkspace.grep` with these options sends (the library's defaults
    for the rest)."""
    args = grep_arguments(pattern, **options)
    return GrepQuery(**vars(args), start=start)


def make_tree(root: Path) -> Path:
    """`FILES` Python files in four packages, "rare_needle" in two of them, left alone long
    enough for an index to trust them."""
    for i in range(FILES):
        body = f"def handler_{i}(request):\n    return respond(request, {i * 7})\n"
        if i in (3, 17):
            body += "# the rare_needle lives here\n"
        path = root / f"pkg{i % 4}" / f"mod{i:02d}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
    time.sleep(RACY_SECONDS)
    return root


def rows(result: GrepResult) -> list[tuple[str, int, int, int, int, str, str, bool]]:
    """Every field of each hit but its id (ids differ between searches)."""
    return [
        (m.file, m.line, m.column, m.byte_offset, m.byte_length, m.content, m.text, m.unique)
        for m in result.matches
    ]
