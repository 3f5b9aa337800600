"""What an indexed search selects when its inotify watch answers (no walk): the same files and
the same summary as a scan (`Workspace(index=False)`), field by field — excludes that prune a
directory, explicit paths inside ignored directories, repositories and `.git/info/exclude`
files appearing after the build, and the counts of what was passed over (`ignored`,
`skipped`, the hint)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codesift import Workspace

#: Fields an indexed search may report differently by design: whether the index chose the
#: files, and how many files it read to verify its candidates.
INDEX_ONLY = ("indexed", "files_searched")


#: Files without the pattern, so that it is selective: the index answers only a search whose
#: candidates are a small part of the tree.
FILLER = {f"filler/f{i}.txt": "nothing to see here\n" * 20 for i in range(30)}


def filled(tree, files: dict) -> Path:
    return tree({**FILLER, **files})


def grep_view(result) -> dict:
    d = result.to_dict()
    for key in INDEX_ONLY:
        d.pop(key)
    for match in d["matches"]:
        match.pop("id")
    return d


def glob_view(result) -> dict:
    return result.to_dict()


def workspaces(root: Path, **options) -> dict[str, Workspace]:
    """An indexed workspace of each kind (built, the watch caught up by a first search)."""
    made = {
        "watched": Workspace(root, index=True, **options),
        "strict": Workspace(root, index=True, strict=True, **options),
        "unwatched": Workspace(root, index=True, index_watch=False, **options),
    }
    made["watched"].index_build()
    for ws in made.values():
        ws.grep("warm_up_the_watch")
    assert made["watched"].index_status()["watching"], made["watched"].index_status()
    return made


def assert_watched_finds(made, expected: list[str], **call) -> None:
    """The watched workspace's grep for "needle" (all hits) finds the files `expected`."""
    found = made["watched"].grep("needle", max_matches=None, **call).files
    assert found == expected, f"expected {expected}, found {found}"


def assert_grep_like_scan(made, root: Path, pattern: str, options=None, **call) -> None:
    scanned = Workspace(root, **(options or {})).grep(pattern, max_matches=None, **call)
    expected = grep_view(scanned)
    for kind, ws in made.items():
        result = ws.grep(pattern, max_matches=None, **call)
        actual = grep_view(result)
        assert actual == expected, (
            f"{kind} grep {pattern!r} {call}\nexpected {expected}\nactual   {actual}"
        )
        assert result.summary == scanned.summary, (kind, result.summary, scanned.summary)
        assert result.indexed, f"{kind}: the index did not answer {pattern!r} {call}"


def assert_glob_like_scan(made, root: Path, pattern: str, options=None, **call) -> None:
    walked = Workspace(root, **(options or {})).glob(pattern, limit=10**6, **call)
    expected = glob_view(walked)
    for kind, ws in made.items():
        actual = glob_view(ws.glob(pattern, limit=10**6, **call))
        assert actual == expected, (
            f"{kind} glob {pattern!r} {call}\nexpected {expected}\nactual   {actual}"
        )


def test_an_exclude_that_matches_a_directory_prunes_everything_below_it(tree):
    root = filled(
        tree,
        {
            "src/a.txt": "needle\n",
            "vendor/b.txt": "needle\n",
            "vendor/deep/c.txt": "needle\n",
            "src/gen/d.txt": "needle\n",
            ".gitignore": "*.log\n",
            "vendor/x.log": "needle\n",
        },
    )
    made = workspaces(root)
    for exclude in ["vendor", "gen", "vendor/deep", "**/deep", "src/*"]:
        assert_grep_like_scan(made, root, "needle", exclude=exclude)
    # Changed files below an excluded directory are pruned too.
    (root / "vendor/new.txt").write_text("needle\n")
    (root / "vendor/deeper/more").mkdir(parents=True)
    (root / "vendor/deeper/more/e.txt").write_text("needle\n")
    (root / "vendor/deeper/y.log").write_text("needle\n")
    for exclude in ["vendor", "deeper", "more"]:
        assert_grep_like_scan(made, root, "needle", exclude=exclude)
    assert_watched_finds(made, ["src/a.txt", "src/gen/d.txt"], exclude="vendor")


def test_an_explicit_path_inside_an_ignored_directory_is_searched(tree):
    root = filled(
        tree,
        {
            ".gitignore": "build/\n",
            "build/out.txt": "needle\n",
            "build/sub/deep.txt": "needle\n",
            "src/a.txt": "needle\n",
        },
    )
    made = workspaces(root)
    for path in ["build", "build/sub"]:
        assert_grep_like_scan(made, root, "needle", path=path)
        assert_glob_like_scan(made, root, "**", path=path)
        assert_glob_like_scan(made, root, "*.txt", path=path)
    assert_watched_finds(made, ["build/out.txt", "build/sub/deep.txt"], path="build")
    # And the watch still answers afterwards, with later changes seen.
    (root / "src/b.txt").write_text("needle\n")
    assert_grep_like_scan(made, root, "needle")
    assert made["watched"].index_status()["watching"]


def test_a_search_path_inside_a_new_directory_is_searched(tree):
    """Only the outermost new directory raises an event: a search path below it is new to
    the watch and is walked."""
    root = filled(tree, {"other.txt": "x\n"})
    made = workspaces(root)
    (root / "pkg/sub").mkdir(parents=True)
    (root / "pkg/sub/b.txt").write_text("needle\n")
    assert_grep_like_scan(made, root, "needle", path="pkg/sub")
    assert_glob_like_scan(made, root, "*.txt", path="pkg/sub")
    assert_watched_finds(made, ["pkg/sub/b.txt"], path="pkg/sub")


@pytest.mark.parametrize("git_dir", [True, False], ids=["git-dir-without-info", "no-git"])
def test_an_exclude_file_created_after_the_build_is_seen(tree, git_dir):
    files = {"a.log": "needle\n", "b.txt": "needle\n", "sub/c.log": "needle\n"}
    if git_dir:
        files[".git/HEAD"] = "ref: refs/heads/main\n"
    root = filled(tree, files)
    made = workspaces(root)
    assert_grep_like_scan(made, root, "needle")
    (root / ".git/info").mkdir(parents=True)
    (root / ".git/info/exclude").write_text("*.log\n")
    assert_grep_like_scan(made, root, "needle")
    assert_glob_like_scan(made, root, "**")
    assert_watched_finds(made, ["b.txt"])


@pytest.mark.parametrize("kind", ["directory", "file"])
def test_a_nested_repository_appearing_in_the_tree_is_seen(tree, kind):
    """The root's `.gitignore` stops at a nested repository: files it hid there show."""
    root = filled(
        tree,
        {
            ".gitignore": "*.log\n",
            "a.log": "needle\n",
            "lib/b.log": "needle\n",
            "lib/c.txt": "needle\n",
        },
    )
    made = workspaces(root)
    assert_watched_finds(made, ["lib/c.txt"])
    if kind == "directory":
        (root / "lib/.git").mkdir()
    else:
        (root / "lib/.git").write_text("gitdir: ../elsewhere\n")
    assert_grep_like_scan(made, root, "needle")
    assert_glob_like_scan(made, root, "**")
    assert_watched_finds(made, ["lib/b.log", "lib/c.txt"])


def test_a_nested_repositorys_own_exclude_file_is_seen(tree):
    root = filled(
        tree,
        {
            "lib/.git/HEAD": "ref: refs/heads/main\n",
            "lib/.git/info/exclude": "",
            "lib/a.txt": "needle\n",
            "other/.git/HEAD": "ref: refs/heads/main\n",
            "other/b.txt": "needle\n",
            "c.txt": "needle\n",
        },
    )
    made = workspaces(root)
    (root / "lib/.git/info/exclude").write_text("a.txt\n")
    assert_grep_like_scan(made, root, "needle")
    (root / "other/.git/info").mkdir()
    (root / "other/.git/info/exclude").write_text("*.txt\n")
    assert_grep_like_scan(made, root, "needle")
    assert_glob_like_scan(made, root, "**")
    assert_watched_finds(made, ["c.txt"])


SUMMARY_TREE = {
    ".gitignore": "build/\n*.log\n",
    ".env": "needle\n",
    "build/out.txt": "needle\n",
    "a.log": "needle\n",
    "big.txt": "needle " + "x" * 200 + "\n",
    "src/a.txt": "needle\n",
    "src/b.log": "needle\n",
    "src/.hidden/c.txt": "needle\n",
    "docs/d.txt": "nothing\n",
    "bin.dat": b"needle\x00binary\n",
}


def test_watched_answers_report_what_was_passed_over_as_a_scan_does(tree):
    root = filled(tree, SUMMARY_TREE)
    os.symlink("src", root / "link")
    options = {"hidden": False, "max_filesize": 100}
    made = workspaces(root, **options)
    scanned = Workspace(root, **options).grep("needle", max_matches=None)
    assert scanned.ignored == 3 and scanned.hint, scanned.to_dict()
    calls = [
        {},
        {"path": "src"},
        {"path": "docs"},
        {"exclude": "src"},
        {"include": "*.txt"},
        {"mode": "files"},
        {"mode": "count"},
    ]
    for call in calls:
        assert_grep_like_scan(made, root, "needle", options, **call)
    for pattern, path in [("**", "."), ("*.txt", "src"), ("src/**", "."), ("**/*.log", ".")]:
        assert_glob_like_scan(made, root, pattern, options, path=path)
    # Entries passed over that appear, change or go after the watch caught up.
    (root / "new.log").write_text("needle\n")
    (root / ".newhidden").write_text("needle\n")
    (root / "src/grown.txt").write_text("needle " + "y" * 300 + "\n")
    (root / "gen/deep").mkdir(parents=True)
    (root / "gen/deep/e.log").write_text("needle\n")
    (root / "gen/.cache").mkdir()
    os.symlink("../docs", root / "gen/link")
    (root / "a.log").unlink()
    (root / "big.txt").write_text("needle, small now\n")
    for call in calls:
        assert_grep_like_scan(made, root, "needle", options, **call)
    assert_grep_like_scan(made, root, "needle", options, path="gen")
    for pattern, path in [("**", "."), ("**", "gen"), ("*.txt", "src"), ("gen/**", ".")]:
        assert_glob_like_scan(made, root, pattern, options, path=path)
    assert made["watched"].index_status()["watching"]


def test_a_cancelled_catch_up_leaves_the_watch_to_catch_up_again(tree):
    """A search cancelled while its walk catches the watch up saw (and watched) nothing: the
    next search walks again, so files created later are found."""
    from codesift import CancelToken
    from codesift.errors import CancelledError

    root = filled(tree, {"a.txt": "needle\n"})
    ws = Workspace(root, index=True)
    ws.index_build()
    token = CancelToken()
    token.cancel()
    with pytest.raises(CancelledError):
        ws.grep("needle", cancel=token)
    assert not ws.index_status()["watching"], ws.index_status()
    assert ws.grep("needle").files == ["a.txt"]
    (root / "b.txt").write_text("needle\n")
    assert_grep_like_scan({"watched": ws}, root, "needle")
