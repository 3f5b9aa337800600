"""`Toolbox.call` never raises: parsing and validating the arguments, hostile shapes and
every exception type stay inside the boundary and come back as an error result that says
what to do, never as a traceback."""

from __future__ import annotations

import json

import pytest

from codesift import Workspace
from codesift.tools import MAX_ARGUMENT_DEPTH, Toolbox, ToolResult


@pytest.fixture
def toolbox(tree):
    return Toolbox(Workspace(tree({"a.txt": "alpha\n"})))


def assert_error(result: ToolResult, *needles: str) -> None:
    assert isinstance(result, ToolResult)
    assert result.is_error
    assert result.text.startswith("Error: ")
    assert "Traceback" not in result.text and "\n" not in result.text.strip()
    assert len(result.text) < 1000
    assert result.data is not None and result.data["error"]["message"] in result.text
    for needle in needles:
        assert needle in result.text, result.text


def nested_list(depth: int) -> object:
    value: object = "*.txt"
    for _ in range(depth):
        value = [value]
    return value


def test_a_raw_json_string_nested_100000_deep(toolbox):
    # json.loads raised RecursionError out of call().
    assert_error(toolbox.call("grep", "[" * 100_000), "nested", '{"pattern"')
    assert_error(toolbox.call("grep", '{"pattern": ' + "[" * 100_000), "nested")


def test_a_deeply_nested_include_list(toolbox):
    # jsonschema's validation recursed until RecursionError.
    result = toolbox.call("grep", {"pattern": "a", "include": nested_list(3000)})
    assert_error(result, f"more than {MAX_ARGUMENT_DEPTH} levels", "include")
    as_json = json.dumps({"pattern": "a", "include": nested_list(900)})
    assert_error(toolbox.call("grep", as_json), "nested")


def test_a_list_of_millions_of_globs_is_refused_before_the_schema_reads_it(toolbox):
    # The schema's check of each of 2.2 million globs took half a minute before the
    # engine's 1,000-glob limit refused them.
    globs = [f"*.{chr(97 + i % 26)}" for i in range(2_200_000)]
    result = toolbox.call("grep", {"pattern": "a", "include": globs})
    assert_error(result, "'include' holds 2200000 items", "at most 10000")
    nested = {"pattern": "a", "include": ["*.txt"], "exclude": [["x"] * 20_000]}
    assert_error(toolbox.call("grep", nested), "'exclude' holds 20000 items")


def test_a_container_that_holds_itself(toolbox):
    loop: list[object] = []
    loop.append(loop)
    assert_error(toolbox.call("grep", {"pattern": "a", "include": loop}), "nested")


def test_parameter_names_that_are_not_strings(toolbox):
    assert_error(toolbox.call("grep", {1: "a"}), "parameter names must be strings")
    # With a str key beside it, sorting the unknown names raised TypeError.
    assert_error(toolbox.call("grep", {1: "a", "x": 2, "pattern": "p"}), "must be strings")


@pytest.mark.parametrize(
    ("raw", "needle"),
    [
        ("nope", "not valid JSON"),
        ('{"pattern": "a",}', "not valid JSON"),
        ('"a string"', "must be a JSON object, not a string"),
        ("[1, 2]", "not an array"),
        ("null", "not null"),
        (b'{"pattern": "\xff"}', "not UTF-8"),
        ("1" * 5000, "number too long"),
        ('{"pattern": "a", "max_matches": ' + "9" * 5000 + "}", "number too long"),
    ],
)
def test_arguments_that_are_not_a_json_object(toolbox, raw, needle):
    assert_error(toolbox.call("grep", raw), needle)


def test_non_mapping_arguments(toolbox):
    assert_error(toolbox.call("grep", 42), "must be a JSON object")  # type: ignore[arg-type]
    assert_error(toolbox.call("grep", ["pattern"]), "must be a JSON object")  # type: ignore[arg-type]


def test_wrong_types_and_huge_values_name_the_parameter(toolbox):
    assert_error(toolbox.call("grep", {"pattern": "a", "max_matches": 2**70}), "max_matches")
    assert_error(toolbox.call("grep", {"pattern": "a", "context_lines": float("nan")}), "integer")
    assert_error(toolbox.call("read", {"path": "a.txt", "offset": 2**64}), "offset")
    assert_error(toolbox.call("read", {"path": "a.txt", "limit": 1e300}), "limit")
    assert_error(toolbox.call("grep", {"pattern": 5, "include": list(range(5_000))}), "pattern")
    assert_error(toolbox.call("grep", {"pattern": "\udcff"}), "not valid Unicode text")


def test_a_huge_tool_name_is_cut_in_the_message(toolbox):
    assert_error(toolbox.call("x" * 100_000, {}), "Unknown tool", "grep_search")
    assert_error(toolbox.call(None, {}), "Unknown tool")  # type: ignore[arg-type]


class FakePanic(BaseException):
    """What pyo3 raises for a Rust panic: a BaseException, not an Exception."""


@pytest.mark.parametrize(
    ("exc", "needle"),
    [
        (FakePanic("thread panicked\nstack backtrace: ..."), "FakePanic: thread panicked"),
        (RecursionError("deep"), "nested too deeply"),
        (MemoryError(), "out of memory"),
        (UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed"), "please report"),
        (TypeError("boom"), "TypeError: boom"),
    ],
)
def test_every_exception_type_is_an_error_result(toolbox, monkeypatch, exc, needle):
    def explode(*args, **kwargs):
        raise exc

    monkeypatch.setattr(toolbox.workspace, "grep", explode)
    assert_error(toolbox.call("grep", {"pattern": "a"}), needle)


def test_keyboard_interrupt_still_interrupts(toolbox, monkeypatch):
    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(toolbox.workspace, "grep", interrupt)
    with pytest.raises(KeyboardInterrupt):
        toolbox.call("grep", {"pattern": "a"})


def test_a_valid_call_still_works(toolbox):
    result = toolbox.call("grep", '{"pattern": "alpha", "include": ["*.txt"]}')
    assert not result.is_error and result.data is not None and result.data["total"] == 1
