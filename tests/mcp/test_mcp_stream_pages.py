"""Paging a grep through the tools (what MCP and the HTTP API call): page 2 reads on the
stream page 1 started, so the pages together are one search, made once; an abandoned
stream is closed when evicted, and a page whose stream is gone searches again."""

from __future__ import annotations

import os
import time
from typing import Any

import pytest

from codesift import Workspace
from codesift.tools import Toolbox


class CountingEngine:
    """The workspace's engine, counting the searches it starts."""

    def __init__(self, engine: Any) -> None:
        self._engine = engine
        self.searches = 0

    def grep(self, *a: Any, **kw: Any) -> Any:
        self.searches += 1
        return self._engine.grep(*a, **kw)

    def grep_iter(self, *a: Any, **kw: Any) -> Any:
        self.searches += 1
        return self._engine.grep_iter(*a, **kw)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)


def many(tree, files: int = 60):
    return tree(
        {
            f"d{i // 10}/f{i:03}.txt": "needle a\nx\nneedle b needle\n" * (i % 3 + 1)
            for i in range(files)
        }
    )


def fields(m: Any) -> tuple:
    return (m.file, m.line, m.column, m.end_line, m.byte_offset, m.content, m.text)


@pytest.mark.parametrize("mode", ["content", "files_with_matches", "count"])
def test_pages_concatenated_are_one_search_made_once(tree, mode):
    ws = Workspace(many(tree))
    # codesift's profile ranks: its pages are slices of one ranked search.
    whole = ws.grep(
        "needle",
        max_matches=None,
        mode={"files_with_matches": "files"}.get(mode, mode),
        rank=True,
    )
    counting = CountingEngine(ws._engine)
    ws._engine = counting
    box = Toolbox(ws)
    pages, offset = [], 0
    while True:
        res = box.call(
            "grep_search",
            {"pattern": "needle", "max_matches": 7, "offset": offset, "output_mode": mode},
        )
        assert not res.is_error, res.text
        hits = res.data["matches"]
        pages += hits
        if not res.data["truncated"]:
            break
        offset += 7
    want = [m.to_dict() for m in whole.matches]
    got = [{**h, "id": ""} for h in pages]
    want = [{**h, "id": ""} for h in want]
    assert got == want, f"pages:\n{got[:5]}\nwhole:\n{want[:5]}"
    assert res.data["total"] == whole.total, (res.data["total"], whole.total)
    assert counting.searches == 1, (
        f"expected one search for {offset // 7 + 1} pages, got {counting.searches}"
    )
    assert len(ws.live) == 0, "the stream that ended is not kept"


def tasks() -> int:
    return len(os.listdir("/proc/self/task"))


def tasks_down_to(count: int) -> int:
    """The threads of this process once at most `count` are left (or after 10 s): a joined
    thread may still be listed for a moment while the kernel finishes its exit."""
    deadline = time.monotonic() + 10
    while tasks() > count and time.monotonic() < deadline:
        time.sleep(0.01)
    return tasks()


def test_an_abandoned_stream_is_closed_when_evicted(tree):
    ws = Workspace(many(tree, 200))
    ws.live.capacity = 1
    before = tasks()
    first = ws.grep_page("needle", max_matches=2)
    assert first.truncated and len(ws.live) == 1
    kept = next(iter(ws.live._live.values()))
    ws.grep_page("needle b", max_matches=2)  # another search evicts the first
    assert len(ws.live) == 1
    with pytest.raises(StopIteration):
        next(kept.stream)  # closed: nothing more comes
    ws.live.close()
    left = tasks_down_to(before)
    assert left <= before, f"threads left running: {left} > {before}"


def test_a_page_whose_stream_is_gone_searches_again(tree):
    ws = Workspace(many(tree))
    whole = ws.grep("needle", max_matches=None)
    ws.grep_page("needle", max_matches=5)
    ws.live.close()  # evicted or expired
    page = ws.grep_page("needle", offset=5, max_matches=5)
    assert [fields(m) for m in page.matches] == [fields(m) for m in whole.matches[5:10]]
