"""The daemon's indexed grep and glob after a rule file changed through another name (a
symlinked `.gitignore` written at its target or replaced by rename, an `.ignore` linked
outside the tree, a hard-linked `.gitignore`, a worktree's main repository's excludes, the
global git excludes): equal to a scan's, field by field, before and after; the daemon's watch
never answers from the rules before the change."""

from __future__ import annotations

from pathlib import Path

import daemon_helpers as helpers
import pytest
from rule_links import HAS_GIT, SCENARIOS, Scenario, environment, glob_views, grep_view

from codesift import Workspace


def assert_like_scan(root: Path, what: str) -> None:
    scan = Workspace(root)
    asked = Workspace(root, index="auto", index_watch=False)
    for name, expected, actual in (
        ("grep", grep_view(scan), grep_view(asked)),
        ("glob", glob_views(scan), glob_views(asked)),
    ):
        assert actual == expected, f"{what}: {name}\nexpected {expected}\nactual   {actual}"


@pytest.fixture
def scenario_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The global git excludes of this test, for the daemon and the clients alike."""
    for name, value in environment(tmp_path).items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    return tmp_path


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_a_rule_file_changed_through_another_name_is_seen(
    scenario_env: Path, scenario: Scenario, socket_dir: Path
) -> None:
    if scenario.needs_git and not HAS_GIT:
        pytest.skip("git is not installed")
    base = scenario_env
    scenario.build(base)
    root = scenario.tree(base)
    Workspace(root, index=True, index_watch=False).index_build()
    process = helpers.run_daemon()
    try:
        helpers.serving(process)
        helpers.prime(root, gitignore=True)
        before = helpers.root_status(root, gitignore=True)
        assert_like_scan(root, "before the change")
        after = helpers.root_status(root, gitignore=True)
        assert before is not None and after is not None
        answered = after["glob_answers"] - before["glob_answers"]
        assert answered == 3, f"the daemon answered {answered} of 3 globs: {after}"
        scenario.change(base)
        assert_like_scan(root, f"{scenario.name} changed")
        assert_like_scan(root, f"{scenario.name} changed (asked again)")
    finally:
        helpers.stop(process)
