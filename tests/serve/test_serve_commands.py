"""The command language of `POST /api/agent`: prompts → (tool, arguments), routing
fallbacks, quoting, and errors that show the accepted forms."""

from __future__ import annotations

from typing import Any

import pytest
from tool_helpers import edit_args

from codesift.errors import InvalidArgumentError
from codesift.serve.commands import ACCEPTED_FORMS, CommandError, plan

# The tree the routing probe sees: directories and files by path.
KINDS = {
    ".": "dir",
    "src": "dir",
    "src/app": "dir",
    "my dir": "dir",
    "src/a.py": "file",
    "README.md": "file",
    "notes [draft].txt": "file",
}


def kind_of(path: str) -> str | None:
    return KINDS.get(path)


def search(pattern: str, **extra: Any) -> dict[str, Any]:
    return {"pattern": pattern, "literal": True, "case_sensitive": False, **extra}


CASES: list[tuple[str, str, str, dict[str, Any]]] = [
    # (prompt, tool choice, expected tool, expected arguments)
    # Read
    ("Read src/a.py", "auto", "read_file", {"path": "src/a.py"}),
    ("Read src/a.py:10-40", "auto", "read_file", {"path": "src/a.py:10-40"}),
    ("read src/a.py:7", "auto", "read_file", {"path": "src/a.py:7"}),
    ("READ 'my dir/file name.txt'", "auto", "read_file", {"path": "my dir/file name.txt"}),
    ("Read my dir/file name.txt", "auto", "read_file", {"path": "my dir/file name.txt"}),
    ("Open README.md", "auto", "read_file", {"path": "README.md"}),
    ("  Read   src/a.py  ", "auto", "read_file", {"path": "src/a.py"}),
    ("src/a.py:1-20", "read", "read_file", {"path": "src/a.py:1-20"}),
    ("Read src/a.py", "read", "read_file", {"path": "src/a.py"}),
    # Read of a directory lists it; Read of a pattern globs (auto only)
    ("Read src", "auto", "list_dir", {"path": "src"}),
    ("Read 'my dir'", "auto", "list_dir", {"path": "my dir"}),
    ("Read src/*.py", "auto", "glob_search", {"pattern": "src/*.py"}),
    ("src", "read", "read_file", {"path": "src"}),
    # a file whose name has glob characters is read, not globbed
    ("Read 'notes [draft].txt'", "auto", "read_file", {"path": "notes [draft].txt"}),
    # List
    ("List", "auto", "list_dir", {"path": "."}),
    ("List src", "auto", "list_dir", {"path": "src"}),
    ("ls src/app", "auto", "list_dir", {"path": "src/app"}),
    # a pattern with any glob character (**, *, ?, {}) is globbed
    *[
        (f"List {pattern}", "auto", "glob_search", {"pattern": pattern})
        for pattern in ("src/**/*.java", "*.md", "file?.txt", "{a,b}.ts")
    ],
    ("List *.py in src", "auto", "glob_search", {"pattern": "*.py", "path": "src"}),
    ("List in src", "auto", "list_dir", {"path": "src"}),
    ("List src/a.py", "auto", "glob_search", {"pattern": "src/a.py"}),
    ("src", "list", "list_dir", {"path": "src"}),
    ("*.py", "list", "glob_search", {"pattern": "*.py"}),
    ("Glob src/**/*.ts", "auto", "glob_search", {"pattern": "src/**/*.ts"}),
    ("Find *.rs in rust", "auto", "glob_search", {"pattern": "*.rs", "path": "rust"}),
    ("**/*.go", "glob", "glob_search", {"pattern": "**/*.go"}),
    ("Glob *.go", "list", "glob_search", {"pattern": "*.go"}),
    ("List *.go", "glob", "glob_search", {"pattern": "*.go"}),
    # Search: flags, quoting, in PATH
    ("Search 'TODO' in src", "auto", "grep_search", search("TODO", path="src")),
    ("Search TODO", "auto", "grep_search", search("TODO")),
    (
        "Search 'regex' 'get\\w+\\(' in src",
        "auto",
        "grep_search",
        {"pattern": "get\\w+\\(", "literal": False, "case_sensitive": False, "path": "src"},
    ),
    (
        "Search 'regex' 'case-sensitive' 'User[A-Z]' in 'my dir'",
        "auto",
        "grep_search",
        {"pattern": "User[A-Z]", "literal": False, "case_sensitive": True, "path": "my dir"},
    ),
    (
        "Search case-sensitive regex ^def in src/a.py",
        "auto",
        "grep_search",
        {"pattern": "^def", "literal": False, "case_sensitive": True, "path": "src/a.py"},
    ),
    ("search 'Case-Sensitive' Foo", "auto", "grep_search", search("Foo", case_sensitive=True)),
    ("Grep 'contains' x+y", "auto", "grep_search", search("x+y")),
    # a flag word alone is the pattern; so is a lone 'in'
    ("Search regex", "auto", "grep_search", search("regex")),
    ("Search 'regex' in src", "auto", "grep_search", search("regex", path="src")),
    ("Search in", "auto", "grep_search", search("in")),
    ("Search in in src", "auto", "grep_search", search("in", path="src")),
    # a quoted 'in' is text, not the separator
    ("Search 'a in b'", "auto", "grep_search", search("a in b")),
    ('Search "it\'s"', "auto", "grep_search", search("it's")),
    # unquoted words are taken verbatim, spaces and all
    ("Search getUser(  id ) in src", "auto", "grep_search", search("getUser(  id )", path="src")),
    # escapes: \' and \" and \\ ; any other backslash stays (regex escapes survive)
    ("Search 'it\\'s' in src", "auto", "grep_search", search("it's", path="src")),
    ('Search "say \\"hi\\"" in src', "auto", "grep_search", search('say "hi"', path="src")),
    ("Search 'a\\\\b'", "auto", "grep_search", search("a\\b")),
    ("Search 'ends with \\\\'", "auto", "grep_search", search("ends with \\")),
    ("Search regex '\\d+\\.\\d+'", "auto", "grep_search", search("\\d+\\.\\d+", literal=False)),
    ("Search \"'single' inside\"", "auto", "grep_search", search("'single' inside")),
    ("Search 'line one\nline two'", "auto", "grep_search", search("line one\nline two")),
    ("Search 'ünïcödé ✓'", "auto", "grep_search", search("ünïcödé ✓")),
    # a prompt without a keyword is a plain-text search
    ("getUser", "auto", "grep_search", search("getUser")),
    ("getUser(id) in", "auto", "grep_search", search("getUser(id) in")),
    ("'Read me'", "auto", "grep_search", search("Read me")),
    ("foo.bar(*)", "auto", "grep_search", search("foo.bar(*)")),
    ("TODO", "search", "grep_search", search("TODO")),
    ("Search TODO in src", "search", "grep_search", search("TODO", path="src")),
    # Replace
    (
        "Replace 'old name' with 'new name' in src/a.py",
        "auto",
        "edit",
        edit_args("src/a.py", "old name", "new name"),
    ),
    ("replace foo with bar in README.md", "auto", "edit", edit_args("README.md", "foo", "bar")),
    (
        "Replace 'it\\'s' with \"it is\" in 'my dir/x.txt'",
        "auto",
        "edit",
        edit_args("my dir/x.txt", "it's", "it is"),
    ),
    ("Replace 'with' with 'in' in f.txt", "auto", "edit", edit_args("f.txt", "with", "in")),
    ("Replace 'x' with '' in f.txt", "auto", "edit", edit_args("f.txt", "x", "")),
    ("Replace 'a\nb' with 'a\n  b' in f.txt", "auto", "edit", edit_args("f.txt", "a\nb", "a\n  b")),
    ("'a' with 'b' in f.txt", "replace", "edit", edit_args("f.txt", "a", "b")),
]


@pytest.mark.parametrize(("prompt", "choice", "tool", "arguments"), CASES)
def test_prompt_becomes_tool_call(
    prompt: str, choice: str, tool: str, arguments: dict[str, Any]
) -> None:
    call = plan(prompt, choice, kind_of=kind_of)
    assert (call.tool, call.arguments) == (tool, arguments), (
        f"{prompt!r} ({choice}): expected {tool} {arguments}, got {call.tool} {call.arguments}"
    )


def test_fallbacks_say_why() -> None:
    assert plan("Read src", kind_of=kind_of).note == "src is a directory, so it was listed"
    assert "is a file" in (plan("List src/a.py", kind_of=kind_of).note or "")
    assert plan("Read src/a.py", kind_of=kind_of).note is None


def test_without_a_probe_no_fallback_applies() -> None:
    assert plan("Read src").tool == "read_file"
    assert plan("List src/a.py").tool == "list_dir"


def test_search_options_fill_in_what_the_prompt_leaves_out() -> None:
    options = {
        "regex": True,
        "case_sensitive": True,
        "include": ["*.py", "*.pyi"],
        "context_lines": 2,
        "max_matches": 100,
    }
    call = plan("get_\\w+", "auto", options=options)
    assert call.arguments == {
        "pattern": "get_\\w+",
        "literal": False,
        "case_sensitive": True,
        "include": ["*.py", "*.pyi"],
        "context_lines": 2,
        "max_matches": 100,
    }
    # flags written in the prompt win over options; a path in the prompt over the option's
    call = plan("Search 'contains' 'x' in src", options={"regex": True, "path": "lib"})
    assert call.arguments == {
        "pattern": "x",
        "literal": True,
        "case_sensitive": False,
        "path": "src",
    }
    assert plan("x", options={"path": "lib"}).arguments["path"] == "lib"
    # options never leak into other tools
    assert plan("Read src/a.py", options=options).arguments == {"path": "src/a.py"}


ERRORS: list[tuple[str, str, str]] = [
    # (prompt, tool choice, a piece of the message)
    ("", "auto", "the prompt is empty"),
    ("   \n ", "auto", "the prompt is empty"),
    ("Read", "auto", "Read needs a file"),
    ("Glob", "auto", "Glob needs a pattern"),
    ("Search", "auto", "Search needs a pattern"),
    ("Search ''", "auto", "the search pattern is empty"),
    ("Search 'unclosed", "auto", "is never closed"),
    ("Search 'a'b", "auto", "put a space after the closing quote"),
    ("Search 'a' b in src", "auto", "partly quoted"),
    ("Search x 'in' src", "auto", "partly quoted"),
    ("Replace 'a' with 'b'", "auto", "Replace needs the file"),
    ("Replace 'a' 'b' in f.txt", "auto", "needs 'with'"),
    ("Replace with 'b' in f.txt", "auto", "both an old and a new text"),
    ("Replace 'a' with in f.txt", "auto", "both an old and a new text"),
    ("Replace a with b with c in f.txt", "auto", "'with' occurs more than once"),
    ("Replace 'same' with 'same' in f.txt", "auto", "the same"),
    ("Replace '' with 'x' in f.txt", "auto", "the old text is empty"),
    ("Search TODO", "read", "the tool is read"),
    ("Read src/a.py", "replace", "the tool is replace"),
    ("just words", "replace", "Replace needs"),
]


@pytest.mark.parametrize(("prompt", "choice", "message"), ERRORS)
def test_errors_show_the_accepted_forms(prompt: str, choice: str, message: str) -> None:
    with pytest.raises(CommandError) as caught:
        plan(prompt, choice, kind_of=kind_of)
    text = str(caught.value)
    assert message in text, f"{prompt!r}: expected {message!r} in {text!r}"
    for form in ACCEPTED_FORMS:
        assert form in text, f"{prompt!r}: the accepted form {form!r} is missing from {text!r}"
    assert isinstance(caught.value, InvalidArgumentError)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"tool": "delete"}, "tool must be one of"),
        ({"options": {"colour": True}}, "unknown option 'colour'"),
        ({"options": {"regex": "yes"}}, "option regex has the wrong type"),
        ({"options": {"max_matches": True}}, "option max_matches has the wrong type"),
    ],
)
def test_bad_tool_or_options(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        plan("TODO", **kwargs)
    assert message in str(caught.value)
