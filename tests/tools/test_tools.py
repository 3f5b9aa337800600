"""The tool layer: schemas, dispatch, aliases, errors as results, LLM text and output caps."""

from __future__ import annotations

import json

import jsonschema
import pytest
from tool_helpers import CODESIFT_TOOLS

from codesift import Workspace
from codesift.tools import TOOLS, Toolbox

SRC = {
    "src/api.ts": "export function getUser(id) {\n  return db.getUser(id)\n}\n",
    "src/util.ts": "// helpers\n",
    "README.md": "getUser docs\n",
}


@pytest.fixture
def toolbox(tree):
    return Toolbox(Workspace(tree(SRC)))


def test_tools_and_schema_formats(toolbox):
    assert toolbox.names == CODESIFT_TOOLS
    for fmt in ("json", "openai", "anthropic"):
        schemas = toolbox.schemas(fmt)
        assert len(schemas) == len(CODESIFT_TOOLS)
        for schema in schemas:
            body = (
                schema["function"]["parameters"]
                if fmt == "openai"
                else (schema["input_schema"] if fmt == "anthropic" else schema["parameters"])
            )
            jsonschema.Draft202012Validator.check_schema(body)
            assert body["type"] == "object" and body["additionalProperties"] is False
    openai = toolbox.schemas("openai")[0]
    assert openai["type"] == "function" and openai["function"]["name"] == "grep_search"
    with pytest.raises(ValueError):
        toolbox.schemas("xml")


def test_descriptions_put_search_then_edit_by_id_first(toolbox):
    assert "search_result_id" in TOOLS["grep_search"]["description"]
    edit = TOOLS["edit"]["description"]
    assert edit.index("search_result_id") < edit.index("old_string")
    assert "Compatibility mode" in edit
    assert all(len(t["description"]) < 400 for t in TOOLS.values())


def test_grep_text_lists_hits_with_ids_grouped_by_file(toolbox):
    result = toolbox.call("grep_search", {"rank": False, "pattern": "getUser", "path": "src"})
    assert not result.is_error
    lines = result.text.splitlines()
    assert lines[0] == "Found 2 matches for /getUser/ in ./src"
    ids = [m["id"] for m in result.data["matches"]]
    assert lines[2] == f"src/api.ts:1:17 [{ids[0]}] export function getUser(id) {{"
    assert lines[3] == f"src/api.ts:2:13 [{ids[1]}]   return db.getUser(id)"
    assert json.loads(json.dumps(result.data))["total"] == 2


def test_names_are_case_insensitive_and_aliased(toolbox):
    for name in ("GREP", "Grep", "rg", "grep_search"):
        assert not toolbox.call(name, {"pattern": "getUser"}).is_error, name
    for name, args in [
        ("glob", {"pattern": "*.ts"}),
        ("read", {"path": "README.md"}),
        ("ls", {}),
        ("list", {"path": "src"}),
        ("find", {"pattern": "*.md"}),
    ]:
        assert not toolbox.call(name, args).is_error, name


def test_unknown_tool_lists_the_tools(toolbox):
    result = toolbox.call("frobnicate", {})
    assert result.is_error
    assert "grep_search" in result.text and "write_file" in result.text


def test_parameter_aliases(toolbox):
    result = toolbox.call("grep", {"pattern": "getUser(", "isRegex": False, "fileGlob": "*.ts"})
    assert not result.is_error, result.text
    assert result.data["total"] == 2
    hit = result.data["matches"][0]["id"]
    edited = toolbox.call("replace", {"searchResultId": hit, "replaceContent": "fetchUser("})
    assert not edited.is_error, edited.text
    compat = toolbox.call(
        "edit",
        {"filePath": "README.md", "searchContent": "docs", "replaceContent": "documentation"},
    )
    assert not compat.is_error, compat.text
    assert toolbox.workspace.read("README.md").content == "     1\tgetUser documentation"
    assert toolbox.call("glob", {"pattern": "*.md", "ip": "localhost"}).data["total"] == 1


@pytest.mark.parametrize(
    "name,args,needle",
    [
        ("grep_search", {}, "'pattern' is required"),
        ("grep_search", {"pattern": 3}, "is not of type 'string'"),
        ("grep_search", {"pattern": "x", "max_matches": 0}, "minimum"),
        ("grep_search", {"pattern": "x", "colour": "red"}, "unknown parameter 'colour'"),
        ("read_file", {"path": "src/api.ts", "offset": "2"}, "is not of type 'integer'"),
        ("edit", {"new_string": "x"}, "search_result_id"),
        ("glob_search", {"pattern": "*", "sort": "size"}, "is not one of"),
        ("grep_search", "{not json", "not valid JSON"),
    ],
)
def test_bad_arguments_are_error_results(toolbox, name, args, needle):
    result = toolbox.call(name, args)
    assert result.is_error
    assert needle in result.text, result.text
    assert "Traceback" not in result.text


def test_codesift_errors_are_error_results(toolbox):
    for name, args, kind in [
        ("read_file", {"path": "../../etc/passwd"}, "SandboxError"),
        ("read_file", {"path": "missing.txt"}, "NotFoundError"),
        ("grep_search", {"pattern": "foo("}, "PatternError"),
        ("edit", {"search_result_id": "sr_zzz9", "new_string": "x"}, "StaleResultError"),
        (
            "edit",
            {"path": "src/api.ts", "old_string": "nothing like it", "new_string": "x"},
            "MatchError",
        ),
        ("glob_search", {"pattern": "*", "host": "far.away"}, "CodesiftError"),
    ]:
        result = toolbox.call(name, args)
        assert result.is_error and result.data["error"]["type"] == kind, (name, result.text)


def test_json_string_arguments(toolbox):
    result = toolbox.call("grep_search", '{"pattern": "getUser", "max_matches": 1}')
    assert not result.is_error and result.data["truncated"]


def test_long_lines_are_windowed_and_marked_truncated(tree):
    line = "a" * 3000 + "NEEDLE" + "b" * 3000
    toolbox = Toolbox(Workspace(tree({"min.js": line + "\n"})), max_line_chars=100)
    result = toolbox.call("grep_search", {"pattern": "needle"})
    hit_line = result.text.splitlines()[2]
    assert "NEEDLE" in hit_line and len(hit_line) < 200
    assert hit_line.count("…") == 2
    assert result.data["truncated"] is True
    assert result.data["matches"][0]["text"] == line  # the data keeps the whole line


def test_oversized_output_spills_to_a_file_readable_with_read_file(tree, tmp_path):
    files = {f"f{i:03}.txt": "hit\n" * 30 for i in range(100)}
    toolbox = Toolbox(Workspace(tree(files)), spill_dir=tmp_path / "spill")
    result = toolbox.call("grep_search", {"pattern": "hit", "max_matches": 3000})
    assert result.data["truncated"] and result.data["spill_file"]
    assert len(result.text.splitlines()) <= 2003
    assert "read_file" in result.text.splitlines()[-1]
    spill = result.data["spill_file"]
    assert len(open(spill).read().splitlines()) > 3000
    more = toolbox.call("read_file", {"path": spill, "offset": 2001, "limit": 5})
    assert not more.is_error, more.text
    assert more.text.startswith("  2001\t")
    # The exception covers the spill directory only.
    outside = toolbox.call("read_file", {"path": str(tmp_path / "elsewhere.txt")})
    assert outside.is_error


def test_output_byte_cap(tree, tmp_path):
    files = {"big.txt": ("x" * 200 + " hit\n") * 400}
    toolbox = Toolbox(Workspace(tree(files)), spill_dir=tmp_path / "s", max_line_chars=1000)
    result = toolbox.call("grep_search", {"pattern": "hit"})
    assert len(result.text.encode()) <= 50 * 1024 + 500
    assert result.data["spill_file"]


def test_edit_modes_through_the_tool(toolbox):
    hit = toolbox.call("grep", {"pattern": "return"}).data["matches"][0]["id"]
    both = toolbox.call("edit", {"search_result_id": hit, "old_string": "x", "new_string": "y"})
    assert both.is_error and "not both" in both.text
    ok = toolbox.call("edit", {"search_result_id": hit, "new_string": "yield"})
    assert not ok.is_error and ok.data["strategy"] == "search_result"
    assert "+  yield db.getUser(id)" in ok.text


def test_write_and_list_through_tools(toolbox):
    assert not toolbox.call("write_file", {"path": "new/x.txt", "content": "hi\n"}).is_error
    listing = toolbox.call("list_dir", {"path": "new"})
    assert listing.text == "x.txt" and listing.data["entries"] == ["x.txt"]
