"""Every command's `--help` tells the truth: each command has a description, each of its
options and arguments says what it does, it lists only the options it acts on, and its
`--root` describes the root of that command alone."""

from __future__ import annotations

import argparse

import pytest
from cli_helpers import codesift_run

from codesift.cli import grep
from codesift.cli.app import build_parser

ROOT_AND_JSON = {"--root", "--json"}
OUTPUT = {"--json", "--color"}
FILTERS = {"--no-ignore", "--hidden", "--no-hidden"}
WALK = {"-L", "--follow", "-j", "--threads"}
INDEX = {"--index", "--no-index"}
SHARED = {"--root"} | OUTPUT | FILTERS | WALK | INDEX

#: The shared options each command acts on (what it may list, and all it may list).
SHARED_TAKEN = {
    "glob": {"--root"} | OUTPUT | FILTERS | WALK | INDEX,
    "grep": {"--root"} | OUTPUT | FILTERS | WALK | INDEX,
    "search": {"--root"} | OUTPUT | FILTERS | WALK | INDEX,
    # read and edit open one file: no ignore rule, walk or index applies; read prints plain
    # lines whatever the colour.
    "read": ROOT_AND_JSON,
    "edit": ROOT_AND_JSON | {"--color"},
    "apply-patch": ROOT_AND_JSON | {"--color"},
    # ls lists one directory: the ignore filters apply, links are listed, never walked.
    "ls": ROOT_AND_JSON | {"--color"} | FILTERS,
    "index": ROOT_AND_JSON | {"--color"} | FILTERS | WALK,
    "daemon": {"--json"},
    # The servers speak their protocols: no JSON or colour of the command's own.
    "mcp": {"--root"} | FILTERS | WALK | INDEX,
    "serve": {"--root"} | FILTERS | WALK | INDEX,
    "shim": set(),
    "apply-hit": {"--root"},
}


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def listed(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """What `--help` lists: every argument but the hidden ones."""
    return [a for a in parser._actions if a.help != argparse.SUPPRESS]


def names(action: argparse.Action) -> str:
    return "/".join(action.option_strings) or str(action.metavar or action.dest)


def test_the_commands_checked_are_every_command():
    assert set(subcommands()) == set(SHARED_TAKEN), sorted(subcommands())


@pytest.mark.parametrize("command", sorted(SHARED_TAKEN))
def test_every_option_and_argument_says_what_it_does(command):
    parser = subcommands()[command]
    assert (parser.description or "").strip(), f"codesift {command} --help has no description"
    silent = [names(a) for a in listed(parser) if not (a.help or "").strip()]
    assert silent == [], f"codesift {command}: expected help for every option, none for {silent}"


def test_grep_on_its_own_says_what_every_option_does():
    """`codesift grep` is parsed by its own parser (options anywhere): the same help."""
    parser = grep.grep_parser()
    silent = [names(a) for a in listed(parser) if not (a.help or "").strip()]
    assert silent == [], f"codesift grep: expected help for every option, none for {silent}"
    alone = {o for a in listed(parser) for o in a.option_strings}
    within = {o for a in listed(subcommands()["grep"]) for o in a.option_strings}
    assert alone == within, f"grep alone {sorted(alone ^ within)} differ from grep as a command"


@pytest.mark.parametrize("command", sorted(SHARED_TAKEN))
def test_a_command_lists_only_the_shared_options_it_acts_on(command):
    options = {o for a in listed(subcommands()[command]) for o in a.option_strings}
    shared = options & SHARED
    expected = SHARED_TAKEN[command]
    assert shared == expected, (
        f"codesift {command}: expected the shared options {sorted(expected)}, got "
        f"{sorted(shared)} (extra {sorted(shared - expected)}, missing {sorted(expected - shared)})"
    )


@pytest.mark.parametrize(
    "command", sorted(c for c, taken in SHARED_TAKEN.items() if "--root" in taken)
)
def test_root_help_describes_this_command_root_only(command):
    (root,) = [a for a in subcommands()[command]._actions if "--root" in a.option_strings]
    others = [c for c in ("mcp", "apply-hit") if c in (root.help or "")]
    assert others == [], f"codesift {command} --root help names other commands: {root.help!r}"


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["mcp", "--json"], "--json"),
        (["mcp", "--color", "never"], "--color"),
        (["read", "a.txt", "--no-ignore"], "--no-ignore"),
        (["daemon", "status", "--root", "."], "--root"),
    ],
)
def test_an_option_a_command_ignores_is_refused_in_one_line(tmp_path, argv, option):
    (tmp_path / "a.txt").write_text("alpha\n")
    done = codesift_run(tmp_path, *argv)
    assert done.returncode == 2, f"{argv}: expected exit 2, got {done.returncode} {done.stderr}"
    assert "unrecognized arguments" in done.stderr and option in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1 and done.stdout == "", (done.stdout, done.stderr)
    # Said by the command's own parser: its --help is the one listing what it takes.
    command = f"codesift {argv[0]}"
    assert done.stderr.startswith(f"{command}: error: "), done.stderr
    assert done.stderr.endswith(f"(see {command} --help)\n"), done.stderr


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["daemon", "status", "--foreground"], "--foreground"),
        (["daemon", "stop", "--foreground"], "--foreground"),
        (["daemon", "start", "--foreground"], "--foreground"),
        (["daemon", "status", "--idle", "5"], "--idle"),
        (["daemon", "stop", "--idle", "5"], "--idle"),
    ],
)
def test_a_daemon_option_its_action_ignores_is_refused(tmp_path, argv, option):
    """`--foreground` is for `run`, `--idle` for `start` and `run`: any other action refuses
    them in one line rather than doing what it does without them."""
    done = codesift_run(tmp_path, *argv)
    assert done.returncode == 2, f"{argv}: expected exit 2, got {done.returncode} {done.stderr}"
    assert done.stdout == "" and done.stderr.count("\n") == 1, (done.stdout, done.stderr)
    expected = f"codesift daemon: {option} goes with "
    assert done.stderr.startswith(expected), f"expected {expected!r}..., got {done.stderr!r}"
    assert f"{argv[1]} does not take it" in done.stderr, done.stderr


def test_help_for_the_shared_options_reads_the_same_in_a_process(tmp_path):
    """`--help` itself, as a person sees it: mcp's lists no --json."""
    done = codesift_run(tmp_path, "mcp", "--help")
    assert done.returncode == 0, done.stderr
    assert "--json" not in done.stdout and "--color" not in done.stdout, done.stdout
    assert "Model Context Protocol" in done.stdout, done.stdout
