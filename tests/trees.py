"""Small trees written from a mapping of relative paths to contents (text or bytes)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

TreeSpec = Mapping[str, str | bytes]


def write_tree(root: Path, files: TreeSpec) -> Path:
    """Creates `files` (relative path -> text or bytes) under `root`; returns `root`."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_bytes(content.encode("utf-8"))
    return root


def tree_fixture(files: TreeSpec, links: Mapping[str, str] | None = None) -> Callable[..., Path]:
    """A fixture (`name = tree_fixture({...})`) that writes `files` in a fresh directory (the
    `tree` fixture's) and returns its root; then makes each of `links` (its path -> the
    target it points to, as `os.symlink` takes them)."""

    @pytest.fixture
    def made(tree: Callable[[TreeSpec], Path]) -> Path:
        root = tree(files)
        for link, target in (links or {}).items():
            os.symlink(target, root / link)
        return root

    return made
