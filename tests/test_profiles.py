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
