"""Every CLI failure is one line on stderr and exit code 2, never a traceback:
values out of range, usage errors, hostile apply-hit input, bugs and engine panics alike."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest
from cli_helpers import on_a_terminal

from codesift import Workspace, cli

HUGE = "99999999999999999999999"


@pytest.fixture
def repo(tree):
    return tree({"a.py": "def hello():\n    return 1\n"})


def run_main(capsys, *args: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))
    try:
        code = cli.main(list(args))
    finally:
        sys.stdin = sys.__stdin__
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code: int, err: str, needle: str) -> None:
    assert code == 2
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert needle in err, err


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("grep", "-m", HUGE, "x"), "-m (--max-count) must be at most"),
        (("grep", "-C", HUGE, "x"), "-C (--context) must be at most"),
        (("grep", "-A", HUGE, "x"), "-A (--after-context) must be at most"),
        (("grep", "-B", "-1", "x"), "-B (--before-context) must be at least 0"),
        (("grep", "-j", HUGE, "x"), "-j (--threads) must be at most 1024"),
        (("grep", "--timeout", "1e300", "x"), "--timeout must be a positive number"),
        (("grep", "--timeout", "nan", "x"), "--timeout must be a positive number"),
        (("grep", "--timeout", "inf", "x"), "--timeout must be a positive number"),
        (("glob", "--limit", HUGE, "*"), "--limit must be at most"),
        (("ls", "--limit", HUGE), "--limit must be at most"),
        (("read", "a.py", "--offset", HUGE), "--offset must be at most"),
        (("read", f"a.py:1-{HUGE}"), f"line range 1-{HUGE} ends past line"),
        (("grep", "-m", "many", "x"), "invalid int value"),
        (("grep",), "required: pattern"),
        ((), "required: COMMAND"),
        (("grep", "\udcff"), "not valid Unicode text"),
    ],
)
def test_bad_values_are_one_line(capsys, repo, args, needle):
    code, _, err = run_main(capsys, *args, "--root", str(repo)) if args else run_main(capsys)
    assert_one_line_error(code, err, needle)


@pytest.mark.parametrize(
    ("stdin", "needle"),
    [
        (b"[" * 100_000, "nested too deeply"),
        (b"{not json", "not valid JSON"),
        (b'{"file": "a.py"}', "apply-hit reads one JSON object"),
        (b"[1, 2]", "apply-hit reads one JSON object"),
        (b'"\xff\xff"', "not readable JSON"),
        (b'{"n": ' + b"9" * 5000 + b"}", "not readable JSON"),
    ],
)
def test_apply_hit_with_malformed_json(capsys, repo, stdin, needle):
    code, out, err = run_main(capsys, "apply-hit", "--root", str(repo), stdin=stdin)
    assert code == 2 and not err
    assert needle in json.loads(out)["error"]["message"]


@pytest.mark.parametrize(
    ("fields", "needle"),
    [
        ({"byte_offset": -1}, "byte_offset must be at least 0"),
        ({"byte_offset": 2**64}, "byte_offset must be at most"),
        ({"byte_length": 10**30}, "byte_length must be at most"),
        ({"line": 2**64}, "line must be at most"),
        ({"content": "\ud800"}, "content is not valid Unicode text"),
        ({"new": "x\udbff"}, "new holds the lone surrogate U+DBFF"),
        ({"byte_offset": True}, "apply-hit reads one JSON object"),
    ],
)
def test_apply_hit_with_hostile_fields(capsys, repo, fields, needle):
    request = {"file": "a.py", "byte_offset": 4, "byte_length": 5, "content": "hello", "new": "x"}
    request.update(fields)
    code, out, err = run_main(
        capsys, "apply-hit", "--root", str(repo), stdin=json.dumps(request).encode()
    )
    assert code == 2 and not err
    assert needle in json.loads(out)["error"]["message"]
    assert (repo / "a.py").read_text() == "def hello():\n    return 1\n"


def test_apply_hit_still_applies_a_good_hit(capsys, repo):
    request = {"file": "a.py", "byte_offset": 4, "byte_length": 5, "content": "hello", "new": "hi"}
    code, out, _ = run_main(
        capsys, "apply-hit", "--root", str(repo), stdin=json.dumps(request).encode()
    )
    assert code == 0, out
    assert json.loads(out)["replacements"] == 1
    assert (repo / "a.py").read_text() == "def hi():\n    return 1\n"


class FakePanic(BaseException):
    """What pyo3 raises for a Rust panic."""


@pytest.mark.parametrize(
    "exc", [TypeError("a bug"), FakePanic("panicked at src/x.rs\nbacktrace"), RecursionError()]
)
def test_a_bug_or_a_panic_is_one_line(capsys, repo, monkeypatch, exc):
    def explode(*args, **kwargs):
        raise exc

    monkeypatch.setattr(Workspace, "grep", explode)
    code, _, err = run_main(capsys, "grep", "x", "--root", str(repo))
    assert_one_line_error(code, err, "codesift: ")
    code, out, err = run_main(capsys, "grep", "x", "--root", str(repo), "--json-full")
    assert code == 2 and not err and "error" in json.loads(out)


def test_interrupt_is_exit_130_quietly(capsys, repo, monkeypatch):
    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(Workspace, "grep", interrupt)
    code, out, err = run_main(capsys, "grep", "x", "--root", str(repo))
    assert code == 130 and not out and not err


def test_missing_optional_dependency_says_which_extra(capsys, repo, monkeypatch):
    # The MCP SDK not installed (a None entry makes its import fail as a missing module).
    monkeypatch.setitem(sys.modules, "mcp", None)
    code, out, err = run_main(capsys, "mcp", "--root", str(repo))
    assert_one_line_error(code, err, "pip install '.[mcp]'")
    assert "codesift mcp needs the Python package 'mcp'" in err and not out

    # Any command that reaches a missing optional module says which extra installs it.
    def serve_like(*args, **kwargs):
        import starlette  # noqa: F401

    monkeypatch.setitem(sys.modules, "starlette", None)
    monkeypatch.setattr(Workspace, "grep", serve_like)
    code, _, err = run_main(capsys, "grep", "x", "--root", str(repo))
    assert_one_line_error(code, err, "pip install '.[serve]'")
    # A module that belongs to no extra stays an unexpected error.
    monkeypatch.setitem(sys.modules, "no_such_module_zz", None)

    def broken(*args, **kwargs):
        import no_such_module_zz  # noqa: F401

    monkeypatch.setattr(Workspace, "grep", broken)
    code, _, err = run_main(capsys, "grep", "x", "--root", str(repo))
    assert_one_line_error(code, err, "unexpected ModuleNotFoundError")


@pytest.fixture(scope="module")
def codesift() -> list[str]:
    return [sys.executable, "-m", "codesift"]  # this interpreter's codesift, whatever PATH says


def test_installed_command_prints_no_traceback(codesift, repo):
    for args in (["grep", "-m", HUGE, "x"], ["grep", "--timeout", "1e300", "x"], ["grep", "-m"]):
        out = subprocess.run(
            [*codesift, *args, "--root", str(repo)], capture_output=True, text=True, timeout=120
        )
        assert out.returncode == 2, out
        assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_non_utf8_file_names_are_printed(codesift, tree):
    root = tree({})
    name = os.path.join(os.fsencode(root), b"t\xff.py")
    with open(name, "wb") as f:
        f.write(b"old\n")
    edited = subprocess.run(
        [*codesift, "edit", b"t\xff.py", "old", "new", "--root", str(root)],
        capture_output=True,
        timeout=120,
    )
    assert edited.returncode == 0, edited.stderr
    assert edited.stdout.startswith(b"Edited t\xff.py: 1 replacement")  # the name's own bytes
    as_json = subprocess.run(
        [*codesift, "edit", b"t\xff.py", "new", "newer", "--root", str(root), "--json"],
        capture_output=True,
        timeout=120,
    )
    assert as_json.returncode == 0, as_json.stderr
    assert b'"path": "t\\udcff.py"' in as_json.stdout
    assert json.loads(as_json.stdout)["path"] == os.fsdecode(b"t\xff.py")


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("", "x", "codesift: OLD is empty; give the exact text to replace\n"),
        ("b = 1", "b = 1", "codesift: OLD and NEW are identical; nothing to change\n"),
        (
            "b = 1",
            "b = 2",
            "codesift: OLD matches 2 places, at lines 2, 3. Include more surrounding lines to "
            "make it unique, or pass --replace-all to change every one.\n",
        ),
    ],
)
def test_an_edit_error_names_the_commands_old_and_new(capsys, tree, old, new, expected):
    """`codesift edit FILE OLD NEW` calls its texts OLD and NEW (not the tools' old_string and
    new_string) and has no write_file to point to."""
    root = tree({"e.py": 'a = "old_string"\nb = 1\nb = 1\n'})
    code, out, err = run_main(capsys, "edit", "e.py", old, new, "--root", str(root))
    assert (code, out) == (2, ""), (code, out, err)
    assert err == expected, f"expected {expected!r}, got {err!r}"


def test_an_edit_error_about_a_file_keeps_its_name(capsys, tree):
    """Only what is said of the texts is reworded: a file named old_string.py stays so."""
    root = tree({"a.py": "x\n"})
    code, _, err = run_main(capsys, "edit", "old_string.py", "x", "y", "--root", str(root))
    assert code == 2, err
    assert err.startswith("codesift: ./old_string.py does not exist"), err


def test_an_edit_error_quotes_the_file_as_it_is(capsys, tree):
    """Only the problem's own words are the command's: the region shown to copy from is the
    file's text exactly, `old_string` and all."""
    root = tree({"e.py": 'a = "old_string"\nb = 1\n'})
    code, _, err = run_main(capsys, "edit", "e.py", 'a = "old_strin"', "x", "--root", str(root))
    assert code == 2, err
    assert err.startswith("codesift: OLD was not found in the file."), err
    assert '     1\ta = "old_string"\n' in err, err


def test_a_timed_out_search_says_to_narrow_it_with_the_commands_words(tree):
    """The library's advice names `path` and `include`; the command line's, PATH and -g."""
    root = tree({f"f{i}.txt": "x\n" for i in range(50)})
    done = subprocess.run(
        [sys.executable, "-m", "codesift", "grep", "x", "--timeout", "1e-9", "--root", str(root)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "timed out after 1e-09s" in done.stderr, done.stderr
    assert "narrow the search with PATH or -g GLOB" in done.stderr, done.stderr
    assert "include" not in done.stderr, done.stderr


def test_a_timed_out_search_on_a_terminal_blames_no_terminal_cap(tree):
    """Cut by --timeout, not by the 500 a terminal shows: only the timeout is said."""
    root = tree({f"f{i}.txt": "x\n" for i in range(50)})
    argv = [sys.executable, "-m", "codesift", "grep", "x", "--timeout", "1e-9", "--root"]
    code, output = on_a_terminal([*argv, str(root), "--color", "never"])
    text = output.decode()
    assert "timed out after 1e-09s" in text, text
    assert "a terminal shows the first" not in text, text


def test_an_edit_by_a_tolerant_strategy_says_how_in_the_commands_words(capsys, tree):
    """The strategy's note names OLD and NEW, as `codesift edit FILE OLD NEW` calls them; the
    path before it is printed as it is."""
    root = tree({"old_string.py": "def f():\n    if x:\n        go()\n"})
    old, new = "if x:\n    go()", "if x:\n    stop()"
    code, out, err = run_main(capsys, "edit", "old_string.py", old, new, "--root", str(root))
    assert (code, err) == (0, ""), (code, err)
    first = out.splitlines()[0]
    assert first == (
        "Edited old_string.py: 1 replacement at lines 2-3 (strategy: trimmed_lines: OLD "
        "matched with whitespace differences; NEW re-indented)"
    ), first
