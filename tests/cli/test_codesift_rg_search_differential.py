"""A random differential of indexed `codesift-rg` searches with a warm daemon against
ripgrep: the random trees and changes of the `--files` differential (files and directories
made, removed, renamed and moved, ignore files written anywhere, the parent directory's
`.gitignore` and the global git excludes changed, contents rewritten, rule files made
symlinks or hard links and rewritten through their other name, a worktree's main
repository's excludes changed) and random command
lines, some of them searching a directory inside the tree. The daemon's kept verdicts of
the rules are served along the way; every answer must equal ripgrep's (codesift-rg's own scan
when no real ripgrep is installed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rg_helpers import BIN
from test_codesift_rg_files_differential import Tree, differential_env, run_differential

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
    tree = Tree(tmp_path, seed)
    (tree.root / "bulk").mkdir()
    for i in range(8):
        (tree.root / "bulk" / f"hay{i}.txt").write_text("hay and straw\n" * 200)
    with differential_env(tmp_path) as env:
        env.rg(tree.root, "force", "changed")
        served = run_differential(env, tree, ARGVS, SERVED)
    print(f"seed {seed}: {served} answers with every verdict from the daemon")
    assert served > 0, "no run was served verdicts: the differential tested nothing"
