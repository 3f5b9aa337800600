"""Limits on what one query may ask for: pattern sizes, glob lists, nesting, timeouts.

Each oversized request is refused with a PatternError or InvalidArgumentError saying what to
do, instead of taking gigabytes, crashing the process or surfacing an internal error.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from codesift import CodesiftError, InvalidArgumentError, PatternError, Workspace

TreeFactory = Callable[[dict[str, str | bytes]], Path]


@pytest.fixture
def ws(tree: TreeFactory) -> Workspace:
    return Workspace(tree({"src/a.py": "alpha = 1\nbeta = 2\n", "b.txt": "alpha\n"}))


def refused(error: type[CodesiftError], call: Callable[[], object], *words: str) -> str:
    """Runs `call`, expecting `error` with a short message naming every one of `words`."""
    with pytest.raises(error) as caught:
        call()
    message = str(caught.value)
    assert "internal error" not in message
    assert len(message) < 1_000, message[:200]
    for word in words:
        assert word in message, message
    return message


# -- glob ---------------------------------------------------------------------------------


def test_deeply_nested_braces_are_a_pattern_error(ws: Workspace) -> None:
    deep = "{" * 3000 + "a" + "}" * 3000
    refused(PatternError, lambda: ws.glob(deep), "3000", "32")
    refused(PatternError, lambda: ws.grep("alpha", include=deep), "3000", "32")
    # Nesting within the limit still works.
    nested = "{x," * 20 + "a.py" + "}" * 20
    assert [f.path for f in ws.glob(nested).files] == ["src/a.py"]


def test_a_huge_glob_is_refused(ws: Workspace) -> None:
    refused(PatternError, lambda: ws.glob("a" * 10_000_000), "over the limit of 16384")
    refused(PatternError, lambda: ws.glob("?" * 3_000_000, case_sensitive=False), "16 KiB")


def test_too_many_include_globs_are_refused(ws: Workspace) -> None:
    many = [f"file{i}.py" for i in range(100_000)]
    refused(PatternError, lambda: ws.grep("alpha", include=many), "100000 globs", "at most 1000")
    refused(PatternError, lambda: ws.grep("alpha", exclude=many), "100000 globs")
    # A long list within the limits works.
    listed = [f"file{i}.py" for i in range(999)] + ["a.py"]
    assert [m.file for m in ws.grep("alpha", include=listed).matches] == ["src/a.py"]


# -- regex --------------------------------------------------------------------------------


def test_a_huge_regex_is_refused_before_parsing(ws: Workspace) -> None:
    refused(PatternError, lambda: ws.grep("a" * 10_000_000), "10000000 bytes", "64 KiB")
    refused(PatternError, lambda: ws.grep("a" * 70_000, literal=True), "search string")


@pytest.mark.parametrize(
    "pattern",
    ["(" * 100_000, "[" * 100_000, "(" * 60_000, "[" * 60_000, "(" * 300 + "a" + ")" * 300],
)
def test_deep_regex_nesting_is_a_pattern_error(ws: Workspace, pattern: str) -> None:
    refused(PatternError, lambda: ws.grep(pattern))


def test_a_regex_too_big_to_compile_says_what_to_do(ws: Workspace) -> None:
    refused(PatternError, lambda: ws.grep(r"(?:\w{200}){200}"), "too large once compiled")
    refused(PatternError, lambda: ws.grep(r"\pL" * 5_000), "5000 Unicode classes")
    # Usual heavy patterns still compile and search.
    assert ws.grep(r"\w{4,5}\s*=\s*\d").total == 2


# -- timeout ------------------------------------------------------------------------------


@pytest.mark.parametrize("timeout", [1e300, 86_401, 1e10, 1e19, 2e19])
def test_a_timeout_out_of_range_is_an_invalid_argument(ws: Workspace, timeout: float) -> None:
    refused(InvalidArgumentError, lambda: ws.grep("alpha", timeout=timeout), "timeout", "86400")


def test_a_long_timeout_within_range_searches(ws: Workspace) -> None:
    result = ws.grep("alpha", timeout=86_400)
    assert (result.total, result.truncated) == (2, False)
