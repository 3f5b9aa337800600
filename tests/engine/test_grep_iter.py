"""`Workspace.grep_iter`: the hits `grep` returns, in the same order, yielded as the search
settles them; consumed lazily (the search waits for the consumer) and stopped by closing."""

from __future__ import annotations

import random
import time

import pytest

from codesift import CancelToken, Workspace

WORDS = ["alpha", "beta", "needle", "Needle", "gamma", "need", "x"]


def random_tree(rng: random.Random, files: int) -> dict[str, str]:
    spec = {}
    for i in range(files):
        depth = rng.randint(0, 3)
        parts = [rng.choice(["a", "b", "B", "a-b", "z"]) for _ in range(depth)]
        name = "/".join([*parts, f"f{i}{rng.choice(['.py', '.txt', '.rs'])}"])
        lines = [
            " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 6)))
            + (" zebra" if rng.random() < 0.01 else "")  # rare: the index narrows the files
            for _ in range(rng.randint(0, 30))
        ]
        spec[name] = "\n".join(lines) + ("\n" if rng.random() < 0.8 else "")
    return spec


def key(m) -> tuple:
    return (m.file, m.line, m.column, m.end_line, m.text, m.content, m.before, m.after)


OPTIONS = [
    {},
    {"max_matches": 1},
    {"max_matches": 7},
    {"max_matches": 300},
    {"case_sensitive": True},
    {"mode": "files"},
    {"mode": "files", "max_matches": 3},
    {"context_lines": 2},
    {"include": "*.py"},
    {"exclude": "a/**"},
    {"pattern": "need(le)?\\s+\\w+"},
    {"pattern": "needle\\nalpha", "multiline": True},
    {"pattern": "zebra"},
    {"pattern": "zebra", "max_matches": 2},
    {"pattern": "zebra", "context_lines": 1},
]


@pytest.mark.parametrize("index", ["off", "on"])
@pytest.mark.parametrize("seed", range(4))
def test_streamed_hits_are_greps_hits_in_greps_order(tree, seed, index):
    rng = random.Random(seed)
    root = tree(random_tree(rng, rng.randint(5, 120)))
    ws = Workspace(root, index=index)
    if index == "on":
        ws.index_build()
    indexed = 0
    for options in OPTIONS:
        options = dict(options)
        pattern = options.pop("pattern", "needle")
        limit = options.pop("max_matches", None)
        expected = ws.grep(pattern, max_matches=limit, **options)
        stream = ws.grep_iter(pattern, max_matches=limit, **options)
        got = [key(m) for m in stream]
        want = [key(m) for m in expected.matches]
        assert got == want, f"{index} {options} {pattern} {limit}: expected {want}, got {got}"
        assert stream.result is not None
        assert (stream.result.total, stream.result.truncated) == (
            expected.total,
            expected.truncated,
        ), f"{options}: expected {expected.summary!r}, got {stream.result.summary!r}"
        assert stream.result.indexed == expected.indexed
        indexed += expected.indexed
    if index == "on":
        assert indexed, "expected the index to answer some of the searches"


def test_streamed_ids_edit_like_greps(tree):
    root = tree({"a.txt": "one needle\n", "b.txt": "needle two\n"})
    ws = Workspace(root)
    hits = list(ws.grep_iter("needle"))
    assert [m.file for m in hits] == ["a.txt", "b.txt"]
    ws.edit_result(hits[1].id, "pin")
    assert (root / "b.txt").read_text() == "pin two\n"


def many_files(tree, count: int):
    return tree({f"d{i // 100:03}/f{i:05}.txt": "needle\n" * 3 for i in range(count)})


def test_a_lazily_consumed_stream_searches_ahead_only_a_window(tree):
    files = 3000
    root = many_files(tree, files)
    token = CancelToken()
    stream = Workspace(root).grep_iter("needle", cancel=token)
    first = next(stream)
    assert first.file == "d000/f00000.txt"
    # The search pauses once its buffers are full, long before the tree is searched.
    for _ in range(50):
        before = token.files_searched
        time.sleep(0.02)
        if token.files_searched == before:
            break
    assert token.files_searched < files // 2, (
        f"expected the search to wait for the consumer, it searched {token.files_searched} "
        f"of {files} files"
    )
    rest = list(stream)
    assert len(rest) + 1 == files * 3, f"expected {files * 3} hits, got {len(rest) + 1}"
    assert token.files_searched == files


def test_closing_a_stream_stops_the_search(tree):
    files = 3000
    root = many_files(tree, files)
    token = CancelToken()
    with Workspace(root).grep_iter("needle", cancel=token) as stream:
        next(stream)
    searched = token.files_searched
    time.sleep(0.1)
    assert token.files_searched == searched, "the search went on after close()"
    assert searched < files, f"expected an early stop, {searched} of {files} files searched"
    assert list(stream) == [], "a closed stream yields nothing more"


def test_dropping_a_stream_stops_the_search(tree):
    files = 3000
    root = many_files(tree, files)
    token = CancelToken()
    stream = Workspace(root).grep_iter("needle", cancel=token)
    next(stream)
    del stream
    for _ in range(100):  # the search notices within a file; wait for it to wind down
        searched = token.files_searched
        time.sleep(0.05)
        if token.files_searched == searched:
            break
    assert token.files_searched < files, (
        f"expected the dropped stream's search to stop, {token.files_searched} of {files} "
        "files searched"
    )


def test_a_cancelled_stream_raises(tree):
    from codesift.errors import CancelledError

    root = many_files(tree, 2000)
    token = CancelToken()
    stream = Workspace(root).grep_iter("needle", cancel=token)
    next(stream)
    token.cancel()
    with pytest.raises(CancelledError):
        list(stream)


def test_streams_refuse_what_needs_the_whole_answer(tree):
    from codesift.errors import InvalidArgumentError

    ws = Workspace(tree({"a.txt": "needle\n"}))
    with pytest.raises(InvalidArgumentError):
        ws.grep("needle", stream=True, count_total=True)
    with pytest.raises(InvalidArgumentError):
        ws.grep("needle", stream=True, offset=1)


def test_one_hit_per_line_keeps_each_lines_first_match_where_no_line_changes(tree):
    """`one_hit_per_line=True` (what a printer of lines asks): each matching line once, as its
    first match; every other search (a limit, context, multiline) keeps every match."""
    ws = Workspace(tree({"a.txt": "x needle needle\nneedle\nnone\nneedle y needle\n"}))

    def places(**options) -> list[tuple[int, int]]:
        return [(m.line, m.column) for m in ws.grep_iter("needle", **options)]

    every = [(1, 3), (1, 10), (2, 1), (4, 1), (4, 10)]
    firsts = [(1, 3), (2, 1), (4, 1)]
    got = places(one_hit_per_line=True)
    assert got == firsts, f"expected {firsts}, got {got}"
    assert places() == every, f"expected {every}, got {places()}"
    for unchanged in ({"max_matches": 10}, {"context_lines": 1}, {"multiline": True}):
        got = places(one_hit_per_line=True, **unchanged)
        assert got == every, f"{unchanged}: expected {every}, got {got}"
    whole = ws.grep("needle", max_matches=None, one_hit_per_line=True)
    got = [(m.line, m.column) for m in whole.matches]
    assert got == firsts, f"grep: expected {firsts}, got {got}"


def test_glob_iter_yields_globs_files(tree):
    root = tree({"b/x.py": "", "a.py": "", "c.txt": "", "a/b/c.py": ""})
    ws = Workspace(root)
    assert [f.path for f in ws.glob_iter("**/*.py")] == [
        f.path for f in ws.glob("**/*.py", sort="path").files
    ]
