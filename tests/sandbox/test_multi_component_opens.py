"""Rule files reached through a path of several components (`.git/info/exclude`) are opened
through the root's resolver: a symlink anywhere along the path that leads outside the root is
not followed (`O_NOFOLLOW` alone guards only the last component)."""

from __future__ import annotations

import os
from pathlib import Path

from codesift import Workspace

FILES = {"a.txt": "needle a\n", "local.txt": "needle local\n"}


def _found(root: Path) -> list[str]:
    result = Workspace(root).grep("needle", literal=True)
    return sorted(m.file for m in result.matches)


def test_git_info_exclude_in_the_tree_applies(tree):
    root = tree(FILES)
    (root / ".git" / "info").mkdir(parents=True)
    (root / ".git" / "info" / "exclude").write_text("local.txt\n")
    found = _found(root)
    assert found == ["a.txt"], f"expected the in-tree exclude to hide local.txt, got {found}"


def test_git_dir_symlinked_outside_the_root_is_not_read(tree, tmp_path):
    root = tree(FILES)
    outside = tmp_path / "elsewhere"
    (outside / "info").mkdir(parents=True)
    (outside / "info" / "exclude").write_text("local.txt\n")
    os.symlink(outside, root / ".git")
    found = _found(root)
    assert found == ["a.txt", "local.txt"], (
        f"expected the exclude file outside the root to be ignored (both files found), got {found}"
    )


def test_git_info_symlinked_outside_the_root_is_not_read(tree, tmp_path):
    root = tree(FILES)
    outside = tmp_path / "info-elsewhere"
    outside.mkdir()
    (outside / "exclude").write_text("local.txt\n")
    (root / ".git").mkdir()
    os.symlink(outside, root / ".git" / "info")
    found = _found(root)
    assert found == ["a.txt", "local.txt"], (
        f"expected the exclude file outside the root to be ignored (both files found), got {found}"
    )


def test_git_dir_symlinked_inside_the_root_is_followed(tree):
    root = tree(FILES)
    (root / "gitdir" / "info").mkdir(parents=True)
    (root / "gitdir" / "info" / "exclude").write_text("local.txt\n")
    os.symlink("gitdir", root / ".git")
    found = _found(root)
    assert found == ["a.txt"], (
        f"expected the exclude file reached through an in-root link to apply, got {found}"
    )


def test_nested_repository_git_dir_symlinked_outside_is_not_read(tree, tmp_path):
    root = tree({"sub/a.txt": "needle a\n", "sub/local.txt": "needle local\n"})
    outside = tmp_path / "nested-elsewhere"
    (outside / "info").mkdir(parents=True)
    (outside / "info" / "exclude").write_text("local.txt\n")
    os.symlink(outside, root / "sub" / ".git")
    found = _found(root)
    assert found == ["sub/a.txt", "sub/local.txt"], (
        f"expected the nested exclude file outside the root to be ignored, got {found}"
    )
