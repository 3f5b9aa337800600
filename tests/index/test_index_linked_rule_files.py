"""An indexed search whose watch answers (in-process, no daemon) after a rule file changed
through another name (a symlinked `.gitignore` written at its target or replaced by rename,
an `.ignore` linked outside the tree, a hard-linked `.gitignore`, a worktree's main
repository's excludes, the global git excludes): grep and glob equal a scan's, field by field,
before and after; the watch never answers from the rules before the change."""

from __future__ import annotations

from pathlib import Path

import pytest
from rule_links import HAS_GIT, SCENARIOS, Scenario, environment, glob_views, grep_view

from codesift import Workspace


def assert_like_scan(watched: Workspace, root: Path, what: str) -> None:
    scan = Workspace(root)
    for name, expected, actual in (
        ("grep", grep_view(scan), grep_view(watched)),
        ("glob", glob_views(scan), glob_views(watched)),
    ):
        assert actual == expected, f"{what}: {name}\nexpected {expected}\nactual   {actual}"


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_a_rule_file_changed_through_another_name_is_seen(
    tmp_path: Path, scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    if scenario.needs_git and not HAS_GIT:
        pytest.skip("git is not installed")
    for name, value in environment(tmp_path).items():
        monkeypatch.setenv(name, value)
    scenario.build(tmp_path)
    root = scenario.tree(tmp_path)
    watched = Workspace(root, index=True)
    watched.index_build()
    watched.grep("warm_up_the_watch")
    assert watched.index_status()["watching"], watched.index_status()
    assert watched.grep("needle").indexed, "the watch did not answer"
    assert_like_scan(watched, root, "before the change")
    scenario.change(tmp_path)
    assert_like_scan(watched, root, f"{scenario.name} changed")
    assert_like_scan(watched, root, f"{scenario.name} changed (asked again)")
