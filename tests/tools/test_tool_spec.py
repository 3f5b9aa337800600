"""A profile declared in its data file (`declared_profile`): the JSON file beside the module
gives the profile's texts and its tools' schemas, the module gives the handlers; the schema a
tool publishes is the file's, key for key; a file and its handlers that disagree, or a list
naming a parameter the tool does not have, are refused when the profile is made."""

from __future__ import annotations

import importlib
import json
import sys

import pytest

from codesift.tools.registry import PROFILES
from codesift.tools.spec import declared_profile


def _answer(box, args):  # never called: the tests read the declaration only
    raise AssertionError("not called")


WRITE = {
    "name": "write",
    "description": "Writes a file.",
    "properties": {
        "content": {"type": "string", "description": "The text."},
        "mode": {"type": "string", "enum": ["a", "w"]},
        "file_path": {"type": "string", "description": "The file."},
    },
    "required": ["content", "mode", "file_path"],
    "path_parameters": ["file_path"],
    "text_parameters": ["content"],
    "output_required": ["path"],
    "read_only": False,
    "example": '{"file_path": "a.txt", "content": "x", "mode": "w"}',
}


@pytest.fixture
def data_file(tmp_path, monkeypatch):
    """Writes a profile's data file as `declared_demo/demo.json`; the module name to give."""
    package = tmp_path / "declared_demo"
    package.mkdir()
    (package / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    # Each test's own package, not the one an earlier test imported.
    monkeypatch.delitem(sys.modules, "declared_demo", raising=False)
    importlib.invalidate_caches()

    def write(tools: list[dict]) -> str:
        data = {"name": "demo", "summary": "A demo.", "instructions": "Write.", "tools": tools}
        (package / "demo.json").write_text(json.dumps(data), encoding="utf-8")
        return "declared_demo.demo"

    return write


def test_a_declared_profile_is_its_data_file_and_its_handlers(data_file) -> None:
    profile = declared_profile(data_file([WRITE]), {"write": _answer}, error_format="{message}")
    assert (profile.name, profile.summary, profile.instructions) == ("demo", "A demo.", "Write.")
    assert profile.error_format == "{message}", profile.error_format
    tool = profile.tool("write")
    got = (tool.handler, tool.required, tool.path_parameters, tool.text_parameters)
    want = (_answer, ("content", "mode", "file_path"), ("file_path",), ("content",))
    assert got == want, f"expected {want}, got {got}"
    assert (tool.output_required, tool.read_only, tool.example) == (
        ("path",),
        False,
        WRITE["example"],
    )
    assert json.dumps(tool.input_schema()) == json.dumps(
        {
            "type": "object",
            "properties": WRITE["properties"],
            "required": WRITE["required"],
            "additionalProperties": False,
        }
    ), tool.input_schema()


def test_a_tool_without_lists_has_none(data_file) -> None:
    read = {"name": "read", "description": "Reads.", "properties": {"path": {"type": "string"}}}
    tool = declared_profile(data_file([read]), {"read": _answer}).tool("read")
    got = (tool.required, tool.path_parameters, tool.output_required, tool.read_only)
    assert got == ((), (), (), True), got
    assert tool.input_schema()["required"] == [], tool.input_schema()


@pytest.mark.parametrize(
    "handlers",
    [{}, {"write": _answer, "read": _answer}, {"read": _answer}],
    ids=["missing", "extra", "other"],
)
def test_tools_and_handlers_must_name_the_same_tools(data_file, handlers) -> None:
    with pytest.raises(ValueError, match="differ"):
        declared_profile(data_file([WRITE]), handlers)


@pytest.mark.parametrize("key", ["required", "path_parameters", "text_parameters"])
def test_a_list_naming_a_parameter_the_tool_lacks_is_refused(data_file, key) -> None:
    tool = {**WRITE, key: [*WRITE[key], "nowhere"]}
    with pytest.raises(ValueError, match="nowhere"):
        declared_profile(data_file([tool]), {"write": _answer})


def test_what_the_schemas_publish_is_what_the_handlers_do() -> None:
    """Numbers a data file publishes that a handler also uses are the handler's constants."""
    from codesift.arguments import MAX_TIMEOUT_SECONDS
    from codesift.tools.profiles import ace, chaterm, file_search, openlink, simple_coder

    def published(profile: str, tool: str, parameter: str, key: str) -> object:
        return PROFILES[profile].tool(tool).properties[parameter][key]

    for got, constant in [
        (published("codesift", "grep_search", "timeout", "maximum"), MAX_TIMEOUT_SECONDS),
        (published("ace", "ace-text_search", "maxResults", "default"), ace.DEFAULT_MAX_RESULTS),
        (published("chaterm", "glob_search", "limit", "default"), chaterm.DEFAULT_GLOB_LIMIT),
        (
            published("chaterm", "grep_search", "max_matches", "default"),
            chaterm.DEFAULT_MAX_MATCHES,
        ),
    ]:
        assert got == constant, (got, constant)
    for profile, tool, words in [
        ("file-search", "file_search", f"at most {file_search.MAX_MATCHES} matching lines"),
        ("openlink", "glob", f"at most {openlink.GLOB_LIMIT}."),
        ("openlink", "grep", f"at most {openlink.GREP_LIMIT} matching lines"),
        ("simple-coder", "read_file", f"at most {simple_coder.MAX_FILE_LINES} lines"),
        ("simple-coder", "list_dir", f"at most {simple_coder.MAX_LIST_RESULTS}."),
        ("simple-coder", "search", f"at most {simple_coder.MAX_SEARCH_RESULTS}."),
    ]:
        assert words in PROFILES[profile].tool(tool).description.lower(), (profile, tool, words)
