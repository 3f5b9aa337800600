"""Argument limits (arguments.py): values the engine cannot hold are `InvalidArgumentError`s
with the allowed range, never an `OverflowError` or a Rust panic; patterns must be text."""

from __future__ import annotations

import math

import pytest

from codesift import InvalidArgumentError, PatternError, Workspace
from codesift.arguments import MAX_COUNT, MAX_LINES, MAX_THREADS, MAX_TIMEOUT_SECONDS

HUGE = 2**64  # one past what a u64 holds: was an OverflowError in the binding


@pytest.fixture
def ws(tree):
    return Workspace(tree({"a.txt": "alpha\nbeta\n", "t\udcff.txt": "beta\n"}))


@pytest.mark.parametrize("timeout", [1e300, math.inf, math.nan, -1.0, 0, 10**400, "1", True])
def test_timeout_must_be_finite_and_at_most_a_day(ws, timeout):
    # 1e300 made Duration::from_secs_f64 panic in the engine.
    with pytest.raises(InvalidArgumentError, match="timeout must be a positive number"):
        ws.grep("a", timeout=timeout)


def test_timeout_up_to_a_day_is_accepted(ws):
    assert ws.grep("alpha", timeout=MAX_TIMEOUT_SECONDS).total == 1
    with pytest.raises(InvalidArgumentError, match="up to 86400"):
        ws.grep("alpha", timeout=MAX_TIMEOUT_SECONDS + 1)


@pytest.mark.parametrize(
    ("option", "top"),
    [
        ("max_matches", MAX_COUNT),
        ("context_lines", MAX_LINES),
        ("before", MAX_LINES),
        ("after", MAX_LINES),
    ],
)
def test_grep_integers_have_an_upper_bound(ws, option, top):
    with pytest.raises(InvalidArgumentError, match=f"{option} must be at most {top}"):
        ws.grep("a", **{option: HUGE})
    with pytest.raises(InvalidArgumentError, match=f"{option} must be at most {top}"):
        ws.grep("a", **{option: top + 1})
    ws.grep("a", **{option: top})  # the bound itself is fine


def test_other_integers_have_an_upper_bound(ws, tree):
    with pytest.raises(InvalidArgumentError, match="limit must be at most"):
        ws.glob("*", limit=HUGE)
    with pytest.raises(InvalidArgumentError, match="limit must be at most"):
        ws.list_dir(limit=HUGE)
    with pytest.raises(InvalidArgumentError, match="offset must be at most"):
        ws.read("a.txt", offset=HUGE)
    with pytest.raises(InvalidArgumentError, match="limit must be at most"):
        ws.read("a.txt", limit=HUGE)
    root = tree({})
    for option in ("max_filesize", "cache_size", "threads"):
        with pytest.raises(InvalidArgumentError, match=f"{option} must be at most"):
            Workspace(root, **{option: HUGE})
    with pytest.raises(InvalidArgumentError, match=f"threads must be at most {MAX_THREADS}"):
        Workspace(root, threads=MAX_THREADS + 1)


def test_huge_integers_are_not_printed_whole(ws):
    with pytest.raises(InvalidArgumentError) as caught:
        ws.grep("a", max_matches=10**5000)  # str() of it would itself raise ValueError
    assert "digits" in str(caught.value) and len(str(caught.value)) < 200


@pytest.mark.parametrize("pattern", ["\udcff", "a\ud800b", "x\udc00"])
def test_a_pattern_with_a_lone_surrogate_is_a_pattern_error(ws, pattern):
    with pytest.raises(PatternError, match="not valid Unicode text"):
        ws.grep(pattern)
    with pytest.raises(InvalidArgumentError, match="not valid Unicode text"):
        ws.glob(pattern)
    with pytest.raises(InvalidArgumentError, match="include is not valid Unicode text"):
        ws.grep("a", include=["*.txt", pattern])


def test_a_path_with_surrogates_is_still_a_file_name(ws):
    # Non-UTF-8 file names are str with surrogateescape: legitimate as paths.
    assert ws.read("t\udcff.txt").content == "     1\tbeta"
    assert ws.grep("beta", path="t\udcff.txt").total == 1


@pytest.mark.parametrize("include", [5, b"*.txt", {"*.txt": 1}, ["*.txt", 3]])
def test_filters_of_the_wrong_type(ws, include):
    with pytest.raises(InvalidArgumentError, match="include must be a glob or a list of globs"):
        ws.grep("a", include=include)


@pytest.mark.parametrize("glob", ["{a," * 40 + "}" * 40, "{" * 300 + "a" + "}" * 300])
def test_deeply_nested_glob_alternatives_are_a_pattern_error(ws, glob):
    # Past ~120 levels the engine's glob compiler panicked ("internal error").
    with pytest.raises(PatternError, match="levels deep"):
        ws.glob(glob)
    with pytest.raises(PatternError, match="include nests"):
        ws.grep("a", include=glob)
    ws.glob("{a,{b,{c,d}}}*")  # ordinary nesting is fine
    ws.glob("\\{" * 100 + "*")  # escaped braces do not nest


def test_text_that_cannot_be_written_is_refused_before_writing(ws):
    before = (ws.root / "a.txt").read_bytes()
    with pytest.raises(InvalidArgumentError, match="lone surrogate U\\+D800"):
        ws.edit("a.txt", "alpha", "x\ud800")
    with pytest.raises(InvalidArgumentError, match="lone surrogate"):
        ws.edit_many("a.txt", [("alpha", "\ud800")])
    hit = ws.grep("alpha").matches[0]
    with pytest.raises(InvalidArgumentError, match="lone surrogate"):
        ws.edit_result(hit.id, "\udbff")
    assert (ws.root / "a.txt").read_bytes() == before
    # Surrogates that stand for raw bytes (surrogateescape) are writable.
    ws.edit("a.txt", "alpha", "caf\udce9")
    assert (ws.root / "a.txt").read_bytes() == b"caf\xe9\nbeta\n"


def test_check_ignore_files():
    from codesift.arguments import check_ignore_files

    assert check_ignore_files(".codesiftignore") == (".codesiftignore",)
    assert check_ignore_files([".a", ".b"]) == (".a", ".b")
    assert check_ignore_files(()) == ()
    for bad in (5, [5], [None], [""], ["a/b"], ["a\x00"], b".a", {".a": 1}, ["\udcff"]):
        with pytest.raises(InvalidArgumentError, match="ignore_files"):
            check_ignore_files(bad)
