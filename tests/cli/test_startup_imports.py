"""What starting codesift imports: `import codesift` loads its names on first use, a search
never loads the edit machinery, and a piped `codesift grep` neither rich nor json. Checked
with `python -X importtime` (no timings are asserted: only which modules load)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import codesift

# The package's parent directory, so that `python -S` (no site, hence no .pth files, no
# modules imported by them) finds this very package.
PACKAGE_PARENT = str(Path(codesift.__file__).resolve().parent.parent)

HEAVY_FOR_IMPORT = [
    "inspect",
    "dataclasses",
    "secrets",
    "hmac",
    "urllib",
    "tempfile",
    "difflib",
    "json",
    "argparse",
    "jsonschema",
    "rich",
    "codesift._core",
    "codesift.workspace",
    "codesift.edits",
    "codesift.patches",
    "codesift.tools",
    "codesift.remote",
    "codesift.mcp",
    "codesift.serve",
]
EDIT_MACHINERY = ["codesift.edits", "codesift.patches", "codesift.text.linediff", "difflib"]
NEVER_IN_A_SEARCH = [
    *EDIT_MACHINERY,
    "codesift.results.files",
    "secrets",
    "hmac",
    "tempfile",
    "jsonschema",
    "rich",
    "codesift.tools",
    "codesift.remote",
    "codesift.mcp",
    "codesift.serve",
]
NEVER_IN_A_PIPED_GREP = [*NEVER_IN_A_SEARCH, "json"]


def imported(args: list[str], *, cwd: Path | None = None, site: bool = True) -> tuple[set, str]:
    """The modules `python -X importtime ARGS` imports (by their dotted names) beyond those
    a bare `python -c pass` imports with the same flags (with site, an environment's .pth
    files may import, e.g., tempfile), and what the process printed on stdout."""
    env = {**os.environ, "PYTHONPATH": PACKAGE_PARENT, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTHONPROFILEIMPORTTIME", None)
    flags = ["-X", "importtime"] if site else ["-S", "-X", "importtime"]
    proc = subprocess.run(
        [sys.executable, *flags, *args], capture_output=True, text=True, env=env, cwd=cwd
    )
    assert proc.returncode in (0, 1), f"exit {proc.returncode}: {proc.stderr[-2000:]}"
    bare = subprocess.run(
        [sys.executable, *flags, "-c", "pass"], capture_output=True, text=True, env=env
    )
    return _names(proc.stderr) - _names(bare.stderr), proc.stdout


def _names(importtime: str) -> set[str]:
    return {
        line.rsplit("|", 1)[1].strip()
        for line in importtime.splitlines()
        if line.startswith("import time:") and "[us]" not in line
    }


def loaded(modules: set[str], names: list[str]) -> list[str]:
    """The `names` (or modules within them) found among `modules`."""
    return sorted(m for m in modules for n in names if m == n or m.startswith(n + "."))


def test_import_codesift_imports_no_heavy_module():
    modules, _ = imported(["-c", "import codesift"], site=False)
    assert "codesift" in modules, f"importtime lists no codesift: {sorted(modules)}"
    found = loaded(modules, HEAVY_FOR_IMPORT)
    assert found == [], f"expected none of {HEAVY_FOR_IMPORT} imported, got {found}"


def test_lazy_names_still_import_and_list():
    code = (
        "import codesift\n"
        "names = set(dir(codesift))\n"
        "missing = [n for n in codesift.__all__ if n not in names]\n"
        "from codesift import Workspace, GrepResult, NotFoundError, __version__\n"
        "assert Workspace is codesift.Workspace and Workspace.__module__ == 'codesift.workspace'\n"
        "assert issubclass(NotFoundError, codesift.CodesiftError)\n"
        "print(missing, GrepResult.__name__, __version__ == codesift._core.__version__)\n"
        "try:\n"
        "    codesift.no_such_name\n"
        "except AttributeError as exc:\n"
        "    print(exc)\n"
    )
    _, out = imported(["-c", code])
    expected = "[] GrepResult True\nmodule 'codesift' has no attribute 'no_such_name'\n"
    assert out == expected, f"expected {expected!r}, got {out!r}"


def test_a_workspace_search_imports_no_edit_machinery(tmp_path):
    (tmp_path / "a.py").write_text("needle = 1\n")
    code = (
        "import sys\nfrom codesift import Workspace\n"
        "print(Workspace(sys.argv[1]).grep('needle').summary)"
    )
    modules, out = imported(["-c", code, str(tmp_path)], site=False)
    assert "Found 1 match" in out, f"expected one match, got {out!r}"
    found = loaded(modules, NEVER_IN_A_SEARCH)
    assert found == [], f"expected none of {NEVER_IN_A_SEARCH} imported, got {found}"


def test_first_edit_loads_the_editor_on_demand(tmp_path):
    (tmp_path / "a.py").write_text("needle = 1\n")
    code = (
        "import sys\nfrom codesift import Workspace\nws = Workspace(sys.argv[1])\n"
        "hit = ws.grep('needle').matches[0]\n"
        "print(ws.edit_result(hit.id, 'pin').summary)\n"
        "print(ws.undo_edit('a.py').summary)"
    )
    modules, out = imported(["-c", code, str(tmp_path)])
    assert (tmp_path / "a.py").read_text() == "needle = 1\n", out
    assert "codesift.edits" in modules, f"expected the editor imported, got {sorted(modules)}"
    assert len(out.splitlines()) == 2, f"expected an edit and an undo summary, got {out!r}"


def test_piped_grep_imports_neither_rich_nor_edits(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\nneedle = 2\n")
    cli = "import sys; from codesift.cli import main; sys.exit(main())"
    modules, out = imported(["-c", cli, "grep", "needle"], cwd=tmp_path)
    assert out == "a.py:2:needle = 2\n", f"expected rg's line, got {out!r}"
    found = loaded(modules, NEVER_IN_A_PIPED_GREP)
    assert found == [], f"expected none of {NEVER_IN_A_PIPED_GREP} imported, got {found}"


def test_grep_with_colour_or_json_still_loads_what_it_needs(tmp_path):
    """The other side of the two above: where rich or json is needed, it is loaded (so
    the absence above is laziness, not a check that cannot see them)."""
    (tmp_path / "a.py").write_text("needle = 2\n")
    cli = "import sys; from codesift.cli import main; sys.exit(main())"
    argv = ["-c", cli, "grep", "--heading", "--color", "always", "needle"]
    modules, out = imported(argv, cwd=tmp_path)
    assert "rich.console" in modules and "needle" in out, f"{sorted(modules)} {out!r}"
    modules, out = imported(["-c", cli, "grep", "--json", "needle"], cwd=tmp_path)
    assert "json" in modules and '"matches"' in out, f"{sorted(modules)} {out!r}"


# Modules a piped grep does not need but a command elsewhere does (the daemon's signal
# handler, the servers' lookup of their extras, remote search's arguments), and what only a
# result object needs: the results' dataclasses (`dataclasses` imports `inspect`, with `ast`,
# `dis` and `tokenize`), `pathlib` (a workspace's `root` as a Path), `shutil`. A piped grep prints
# the engine's lines and reads the engine's figures as they are. Seen only without site,
# whose .pth files may import them.
NEVER_IN_A_PIPED_GREP_WITHOUT_SITE = [
    "signal",
    "importlib.util",
    "codesift.arguments.grep_args",
    "dataclasses",
    "inspect",
    "ast",
    "dis",
    "tokenize",
    "pathlib",
    "urllib",
    "ipaddress",
    "codesift.results.matches",
    "codesift.results.files",
    "codesift.results.skipped",
    "codesift.control.call",
    # argparse asks shutil for the terminal's width, and shutil imports these
    "shutil",
    "bz2",
    "lzma",
    # `typing` (the options' TypedDicts are made on first use: a search checks the names
    # `codesift.arguments.options` takes from their classes; the cache's tuples are
    # `collections.namedtuple`s), `threading` (`_thread`'s locks are the same; a piped grep
    # waits on no thread), `contextlib`, and what only a timeout or a non-ASCII pattern needs.
    "typing",
    "threading",
    "contextlib",
    "math",
    # The hits' cache (and `bisect`): made on first use, a piped grep keeps no hits.
    "codesift.results.cache",
    "bisect",
    # What only an error (a missing optional dependency) or a server needs, and the lazy
    # names' loader.
    "codesift.cli.extras",
    "importlib",
]


def test_piped_grep_defines_no_dataclass(tmp_path):
    (tmp_path / "a.py").write_text("needle = 2\n")
    cli = (
        "import sys\nfrom codesift.cli import main\ncode = main()\n"
        "print(sorted(m for m in ('dataclasses', 'pathlib') if m in sys.modules))\n"
        "sys.exit(code)"
    )
    modules, out = imported(["-c", cli, "grep", "needle"], cwd=tmp_path, site=False)
    expected = "a.py:1:needle = 2\n[]\n"
    assert out == expected, f"expected {expected!r}, got {out!r}"
    found = loaded(modules, NEVER_IN_A_PIPED_GREP_WITHOUT_SITE)
    assert found == [], f"expected none of {NEVER_IN_A_PIPED_GREP_WITHOUT_SITE}, got {found}"


def test_piped_grep_with_notes_still_builds_its_result(tmp_path):
    """The other side of the test above: a piped grep whose notes need the result (a cap
    that cut it: the summary on stderr) builds it, and one that found little says what the
    ignore rules hid, from the engine's figures, exactly as the result would."""
    for i in range(3):
        (tmp_path / f"a{i}.py").write_text("needle = 1\nneedle = 2\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("build/\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "b.py").write_text("needle = 3\n")
    cli = "import sys; from codesift.cli import main; sys.exit(main())"
    env = {**os.environ, "PYTHONPATH": PACKAGE_PARENT}

    def grep_without_site(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-S", "-c", cli, "grep", *args]
        return subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, env=env)

    capped = grep_without_site("-m", "2", "needle")
    assert capped.returncode == 0, capped.stderr
    assert capped.stdout == "a0.py:1:needle = 1\na0.py:2:needle = 2\n", capped.stdout
    assert "[TRUNCATED: reached limit 2" in capped.stderr, capped.stderr
    whole = grep_without_site("needle")
    note = 'codesift: (1 gitignored path hidden: build/ — pass --no-ignore or PATH "build")\n'
    assert whole.returncode == 0 and whole.stderr == "", whole.stderr  # 6 hits: not "little"
    few = grep_without_site("needle = 1")
    assert few.returncode == 0 and few.stderr == note, f"expected {note!r}, got {few.stderr!r}"


def test_option_names_are_the_typed_options_keys():
    """Each option is written once, in `codesift.arguments.options`'s classes: the names a search
    checks (without `typing`) are their keys, and the public names are real TypedDicts with
    those keys, their types and their documentation (also reachable from
    `codesift.arguments` as before)."""
    import typing

    from codesift import arguments
    from codesift.arguments import options

    pairs = {
        "GrepMatching": options.GREP_MATCHING,
        "RemoteGrepOptions": options.REMOTE_GREP_OPTIONS,
        "GrepStreamOptions": options.GREP_STREAM_OPTIONS,
        "GrepOptions": options.GREP_OPTIONS,
        "GlobFilters": options.GLOB_FILTERS,
        "GlobOptions": options.GLOB_OPTIONS,
    }
    assert set(pairs) == options.OPTION_TYPES, f"{sorted(pairs)} != {sorted(options.OPTION_TYPES)}"
    for name, names in pairs.items():
        typed = getattr(options, name)
        assert typing.is_typeddict(typed), f"options.{name} is {typed!r}, not a TypedDict"
        assert getattr(arguments, name) is typed, f"arguments.{name} is not options.{name}"
        assert typed.__total__ is False and not typed.__required_keys__, name
        keys = typed.__optional_keys__
        assert keys == names, f"{name}: TypedDict keys {sorted(keys)}, names {sorted(names)}"
        assert typed.__doc__ and typed.__module__ == "codesift.arguments.options", (
            name,
            typed.__module__,
        )
        assert name in dir(options) and name in dir(arguments), name
    hints = typing.get_type_hints(options.GrepOptions)
    expected = {"include": str | Iterable[str] | None, "offset": int}
    got = {key: hints[key] for key in expected}
    assert got == expected, f"expected {expected}, got {got}"
    assert options.GREP_STREAM_OPTIONS < options.GREP_OPTIONS, "grep takes grep_iter's options"
    assert "one_hit_per_line" in options.GREP_STREAM_OPTIONS
    assert "one_hit_per_line" not in options.REMOTE_GREP_OPTIONS


def test_options_module_loads_without_typing():
    """`codesift.arguments.options` is imported by every search: it must not bring `typing` in."""
    code = (
        "import sys\nimport codesift.arguments.options as o\n"
        "print('typing' in sys.modules, sorted(o.GLOB_OPTIONS))\n"
        "o.GlobOptions\nprint('typing' in sys.modules)"
    )
    env = {**os.environ, "PYTHONPATH": PACKAGE_PARENT}
    done = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, env=env, check=False
    )
    names = ["case_sensitive", "hidden", "limit", "no_ignore", "sort", "type", "type_not"]
    expected = f"False {names}\nTrue\n"
    assert done.stdout == expected, f"expected {expected!r}, got {done.stdout!r} {done.stderr}"


def test_what_was_moved_out_of_the_grep_path_still_answers():
    """The names loaded on first use still import from where they did."""
    code = (
        "from codesift.arguments import GrepArgs, grep_arguments, GrepOptions\n"
        "from codesift.control.call import CallControl, controlling, current\n"
        "from codesift.results.cache import HitState\n"
        "from codesift.cli.extras import require\n"
        "from codesift.cli.rg_flags import grep_pattern\n"
        "from codesift.cli.roots import root_of\n"
        "require('mcp')\n"
        "a = grep_arguments('x', context_lines=2)\n"
        "print(type(a) is GrepArgs, a.before, a.after)\n"
        "print(grep_pattern(['Foo'], fixed=False, word=False, line=False, case='smart'))\n"
        "print(grep_pattern([r'\\pL'], fixed=False, word=False, line=False, case='smart'))\n"
        "print(root_of('.').path)\n"
        "with controlling(CallControl()) as c:\n"
        "    print(current() is c, sorted(GrepOptions.__optional_keys__)[:2])\n"
        "print(current(), HitState(1, 2, 3), HitState._fields)\n"
    )
    _, out = imported(["-c", code])
    expected = (
        "True 2 2\n"
        "GrepPattern(pattern='Foo', literal=False, case_sensitive=True)\n"
        "GrepPattern(pattern='\\\\pL', literal=False, case_sensitive=False)\n"
        ".\n"
        "True ['after', 'before']\n"
        "None HitState(byte_offset=1, line=2, end_line=3) ('byte_offset', 'line', 'end_line')\n"
    )
    assert out == expected, f"expected {expected!r}, got {out!r}"


def test_grep_words_without_options_parse_as_intermixed():
    """`codesift grep` parses words without any option plainly (intermixed parsing first
    formats the whole usage): what the fast path relies on is that both give the same
    namespace for such words."""
    from codesift.cli import grep

    for words in (
        [],
        ["needle"],
        ["needle", "src", "lib/a.py"],
        ["needle", ""],
        ["", ""],
        ["né+dle", "dir with spaces", "x=1"],
    ):
        plain = vars(grep.grep_parser().parse_args(words))
        intermixed = vars(grep.grep_parser().parse_intermixed_args(words))
        assert plain == intermixed, f"{words}: plain {plain}, intermixed {intermixed}"
        parsed = vars(grep.parse_grep(words)) if words else None
        if parsed is not None:
            expected = {**intermixed, "command": "grep"}
            assert parsed == expected, f"{words}: expected {expected}, got {parsed}"
