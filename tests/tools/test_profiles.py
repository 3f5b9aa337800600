"""Profiles: the registry, and the codesift profile's refusal of ambiguous names."""

from __future__ import annotations

import pytest

from codesift import Workspace
from codesift.tools import PROFILES, Toolbox


def test_unknown_profile_is_a_value_error_naming_the_profiles(tree):
    ws = Workspace(tree({"a.txt": "x\n"}))
    with pytest.raises(ValueError) as info:
        Toolbox(ws, profile="vscode")
    assert "'vscode'" in str(info.value)
    for name in PROFILES:
        assert name in str(info.value)


@pytest.mark.parametrize(
    ("name", "profiles"),
    [("file_search", ["file-search"]), ("search_files", ["mcp-filesystem", "cline"])],
)
def test_codesift_profile_refuses_ambiguous_names(tree, name, profiles):
    toolbox = Toolbox(Workspace(tree({"a.txt": "TODO\n"})))
    result = toolbox.call(name, {"pattern": "TODO"})
    assert result.is_error, result.text
    assert result.data["error"]["type"] == "AmbiguousTool"
    assert "glob_search" in result.text and "grep_search" in result.text
    for profile in profiles:
        assert f'"{profile}"' in result.text, result.text


# -- every profile: names, schemas, errors -------------------------------------------------

AGENT_TOOLS = {
    "claude-code": ["Grep", "Glob", "Read", "Edit", "MultiEdit", "Write"],
    "opencode": ["grep", "glob", "list", "read", "edit", "multiedit", "write", "apply_patch"],
    "gemini-cli": ["grep_search", "glob", "list_directory", "read_file", "replace", "write_file"],
    "cline": ["search_files", "list_files", "read_file", "replace_in_file", "write_to_file"],
    "codex": ["apply_patch", "grep_files", "read_file", "list_dir"],
    "swe-agent": ["str_replace_editor"],
    "mcp-filesystem": [
        "read_text_file",
        "read_file",
        "read_multiple_files",
        "write_file",
        "edit_file",
        "create_directory",
        "list_directory",
        "list_directory_with_sizes",
        "directory_tree",
        "move_file",
        "search_files",
        "get_file_info",
        "list_allowed_directories",
    ],
}


@pytest.mark.parametrize("profile", sorted(AGENT_TOOLS))
def test_each_profile_exposes_exactly_its_agents_tools(tree, profile):
    toolbox = Toolbox(Workspace(tree({"a.txt": "x\n"})), profile=profile)
    assert toolbox.names == AGENT_TOOLS[profile]
    for schema in toolbox.schemas("anthropic"):
        assert schema["input_schema"]["type"] == "object"
        assert set(schema["input_schema"]["required"]) <= set(schema["input_schema"]["properties"])


@pytest.mark.parametrize("profile", sorted(AGENT_TOOLS))
def test_each_profile_refuses_other_agents_names_and_unknown_parameters(tree, profile):
    toolbox = Toolbox(Workspace(tree({"a.txt": "x\n"})), profile=profile)
    unknown = toolbox.call("glob_search", {"pattern": "*"})
    assert unknown.is_error and unknown.data["error"]["type"] == "UnknownTool", unknown.text
    first = AGENT_TOOLS[profile][0]
    bad = toolbox.call(first, {"no_such_parameter": 1})
    assert bad.is_error and "no_such_parameter" in bad.text, bad.text


def test_profiles_keep_the_sandbox(tree, tmp_path):
    (tmp_path / "outside.txt").write_text("secret\n")
    ws = Workspace(tree({"a.txt": "x\n"}))
    calls = {
        "claude-code": ("Read", {"file_path": str(tmp_path / "outside.txt")}),
        "opencode": ("read", {"filePath": "../outside.txt"}),
        "gemini-cli": ("read_file", {"file_path": "../outside.txt"}),
        "cline": ("read_file", {"path": "../outside.txt"}),
        "codex": ("read_file", {"file_path": str(tmp_path / "outside.txt")}),
        "mcp-filesystem": ("read_text_file", {"path": str(tmp_path / "outside.txt")}),
    }
    for profile, (name, args) in calls.items():
        result = Toolbox(ws, profile=profile).call(name, args)
        assert result.is_error, (profile, result.text)
        assert "secret" not in result.text
        assert result.data["error"]["type"] == "SandboxError", (profile, result.text)
