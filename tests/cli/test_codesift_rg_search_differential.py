"""A random differential of indexed `codesift-rg` searches with a warm daemon against
ripgrep: the random trees and changes of the `--files` differential (files and directories
made, removed, renamed and moved, ignore files written anywhere, the parent directory's
`.gitignore` and the global git excludes changed, contents rewritten) and random command
lines, some of them searching a directory inside the tree. The daemon's kept verdicts of
the rules are served along the way; every answer must equal ripgrep's (codesift-rg's own scan
when no real ripgrep is installed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rg_helpers import BIN, Env, real_rgs
from test_codesift_rg_files_differential import Tree

pytestmark = pytest.mark.skipif(not BIN.is_file(), reason="codesift-rg not built")

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


@pytest.mark.parametrize("seed", [21, 22, 23])
def test_indexed_searches_with_kept_verdicts_equal_ripgrep_under_random_changes(
    tmp_path: Path, seed
) -> None:
    (tmp_path / "config" / "git").mkdir(parents=True)
    (tmp_path / "config" / "git" / "ignore").write_text("")
    env = Env(tmp_path)
    env.env.update(XDG_CONFIG_HOME=str(tmp_path / "config"), HOME=str(tmp_path))
    env.env.pop("GIT_CONFIG_GLOBAL", None)
    reals = real_rgs()
    tree = Tree(tmp_path, seed)
    (tree.root / "bulk").mkdir()
    for i in range(8):
        (tree.root / "bulk" / f"hay{i}.txt").write_text("hay and straw\n" * 200)
    served = 0
    differences = []
    with env:
        env.rg(tree.root, "force", "changed")
        for run in range(60):
            # Often no change between runs: the verdicts are served, then must be dropped.
            for _ in range(tree.rnd.choice([0, 0, 1, 2])):
                tree.change()
            argv = tree.rnd.choice(ARGVS)
            if argv[-1] == "x" and not (tree.root / "x").is_dir():
                continue
            ours = env.rg(tree.root, "auto", *argv)
            if reals:
                reference = env.rg(tree.root, "never", *argv, binary=reals[0][0])
            else:
                reference = env.rg(tree.root, "never", *argv)
            served += SERVED in ours.stderr
            got = (ours.returncode, sorted(ours.stdout.splitlines()))
            want = (reference.returncode, sorted(reference.stdout.splitlines()))
            if got != want:
                differences.append(
                    f"run {run} rg {' '.join(argv)} after {tree.log[-4:]}:\n"
                    f"  expected {want}\n  actual   {got}\n  {ours.stderr.decode()[-300:]}"
                )
    print(f"seed {seed}: {served} answers with every verdict from the daemon")
    assert not differences, "\n".join(differences)
    assert served > 0, "no run was served verdicts: the differential tested nothing"
