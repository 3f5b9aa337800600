"""What an error says to do, through every profile: the advice names only parameters of the
tool that was called (as that profile's schema spells them) and the profile's own tools, or
is left out; multi-line messages keep their line breaks. The allowed names are read from the
profiles' schemas, never written here."""

from __future__ import annotations

import pytest
from error_hint_cases import advice, foreign_names, hinted_errors, schema_names, words

from codesift import Workspace
from codesift.errors import problem_of
from codesift.errors.hints import TEXT_PARAMETERS, name_texts, render_for_tool, text_names
from codesift.tools import PROFILES, Toolbox

#: Every name a profile's tool has (its parameters) and every tool name, in all profiles: what
#: a hint could wrongly name.
KNOWN = {
    name
    for profile in PROFILES.values()
    for tool in profile.tools
    for name in {tool.name, *schema_names(tool.input_schema())}
}


@pytest.fixture(scope="module")
def errors(tmp_path_factory):
    return hinted_errors(tmp_path_factory.mktemp("hints"))


@pytest.mark.parametrize("profile_name", sorted(PROFILES))
def test_every_hint_names_only_the_called_tools_parameters_and_the_profiles_tools(
    errors, profile_name
):
    profile = PROFILES[profile_name]
    wrong = []
    for tool in profile.tools:
        parameters = schema_names(tool.input_schema())
        allowed = parameters | set(profile.names)
        for kind, error in errors.items():
            problem = problem_of(name_texts(error, text_names(parameters)))
            hint = advice(render_for_tool(error, profile, tool.name), error, problem)
            foreign = foreign_names(hint, error, allowed, KNOWN)
            if foreign:
                wrong.append(f"{tool.name} / {kind}: {foreign} in {hint!r}")
    assert not wrong, "expected hints naming only the tool's own names, got:\n" + "\n".join(wrong)


#: Every name a tool gives an edit's texts, the library's included.
TEXT_NAMES = {name for library, theirs in TEXT_PARAMETERS.items() for name in (library, *theirs)}


@pytest.mark.parametrize("profile_name", sorted(PROFILES))
def test_an_edit_error_names_the_texts_as_the_called_tool_does(errors, profile_name):
    profile = PROFILES[profile_name]
    wrong = []
    for tool in profile.tools:
        parameters = schema_names(tool.input_schema())
        if not parameters & TEXT_NAMES:
            continue  # a tool that takes no text to replace never fails for one
        for kind, error in errors.items():
            first = render_for_tool(error, profile, tool.name).split("\n")[0]
            foreign = sorted((words(first) & TEXT_NAMES) - parameters)
            if foreign:
                wrong.append(f"{tool.name} / {kind}: {foreign} in {first!r}")
    assert not wrong, "expected the texts named as the tool names them, got:\n" + "\n".join(wrong)


@pytest.mark.parametrize(
    ("profile", "tool", "kind", "expected"),
    [
        ("codesift", "grep_search", "regex that does not compile", "pass literal=true."),
        ("gemini-cli", "grep_search", "regex that does not compile", "pass fixed_strings=true."),
        ("ace", "ace-text_search", "regex that does not compile", "pass isRegex=false."),
        ("simple-coder", "search", "regex that does not compile", 'pass mode="contains".'),
        ("claude-code", "Grep", "newline in a pattern without multiline", "multiline=true."),
        ("claude-code", "Grep", "unknown file type", 'filter by name with glob="*.ext".'),
        ("gemini-cli", "grep_search", "unknown file type", 'with include_pattern="*.ext".'),
        ("claude-code", "Edit", "edit text found several times", "pass replace_all=true"),
        ("claude-code", "MultiEdit", "edit text found several times", "pass replace_all=true"),
        ("opencode", "edit", "edit text found several times", "pass replaceAll=true"),
        ("gemini-cli", "replace", "edit text found several times", "pass allow_multiple=true"),
        ("codesift", "edit", "edit text found several times", "by its search_result_id."),
        ("claude-code", "Edit", "edit text found nowhere", "first with Read and copy"),
        ("opencode", "edit", "edit text found nowhere", "first with read and copy"),
        ("opencode", "edit", "edit text found nowhere", "oldString was not found"),
        ("opencode", "edit", "edit text found several times", "oldString matches 2 places"),
        ("mcp-filesystem", "edit_file", "edit text found nowhere", "oldText was not found"),
        ("ace", "filesystem-edit_search", "edit text found nowhere", "searchContent was not"),
        ("claude-code", "Edit", "edit text found nowhere", "old_string was not found"),
        ("swe-agent", "str_replace_editor", "edit text found nowhere", 'with command="view"'),
        ("claude-code", "Read", "path that does not exist", "check the path with Glob"),
        ("gemini-cli", "read_file", "path that does not exist", "with glob or list_directory"),
        ("codex", "read_file", "directory read as a file", "use list_dir to see"),
        ("codesift", "edit", "edit text empty", "(use write_file to create or overwrite"),
        ("codesift", "apply_patch", "SEARCH/REPLACE blocks without their file", "(path=...)"),
        ("codex", "apply_patch", "SEARCH/REPLACE blocks without their file", ": name it in"),
        ("claude-code", "Edit", "edit text empty", "(use Write to create or overwrite"),
        ("openlink", "edit", "edit text empty", "(use write_file to create or overwrite"),
        (
            "cline",
            "replace_in_file",
            "empty SEARCH section on a file with content",
            "(or write the whole file with write_to_file)",
        ),
    ],
)
def test_a_hint_names_the_option_the_tool_has(errors, profile, tool, kind, expected):
    rendered = render_for_tool(errors[kind], PROFILES[profile], tool)
    assert expected in rendered, f"expected {expected!r} in {rendered!r}"


def test_a_hint_without_an_option_says_what_to_do_without_one(errors):
    claude = PROFILES["claude-code"]
    several = render_for_tool(errors["edit text found several times"], claude, "Edit")
    assert several.endswith(
        "Include more surrounding lines to make it unique, or pass "
        "replace_all=true to change every one."
    ), several
    regex = render_for_tool(errors["regex that does not compile"], claude, "Grep")
    assert regex.endswith("\nEscape special characters with \\."), regex
    listing = render_for_tool(errors["directory read as a file"], PROFILES["file-search"], None)
    assert listing == "./src is a directory", listing
    # codex has no tool that writes a whole file: the edit is only told what it lacks.
    empty = render_for_tool(errors["edit text empty"], PROFILES["codex"], "apply_patch")
    assert empty == "old_string is empty; give the exact text to replace", empty


# -- the defects, through real calls ------------------------------------------------------

#: The search tool of each profile whose hint for a bad regex said `literal=true`, and the
#: arguments of a regex search there.
SEARCHES = {
    "claude-code": ("Grep", {"pattern": "foo("}),
    "chaterm": ("grep_search", {"pattern": "foo("}),
    "codex": ("grep_files", {"pattern": "foo("}),
    "gemini-cli": ("grep_search", {"pattern": "foo("}),
    "opencode": ("grep", {"pattern": "foo("}),
    "openlink": ("grep", {"pattern": "foo("}),
}


@pytest.mark.parametrize("profile", sorted(SEARCHES))
def test_a_bad_regex_never_advises_a_parameter_the_search_tool_lacks(tree, profile):
    root = tree({"a.py": "foo(bar)\n"})
    box = Toolbox(Workspace(root), profile)
    name, args = SEARCHES[profile]
    result = box.call(name, args)
    parameters = schema_names(box.input_schema(name))
    assert result.is_error, result.text
    named = {word for word in ("literal", "fixed_strings", "isRegex") if f"{word}=" in result.text}
    assert named <= parameters, (
        f"expected hints naming only {sorted(parameters)}, got {sorted(named)} in {result.text!r}"
    )
    # The advice is one the model can follow: the parameter it names is accepted.
    for word in named:
        followed = box.call(name, {**args, word: word != "isRegex"})
        assert not followed.is_error, f"{word}: {followed.text}"


def test_claude_codes_grep_is_not_told_to_pass_a_parameter_it_refuses(tree):
    box = Toolbox(Workspace(tree({"a.py": "foo(bar)\n"})), "claude-code")
    refused = box.call("Grep", {"pattern": "foo(", "literal": True})
    assert refused.is_error and "literal" in refused.text, refused.text
    told = box.call("Grep", {"pattern": "foo("}).text
    assert "literal" not in told, f"expected no literal hint, got {told!r}"


def test_a_regex_error_shows_the_pattern_as_written_with_its_caret(tree):
    box = Toolbox(Workspace(tree({"a.py": "foo(bar)\n"})), "codesift")
    text = box.call("grep_search", {"pattern": "foo("}).text
    expected = (
        "Error: invalid regex /foo(/: regex parse error:\n    foo(\n       ^\n"
        "error: unclosed group\nEscape special characters with \\ or pass literal=true."
    )
    assert text == expected, f"expected {expected!r}, got {text!r}"


def test_the_similar_region_of_a_failed_edit_is_shown_verbatim(tree):
    root = tree({"a.py": "def f():\n    x  =\t1\n    return x\n"})
    box = Toolbox(Workspace(root), "claude-code")
    text = box.call("Edit", {"file_path": "a.py", "old_string": "x = 1", "new_string": "y"}).text
    assert "     2\t    x  =\t1\n" in text, f"expected the line as it is in the file, got {text!r}"
    assert "read the region first with Read" in text, text
