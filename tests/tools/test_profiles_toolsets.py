"""The five tool sets codesift replaces (DESIGN.md, "Tool sets codesift replaces"): chaterm,
simple-coder, file-search, openlink and ace. Each tool is replayed as those tool sets call it,
through `Toolbox.call`, asserting the exact text and data; then each profile once through the
MCP SDK's client over stdio (`codesift mcp --profile NAME`)."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from tool_helpers import edit_args
from trees import tree_fixture

import codesift
from codesift import GlobMatch, GrepMatch, Workspace
from codesift.remote import RemoteGlobResult, RemoteGrepResult
from codesift.tools import PROFILES, Toolbox

TOOL_SETS = ("chaterm", "simple-coder", "file-search", "openlink", "ace")

APP_TS = "export function getUser (id) {\n  return db.getUser(id)\n}\n// GETUSER( is the old name\n"


def box(root: Path, profile: str, **options) -> Toolbox:
    return Toolbox(Workspace(root), profile, **options)


def ok(result):
    assert not result.is_error, result.text
    return result


def failed(result, kind: str):
    assert result.is_error, result.text
    assert result.data["error"]["type"] == kind, result.data
    return result


def test_the_five_tool_sets_are_registered_with_their_tools():
    expected = {
        "chaterm": ["glob_search", "grep_search"],
        "simple-coder": ["read_file", "list_dir", "search", "replace"],
        "file-search": ["file_search"],
        "openlink": ["glob", "grep", "edit", "read_file", "write_file", "list_dir", "invalid"],
        "ace": ["ace-text_search", "filesystem-edit_search"],
    }
    for name, tools in expected.items():
        assert PROFILES[name].names == tools, name


# -- chaterm ---------------------------------------------------------------------------------


chaterm_tree = tree_fixture(
    {
        "src/app.ts": APP_TS,
        "src/lib/user.ts": "const u = getUser(1)\n",
        "src/readme.md": "getUser()\n",
        "build/app.ts": "getUser(0)\n",
        "secrets/key.ts": "getUser(2)\n",
        ".gitignore": "build/\n",
        ".clineignore": "secrets/\n",
    }
)


def test_chaterm_glob_search(chaterm_tree):
    toolbox = box(chaterm_tree, "chaterm")
    result = ok(toolbox.call("glob_search", {"pattern": "src/**/*.ts", "path": "src"}))
    assert result.text == (
        'Found 2 files matching "src/**/*.ts" in ./src (sorted by path)\n'
        "src/app.ts\nsrc/lib/user.ts"
    )
    files = []
    for rel in ("src/app.ts", "src/lib/user.ts"):
        st = os.stat(chaterm_tree / rel)
        files.append({"path": rel, "mtimeMs": st.st_mtime_ns // 1_000_000, "size": st.st_size})
    assert result.data["files"] == files
    assert result.data["total"] == 2 and result.data["truncated"] is False
    assert result.data["ignored"] == {"git": 0, "cline": 0}


def test_chaterm_glob_search_counts_what_each_kind_of_rule_hid(chaterm_tree):
    toolbox = box(chaterm_tree, "chaterm")
    result = ok(toolbox.call("glob_search", {"pattern": "*.ts"}))
    assert result.data["files"] == [
        {"path": p, "mtimeMs": result.data["files"][i]["mtimeMs"], "size": s}
        for i, (p, s) in enumerate([("src/app.ts", len(APP_TS)), ("src/lib/user.ts", 21)])
    ]
    assert result.data["ignored"] == {"git": 1, "cline": 1}

    nothing = ok(toolbox.call("glob_search", {"pattern": "*.rs"}))
    assert nothing.text == (
        'Found 0 files matching "*.rs" in . (sorted by path)\n'
        "(1 path hidden by .gitignore rules and 1 path denied by .clineignore)"
    )


def test_chaterm_glob_search_limit_and_sort(chaterm_tree):
    toolbox = box(chaterm_tree, "chaterm")
    result = ok(toolbox.call("glob_search", {"pattern": "*.ts", "limit": 1, "sort": "path"}))
    assert result.text == (
        'Found 2 files matching "*.ts" in . (sorted by path) '
        "[TRUNCATED: showing first 1 of 2 files]\nsrc/app.ts"
    )
    assert result.data["truncated"] is True and result.data["total"] == 2
    unsorted = ok(toolbox.call("glob_search", {"pattern": "*.ts", "sort": "none"}))
    assert unsorted.text.split("\n")[0] == 'Found 2 files matching "*.ts" in . (unsorted)'
    assert sorted(unsorted.text.split("\n")[1:]) == ["src/app.ts", "src/lib/user.ts"]
    # mtime is not one of chaterm's sorts.
    bad = failed(toolbox.call("glob_search", {"pattern": "*", "sort": "mtime"}), "InvalidArguments")
    assert "sort" in bad.text


def assert_whole_answer(result: Any, text: str, *matches: tuple[str, int, str]) -> None:
    """A search answer's text, its matches as (file, line, text), and that none were cut."""
    assert result.text == text, f"expected {text!r}, got {result.text!r}"
    expected = [{"file": file, "line": line, "text": hit} for file, line, hit in matches]
    assert result.data["matches"] == expected, f"expected {expected}, got {result.data['matches']}"
    whole = (result.data["total"], result.data["truncated"])
    assert whole == (len(matches), False), f"expected ({len(matches)}, False), got {whole}"


def test_chaterm_grep_search(chaterm_tree):
    toolbox = box(chaterm_tree, "chaterm")
    result = ok(
        toolbox.call(
            "grep_search", {"pattern": r"getUser\s*\(", "path": "./src", "include": "*.ts"}
        )
    )
    assert_whole_answer(
        result,
        'Found 4 matches for /getUser\\s*\\(/ in ./src (filter: "*.ts")\n'
        "\n"
        "src/app.ts:1:export function getUser (id) {\n"
        "src/app.ts:2:  return db.getUser(id)\n"
        "src/app.ts:4:// GETUSER( is the old name\n"
        "\n"
        "src/lib/user.ts:1:const u = getUser(1)",
        ("src/app.ts", 1, "export function getUser (id) {"),
        ("src/app.ts", 2, "  return db.getUser(id)"),
        ("src/app.ts", 4, "// GETUSER( is the old name"),
        ("src/lib/user.ts", 1, "const u = getUser(1)"),
    )


def test_chaterm_grep_search_case_context_and_limit(chaterm_tree):
    toolbox = box(chaterm_tree, "chaterm")
    sensitive = ok(
        toolbox.call(
            "grep_search",
            {"pattern": "getUser\\(", "path": "src/app.ts", "case_sensitive": True},
        )
    )
    assert [m["line"] for m in sensitive.data["matches"]] == [2]

    context = ok(
        toolbox.call("grep_search", {"pattern": "return", "path": "src", "context_lines": 1})
    )
    assert context.text == (
        "Found 1 match for /return/ in ./src\n"
        "\n"
        "src/app.ts-1-export function getUser (id) {\n"
        "src/app.ts:2:  return db.getUser(id)\n"
        "src/app.ts-3-}"
    )
    assert context.data["matches"] == [
        {
            "file": "src/app.ts",
            "line": 2,
            "text": "  return db.getUser(id)",
            "before": ["export function getUser (id) {"],
            "after": ["}"],
        }
    ]

    cut = ok(toolbox.call("grep_search", {"pattern": "getuser", "max_matches": 2}))
    assert cut.text.split("\n")[0] == (
        "Found 2 matches for /getuser/ in . [TRUNCATED: reached limit 2 before completing search]"
    )
    assert cut.data["truncated"] is True and len(cut.data["matches"]) == 2


class _Hosts:
    """A stand-in for a RemoteWorkspace over several hosts: each host "runs" the search on the
    local test tree, and its hits and files carry the host, as remote results do."""

    def __init__(self, hosts: str, workspace: Workspace) -> None:
        self.hosts = tuple(h.strip() for h in hosts.split(","))
        self.workspace = workspace

    def grep(self, pattern, path=".", **options):
        local = self.workspace.grep(pattern, path, **options)
        matches = [
            GrepMatch(
                f"sr_{host}{n}", m.file, m.line, m.column, m.end_line, m.byte_offset,
                m.content, m.text, list(m.before), list(m.after), host=host,
            )
            for host in self.hosts
            for n, m in enumerate(local.matches)
        ]  # fmt: skip
        fields = {f.name: getattr(local, f.name) for f in dataclasses.fields(local)}
        fields.update(matches=matches, total=len(matches))
        return RemoteGrepResult(**fields, hosts=self.hosts)

    def glob(self, pattern, path=".", **options):
        local = self.workspace.glob(pattern, path, **options)
        files = [
            GlobMatch(f.path, f.mtime_ms, f.size, host) for host in self.hosts for f in local.files
        ]
        fields = {f.name: getattr(local, f.name) for f in dataclasses.fields(local)}
        fields.update(files=files, total=len(files))
        return RemoteGlobResult(**fields, hosts=self.hosts)


class _Remote:
    def __init__(self, workspace: Workspace) -> None:
        self.workspace_for = workspace
        self.asked: list[str] = []

    def workspace(self, hosts: str) -> _Hosts:
        self.asked.append(hosts)
        return _Hosts(hosts, self.workspace_for)


def test_chaterm_ip_searches_hosts_and_results_carry_host(chaterm_tree):
    ws = Workspace(chaterm_tree)
    remote = _Remote(ws)
    toolbox = Toolbox(ws, "chaterm", remote=remote)
    found = ok(
        toolbox.call("grep_search", {"pattern": "return", "path": "src", "ip": "h1, deploy@h2"})
    )
    assert remote.asked == ["h1, deploy@h2"]
    assert found.text == (
        "Found 2 matches for /return/ in ./src on h1, deploy@h2\n"
        "\n"
        "h1:src/app.ts:2:  return db.getUser(id)\n"
        "\n"
        "deploy@h2:src/app.ts:2:  return db.getUser(id)"
    )
    assert found.data["matches"] == [
        {"file": "src/app.ts", "line": 2, "text": "  return db.getUser(id)", "host": "h1"},
        {"file": "src/app.ts", "line": 2, "text": "  return db.getUser(id)", "host": "deploy@h2"},
    ]
    files = ok(toolbox.call("glob_search", {"pattern": "user.ts", "ip": "h1,h2"}))
    assert files.text.split("\n")[1:] == ["h1:src/lib/user.ts", "h2:src/lib/user.ts"]
    assert [(f["host"], f["path"]) for f in files.data["files"]] == [
        ("h1", "src/lib/user.ts"),
        ("h2", "src/lib/user.ts"),
    ]
    # `localhost` is the local workspace; a host without remote settings is a clear error.
    local = ok(
        box(chaterm_tree, "chaterm").call("grep_search", {"pattern": "x", "ip": "localhost"})
    )
    assert "matches" in local.data
    lone = failed(box(chaterm_tree, "chaterm").call("glob_search", {"pattern": "*", "ip": "h9"}),
                  "CodesiftError")  # fmt: skip
    assert "remote search is not configured" in lone.text


# -- simple-coder ----------------------------------------------------------------------------


coder_tree = tree_fixture(
    {
        "src/Main.java": "".join(f"line {n}\n" for n in range(1, 13)),
        "src/util/Strings.java": "class Strings {}\n",
        "docs/guide.md": "# Guide\n",
        "docs/notes.md": "notes\n",
        "empty.txt": "",
        "big.txt": "".join(f"row {n}\n" for n in range(1, 601)),
    }
)


def test_simple_coder_read_file_with_a_line_range(coder_tree):
    toolbox = box(coder_tree, "simple-coder")
    result = ok(toolbox.call("read_file", {"path": "src/Main.java:9-11"}))
    assert result.text == (
        "Read src/Main.java (lines 9-11 of 12 total)\n\n 9 | line 9\n10 | line 10\n11 | line 11"
    )
    assert result.data["start_line"] == 9 and result.data["end_line"] == 11
    assert result.data["total_lines"] == 12 and result.data["truncated"] is False
    # simple-coder's own parameter names, and an end past the end of the file.
    same = ok(
        toolbox.call("read_file", {"filePath": "src/Main.java", "startLine": 11, "endLine": 99})
    )
    assert same.text == "Read src/Main.java (lines 11-12 of 12 total)\n\n11 | line 11\n12 | line 12"
    whole = ok(toolbox.call("read_file", {"path": "docs/guide.md"}))
    assert whole.text == "Read docs/guide.md (lines 1-1 of 1 total)\n\n1 | # Guide"


def test_simple_coder_read_file_cut_at_max_file_lines(coder_tree):
    toolbox = box(coder_tree, "simple-coder")
    result = ok(toolbox.call("read_file", {"path": "big.txt"}))
    lines = result.text.split("\n")
    assert lines[0] == (
        "Read big.txt (lines 1-500 of 600 total) "
        "[TRUNCATED: showing first 500 lines, 100 more available]"
    )
    assert lines[2] == "  1 | row 1" and lines[-1] == "500 | row 500" and len(lines) == 502
    ranged = ok(toolbox.call("read_file", {"path": "big.txt:50-560"}))
    assert ranged.text.split("\n")[0] == (
        "Read big.txt (lines 50-549 of 600 total) "
        "[TRUNCATED: showing first 500 lines, 11 more available]"
    )


def test_simple_coder_read_file_failures(coder_tree):
    toolbox = box(coder_tree, "simple-coder")
    assert ok(toolbox.call("read_file", {"path": "empty.txt"})).text == (
        "Read empty.txt (empty file: 0 lines)"
    )
    cases = [
        ({"path": "nope.txt"}, "Error: File not found: nope.txt", "NotFoundError"),
        ({"path": "nope.txt:1-2"}, "Error: File not found: nope.txt", "NotFoundError"),
        ({"path": "src"}, "Error: Path is not a regular file: src", "NotAFileError"),
        (
            {"path": "src/Main.java:20-30"},
            "Error: Start line 20 exceeds file length (12 lines)",
            "InvalidArgumentError",
        ),
        (
            {"path": "src/Main.java:5-2"},
            "Error: End line must be >= start line",
            "InvalidArgumentError",
        ),
    ]
    for args, text, kind in cases:
        assert failed(toolbox.call("read_file", args), kind).text == text
    outside = failed(toolbox.call("read_file", {"path": "../secret.txt"}), "SandboxError")
    assert outside.text.startswith("Error: Security violation - '../secret.txt' is outside")


def test_simple_coder_read_file_name_with_colon_is_read_literally(tree):
    root = tree({"notes:1-2": "a\nb\nc\n"})
    result = ok(box(root, "simple-coder").call("read_file", {"path": "notes:1-2"}))
    assert result.text == "Read notes:1-2 (lines 1-3 of 3 total)\n\n1 | a\n2 | b\n3 | c"


def test_simple_coder_list_dir_directory_and_glob(coder_tree):
    toolbox = box(coder_tree, "simple-coder")
    listed = ok(toolbox.call("list_dir", {"path": "src"}))
    assert listed.text == "Found 2 items matching 'src'\n\nsrc/Main.java\nsrc/util/"
    assert listed.data["items"] == ["src/Main.java", "src/util/"]
    globbed = ok(toolbox.call("list_dir", {"path": "**/*.md"}))
    assert globbed.text == "Found 2 items matching '**/*.md'\n\ndocs/guide.md\ndocs/notes.md"
    root = ok(toolbox.call("list_dir", {}))
    assert root.text == "Found 4 items matching '.'\n\nbig.txt\ndocs/\nempty.txt\nsrc/"
    assert failed(toolbox.call("list_dir", {"path": "nope"}), "NotFoundError").text == (
        "Error: Directory not found: nope"
    )
    assert failed(toolbox.call("list_dir", {"path": "big.txt"}), "NotAFileError").text == (
        "Error: Path is not a directory: big.txt"
    )


def test_simple_coder_list_dir_truncates_at_max_list_results(tree):
    root = tree({f"many/f{n:03}.txt": "" for n in range(205)})
    toolbox = box(root, "simple-coder")
    for args in ({"path": "many"}, {"path": "many/*.txt"}):
        result = ok(toolbox.call("list_dir", args))
        lines = result.text.split("\n")
        assert lines[0] == f"Found 205 items matching '{args['path']}'"
        assert lines[2] == "many/f000.txt" and lines[-2] == "many/f199.txt"
        assert lines[-1] == "[TRUNCATED: first 200 items]"
        assert result.data["truncated"] is True and len(result.data["items"]) == 200


def test_simple_coder_search_contains_regex_and_case(tree):
    long_line = "    call(" + "x" * 120 + ") // Agent"
    root = tree(
        {
            "src/a.py": "import agent\nAGENT = 1\n" + long_line + "\n",
            "src/b.py": "agents agents agents\n",
            "docs/x.md": "Agent docs\n",
        }
    )
    toolbox = box(root, "simple-coder")
    result = ok(toolbox.call("search", {"pattern": "agent", "path": "src"}))
    snippet = ("call(" + "x" * 120)[:100] + "..."
    assert result.text == (
        "Found 4 matches for 'agent' in src\n\n"
        "src/a.py:1:import agent\n"
        "src/a.py:2:AGENT = 1\n"
        f"src/a.py:3:{snippet}\n"
        "src/b.py:1:agents agents agents"
    )
    assert result.data["matches"][2] == {"file": "src/a.py", "line": 3, "text": long_line}
    sensitive = ok(toolbox.call("search", {"pattern": "AGENT", "case_sensitive": True}))
    assert sensitive.text == "Found 1 matches for 'AGENT' in .\n\nsrc/a.py:2:AGENT = 1"
    regex = ok(
        toolbox.call(
            "search", {"pattern": "^A.ENT", "mode": "regex", "path": "src", "case_sensitive": True}
        )
    )
    assert regex.text == "Found 1 matches for '^A.ENT' in src\n\nsrc/a.py:2:AGENT = 1"
    literal = ok(toolbox.call("search", {"pattern": "^A.ENT", "path": "src"}))
    assert literal.text == "Found 0 matches for '^A.ENT' in src\n\n"
    # simple-coder's own parameter names.
    same = ok(
        toolbox.call(
            "search",
            {"pattern": "^A.ENT", "searchPath": "src", "isRegex": True, "caseSensitive": True},
        )
    )
    assert same.data["matches"] == regex.data["matches"]
    insensitive = ok(toolbox.call("search", {"pattern": "^a.ent", "mode": "regex"}))
    assert [m["file"] for m in insensitive.data["matches"]] == ["docs/x.md", "src/a.py", "src/b.py"]


def test_simple_coder_search_limit_is_50_lines(tree):
    fifty = "".join(f"hit {n} hit\n" for n in range(50))  # two matches on every line
    toolbox = box(tree({"a.txt": fifty}), "simple-coder")
    exact = ok(toolbox.call("search", {"pattern": "hit"}))
    assert exact.text.split("\n")[0] == "Found 50 matches for 'hit' in ."
    assert exact.data["truncated"] is False and exact.text.endswith("a.txt:50:hit 49 hit")

    more = box(tree({"a.txt": fifty, "b.txt": "hit\n"}), "simple-coder")
    cut = ok(more.call("search", {"pattern": "hit"}))
    assert cut.text.split("\n")[0] == (
        "Found 50 matches for 'hit' in . [TRUNCATED: reached limit 50 before completing search]"
    )
    assert len(cut.text.split("\n")) == 52 and "b.txt" not in cut.text


def test_simple_coder_search_failures(tree):
    toolbox = box(tree({"a.txt": "x\n"}), "simple-coder")
    bad = failed(toolbox.call("search", {"pattern": "(", "mode": "regex"}), "PatternError")
    assert bad.text.startswith("Error: Invalid regex pattern - ")
    assert failed(
        toolbox.call("search", {"pattern": "x", "path": "gone"}), "NotFoundError"
    ).text == ("Error: Path not found: gone")
    assert failed(toolbox.call("search", {"pattern": "x", "path": "/etc"}), "SandboxError")


def test_simple_coder_replace(tree):
    root = tree(
        {"a.txt": "alpha beta\nbeta gamma\n", "dup.txt": "x = 1\nx = 1\n", "s.txt": "aaa\n"}
    )
    toolbox = box(root, "simple-coder")
    result = ok(toolbox.call("replace", edit_args("a.txt", "alpha", "ALPHA")))
    assert result.text == "Replaced 'alpha' with 'ALPHA' in a.txt"
    assert result.data == {
        "path": "a.txt",
        "replacements": 1,
        "first_line": 1,
        "last_line": 1,
        "summary": "Replaced 'alpha' with 'ALPHA' in a.txt",
        "truncated": False,
        "spill_file": None,
    }
    assert (root / "a.txt").read_text() == "ALPHA beta\nbeta gamma\n"
    long_old, long_new = "beta gamma\n", "a much longer replacement text than thirty characters"
    quoted = ok(
        toolbox.call("replace", {"filePath": "a.txt", "oldString": long_old, "newString": long_new})
    )
    assert quoted.text == (
        "Replaced 'beta gamma\n' with 'a much longer replacement text...' in a.txt"
    )
    # Occurrences are counted without overlap, as a left-to-right scan finds them.
    ok(toolbox.call("replace", edit_args("s.txt", "aa", "X")))
    assert (root / "s.txt").read_text() == "Xa\n"


def test_simple_coder_replace_failures_change_nothing(tree):
    root = tree({"a.txt": "x = 1\nx = 1\ny\n", "dir/f": "z\n"})
    toolbox = box(root, "simple-coder")
    cases = [
        (
            edit_args("a.txt", "x = 1", "x = 2"),
            "Error: Old string 'x = 1' appears 2 times (must be unique for safety)",
            "MatchError",
        ),
        (
            edit_args("a.txt", "nothing", "x"),
            "Error: Old string 'nothing' not found in file",
            "MatchError",
        ),
        (
            edit_args("a.txt", "y", "y"),
            "Error: Old string and new string are identical - no replacement needed",
            "InvalidArgumentError",
        ),
        (edit_args("gone.txt", "a", "b"), "Error: File not found: gone.txt", "NotFoundError"),
        (edit_args("dir", "a", "b"), "Error: Path is not a regular file: dir", "NotAFileError"),
    ]
    for args, text, kind in cases:
        assert failed(toolbox.call("replace", args), kind).text == text
    outside = failed(toolbox.call("replace", edit_args("/etc/passwd", "a", "b")), "SandboxError")
    assert outside.text.startswith("Error: Security violation - ")
    assert (root / "a.txt").read_text() == "x = 1\nx = 1\ny\n"
    # An exact replace: a line-ending variant is not the string.
    crlf = tree({"w.txt": b"one\r\ntwo\r\n"})
    miss = failed(
        box(crlf, "simple-coder").call("replace", edit_args("w.txt", "one\ntwo", "1\n2")),
        "MatchError",
    )
    assert miss.text == "Error: Old string 'one\ntwo' not found in file"
    assert (crlf / "w.txt").read_bytes() == b"one\r\ntwo\r\n"


# -- file-search -----------------------------------------------------------------------------


todo_tree = tree_fixture(
    {
        "README.md": "".join(f"line {n}\n" for n in range(1, 12))
        + "// TODO: Add setup instructions\n",
        "src/app.py": "def f():\n    pass\n    # todo: tidy up   \n",
        "src/app.js": "let todoList = [];\n",
        ".git/config": "TODO in git\n",
        "build/out.py": "# TODO generated\n",
        ".gitignore": "build/\n",
        "blob.bin": b"TODO\x00binary",
    }
)


def test_file_search_markdown_list(todo_tree):
    toolbox = box(todo_tree, "file-search")
    result = ok(toolbox.call("file_search", {"query": "TODO"}))
    assert_whole_answer(
        result,
        'Found 3 matches for "TODO":\n'
        "\n"
        "- `README.md:12`: // TODO: Add setup instructions\n"
        "- `src/app.js:1`: let todoList = [];\n"
        "- `src/app.py:3`: # todo: tidy up",
        ("README.md", 12, "// TODO: Add setup instructions"),
        ("src/app.js", 1, "let todoList = [];"),
        ("src/app.py", 3, "    # todo: tidy up   "),
    )


def test_file_search_options(todo_tree):
    toolbox = box(todo_tree, "file-search")
    exact = ok(toolbox.call("file_search", {"query": "TODO", "ignore_case": False}))
    assert exact.text == (
        'Found 1 match for "TODO":\n\n- `README.md:12`: // TODO: Add setup instructions'
    )
    only_py = ok(toolbox.call("file_search", {"query": "todo", "include": "*.py"}))
    assert [m["file"] for m in only_py.data["matches"]] == ["src/app.py"]
    under = ok(toolbox.call("file_search", {"query": "todo", "path": "src"}))
    assert [m["file"] for m in under.data["matches"]] == ["src/app.js", "src/app.py"]
    # A substring, never a regex.
    assert ok(toolbox.call("file_search", {"query": "todo.*up"})).data["matches"] == []
    paren = ok(toolbox.call("file_search", {"query": "f("}))
    assert paren.text == 'Found 1 match for "f(":\n\n- `src/app.py:1`: def f():'
    none = ok(toolbox.call("file_search", {"query": "zzz"}))
    assert none.text == (
        'No matches found for "zzz".\n\n(Not searched: 1 path hidden by ignore rules and '
        "1 binary file.)"
    )


def test_file_search_at_most_50(tree):
    fifty = "".join(f"TODO {n}\n" for n in range(50))
    toolbox = box(tree({"a.txt": fifty}), "file-search")
    exact = ok(toolbox.call("file_search", {"query": "todo"}))
    assert exact.text.split("\n")[0] == 'Found 50 matches for "todo":'
    assert exact.data["truncated"] is False and "TRUNCATED" not in exact.text
    toolbox = box(tree({"a.txt": fifty, "b.txt": "todo\n"}), "file-search")
    cut = ok(toolbox.call("file_search", {"query": "todo"}))
    lines = cut.text.split("\n")
    assert lines[0] == 'Found 50 matches for "todo":' and lines[-3] == "- `a.txt:50`: TODO 49"
    assert lines[-1] == (
        "[TRUNCATED: reached limit 50 before completing search; narrow it with path or include]"
    )


# -- openlink --------------------------------------------------------------------------------


def test_openlink_glob_newest_first_and_limit(tree):
    root = tree({"a.py": "", "b.py": "", "c.txt": "", "sub/d.py": ""})
    for age, name in enumerate(["sub/d.py", "a.py", "b.py"]):
        os.utime(root / name, (1_700_000_000 - age * 100, 1_700_000_000 - age * 100))
    toolbox = box(root, "openlink")
    result = ok(toolbox.call("glob", {"pattern": "*.py"}))
    assert result.text == "sub/d.py\na.py\nb.py"
    assert result.data["files"] == ["sub/d.py", "a.py", "b.py"]
    assert ok(toolbox.call("glob", {"pattern": "*.rs"})).text == "No files found"

    many = box(tree({f"f{n:03}.py": "" for n in range(101)}), "openlink")
    cut = ok(many.call("glob", {"pattern": "*.py"}))
    lines = cut.text.split("\n")
    assert len(lines) == 102 and lines[-2] == ""
    assert lines[-1] == ("(Results are truncated. Consider using a more specific path or pattern.)")
    assert cut.data["truncated"] is True and len(cut.data["files"]) == 100


def test_openlink_grep(tree):
    root = tree({"src/a.ts": "foo()\nbar\nfoo(1)\n", "src/b.js": "x = foo\n", "c.md": "foo\n"})
    toolbox = box(root, "openlink")
    result = ok(toolbox.call("grep", {"pattern": "foo", "path": "src"}))
    assert result.text == (
        "Found 3 matches\nsrc/a.ts:\n  Line 1: foo()\n  Line 3: foo(1)\n"
        "\nsrc/b.js:\n  Line 1: x = foo"
    )
    assert result.data["matches"][0] == {"file": "src/a.ts", "line": 1, "text": "foo()"}
    only = ok(toolbox.call("grep", {"pattern": r"foo\(\d\)", "include": "*.ts"}))
    assert only.text == "Found 1 matches\nsrc/a.ts:\n  Line 3: foo(1)"
    assert ok(toolbox.call("grep", {"pattern": "FOO"})).text == "No files found"

    many = box(tree({"a.txt": "hit\n" * 101}), "openlink")
    cut = ok(many.call("grep", {"pattern": "hit"}))
    assert cut.text.split("\n")[0] == "Found 100 matches"
    assert cut.text.endswith(
        "  Line 100: hit\n\n(Results are truncated. Consider using a more specific path or "
        "pattern.)"
    )


def test_openlink_edit_strategies(tree):
    root = tree(
        {
            "exact.py": "a = 1\nb = 2\n",
            "crlf.py": b"one\r\ntwo\r\n",
            "indent.py": "def f():\n    if x:\n        return 1\n",
            "all.py": "x\nx\n",
        }
    )
    toolbox = box(root, "openlink")
    exact = ok(toolbox.call("edit", edit_args("exact.py", "b = 2", "b = 3")))
    assert exact.text.startswith("Edited exact.py: 1 replacement at line 2\n--- a/exact.py")
    assert exact.data["strategy"] == "exact"
    crlf = ok(toolbox.call("edit", edit_args("crlf.py", "one\ntwo", "1\n2")))
    assert crlf.data["strategy"] == "line_endings"
    assert (root / "crlf.py").read_bytes() == b"1\r\n2\r\n"
    trimmed = ok(
        toolbox.call(
            "edit",
            {
                "path": "indent.py",
                "old_string": "if x:\n    return 1",
                "new_string": "if x:\n    return 2",
            },
        )
    )
    assert trimmed.data["strategy"] == "trimmed_lines"
    assert (root / "indent.py").read_text() == "def f():\n    if x:\n        return 2\n"
    several = failed(toolbox.call("edit", edit_args("all.py", "x", "y")), "MatchError")
    assert "2" in several.text
    ok(
        toolbox.call(
            "edit", {"path": "all.py", "old_string": "x", "new_string": "y", "replace_all": True}
        )
    )
    assert (root / "all.py").read_text() == "y\ny\n"


def test_openlink_read_write_list(tree):
    root = tree({"docs/a.md": "one\ntwo\n", "z.txt": ""})
    toolbox = box(root, "openlink")
    assert ok(toolbox.call("read_file", {"path": "docs/a.md"})).text == "     1\tone\n     2\ttwo"
    assert ok(toolbox.call("read_file", {"path": "docs/a.md", "offset": 2})).text == "     2\ttwo"
    written = ok(toolbox.call("write_file", {"path": "new/b.txt", "content": "hi\n"}))
    assert written.text == "Created new/b.txt (3 bytes)"
    assert (root / "new/b.txt").read_text() == "hi\n"
    assert ok(toolbox.call("list_dir", {})).text == "docs/\nnew/\nz.txt"


def test_openlink_names_are_case_insensitive_and_unknown_ones_get_invalid(tree):
    toolbox = box(tree({"a.py": "x\n"}), "openlink")
    assert ok(toolbox.call("GLOB", {"pattern": "*.py"})).text == "a.py"
    assert ok(toolbox.call("Read_File", {"path": "a.py"})).text == "     1\tx"
    unknown = failed(toolbox.call("bash", {"command": "ls"}), "UnknownTool")
    tools = "glob, grep, edit, read_file, write_file, list_dir"
    assert unknown.text == f'Error: Unknown tool "bash". Available tools: {tools}.'
    direct = failed(
        toolbox.call("invalid", {"tool": "bash", "error": "no such tool"}), "UnknownTool"
    )
    assert direct.text == f'Error: no such tool. Unknown tool "bash". Available tools: {tools}.'


def test_openlink_caps_output_and_spills_to_a_readable_file(tree, tmp_path):
    root = tree({"a.txt": "".join(f"hit {n}\n" for n in range(40))})
    toolbox = Toolbox(
        Workspace(root), "openlink", spill_dir=tmp_path / "spill", max_output_lines=10
    )
    result = ok(toolbox.call("grep", {"pattern": "hit"}))
    lines = result.text.split("\n")
    assert lines[:10] == ["Found 40 matches", "a.txt:"] + [
        f"  Line {n}: hit {n - 1}" for n in range(1, 9)
    ]
    spill = result.data["spill_file"]
    assert spill and Path(spill).parent == (tmp_path / "spill").resolve()
    assert lines[-1].startswith("[TRUNCATED: output was 42 lines")
    rest = ok(toolbox.call("read_file", {"path": spill, "offset": 11}))
    assert rest.text.split("\n")[0] == "    11\t  Line 9: hit 8"


# -- ace -------------------------------------------------------------------------------------


def test_ace_text_search_json_array(tree):
    root = tree(
        {
            "src/a.ts": "getUser(); getUser();\n",
            "src/b.py": "getuser\n",
            "c.ts": b"alpha\r\nbeta\r\n",
        }
    )
    toolbox = box(root, "ace")
    result = ok(toolbox.call("ace-text_search", {"pattern": "getUser"}))
    elements = json.loads(result.text)
    ids = [e["searchResultId"] for e in elements]
    assert elements == [
        {
            "searchResultId": ids[0],
            "filePath": "src/a.ts",
            "line": 1,
            "column": 1,
            "content": "getUser",
        },
        {
            "searchResultId": ids[1],
            "filePath": "src/a.ts",
            "line": 1,
            "column": 12,
            "content": "getUser",
        },
    ]
    assert all(i.startswith("sr_") for i in ids) and ids[0] != ids[1]
    assert result.data["matches"] == elements
    # The matched text exactly, with the file's own line endings.
    spanning = ok(toolbox.call("ace-text_search", {"pattern": "alpha\\nbeta", "isRegex": True}))
    assert [e["content"] for e in json.loads(spanning.text)] == ["alpha\r\nbeta"]
    literal = ok(toolbox.call("ace-text_search", {"pattern": "get.ser"}))
    assert json.loads(literal.text) == []
    regex = ok(
        toolbox.call("ace-text_search", {"pattern": "get.ser", "isRegex": True, "fileGlob": "*.py"})
    )
    assert [e["filePath"] for e in json.loads(regex.text)] == ["src/b.py"]


def test_ace_text_search_limit(tree):
    toolbox = box(tree({"a.txt": "x\n" * 5}), "ace")
    result = ok(toolbox.call("ace-text_search", {"pattern": "x", "maxResults": 3}))
    array, note = result.text.split("\n\n")
    assert len(json.loads(array)) == 3 and result.data["truncated"] is True
    assert note == (
        "[TRUNCATED: reached limit 3 before completing search; narrow the pattern or fileGlob, "
        "or raise maxResults]"
    )


def test_ace_edit_by_search_result_id(tree):
    root = tree({"a.ts": "old();\nold();\n"})
    toolbox = box(root, "ace")
    second = json.loads(ok(toolbox.call("ace-text_search", {"pattern": "old()"})).text)[1]
    edited = ok(
        toolbox.call(
            "filesystem-edit_search",
            {
                "filePath": "a.ts",
                "searchResultId": second["searchResultId"],
                "replaceContent": "new()",
            },
        )
    )
    assert (root / "a.ts").read_text() == "old();\nnew();\n"
    assert edited.data["strategy"] == "search_result"
    assert edited.text.startswith("Edited a.ts: 1 replacement at line 2\n--- a/a.ts")


def test_ace_edit_stale_or_unknown_id_is_the_no_match_error(tree):
    root = tree({"a.ts": "value = 1;\n"})
    toolbox = box(root, "ace")
    hit = json.loads(ok(toolbox.call("ace-text_search", {"pattern": "value = 1"})).text)[0]
    (root / "a.ts").write_text("value = 2;\n")
    stale = failed(
        toolbox.call(
            "filesystem-edit_search",
            {"filePath": "a.ts", "searchResultId": hit["searchResultId"], "replaceContent": "x"},
        ),
        "StaleResultError",
    )
    assert "no longer there" in stale.text
    unknown = failed(
        toolbox.call(
            "filesystem-edit_search",
            {"filePath": "a.ts", "searchResultId": "sr_nope", "replaceContent": "x"},
        ),
        "StaleResultError",
    )
    assert "unknown" in unknown.text
    assert (root / "a.ts").read_text() == "value = 2;\n"


def test_ace_edit_compatibility_mode_and_bad_calls(tree):
    root = tree({"a.ts": "let a = 1;\nlet b = 2;\n"})
    toolbox = box(root, "ace")
    ok(
        toolbox.call(
            "filesystem-edit_search",
            {"filePath": "a.ts", "searchContent": "let b = 2;", "replaceContent": "let b = 3;"},
        )
    )
    assert (root / "a.ts").read_text() == "let a = 1;\nlet b = 3;\n"
    both = failed(
        toolbox.call(
            "filesystem-edit_search",
            {
                "filePath": "a.ts",
                "searchResultId": "sr_x",
                "searchContent": "a",
                "replaceContent": "b",
            },
        ),
        "InvalidArgumentError",
    )
    assert "not both" in both.text
    neither = failed(
        toolbox.call("filesystem-edit_search", {"filePath": "a.ts", "replaceContent": "b"}),
        "InvalidArgumentError",
    )
    assert "searchResultId" in neither.text
    # The descriptions put search-then-edit-by-id first.
    description = toolbox.description("filesystem-edit_search")
    assert description.index("searchResultId") < description.index("searchContent")


# -- over MCP --------------------------------------------------------------------------------

MCP_CALLS = {
    "chaterm": (
        "grep_search",
        {"pattern": "TODO", "ip": "localhost"},
        "Found 1 match for /TODO/ in .\n\nnotes.md:1:TODO: ship",
    ),
    "simple-coder": (
        "search",
        {"pattern": "todo", "path": "."},
        "Found 1 matches for 'todo' in .\n\nnotes.md:1:TODO: ship",
    ),
    "file-search": (
        "file_search",
        {"query": "todo"},
        'Found 1 match for "todo":\n\n- `notes.md:1`: TODO: ship',
    ),
    "openlink": ("glob", {"pattern": "*.md"}, "notes.md"),
    "ace": ("ace-text_search", {"pattern": "ship"}, None),
}


@pytest.mark.parametrize("profile", TOOL_SETS)
def test_tool_sets_over_mcp_stdio(tree, tmp_path, profile):
    root = tree({"notes.md": "TODO: ship\n"})
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "codesift", "mcp", "--root", str(root), "--profile", profile],
        # The server runs this very codesift (the SDK passes on only a few variables).
        env={**os.environ, "PYTHONPATH": str(Path(codesift.__file__).parents[1])},
    )
    name, args, expected = MCP_CALLS[profile]

    async def session():
        with anyio.fail_after(60):
            async with Client(params) as client:
                tools = await client.list_tools()
                assert [t.name for t in tools.tools] == PROFILES[profile].names
                result = await client.call_tool(name, args)
                assert not result.is_error, result.content[0].text
                text = result.content[0].text
                if expected is not None:
                    assert text == expected
                else:
                    (element,) = json.loads(text)
                    assert (element["filePath"], element["line"], element["content"]) == (
                        "notes.md",
                        1,
                        "ship",
                    )
                    edited = await client.call_tool(
                        "filesystem-edit_search",
                        {
                            "filePath": "notes.md",
                            "searchResultId": element["searchResultId"],
                            "replaceContent": "release",
                        },
                    )
                    assert not edited.is_error, edited.content[0].text
                if profile == "openlink":
                    unknown = await client.call_tool("frobnicate", {})
                    assert (
                        unknown.is_error
                        and "Available tools: glob, grep" in unknown.content[0].text
                    )

    anyio.run(session)
    if profile == "ace":
        assert (root / "notes.md").read_text() == "TODO: release\n"


# -- other names and edge cases --------------------------------------------------------------


def test_other_names_each_tool_set_accepts(tree):
    root = tree({"a.txt": "Alpha\nalpha\n", "w.txt": b"one\r\ntwo\r\n"})
    chaterm = box(root, "chaterm")
    assert (
        ok(chaterm.call("grep_search", {"pattern": "alpha", "host": "localhost"})).data["total"]
        == 2
    )
    coder = box(root, "simple-coder")
    assert ok(coder.call("readFile", {"filePath": "a.txt"})).text.startswith("Read a.txt")
    assert (
        ok(coder.call("searchText", {"pattern": "Alpha", "caseSensitive": True})).data["total"] == 1
    )
    assert ok(coder.call("listFiles", {"path": "*.txt"})).data["items"] == ["a.txt", "w.txt"]
    finder = box(root, "file-search")
    assert ok(finder.call("file_search", {"query": "Alpha", "case_sensitive": True})).data[
        "matches"
    ] == [{"file": "a.txt", "line": 1, "text": "Alpha"}]
    # simple-coder's replace keeps the file's line endings in what it writes.
    ok(coder.call("replaceText", {"filePath": "w.txt", "oldString": "two", "newString": "2\n3"}))
    assert (root / "w.txt").read_bytes() == b"one\r\n2\r\n3\r\n"


def test_long_lines(tree):
    long_line = "x" * 3000 + " TODO " + "y" * 3000
    root = tree({"long.txt": "short\n" + long_line + "\n"})
    read = ok(box(root, "simple-coder").call("read_file", {"path": "long.txt"}))
    assert read.text.split("\n")[3] == "2 | " + "x" * 2000 + "... [line truncated: 6006 characters]"
    found = ok(box(root, "file-search").call("file_search", {"query": "todo"}))
    item = found.text.split("\n")[2]
    assert item.startswith("- `long.txt:2`: …x") and item.endswith("y…") and " TODO " in item
    assert len(item) < 300
    assert found.data["matches"][0]["text"] == long_line


def test_openlink_invalid_with_a_name_that_is_not_text(tree):
    toolbox = box(tree({"a.txt": ""}), "openlink")
    result = failed(toolbox.call(12, {}), "UnknownTool")
    assert result.text.startswith("Error: Unknown tool 12. Available tools: glob,")
    schema = {t["name"]: t for t in toolbox.schemas()}
    assert set(schema["invalid"]["parameters"]["properties"]) == {"tool", "error"}


def test_schemas_show_the_defaults(tree):
    ws = Workspace(tree({}))
    chaterm = {t["name"]: t["parameters"] for t in Toolbox(ws, "chaterm").schemas()}
    assert chaterm["glob_search"]["properties"]["limit"]["default"] == 2000
    assert chaterm["glob_search"]["properties"]["sort"]["enum"] == ["path", "none"]
    assert chaterm["grep_search"]["properties"]["max_matches"]["default"] == 500
    assert set(chaterm["grep_search"]["properties"]) == {
        "pattern", "path", "ip", "include", "case_sensitive", "context_lines", "max_matches",
    }  # fmt: skip
    finder = Toolbox(ws, "file-search").schemas("openai")[0]["function"]
    assert finder["name"] == "file_search"
    assert finder["parameters"]["properties"]["ignore_case"]["default"] is True
    assert finder["parameters"]["required"] == ["query"]
    ace = {t["name"]: t["input_schema"] for t in Toolbox(ws, "ace").schemas("anthropic")}
    assert ace["ace-text_search"]["properties"]["isRegex"]["default"] is False
    assert ace["filesystem-edit_search"]["required"] == ["filePath", "replaceContent"]
