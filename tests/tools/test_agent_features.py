"""What agents expect from the tools, on the Workspace: grep modes,
offset paging, separate before/after context, ripgrep file types, per-call no_ignore and
hidden, list_dir trees, read by start_line/end_line, and never a silent false negative (what
a search passed over is counted, and said in one line when it found little)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from trees import tree_fixture

from codesift import Workspace
from codesift.errors import InvalidArgumentError, NotFoundError
from codesift.results.skipped import FEW_HITS, SkipCount, Skipped

RG = shutil.which("rg")


def flat(result) -> list[tuple[str, int, int]]:
    return [(m.file, m.line, m.column) for m in result.matches]


@pytest.fixture
def many(tree) -> Path:
    """Twelve files with 0-4 matches of "hit" each, some with two on a line."""
    files = {}
    for n in range(12):
        lines = [f"line {k}" + (" hit" * ((n + k) % 3)) for k in range(n % 5)]
        files[f"d{n % 3}/f{n:02}.txt"] = "\n".join(lines) + "\n"
    return tree(files)


# -- paging, modes, context -------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["content", "files", "count"])
def test_offset_pages_equal_slices_of_the_full_result(many, mode):
    ws = Workspace(many)
    full = ws.grep("hit", mode=mode, max_matches=None)
    assert full.total > 6, full.summary
    everything = flat(full)
    for offset in range(len(everything) + 2):
        for size in (1, 3, 5):
            page = ws.grep("hit", mode=mode, offset=offset, max_matches=size)
            expected = everything[offset : offset + size]
            assert flat(page) == expected, (mode, offset, size, flat(page), expected)
            assert page.truncated == (offset + size < len(everything)), (offset, size)
            if not page.truncated:
                assert page.total == full.total
            # The ids of a page are real hits: their text is the hit's.
            assert all(m.id.startswith("sr_") for m in page.matches)
        unlimited = ws.grep("hit", mode=mode, offset=offset, max_matches=None)
        assert flat(unlimited) == everything[offset:]
        assert unlimited.total == full.total


def test_offset_with_count_total_keeps_the_true_total(many):
    ws = Workspace(many)
    full = ws.grep("hit", max_matches=None)
    page = ws.grep("hit", offset=2, max_matches=2, count_total=True)
    assert page.total == full.total and page.truncated
    assert flat(page) == flat(full)[2:4]
    assert "[results 3-4]" in page.summary, page.summary


def test_files_mode_is_one_hit_per_file_in_path_order(many):
    ws = Workspace(many)
    content = ws.grep("hit", max_matches=None)
    files = ws.grep("hit", mode="files", max_matches=None)
    expected = list(dict.fromkeys(m.file for m in content.matches))
    assert files.files == expected
    assert [m.file for m in files.matches] == expected
    # Each file's hit is its first match.
    firsts = {}
    for m in content.matches:
        firsts.setdefault(m.file, (m.line, m.column))
    assert {m.file: (m.line, m.column) for m in files.matches} == firsts
    assert files.total == len(expected) == files.files_with_matches
    assert files.summary.startswith(f"Found {len(expected)} files with matches for /hit/")


def test_count_mode_counts_every_match_per_file(many):
    ws = Workspace(many)
    content = ws.grep("hit", max_matches=None)
    per_file: dict[str, int] = {}
    for m in content.matches:
        per_file[m.file] = per_file.get(m.file, 0) + 1
    counted = ws.grep("hit", mode="count", max_matches=None)
    assert dict(counted.file_counts) == per_file
    assert counted.total == len(per_file)
    assert f"({sum(per_file.values())} matches in the files listed)" in counted.summary
    data = counted.to_dict()
    assert data["mode"] == "count" and data["counts"] == [per_file[f] for f in data["files"]]
    # A limit counts files, not matches; the counts stay complete.
    two = ws.grep("hit", mode="count", max_matches=2)
    assert two.file_counts == list(per_file.items())[:2]
    assert two.truncated


@pytest.mark.skipif(RG is None, reason="ripgrep (rg) is not installed")
def test_count_and_files_modes_agree_with_ripgrep(many):
    ws = Workspace(many)

    def rg(*args: str) -> str:
        done = subprocess.run([RG, *args, "hit", "."], cwd=many, capture_output=True, text=True)
        return done.stdout

    rg_counts = {
        line.rsplit(":", 1)[0].removeprefix("./"): int(line.rsplit(":", 1)[1])
        for line in rg("--count-matches").splitlines()
    }
    assert dict(ws.grep("hit", mode="count", case_sensitive=True).file_counts) == rg_counts
    rg_files = sorted(p.removeprefix("./") for p in rg("-l").splitlines())
    assert ws.grep("hit", mode="files", case_sensitive=True).files == rg_files


def test_files_mode_skips_binary_files_even_with_an_early_match(tree):
    root = tree({"a.bin": b"hit\n" + b"x" * 70_000 + b"\0", "b.txt": "hit\n"})
    result = Workspace(root).grep("hit", mode="files")
    assert result.files == ["b.txt"]
    assert result.skipped.binary.count == 1


def test_before_and_after_are_separate(tree):
    root = tree({"a.txt": "1\n2\n3\nhit\n5\n6\n7\n"})
    ws = Workspace(root)
    (m,) = ws.grep("hit", before=1, after=3).matches
    assert (m.before, m.after) == (["3"], ["5", "6", "7"])
    (m,) = ws.grep("hit", context_lines=2, after=0).matches
    assert (m.before, m.after) == (["2", "3"], [])


def test_bad_mode_and_offset_are_clear_errors(tree):
    ws = Workspace(tree({"a.txt": "x\n"}))
    with pytest.raises(InvalidArgumentError, match='mode must be "content"'):
        ws.grep("x", mode="files_with_matches")
    with pytest.raises(InvalidArgumentError, match="offset must be at least 0"):
        ws.grep("x", offset=-1)
    with pytest.raises(InvalidArgumentError, match="offset must be an integer"):
        ws.grep("x", offset="2")  # type: ignore[arg-type]


# -- file types -------------------------------------------------------------------------------

TYPED_TREE = {
    "a.py": "needle\n",
    "stubs/b.pyi": "needle\n",
    "c.rs": "needle\n",
    "web/d.js": "needle\n",
    "web/e.ts": "needle\n",
    "Makefile": "needle\n",
    "docs/f.md": "needle\n",
    "g.txt": "needle\n",
    "CMakeLists.txt": "needle\n",
    "src/h.h": "needle\n",
    "src/i.cpp": "needle\n",
    "j.PY": "needle\n",
}


@pytest.mark.skipif(RG is None, reason="ripgrep (rg) is not installed")
@pytest.mark.parametrize(
    "select, negate",
    [
        (["py"], []),
        (["rust", "js"], []),
        ([], ["py"]),
        (["cpp"], []),
        (["make"], []),
        ([], ["md", "c"]),
    ],
)
def test_types_select_the_files_ripgrep_selects(tree, select, negate):
    root = tree(TYPED_TREE)
    args = [f"-t{t}" for t in select] + [f"-T{t}" for t in negate]
    done = subprocess.run([RG, "--files", *args], cwd=root, capture_output=True, text=True)
    expected = sorted(done.stdout.split())
    assert expected, done.stderr
    ws = Workspace(root)
    globbed = ws.glob("*", type=select or None, type_not=negate or None)
    assert globbed.paths == expected
    grepped = ws.grep("needle", type=select or None, type_not=negate or None, mode="files")
    assert grepped.files == expected


def test_type_names_may_be_comma_separated_and_are_checked(tree):
    ws = Workspace(tree(TYPED_TREE))
    assert ws.glob("*", type="py,rust").paths == ["a.py", "c.rs", "stubs/b.pyi"]
    with pytest.raises(InvalidArgumentError) as err:
        ws.grep("needle", type="pyhton")
    assert "unknown file type" in str(err.value) and "py, python" in str(err.value)
    with pytest.raises(InvalidArgumentError, match="type_not"):
        ws.glob("*", type_not="rustt")
    with pytest.raises(InvalidArgumentError, match="file type such as py"):
        ws.glob("*", type=3)  # type: ignore[arg-type]
    assert "*.py" in Workspace.file_types()["py"]


# -- per-call no_ignore and hidden ------------------------------------------------------------


ignoring = tree_fixture(
    {
        ".gitignore": "build/\ndist/\n*.log\n",
        "src/a.py": "hay\n",
        "build/gen/out.py": "needle\n",
        "dist/bundle.js": "needle\n",
        "src/trace.log": "needle\n",
        ".config/settings.py": "needle\n",
        ".codesiftignore": "secret/\n",
        "secret/key.py": "needle\n",
    }
)


def test_no_ignore_and_hidden_override_the_workspace_per_call(ignoring):
    ws = Workspace(ignoring, hidden=False)
    assert ws.grep("needle").files == []
    assert ws.grep("needle", no_ignore=True).files == [
        "build/gen/out.py",
        "dist/bundle.js",
        "src/trace.log",
    ]
    assert ws.grep("needle", hidden=True).files == [".config/settings.py"]
    both = ws.grep("needle", hidden=True, no_ignore=True)
    assert ".config/settings.py" in both.files and "dist/bundle.js" in both.files
    # Access-ignore files always apply.
    assert not any(f.startswith("secret/") for f in both.files)
    assert ws.glob("*.py", no_ignore=True, hidden=True).paths == [
        ".config/settings.py",
        "build/gen/out.py",
        "src/a.py",
    ]
    # The override is per call: the workspace's own options are unchanged.
    assert ws.grep("needle").files == []
    shown = Workspace(ignoring)  # hidden files shown by default; hidden=False hides them
    assert shown.grep("needle", hidden=False).files == []
    assert shown.grep("needle").files == [".config/settings.py"]


def test_a_call_that_overrides_the_options_bypasses_the_index(ignoring):
    ws = Workspace(ignoring, index=True, index_watch=False)
    ws.index_build()
    plain = ws.grep("needle")
    assert plain.indexed and plain.files == [".config/settings.py"]
    wider = ws.grep("needle", no_ignore=True)
    assert not wider.indexed
    assert "build/gen/out.py" in wider.files, wider.files
    assert ws.grep("needle").indexed


# -- never a silent false negative ------------------------------------------------------------


def test_gitignored_paths_are_counted_with_top_most_examples_and_a_hint(ignoring):
    result = Workspace(ignoring).grep("needle", type="py")
    assert result.files == [".config/settings.py"]
    g = result.skipped.gitignored
    assert g.count == 3 and g.examples == ("build/", "dist/", "src/trace.log"), g
    assert result.hint is not None
    assert (
        "(3 gitignored paths hidden: build/, dist/, src/trace.log — pass no_ignore=true or "
        'path="build")'
    ) == result.hint
    assert result.summary.endswith(result.hint)
    # Following the hint finds what was hidden.
    assert Workspace(ignoring).grep("needle", path="build").files == ["build/gen/out.py"]
    data = result.to_dict()
    assert data["hint"] == result.hint
    assert data["skipped"]["gitignored"] == {
        "count": 3,
        "examples": ["build/", "dist/", "src/trace.log"],
    }


def test_denied_entries_are_counted_but_never_named(ignoring):
    result = Workspace(ignoring).grep("needle")
    assert result.skipped.denied.count == 1
    assert result.skipped.denied.examples == ()
    assert "secret" not in result.summary and "secret" not in str(result.to_dict())


def test_hidden_paths_and_symlinks_are_counted(tree):
    root = tree({"src/a.py": "hay\n", ".github/ci.yml": "needle\n", ".env": "x\n"})
    (root / "lib").symlink_to("src")
    (root / "gone").symlink_to("missing")
    result = Workspace(root, hidden=False).grep("needle")
    assert result.skipped.hidden == SkipCount(2, (".env", ".github/")), result.skipped.hidden
    assert result.skipped.symlink == SkipCount(2, ("gone", "lib"))
    assert 'pass hidden=true or path=".github"' in result.hint
    assert '2 symlinks not followed: gone, lib — pass path="gone"' in result.hint
    # A followed link is not counted as skipped (the dangling one still is).
    followed = Workspace(root, hidden=False, follow_symlinks=True).grep("hay")
    assert followed.files == ["lib/a.py", "src/a.py"]
    assert followed.skipped.symlink == SkipCount(1, ("gone",))
    # Explicitly named, a symlink is searched.
    assert Workspace(root).grep("hay", path="lib").total == 1


def test_binary_and_too_large_files_are_counted(tree):
    root = tree({"a.txt": "needle\n", "blob.bin": b"needle\0\x01\x02", "big.txt": "needle " * 100})
    result = Workspace(root, max_filesize=100).grep("needle")
    assert result.files == ["a.txt"]
    assert result.skipped.binary.count == 1
    assert result.skipped.too_large == SkipCount(1, ("big.txt",))
    assert "1 binary file not searched" in result.hint
    assert "1 file over max_filesize skipped: big.txt" in result.hint


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_entries_are_counted(tree):
    root = tree({"a.txt": "x\n", "locked/x.txt": "needle\n", "secret.txt": "needle\n"})
    (root / "locked").chmod(0)
    (root / "secret.txt").chmod(0)
    try:
        result = Workspace(root).grep("needle")
    finally:
        (root / "locked").chmod(0o755)
        (root / "secret.txt").chmod(0o644)
    assert result.total == 0
    assert result.skipped.unreadable.count == 2, result.skipped.unreadable
    assert "locked/" in result.skipped.unreadable.examples
    assert "2 unreadable paths skipped" in result.hint


def test_the_hint_is_for_searches_that_found_little(ignoring, tree):
    root = tree(
        {".gitignore": "build/\n", "build/x.txt": "n\n"}
        | {f"f{i}.txt": "n\n" for i in range(FEW_HITS)}
    )
    ws = Workspace(root)
    enough = ws.grep("n", max_matches=None)
    assert enough.total == FEW_HITS and enough.skipped.gitignored.count == 1
    assert enough.hint is None and "gitignored" not in enough.summary
    little = ws.grep("n", include="f0.txt")
    assert little.hint is not None and "build/" in little.hint
    # Nothing skipped: no hint however little was found.
    clean = Workspace(tree({"a.txt": "x\n"})).grep("zzz")
    assert clean.total == 0 and clean.hint is None and not clean.skipped.any
    # A truncated search did not find little.
    assert ws.grep("n", max_matches=1).hint is None


def test_glob_results_carry_the_hint_too(ignoring):
    result = Workspace(ignoring).glob("*.js")
    assert result.total == 0
    assert result.skipped.gitignored.examples == ("build/", "dist/", "src/trace.log")
    assert result.hint and result.summary.endswith(result.hint)
    assert Workspace(ignoring).glob("*.js", no_ignore=True).paths == ["dist/bundle.js"]


def test_hint_wording_follows_the_callers_parameter_names():
    skipped = Skipped(
        gitignored=SkipCount(5, ("build/", "dist/", "out/")),
        hidden=SkipCount(1, (".cache/",)),
    )
    default = skipped.hint()
    assert default == (
        "(5 gitignored paths hidden: build/, dist/, out/, ... — pass no_ignore=true or "
        'path="build"; 1 hidden path skipped: .cache/ — pass hidden=true or path=".cache")'
    )
    profile = skipped.hint(no_ignore="respect_git_ignore=false", hidden=None, path=None)
    assert profile == (
        "(5 gitignored paths hidden: build/, dist/, out/, ... — pass "
        "respect_git_ignore=false; 1 hidden path skipped: .cache/)"
    )
    assert Skipped().hint() is None
    # Many ignored files and no directory: no single file is worth suggesting as the path.
    files_only = Skipped(gitignored=SkipCount(40, ("a.pyc", "b.pyc", "c.pyc")))
    assert files_only.hint() == (
        "(40 gitignored paths hidden: a.pyc, b.pyc, c.pyc, ... — pass no_ignore=true)"
    )
    one = Skipped(gitignored=SkipCount(1, ("gen.py",)))
    assert one.hint() == '(1 gitignored path hidden: gen.py — pass no_ignore=true or path="gen.py")'


def test_the_cli_says_what_was_hidden_on_stderr(ignoring):
    env = dict(os.environ, PYTHONPATH=str(Path(__import__("codesift").__file__).parents[1]))
    done = subprocess.run(
        [sys.executable, "-m", "codesift", "grep", "needle", ".", "--root", str(ignoring)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(".config/settings.py:1:needle"), done.stdout
    hint = [line for line in done.stderr.splitlines() if "gitignored" in line]
    assert hint == [
        "codesift: (3 gitignored paths hidden: build/, dist/, src/trace.log — pass --no-ignore "
        'or PATH "build")'
    ], done.stderr
    found = subprocess.run(
        [
            sys.executable,
            "-m",
            "codesift",
            "grep",
            "needle",
            "--no-ignore",
            "--root",
            str(ignoring),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert "gitignored" not in found.stderr and "dist/bundle.js" in found.stdout


# -- list_dir trees ---------------------------------------------------------------------------


@pytest.fixture
def nested(tree) -> Path:
    root = tree(
        {
            "a/x.txt": "",
            "a/b/y.txt": "",
            "a/b/c/z.txt": "",
            "a-b/w.txt": "",
            "top.txt": "",
            "build/out.o": "",
            ".gitignore": "build/\n",
        }
    )
    (root / "link").symlink_to("a")
    return root


def test_list_dir_recursive_is_a_sorted_pre_order_tree(nested):
    ws = Workspace(nested)
    result = ws.list_dir(".", recursive=True)
    assert list(result.entries) == [
        "a-b/",
        "a-b/w.txt",
        "a/",
        "a/b/",
        "a/b/c/",
        "a/b/c/z.txt",
        "a/b/y.txt",
        "a/x.txt",
        "link/",
        ".gitignore",
        "top.txt",
    ]
    assert not result.truncated and result.total == len(result.entries)
    assert result.links == {"link"}
    assert result.tree.splitlines()[:5] == ["a-b/", "  w.txt", "a/", "  b/", "    c/"]
    assert result.skipped.gitignored.examples == ("build/",)
    # Depth 1 is the plain listing.
    flat_listing = ws.list_dir(".")
    assert list(ws.list_dir(".", depth=1).entries) == list(flat_listing.entries)
    assert list(flat_listing.entries) == ["a-b/", "a/", "link/", ".gitignore", "top.txt"]
    two = ws.list_dir("a", depth=2)
    assert list(two.entries) == ["b/", "b/c/", "b/y.txt", "x.txt"]


def test_list_dir_caps_the_whole_tree(nested):
    ws = Workspace(nested)
    capped = ws.list_dir(".", recursive=True, limit=4)
    assert list(capped.entries) == ["a-b/", "a-b/w.txt", "a/", "a/b/"]
    assert capped.truncated
    assert capped.summary.startswith("Listed at least ")
    assert capped.text.endswith("[TRUNCATED: first 4 items]")
    exact = ws.list_dir(".", recursive=True, limit=11)
    assert not exact.truncated
    with pytest.raises(InvalidArgumentError, match="depth must be at least 1"):
        ws.list_dir(".", depth=0)
    assert "build/" in ws.list_dir(".", no_ignore=True).entries


# -- read by start_line / end_line ------------------------------------------------------------


def test_read_start_and_end_lines_are_inclusive(tree):
    root = tree({"a.txt": "".join(f"l{n}\n" for n in range(1, 11))})
    ws = Workspace(root)
    r = ws.read("a.txt", start_line=3, end_line=5)
    assert r.content == "     3\tl3\n     4\tl4\n     5\tl5"
    assert (r.start_line, r.end_line) == (3, 5)
    assert ws.read("a.txt", start_line=4, end_line=4).content == "     4\tl4"
    assert ws.read("a.txt", end_line=2).content == "     1\tl1\n     2\tl2"
    assert ws.read("a.txt", start_line=9).content == "     9\tl9\n    10\tl10"
    past = ws.read("a.txt", start_line=9, end_line=50)
    assert (past.end_line, past.total_lines, past.truncated) == (10, 10, False)
    assert ws.read("a.txt", start_line=2, limit=2).content == "     2\tl2\n     3\tl3"


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"start_line": 5, "end_line": 3}, "end_line 3 is before start_line 5"),
        ({"start_line": 0}, "start_line must be at least 1"),
        ({"end_line": -1}, "end_line must be at least 1"),
        ({"start_line": 11}, r"start_line 11 is past the end of a.txt \(10 lines\)"),
        ({"start_line": 2, "offset": 3}, "either start_line/end_line or offset/limit"),
        ({"start_line": "2"}, "start_line must be an integer"),
    ],
)
def test_bad_line_ranges_are_clear_errors(tree, kwargs, message):
    root = tree({"a.txt": "".join(f"l{n}\n" for n in range(1, 11))})
    with pytest.raises(InvalidArgumentError, match=message):
        Workspace(root).read("a.txt", **kwargs)


def test_a_line_range_is_given_once(tree):
    ws = Workspace(tree({"a.txt": "1\n2\n3\n"}))
    with pytest.raises(InvalidArgumentError, match="give the lines once"):
        ws.read("a.txt:1-2", start_line=1)
    with pytest.raises(NotFoundError):
        ws.read("missing.txt", start_line=1)
