"""A random differential of indexed `codesift-rg` searches with a warm daemon against
ripgrep: the random trees and changes of the `--files` differential (files and directories
made, removed, renamed and moved, ignore files written anywhere, the parent directory's
`.gitignore` and the global git excludes changed, contents rewritten, rule files made
symlinks or hard links and rewritten through their other name, a worktree's main
repository's excludes changed) and random command
lines, some of them searching a directory inside the tree. The daemon's kept verdicts of
the rules are served along the way; every answer must equal ripgrep's (codesift-rg's own scan
when no real ripgrep is installed).

Verdicts are kept only for the files holding the pattern, per set of flags: every name where
the linked rule files apply holds it from the start, rewrites through the other name are the
likeliest change, and a run often repeats the previous command line, so that a rewrite the
daemon missed is served stale within each seed (each seed fails on a daemon that watches rule
files only through the tree's directories)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rg_helpers import NEEDS_CODESIFT_RG
from test_codesift_rg_files_differential import NAMES, Tree, differential_env, run_differential

pytestmark = NEEDS_CODESIFT_RG

# Files the changes rewrite hold "changed": the searches look for it, among bulk files that
# do not (the index narrows a search only to a small share of the tree).
ARGVS = [
    ["changed"],
    ["-c", "changed"],
    ["-g", "*.c", "changed"],
    ["--hidden", "-l", "changed"],
    ["-t", "py", "changed"],
    ["changed", "x"],
    ["-g", "!x/**", "chang(ed)?"],
    ["--no-ignore-vcs", "changed"],
    ["-uu", "changed"],
]
SERVED = b"rules: read for 0 of"
#: Where the rule files that are links from the start apply: the tree's `.ignore` (a hard
#: link to a file outside), `x/.gitignore` (a symlink to `shared/rules`) and the worktree
#: `wt`'s main repository's excludes. Every name there holds the searched pattern, so a
#: rewrite of those rules through their other name changes what a search finds.
NEEDLE_DIRS = ["", "x", "x/y", "wt"]
BULK_FILES = 80
#: How likely a run repeats the previous command line: verdicts are kept per set of flags,
#: and a rewrite is caught only by a run with the flags of one before it.
REPEAT = 0.4


class NeedleTree(Tree):
    # Rewrites through the other name (10) weigh more than in the `--files` differential:
    # a search keeps verdicts only for the files holding its pattern, so the rewrite must
    # fall between two runs with the same flags and nothing else moving the tokens.
    KIND_WEIGHTS = [1] * 9 + [1, 8]

    def __init__(self, base: Path, seed: int) -> None:
        super().__init__(base, seed)
        for d in NEEDLE_DIRS:
            (self.root / d).mkdir(parents=True, exist_ok=True)
            for name in NAMES:
                (self.root / d / name).write_text("changed\n")


@pytest.mark.parametrize("seed", [21, 22, 23])
def test_indexed_searches_with_kept_verdicts_equal_ripgrep_under_random_changes(
    tmp_path: Path, seed
) -> None:
    tree = NeedleTree(tmp_path, seed)
    # Enough files without the pattern that the index narrows the search to the others
    # (candidates in more than 60 % of the index's units: the daemon says `scan`).
    (tree.root / "bulk").mkdir()
    for i in range(BULK_FILES):
        (tree.root / "bulk" / f"hay{i}.txt").write_text("hay and straw\n" * 20)
    with differential_env(tmp_path) as env:
        env.rg(tree.root, "force", "changed")
        served = run_differential(env, tree, ARGVS, SERVED, repeat=REPEAT)
    print(f"seed {seed}: {served} answers with every verdict from the daemon")
    assert served > 0, "no run was served verdicts: the differential tested nothing"
