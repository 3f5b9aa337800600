"""`--sort modified|created` (and `--sortr`): files of equal time come in path order, from a
walk and from the index alike (ripgrep leaves them in its walk's directory order)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from rg_helpers import NEEDS_CODESIFT_RG, Env

pytestmark = NEEDS_CODESIFT_RG

NAMES = [f"d{i % 7}/f{(i * 37) % 101:03}.txt" for i in range(60)]


def make_tree(root: Path) -> Path:
    # Created in an order unlike the path order, all with one modification time but the
    # newest, so that the order among equals is the only thing left to decide.
    for name in NAMES:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("needle\n")
        os.utime(path, ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))
    newest = root / NAMES[0]
    os.utime(newest, ns=(1_800_000_000_000_000_000, 1_800_000_000_000_000_000))
    return root


@pytest.mark.parametrize("mode", ["never", "force"])
@pytest.mark.parametrize("sort", ["--sort", "--sortr"])
def test_equal_times_come_in_path_order(tmp_path: Path, mode: str, sort: str) -> None:
    tree = make_tree(tmp_path / "tree")
    with Env(tmp_path) as env:
        done = env.rg(tree, mode, sort, "modified", "-l", "needle")
    assert done.returncode == 0, done.stderr
    listed = done.stdout.decode().splitlines()
    others = sorted(n for n in NAMES[1:])
    expected = [*others, NAMES[0]] if sort == "--sort" else [NAMES[0], *others]
    print("expected", expected[:8], "\nactual  ", listed[:8])
    assert listed == expected
