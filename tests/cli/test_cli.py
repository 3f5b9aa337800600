"""The installed `codesift` command: output modes, flags and grep-like exit codes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from cli_helpers import on_a_terminal
from trees import tree_fixture


@pytest.fixture(scope="module")
def codesift() -> list[str]:
    exe = shutil.which("codesift")
    assert exe, "the codesift console script is not installed (pip install -e .)"
    return [exe]


def run(cmd: list[str], *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*cmd, *args], capture_output=True, text=True, check=False, input=stdin, timeout=120
    )


repo = tree_fixture(
    {
        "a.py": "def hello():\n    return 'Hello'\n",
        "src/b.py": "HELLO = 1\nhello()\n",
        ".hidden.py": "hello = 2\n",
        ".gitignore": "gen/\n",
        "gen/c.py": "hello\n",
    }
)


def test_grep_plain_output_when_piped(repo, codesift):
    # rg's piped lines (path:line:text; the column only with --column), case-sensitive
    # unless -i, as in rg.
    out = run(codesift, "grep", "-i", "hello", "--root", str(repo))
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        ".hidden.py:1:hello = 2",
        "a.py:1:def hello():",
        "a.py:2:    return 'Hello'",
        "src/b.py:1:HELLO = 1",
        "src/b.py:2:hello()",
    ]
    default = run(codesift, "grep", "hello", "--root", str(repo))
    assert default.stdout.splitlines() == [
        ".hidden.py:1:hello = 2",
        "a.py:1:def hello():",
        "src/b.py:2:hello()",
    ], default.stdout
    column = run(codesift, "grep", "--column", "-i", "hello", "--root", str(repo))
    assert column.stdout.splitlines() == [
        ".hidden.py:1:1:hello = 2",
        "a.py:1:5:def hello():",
        "a.py:2:13:    return 'Hello'",
        "src/b.py:1:1:HELLO = 1",
        "src/b.py:2:1:hello()",
    ], column.stdout


def test_grep_flags(repo, codesift):
    r = str(repo)
    lines = lambda *a: run(codesift, "grep", *a, "--root", r).stdout.splitlines()  # noqa: E731
    assert lines("-s", "hello") == [
        ".hidden.py:1:hello = 2",
        "a.py:1:def hello():",
        "src/b.py:2:hello()",
    ]
    assert lines("-i", "HELLO", "-m", "1") == [".hidden.py:1:hello = 2"]
    assert lines("-F", "hello()") == ["a.py:1:def hello():", "src/b.py:2:hello()"]
    assert lines("-i", "-g", "src/**", "hello") == ["src/b.py:1:HELLO = 1", "src/b.py:2:hello()"]
    assert lines("-g", "!src", "-g", "!.*", "-s", "hello") == ["a.py:1:def hello():"]
    assert "gen/c.py:1:hello" in lines("--no-ignore", "hello")
    assert ".hidden.py:1:hello = 2" not in lines("--no-hidden", "hello")
    assert ".hidden.py:1:hello = 2" in lines("--hidden", "hello")
    # As in rg, the last of --hidden and --no-hidden wins (an alias's flag can be undone).
    assert ".hidden.py:1:hello = 2" in lines("--no-hidden", "--hidden", "hello")
    assert ".hidden.py:1:hello = 2" not in lines("--hidden", "--no-hidden", "hello")
    # As rg prints a multi-line match: every line it spans.
    assert lines("-U", r"hello\(\):\n\s+return") == [
        "a.py:1:def hello():",
        "a.py:2:    return 'Hello'",
    ]
    data = json.loads(
        run(codesift, "grep", "-C", "1", "-s", "return", "--root", r, "--json").stdout
    )
    assert data["matches"][0]["before"] == ["def hello():"]


def test_exit_codes_and_errors_without_traceback(repo, codesift):
    r = str(repo)
    assert run(codesift, "grep", "absent_zzz", "--root", r).returncode == 1
    assert run(codesift, "glob", "*.rs", "--root", r).returncode == 1
    for args, needle in [
        (("grep", "foo(", "--root", r), "invalid regex"),
        (("glob", "*", "/", "--root", r), "outside the workspace"),
        (("read", "missing.py", "--root", r), "does not exist"),
        (("edit", "a.py", "nothing", "x", "--root", r), "not found"),
        (("ls", "--root", str(repo / "nope")), "does not exist"),
        (("grep", "--bogus-flag", "x"), "unrecognized arguments"),
    ]:
        out = run(codesift, *args)
        assert out.returncode == 2, (args, out)
        assert needle in out.stderr, (args, out.stderr)
        assert "Traceback" not in out.stderr


def test_json_output(repo, codesift):
    out = run(codesift, "glob", "*.py", "--root", str(repo), "--json")
    assert [f["path"] for f in json.loads(out.stdout)["files"]] == [
        ".hidden.py",
        "a.py",
        "src/b.py",
    ]
    data = json.loads(run(codesift, "grep", "-i", "hello", "--root", str(repo), "--json").stdout)
    assert data["matches"][0]["id"].startswith("sr_") and data["total"] == 5


def test_read_ls_edit(repo, codesift):
    r = str(repo)
    assert run(codesift, "read", "a.py:2", "--root", r).stdout == "     2\t    return 'Hello'\n"
    assert run(codesift, "ls", "--root", r).stdout.splitlines() == [
        "src/",
        ".gitignore",
        ".hidden.py",
        "a.py",
    ]
    edited = run(codesift, "edit", "a.py", "return 'Hello'", "return 'Hi'", "--root", r)
    assert edited.returncode == 0, edited.stderr
    assert edited.stdout.startswith("Edited a.py: 1 replacement at line 2")
    assert (repo / "a.py").read_text() == "def hello():\n    return 'Hi'\n"


def test_a_cut_read_says_how_to_go_on_with_the_commands_flag(tree, codesift):
    root = tree({"long.txt": "".join(f"line {n}\n" for n in range(1, 11))})
    cut = run(codesift, "read", "long.txt", "--limit", "3", "--root", str(root))
    assert cut.returncode == 0, cut.stderr
    assert cut.stdout.splitlines()[-1] == "     3\tline 3", cut.stdout
    expected = "continue with --offset 4]"
    assert expected in cut.stderr, f"expected {expected!r} in {cut.stderr!r}"
    rest = run(codesift, "read", "long.txt", "--offset", "4", "--limit", "1", "--root", str(root))
    assert rest.stdout == "     4\tline 4\n", rest.stdout


def test_a_glob_cut_by_its_limit_says_so_in_a_pipe_too(tree, codesift):
    root = tree({"a.txt": "", "b.txt": "", "c.txt": ""})
    cut = run(codesift, "glob", "*.txt", "--limit", "2", "--root", str(root))
    assert cut.returncode == 0, cut.stderr
    assert cut.stdout == "a.txt\nb.txt\n", cut.stdout
    expected = "[TRUNCATED: showing first 2 of 3 files]"
    assert expected in cut.stderr, f"expected {expected!r} in {cut.stderr!r}"
    whole = run(codesift, "glob", "*.txt", "--limit", "3", "--root", str(root))
    assert (whole.stdout, whole.stderr) == ("a.txt\nb.txt\nc.txt\n", ""), whole


def test_a_piped_glob_lists_every_file_and_limit_0_means_no_limit(tree, codesift):
    from codesift.cli.glob import TERMINAL_LIMIT

    names = [f"f{n:04d}.txt" for n in range(TERMINAL_LIMIT + 5)]
    root = tree(dict.fromkeys(names, ""))
    for extra in ([], ["--limit", "0"]):
        listed = run(codesift, "glob", "*.txt", "--root", str(root), *extra)
        print(extra, "stderr:", listed.stderr)
        assert listed.stdout.splitlines() == names, f"{extra}: {len(listed.stdout.splitlines())}"
        assert (listed.returncode, listed.stderr) == (0, ""), listed


def test_a_search_that_skipped_hidden_files_says_hidden_undoes_it(tree, codesift):
    root = tree({".env": "needle\n", "a.txt": "needle\n"})
    found = run(codesift, "grep", "needle", "--no-hidden", "--root", str(root))
    assert found.stdout == "a.txt:1:needle\n", found.stdout
    assert "1 hidden path skipped: .env — pass --hidden or PATH" in found.stderr, found.stderr
    listed = run(codesift, "glob", "*", "--no-hidden", "--root", str(root))
    assert listed.stdout == "a.txt\n", listed.stdout
    assert "pass --hidden or PATH" in listed.stderr, listed.stderr
    again = run(codesift, "grep", "needle", "--no-hidden", "--hidden", "--root", str(root))
    assert again.stdout == ".env:1:needle\na.txt:1:needle\n", again.stdout


def test_ls_says_what_it_passed_over_when_it_lists_little(tree, codesift):
    """As grep and glob do: a listing that shows little while ignore rules or hidden-file
    rules hid entries says so on stderr, with ls's own flags to include them."""
    root = tree({".gitignore": "build/\n", "build/x.txt": "", ".env": "", "a.txt": ""})
    listed = run(codesift, "ls", "--no-hidden", "--root", str(root))
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout == "a.txt\n", listed.stdout
    assert listed.stderr.startswith("codesift: (1 gitignored path hidden: build/"), listed.stderr
    assert "pass --no-ignore;" in listed.stderr and "pass --hidden)" in listed.stderr
    everything = run(codesift, "ls", "--no-ignore", "--root", str(root))
    assert everything.stdout == "build/\n.env\n.gitignore\na.txt\n", everything.stdout
    assert everything.stderr == "", everything.stderr


def test_rich_output_groups_by_file_and_highlights(repo, codesift):
    out = run(
        codesift, "grep", "-s", "hello", "--root", str(repo), "--heading", "--color", "always"
    )
    assert out.returncode == 0
    assert "\x1b[" in out.stdout  # styled
    plain = _strip_ansi(out.stdout).splitlines()
    assert plain[0] == ".hidden.py"
    assert "a.py" in plain and "src/b.py" in plain  # one header per file
    assert any(line.strip().startswith("1:5") and "def hello():" in line for line in plain)
    assert "\x1b[1;31mhello" in out.stdout  # the match itself in bold red


def test_progress_display_on_a_long_scan(tree, codesift):
    block = ("lorem ipsum dolor sit amet " * 40 + "\n") * 400
    root = tree({f"d{i % 10}/f{i}.txt": block for i in range(120)})
    argv = [*codesift, "grep", r"[a-z]+\d{3}[a-z]+", str(root), "-j", "1", "-m", "0"]
    code, output = on_a_terminal([*argv, "--root", str(root)], env={"CODESIFT_PROGRESS_AFTER": "0"})
    assert code == 1  # nothing found
    assert b"Searching for" in output, output[-500:]


def _strip_ansi(text: str) -> str:
    import re

    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def test_module_entry_point(repo):
    out = subprocess.run(
        [sys.executable, "-m", "codesift", "glob", "*.py", "--root", str(repo)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0 and "a.py" in out.stdout


# -- a path anywhere, like `rg PATTERN DIR` (no --root) ------------------------------------------


def run_in(cwd, cmd: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*cmd, *args], capture_output=True, text=True, check=False, timeout=120, cwd=cwd
    )


# A repository (it has .git) whose root .gitignore hides src/gen/.
git_repo = tree_fixture(
    {
        ".git/HEAD": "ref: refs/heads/main\n",
        ".gitignore": "gen/\n",
        "top.py": "hello = 0\n",
        "src/b.py": "HELLO = 1\nhello()\n",
        "src/gen/c.py": "hello\n",
    }
)


def test_grep_a_directory_elsewhere_uses_its_repository(git_repo, tmp_path, codesift):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    src = git_repo / "src"
    absolute = run_in(elsewhere, codesift, "grep", "-s", "hello", str(src))
    assert absolute.returncode == 0, absolute.stderr
    # The repository's .gitignore applies (src/gen/c.py hidden): the root is the repository.
    assert absolute.stdout.splitlines() == [f"{src}/b.py:2:hello()"]
    relative = os.path.relpath(src, elsewhere)
    out = run_in(elsewhere, codesift, "grep", "-s", "hello", relative)
    assert out.stdout.splitlines() == [f"{relative}/b.py:2:hello()"], out.stderr
    data = json.loads(run_in(elsewhere, codesift, "grep", "-i", "hello", str(src), "--json").stdout)
    assert data["root"] == os.path.realpath(git_repo)
    assert [m["file"] for m in data["matches"]] == ["src/b.py", "src/b.py"]
    assert data["path"] == "./src"


def test_grep_without_a_path_searches_the_current_directory(git_repo, codesift):
    src = git_repo / "src"
    out = run_in(src, codesift, "grep", "-s", "hello")
    assert out.stdout.splitlines() == ["b.py:2:hello()"], out.stderr
    dotted = run_in(src, codesift, "grep", "-s", "hello", ".")
    assert dotted.stdout.splitlines() == ["./b.py:2:hello()"], dotted.stderr
    up = run_in(src, codesift, "grep", "-s", "hello", "..")
    assert up.stdout.splitlines() == ["../src/b.py:2:hello()", "../top.py:1:hello = 0"]
    data = json.loads(run_in(src, codesift, "grep", "-s", "hello", "--json").stdout)
    assert data["root"] == os.path.realpath(git_repo)
    assert [m["file"] for m in data["matches"]] == ["src/b.py"]


def test_a_directory_outside_any_repository_is_its_own_root(tree, tmp_path, codesift):
    plain = tree({"sub/z.txt": "alpha beta\n", "a.txt": "x = 1\nalpha\n", ".gitignore": "sub/\n"})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    sub = plain / "sub"
    # sub is the root, so the parent's .gitignore (which hides sub/) does not apply.
    out = run_in(elsewhere, codesift, "grep", "alpha", str(sub), "--json")
    data = json.loads(out.stdout)
    assert data["root"] == os.path.realpath(sub), out.stderr
    assert [m["file"] for m in data["matches"]] == ["z.txt"]
    one_file = run_in(elsewhere, codesift, "grep", "alpha", str(plain / "a.txt"))
    # One file argument: rg prints no path (-H prints it).
    assert one_file.stdout.splitlines() == ["2:alpha"], one_file.stderr
    named = run_in(elsewhere, codesift, "grep", "-H", "alpha", str(plain / "a.txt"))
    assert named.stdout.splitlines() == [f"{plain}/a.txt:2:alpha"], named.stderr
    globbed = run_in(elsewhere, codesift, "glob", "*.txt", str(plain))
    assert globbed.stdout.splitlines() == [f"{plain}/a.txt"], globbed.stderr


def test_read_ls_edit_a_path_elsewhere(tree, tmp_path, codesift):
    plain = tree({"sub/z.txt": "alpha beta\n", "a.txt": "x = 1\nalpha\n"})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    relative = os.path.relpath(plain, elsewhere)
    read = run_in(elsewhere, codesift, "read", f"{relative}/a.txt:2")
    assert read.stdout == "     2\talpha\n", read.stderr
    listed = run_in(elsewhere, codesift, "ls", str(plain))
    assert listed.stdout.splitlines() == ["sub/", "a.txt"], listed.stderr
    edited = run_in(elsewhere, codesift, "edit", str(plain / "a.txt"), "x = 1", "x = 2")
    assert edited.returncode == 0, edited.stderr
    assert (plain / "a.txt").read_text() == "x = 2\nalpha\n"


def test_missing_path_and_root_flag(tree, tmp_path, codesift):
    plain = tree({"a.txt": "alpha\n"})
    missing = run_in(tmp_path, codesift, "grep", "alpha", str(plain / "nope"))
    assert missing.returncode == 2
    assert f"{plain / 'nope'} does not exist" in missing.stderr
    # With --root, paths are relative to it and must stay inside it, as before.
    outside = run_in(plain, codesift, "grep", "alpha", str(tmp_path), "--root", str(plain))
    assert outside.returncode == 2 and "outside the workspace" in outside.stderr
    inside = run_in(tmp_path, codesift, "grep", "alpha", "--root", str(plain))
    assert inside.stdout.splitlines() == ["a.txt:1:alpha"], inside.stderr
