"""What a `codesift` error says to do names the command's own flags and commands (read from
its argparse parsers, never written here), never a tool's parameters; and its message keeps
its line breaks (a regex's caret, the region a failed edit should copy)."""

from __future__ import annotations

import argparse
import json
import re

import pytest
from cli_helpers import codesift_run
from error_hint_cases import advice, foreign_names, hinted_errors, schema_names

from codesift.cli.app import build_parser
from codesift.cli.grep import grep_parser
from codesift.errors.hints import cli_error_fields, render_cli_error
from codesift.tools import PROFILES


def _parsers(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    found = [("", parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += [(name, sub), *_parsers(sub)[1:]]
    return found


PARSERS = [*_parsers(build_parser()), ("grep", grep_parser())]
#: Every flag of every command, and the commands.
FLAGS = {flag for _, p in PARSERS for action in p._actions for flag in action.option_strings}
COMMANDS = {name for name, _ in PARSERS if name}
#: The tools' parameter names and tool names: what a CLI hint must not name.
TOOL_NAMES = {
    name
    for profile in PROFILES.values()
    for tool in profile.tools
    for name in {tool.name, *schema_names(tool.input_schema())}
}
FLAG = re.compile(r"(?<![\w?-])--?[A-Za-z][\w-]*")  # not a regex flag group: (?-u:)
COMMAND = re.compile(r"\bcodesift ([\w-]+)")


@pytest.fixture(scope="module")
def errors(tmp_path_factory):
    return hinted_errors(tmp_path_factory.mktemp("hints"))


def test_every_cli_hint_names_only_the_clis_flags_and_commands(errors):
    wrong = []
    for kind, error in errors.items():
        hint = advice(render_cli_error(error), error, cli_error_fields(error)["problem"])
        flags = set(FLAG.findall(hint)) - FLAGS
        commands = set(COMMAND.findall(hint)) - COMMANDS
        rest = FLAG.sub(" ", COMMAND.sub(" ", hint))
        foreign = foreign_names(rest, error, (), TOOL_NAMES)
        if flags or commands or foreign:
            wrong.append(f"{kind}: {sorted(flags | commands) + foreign} in {hint!r}")
    assert not wrong, "expected hints naming only the CLI's own options, got:\n" + "\n".join(wrong)


def test_the_parsers_have_the_flags_the_hints_use():
    """The check above reads the parsers: were they empty, it would pass for anything."""
    for flag in ("-F", "--fixed-strings", "-U", "-g", "--replace-all"):
        assert flag in FLAGS, f"expected {flag} among {sorted(FLAGS)}"
    assert {"read", "ls", "glob", "edit", "grep"} <= COMMANDS, sorted(COMMANDS)


# -- the defects, through the command ------------------------------------------------------


def _error(proc) -> str:
    assert proc.returncode == 2, f"expected exit 2, got {proc.returncode}: {proc.stderr!r}"
    assert proc.stderr.startswith("codesift: "), proc.stderr
    return proc.stderr


def test_a_bad_regex_advises_F_and_keeps_its_caret(tmp_path):
    (tmp_path / "a.py").write_text("foo(bar)\n")
    err = _error(codesift_run(tmp_path, "grep", "foo(", "."))
    expected = (
        "codesift: invalid regex /foo(/: regex parse error:\n    foo(\n       ^\n"
        "error: unclosed group\nEscape special characters with \\ or pass -F (--fixed-strings).\n"
    )
    assert err == expected, f"expected {expected!r}, got {err!r}"


def test_a_failed_edit_shows_the_region_verbatim_and_advises_codesift_read(tmp_path):
    (tmp_path / "a.py").write_text("def f():\n    x  =\t1\n    return x\n")
    err = _error(codesift_run(tmp_path, "edit", "a.py", "x = 1", "y", "--root", "."))
    assert "\n     2\t    x  =\t1\n" in err, f"expected the line as it is, got {err!r}"
    assert "read the region first with codesift read" in err, err
    assert "read_file" not in err, err


def test_an_ambiguous_edit_advises_replace_all_and_no_hit_id(tmp_path):
    (tmp_path / "b.py").write_text("x = 1\nx = 1\n")
    err = _error(codesift_run(tmp_path, "edit", "b.py", "x = 1", "y", "--root", "."))
    assert "pass --replace-all to change every one." in err, err
    for tool_word in ("replace_all=", "search_result_id"):
        assert tool_word not in err, f"expected no {tool_word!r} in {err!r}"


@pytest.mark.parametrize(
    ("args", "expected", "not_expected"),
    [
        (("ls", "a.py", "--root", "."), "read it with codesift read", "read_file"),
        (("read", "src", "--root", "."), "use codesift ls to see", "list_dir"),
        (("read", "gone.py", "--root", "."), "with codesift glob or codesift ls", "list_dir"),
        (("grep", "x", "-t", "pyy", "."), 'filter by name with -g "*.ext"', "include="),
    ],
)
def test_path_and_type_errors_advise_the_clis_commands(tmp_path, args, expected, not_expected):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "src").mkdir()
    err = _error(codesift_run(tmp_path, *args))
    assert expected in err and not_expected not in err, (
        f"expected {expected!r} and no {not_expected!r}, got {err!r}"
    )


def test_json_errors_carry_the_same_message(tmp_path):
    (tmp_path / "b.py").write_text("x = 1\nx = 1\n")
    proc = codesift_run(tmp_path, "edit", "b.py", "x = 1", "y", "--root", ".", "--json-full")
    assert proc.returncode == 2, proc
    error = json.loads(proc.stdout)["error"]
    assert error["type"] == "MatchError", error
    assert error["message"].endswith("or pass --replace-all to change every one."), error
    assert len(error["hints"]) == 1 and error["hints"][0].endswith(
        "--replace-all to change every one."
    ), error
    assert error["message"].startswith(error["problem"]), error
    assert error["message"].endswith(error["hints"][0]), error


#: Bad option values of every command: the message names the flag given, never the
#: library's parameter it becomes.
BAD_VALUES = [
    ("grep", "x", ".", "-m", "-1"),
    ("grep", "x", ".", "--timeout", "-1"),
    ("grep", "x", ".", "-C", "-1"),
    ("grep", "x", ".", "-B", "-2"),
    ("grep", "x", ".", "-A", "99999999999"),
    ("grep", "x", ".", "--budget-tokens", "0"),
    ("grep", "x", ".", "-t", "pyy"),
    ("grep", "x", ".", "-T", "pyy"),
    ("search", "x", ".", "-n", "0"),
    ("read", "a.py", "--offset", "-1", "--root", "."),
    ("read", "a.py", "--limit", "0", "--root", "."),
    ("ls", ".", "--limit", "-1", "--root", "."),
    ("glob", "*.py", ".", "--limit", "-1"),
]
#: The library's names of those options (`-m` is `max_matches`...): what the CLI must not say.
LIBRARY_WORDS = re.compile(
    r"\b(max_matches|max_results|context_lines|budget_tokens|type_not|None)\b"
    r"|^(timeout|before|after|limit|offset|type) |\bin (type|type_not)\b"
)


@pytest.mark.parametrize("args", BAD_VALUES, ids=lambda a: " ".join(a))
def test_a_bad_option_value_names_the_flag_given(tmp_path, args):
    (tmp_path / "a.py").write_text("x = 1\n")
    err = _error(codesift_run(tmp_path, *args)).removeprefix("codesift: ")
    print(args, err)
    flag = next(a for a in args if a.startswith("-") and not a.lstrip("-").isdigit())
    assert flag in err, f"expected {flag} in {err!r}"
    assert not LIBRARY_WORDS.search(err), f"expected no library option name in {err!r}"
    # `rg --type-list` names ripgrep's own flag (codesift-rg has it too).
    assert set(FLAG.findall(err.replace("rg --type-list", ""))) <= FLAGS, err


@pytest.mark.parametrize(
    ("flags", "pattern"), [(["-w"], "x("), (["-x"], "a{"), (["-e", "ok", "-e"], "b[")]
)
def test_a_combined_pattern_reports_the_pattern_typed(tmp_path, flags, pattern):
    (tmp_path / "a.py").write_text("x = 1\n")
    err = _error(codesift_run(tmp_path, "grep", *flags, pattern, "."))
    print(err)
    assert err.startswith(f"codesift: invalid regex /{pattern}/: regex parse error:\n"), err
    assert f"\n    {pattern}\n" in err, err
    assert "(?:" not in err and "start-half" not in err, err
