"""Small trees written from a mapping of relative paths to contents (text or bytes)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

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
