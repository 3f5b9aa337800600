"""Trees whose rule files change without an event naming a rule file in the tree: a
`.gitignore` that is a symlink (to a file in the tree, or replaced by rename), an `.ignore`
linked to a file outside the tree, a `.gitignore` hard-linked to another file (in the tree or
outside it), a `git worktree` whose main repository's `.git/info/exclude` changes, and git's
global excludes file (`$XDG_CONFIG_HOME/git/ignore`). Each starts with `*.tmp` ignored and
changes (through the other name) to `*.log` ignored: `b.log` goes, `c.tmp` comes."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from codesift import Workspace

BEFORE = "*.tmp\n"
AFTER = "*.log\n"  # the same size: a write only the contents tell apart

FILES = {
    "a.txt": "needle in a\n",
    "b.log": "needle in b\n",
    "c.tmp": "needle in c\n",
    "sub/d.log": "needle in d\n",
    "sub/e.tmp": "needle in e\n",
}

#: Files without the pattern: the index answers only a search whose candidates are few.
FILLER = {f"filler/f{i}.txt": "nothing to see here\n" * 20 for i in range(30)}

HAS_GIT = shutil.which("git") is not None


def git(cwd: Path, *args: str) -> None:
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.com",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.com",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
    )
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def write_files(root: Path, with_git_dir: bool = True) -> None:
    for rel, text in {**FILES, **FILLER}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    if with_git_dir:
        # ripgrep applies git's rules inside a repository only.
        (root / ".git").mkdir(exist_ok=True)


def write_in_place(path: Path, text: str) -> None:
    """Rewrites `path` in place (the same inode: every hard link sees it)."""
    with open(path, "r+") as f:
        f.truncate(0)
        f.write(text)


@dataclass(frozen=True)
class Scenario:
    name: str
    #: Builds the tree under `base` (the tree is `base / "tree"`).
    build: Callable[[Path], None]
    #: Changes the rules through the other name.
    change: Callable[[Path], None]
    needs_git: bool = False

    def tree(self, base: Path) -> Path:
        return base / "tree"


def _linked_rules(
    base: Path, rules: str, link: Callable[[str | Path, Path], None], name: str, target: str = ""
) -> None:
    """The tree with `name` made by `link` (os.symlink or os.link) to the rules `base / rules`
    (`target` is the symlink's text when it is not that absolute path)."""
    tree = base / "tree"
    write_files(tree)
    (base / rules).parent.mkdir()
    (base / rules).write_text(BEFORE)
    link(target or base / rules, tree / name)


def _linked(
    name: str,
    rules: str,
    link: Callable[[str | Path, Path], None],
    link_name: str,
    target: str = "",
) -> Scenario:
    """A scenario whose rules `base / rules` are read through the link `link_name`, and
    change in place."""
    return Scenario(
        name,
        lambda b: _linked_rules(b, rules, link, link_name, target),
        lambda b: write_in_place(b / rules, AFTER),
    )


def _replace_by_rename(base: Path) -> None:
    fresh = base / "tree" / "shared" / "rules.new"
    fresh.write_text(AFTER)
    os.replace(fresh, base / "tree" / "shared" / "rules")


def _worktree(base: Path) -> None:
    main = base / "main"
    main.mkdir()
    git(main, "init", "-q")
    (main / "README").write_text("main\n")
    git(main, "add", "README")
    git(main, "commit", "-q", "-m", "first")
    git(main, "worktree", "add", "-q", str(base / "tree"))
    (main / ".git" / "info").mkdir(exist_ok=True)
    (main / ".git" / "info" / "exclude").write_text(BEFORE)
    write_files(base / "tree", with_git_dir=False)


def _global_excludes(base: Path) -> None:
    write_files(base / "tree")
    (base / "config" / "git").mkdir(parents=True)
    (base / "config" / "git" / "ignore").write_text(BEFORE)


SCENARIOS = [
    _linked("symlink-in-tree", "tree/shared/rules", os.symlink, ".gitignore", "shared/rules"),
    Scenario(
        "symlink-target-replaced",
        lambda b: _linked_rules(b, "tree/shared/rules", os.symlink, ".gitignore", "shared/rules"),
        _replace_by_rename,
    ),
    _linked("ignore-linked-outside", "outside/rules", os.symlink, ".ignore"),
    _linked("hard-link-in-tree", "tree/shared/rules", os.link, ".gitignore"),
    _linked("hard-link-outside", "outside/rules", os.link, ".gitignore"),
    Scenario(
        "worktree-main-exclude",
        _worktree,
        lambda b: write_in_place(b / "main" / ".git" / "info" / "exclude", AFTER),
        needs_git=True,
    ),
    Scenario(
        "global-excludes",
        _global_excludes,
        lambda b: write_in_place(b / "config" / "git" / "ignore", AFTER),
    ),
]


def environment(base: Path) -> dict[str, str]:
    """What the processes of a scenario run with: git's global excludes under `base`."""
    return {"XDG_CONFIG_HOME": str(base / "config"), "HOME": str(base / "home")}


#: Fields only an indexed answer has (left out when comparing with a scan).
INDEX_ONLY = ("indexed", "files_searched")


def grep_view(ws: Workspace) -> dict:
    """A grep's answer as a scan and an index must both give it."""
    d = ws.grep("needle", max_matches=None).to_dict()
    for key in INDEX_ONLY:
        d.pop(key)
    for match in d["matches"]:
        match.pop("id")
    return d


def glob_views(ws: Workspace) -> list[dict]:
    """Globs over the scenarios' files, as dicts."""
    return [ws.glob(pattern, limit=10**6).to_dict() for pattern in ("**", "*.log", "**/*.tmp")]
