"""The workspace's parts made on first use (`cache`, `live`, `history`, `editor`): each is made
once however many threads ask for it first, only when asked (a search makes no edit
machinery), the editor on the workspace's own cache and history, and each can be replaced."""

from __future__ import annotations

import threading

from codesift import Workspace
from codesift.edits.history import EditHistory
from codesift.results.cache import LiveSearches, ResultCache

PARTS = ("cache", "live", "history", "editor")


def test_a_search_makes_the_cache_alone(tree):
    ws = Workspace(tree({"a.txt": "needle\n"}))
    assert not {f"_{part}" for part in PARTS} & set(vars(ws))
    ws.grep("needle")
    assert {f"_{part}" for part in PARTS} & set(vars(ws)) == {"_cache"}


def test_threads_asking_first_all_get_the_one_part_made(tree):
    ws = Workspace(tree({"a.txt": "x\n"}))
    start = threading.Barrier(8)
    seen: list[tuple[object, ...]] = []

    def ask() -> None:
        start.wait()
        # The editor first: it takes the history (made under the same lock) before its own.
        seen.append(tuple(getattr(ws, part) for part in reversed(PARTS)))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 8
    assert len({tuple(map(id, parts)) for parts in seen}) == 1
    assert ws.editor.cache is ws.cache and ws.editor.history is ws.history


def test_a_part_set_replaces_the_one_made(tree):
    ws = Workspace(tree({"a.txt": "x\n"}))
    made = ws.cache
    cache, live, history = ResultCache("sr_other", capacity=4), LiveSearches(), EditHistory()
    ws.cache, ws.live, ws.history = cache, live, history
    assert ws.cache is cache and ws.cache is not made
    assert ws.live is live and ws.history is history
    assert ws.editor.cache is cache and ws.editor.history is history
    assert Workspace.cache.__doc__ and "edit_result" in Workspace.cache.__doc__
