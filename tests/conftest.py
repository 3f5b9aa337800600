"""Shared fixtures: small trees built in tmp_path."""

from __future__ import annotations

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


@pytest.fixture
def tree(tmp_path: Path) -> Callable[[TreeSpec], Path]:
    """`tree({...})` writes a tree into a fresh directory and returns its root."""
    counter = iter(range(1_000_000))

    def make(files: TreeSpec) -> Path:
        root = tmp_path / f"ws{next(counter)}"
        root.mkdir()
        return write_tree(root, files)

    return make


@pytest.fixture(autouse=True)
def index_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Indexes built by tests go to a temporary cache directory, never to ~/.cache."""
    cache = tmp_path_factory.mktemp("index-cache")
    monkeypatch.setenv("CODESIFT_CACHE_DIR", str(cache))
    return cache
