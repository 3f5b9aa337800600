"""`codesift-rg` through the index (`force` and `auto`) after a rule file changed through
another name: a `.gitignore` symlinked to a file of the tree (written in place, or replaced by
rename), an `.ignore` linked to a file outside the tree, a hard-linked `.gitignore` (its
other name in the tree or outside it), a worktree's main repository's `.git/info/exclude`, the
global git excludes file. The kept verdicts and `--files` lists are of the rules before the
change: each answer (`-l`, `-c`, `--files`) must equal a scan and the real ripgrep's after
it, never the kept one."""

from __future__ import annotations

from pathlib import Path

import pytest
from rg_helpers import NEEDS_CODESIFT_RG, Env, index_agrees
from rule_links import HAS_GIT, SCENARIOS, Scenario, environment

pytestmark = NEEDS_CODESIFT_RG

QUERIES = [
    ("--sort", "path", "-l", "needle"),
    ("--sort", "path", "-c", "needle"),
    ("--sort", "path", "--files"),
]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_a_rule_file_changed_through_another_name_is_seen(
    tmp_path: Path, scenario: Scenario
) -> None:
    if scenario.needs_git and not HAS_GIT:
        pytest.skip("git is not installed")
    scenario.build(tmp_path)
    tree = scenario.tree(tmp_path)
    env = Env(tmp_path)
    env.env.update(environment(tmp_path))
    env.env.pop("GIT_CONFIG_GLOBAL", None)
    with env:
        for args in QUERIES:
            # The first runs index the tree and keep verdicts and lists; the next use them.
            for run in ("first", "second"):
                index_agrees(env, tree, args, f"before the change ({run} run)")
        indexed = env.rg(tree, "force", "-l", "needle")
        assert b"files from the index" in indexed.stderr, indexed.stderr.decode()
        scenario.change(tmp_path)
        for args in QUERIES:
            index_agrees(env, tree, args, f"{scenario.name} changed")
            index_agrees(env, tree, args, f"{scenario.name} changed (again)")
