"""A `Tool`'s parameters declared with what they are (`schema.path`, `schema.text`,
`required`): the tool's lists take them, in the order of the properties, and the schema it
publishes is plain JSON Schema."""

from __future__ import annotations

import json

from codesift.tools import schema
from codesift.tools.spec import Tool


def _answer(box, args):  # never called: the tests read the declaration only
    raise AssertionError("not called")


def test_declared_parameters_make_the_lists_in_property_order() -> None:
    tool = Tool(
        name="write",
        description="Writes a file.",
        properties={
            "content": schema.text("The text.", required=True),
            "mode": schema.required({"type": "string", "enum": ["a", "w"]}),
            "note": schema.string("Said in the answer."),
            "file_path": schema.path("The file.", required=True),
            "also": schema.path("Another name for file_path."),
        },
        handler=_answer,
        read_only=False,
    )
    got = (tool.required, tool.path_parameters, tool.text_parameters)
    want = (("content", "mode", "file_path"), ("file_path", "also"), ("content",))
    assert got == want, f"expected {want}, got {got}"
    published = tool.input_schema()
    assert all(type(p) is dict for p in published["properties"].values()), published
    assert json.dumps(published) == json.dumps(
        {
            "type": "object",
            "properties": {
                "content": {"type": "string", "description": "The text."},
                "mode": {"type": "string", "enum": ["a", "w"]},
                "note": {"type": "string", "description": "Said in the answer."},
                "file_path": {"type": "string", "description": "The file."},
                "also": {"type": "string", "description": "Another name for file_path."},
            },
            "required": ["content", "mode", "file_path"],
            "additionalProperties": False,
        }
    ), published


def test_lists_given_by_name_join_the_declared_ones() -> None:
    tool = Tool(
        name="edit",
        description="Edits a file.",
        properties={
            "edits": {"type": "array", "items": {"type": "string"}},
            "path": schema.path("The file.", required=True),
        },
        handler=_answer,
        required=("edits",),
    )
    assert tool.required == ("edits", "path"), tool.required
    assert tool.path_parameters == ("path",), tool.path_parameters


def test_a_tool_without_declared_parameters_keeps_its_lists_as_given() -> None:
    tool = Tool(
        name="read",
        description="Reads a file.",
        properties={"path": {"type": "string"}},
        handler=_answer,
        required=("path",),
        path_parameters=("path",),
    )
    assert (tool.required, tool.path_parameters) == (("path",), ("path",))
