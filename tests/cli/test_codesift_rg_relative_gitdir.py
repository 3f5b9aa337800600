"""`codesift-rg` through the index in a worktree whose `.git` names its git directory by a
relative path, searched from another working directory. git reads that path relative to the
directory holding `.git`; ripgrep (the `ignore` crate) opens it as it is, relative to the
process's working directory, and applies the `info/exclude` of the common directory it finds
there. The daemon's watch serves every client whatever its working directory, so it cannot
know which excludes ripgrep reads: a change to them must never leave a kept answer stale."""

from __future__ import annotations

from pathlib import Path

from rg_helpers import NEEDS_CODESIFT_RG, Env, index_agrees
from rule_links import AFTER, BEFORE, environment, write_files, write_in_place

pytestmark = NEEDS_CODESIFT_RG

QUERIES = [
    ("--sort", "path", "-l", "needle"),
    ("--sort", "path", "-c", "needle"),
    ("--sort", "path", "--files"),
]
GITDIR = "../main/.git/worktrees/wt"


def repository(main: Path, exclude: str) -> None:
    """A main repository `main` with the worktree git directory `wt` and the excludes
    `exclude`."""
    (main / ".git" / "worktrees" / "wt").mkdir(parents=True)
    (main / ".git" / "worktrees" / "wt" / "commondir").write_text("../..\n")
    (main / ".git" / "info").mkdir()
    (main / ".git" / "info" / "exclude").write_text(exclude)


def test_excludes_found_through_a_relative_gitdir_from_another_cwd(tmp_path: Path) -> None:
    # The worktree `tree` names `../main/.git/worktrees/wt`: git's is `main`, beside it;
    # from the working directory `away/deeper` ripgrep reads `away/main`'s excludes.
    tree = tmp_path / "tree"
    write_files(tree, with_git_dir=False)
    (tree / ".git").write_text(f"gitdir: {GITDIR}\n")
    repository(tmp_path / "main", "")
    repository(tmp_path / "away" / "main", BEFORE)
    cwd = tmp_path / "away" / "deeper"
    cwd.mkdir()
    env = Env(tmp_path)
    env.env.update(environment(tmp_path))
    env.env.pop("GIT_CONFIG_GLOBAL", None)
    searched = ("../../tree",)
    with env:
        for args in QUERIES:
            # The first runs index the tree and keep verdicts and lists; the next use them.
            for run in ("first", "second"):
                out = index_agrees(env, cwd, args + searched, f"before the change ({run} run)")
                assert b"c.tmp" not in out, f"ripgrep did not read away/main's excludes: {out!r}"
        indexed = env.rg(cwd, "force", "-l", "needle", *searched)
        assert b"files from the index" in indexed.stderr, indexed.stderr.decode()
        write_in_place(tmp_path / "away" / "main" / ".git" / "info" / "exclude", AFTER)
        for args in QUERIES:
            for run in ("first", "second"):
                out = index_agrees(
                    env, cwd, args + searched, f"away/main's excludes changed ({run})"
                )
                assert b"c.tmp" in out and b"b.log" not in out, out
