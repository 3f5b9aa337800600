"""A random differential of `codesift-rg --files` with a warm daemon against ripgrep: random
trees, random changes between runs (files and directories made, removed, renamed and moved,
ignore files written anywhere, the parent directory's `.gitignore` and the global git
excludes changed, contents rewritten, rule files made links — symlinks and hard links to a
file of the tree or outside it — and rewritten through their other name, in place or by
rename, a worktree's main repository's excludes changed) and random command lines. The
daemon's kept lists are served along the way; every answer must equal ripgrep's
(codesift-rg's own scan when no real ripgrep is installed)."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from rg_helpers import NEEDS_CODESIFT_RG, Env, real_rgs

pytestmark = NEEDS_CODESIFT_RG

NAMES = ["a", "b", "c.c", "d.py", ".h", "e.log", "f.txt"]
DIRS = ["", "x", "x/y", "z", ".hid", "x/y/w", "wt"]
ARGVS = [
    ["--files"],
    ["--files", "-g", "*.c"],
    ["--files", "--hidden", "-g", "!.git"],
    ["--files", "-t", "py"],
    ["--files", "--sort", "path"],
    ["--files", "x"],
    ["--files", "-g", "!x/**"],
    ["--files", "--no-ignore-vcs"],
]
RULES = ["*.log", "*.c", "y/", "f.txt", "!c.c", "a", "*.py"]


class Tree:
    #: How likely each kind of `change` is. Rewrites through another name (10) are the
    #: likeliest: the kept answers they outdate are caught only when nothing else moved the
    #: daemon's tokens since.
    KIND_WEIGHTS = [1] * 9 + [1, 4]

    def __init__(self, base: Path, seed: int) -> None:
        self.base = base
        self.root = base / "parent" / "tree"
        self.root.mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(self.root)], check=True)
        # Files rule files may come to be links to (`change` kind 9), and a worktree `wt`
        # of a repository outside the tree: ripgrep reads its main repository's excludes.
        (base / "outside").mkdir()
        (base / "outside" / "rules").write_text("")
        (self.root / "shared").mkdir()
        (self.root / "shared" / "rules").write_text("")
        main_git = base / "main" / ".git"
        (main_git / "worktrees" / "wt").mkdir(parents=True)
        (main_git / "info").mkdir()
        (main_git / "info" / "exclude").write_text("")
        (main_git / "worktrees" / "wt" / "commondir").write_text("../..\n")
        (self.root / "wt").mkdir()
        (self.root / "wt" / ".git").write_text(f"gitdir: {main_git / 'worktrees' / 'wt'}\n")
        # Two rule files that are links from the start: a hard link to a file outside the
        # tree, a symlink to a file of the tree.
        os.link(base / "outside" / "rules", self.root / ".ignore")
        (self.root / "x").mkdir()
        os.symlink(self.root / "shared" / "rules", self.root / "x" / ".gitignore")
        # Files of every name where the linked rules and the worktree's excludes apply, so
        # that a rewrite through another name changes what ripgrep lists.
        for d in ("", "x", "wt"):
            for name in NAMES:
                (self.root / d / name).write_text("x\n")
        self.link_targets = [
            base / "outside" / "rules",
            self.root / "shared" / "rules",
            main_git / "info" / "exclude",
        ]
        self.rnd = random.Random(seed)
        self.log: list[str] = []

    def path(self) -> Path:
        return self.root / self.rnd.choice(DIRS) / self.rnd.choice(NAMES)

    def change(self) -> None:
        rnd, root, p = self.rnd, self.root, self.path()
        kind = rnd.choices(range(11), weights=self.KIND_WEIGHTS)[0]
        self.log.append(f"{kind} {p.relative_to(root)}")
        try:
            if kind == 0:
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text("x\n")
            elif kind == 1 and p.is_file():
                p.unlink()
            elif kind == 2 and p.is_file():
                q = self.path()
                q.parent.mkdir(parents=True, exist_ok=True)
                os.rename(p, q)
            elif kind == 3:
                d = root / rnd.choice(DIRS)
                d.mkdir(parents=True, exist_ok=True)
                name = rnd.choice([".gitignore", ".rgignore", ".ignore"])
                (d / name).write_text("\n".join(rnd.sample(RULES, 2)) + "\n")
            elif kind == 4:
                d = root / rnd.choice(DIRS)
                if d != root and d.is_dir() and rnd.random() < 0.3:
                    shutil.rmtree(d)
            elif kind == 5 and p.is_file():
                p.write_text("changed\n" * rnd.randrange(3))
            elif kind == 6:
                parent_rules = self.base / "parent" / ".gitignore"
                parent_rules.write_text(rnd.choice(["", "*.txt\n", "z/\n"]))
            elif kind == 7:
                ignore = self.base / "config" / "git" / "ignore"
                ignore.write_text(rnd.choice(["", "*.py\n", "b\n"]))
            elif kind == 8:
                d = root / rnd.choice(DIRS)
                q = root / rnd.choice(["moved", "x/moved", "z2"])
                if d != root and d.is_dir() and not q.exists() and not q.is_relative_to(d):
                    os.rename(d, q)
            elif kind == 9:
                # A rule file made a link to a file of the tree or outside it.
                d = root / rnd.choice(DIRS)
                d.mkdir(parents=True, exist_ok=True)
                rule = d / rnd.choice([".gitignore", ".rgignore", ".ignore"])
                if rule.is_dir() and not rule.is_symlink():
                    return
                rule.unlink(missing_ok=True)
                target = rnd.choice(self.link_targets[:2])
                if rnd.random() < 0.5:
                    os.symlink(target, rule)
                else:
                    os.link(target, rule)
                self.log[-1] += f" -> {target}"
            elif kind == 10:
                # The rules rewritten through the other name: in place, or replaced by rename.
                target = rnd.choice(self.link_targets)
                text = "\n".join(rnd.sample(RULES, 2)) + "\n"
                self.log[-1] += f" rewrote {target}"
                if rnd.random() < 0.3:
                    fresh = target.with_name("rules.new")
                    fresh.write_text(text)
                    os.replace(fresh, target)
                else:
                    with open(target, "r+") as f:
                        f.truncate(0)
                        f.write(text)
        except OSError:
            pass


def differential_env(tmp_path: Path) -> Env:
    """A daemon of the test's own, whose global git excludes (found through XDG_CONFIG_HOME)
    are the test's: `Tree.change` rewrites them."""
    (tmp_path / "config" / "git").mkdir(parents=True)
    (tmp_path / "config" / "git" / "ignore").write_text("")
    env = Env(tmp_path)
    env.env.update(XDG_CONFIG_HOME=str(tmp_path / "config"), HOME=str(tmp_path))
    env.env.pop("GIT_CONFIG_GLOBAL", None)
    return env


def run_differential(
    env: Env, tree: Tree, argvs: list[list[str]], marker: bytes, repeat: float = 0.0
) -> int:
    """60 runs of random command lines from `argvs` with random changes between them, each
    against the reference; returns how many runs printed `marker` (served from the daemon's
    keeping) and fails with every difference found. `repeat`: how likely a run repeats the
    previous run's command line (what the daemon kept for it is served, or must be dropped)."""
    reals = real_rgs()
    served = 0
    differences = []
    compared = 0
    argv: list[str] = []
    for run in range(60):
        # Often no change between runs: what the daemon keeps is served, then must be dropped.
        for _ in range(tree.rnd.choice([0, 0, 0, 1, 2])):
            tree.change()
        if not (repeat and argv and tree.rnd.random() < repeat):
            argv = tree.rnd.choice(argvs)
        if argv[-1] == "x" and not (tree.root / "x").is_dir():
            continue
        ours = env.rg(tree.root, "auto", *argv)
        if reals:
            reference = env.rg(tree.root, "never", *argv, binary=reals[0][0])
        else:
            reference = env.rg(tree.root, "never", *argv)
        compared += 1
        served += marker in ours.stderr
        got = (ours.returncode, sorted(ours.stdout.splitlines()))
        want = (reference.returncode, sorted(reference.stdout.splitlines()))
        if got != want:
            differences.append(
                f"run {run} rg {' '.join(argv)} after {tree.log[-4:]}:\n"
                f"  expected {want}\n  actual   {got}\n  {ours.stderr.decode()[-300:]}"
            )
    print(f"{compared} runs compared, {served} of them served, {len(differences)} differ")
    assert not differences, "\n".join(differences)
    return served


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_files_with_kept_lists_equal_ripgrep_under_random_changes(tmp_path: Path, seed) -> None:
    tree = Tree(tmp_path, seed)
    with differential_env(tmp_path) as env:
        env.rg(tree.root, "force", "--files")
        kept = run_differential(env, tree, ARGVS, b"from the daemon's list")
    print(f"seed {seed}: {kept} answers from kept lists")
    assert kept > 0, "no run was answered from a kept list: the differential tested nothing"
