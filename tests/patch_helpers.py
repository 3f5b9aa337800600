"""Checks of a patch applied to one file, byte for byte."""

from __future__ import annotations

from pathlib import Path

from codesift import Workspace


def assert_applies(root: Path, name: str, before: bytes, diff: str, expected: bytes) -> None:
    """Writes `before` to `name` under `root`, applies `diff` with `Workspace.apply_patch` and
    checks that the file then holds exactly `expected`."""
    (root / name).write_bytes(before)
    Workspace(root).apply_patch(diff)
    actual = (root / name).read_bytes()
    assert actual == expected, f"expected {expected!r}, got {actual!r}"
