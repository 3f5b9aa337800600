"""`auto` with a running daemon and a tree it has not indexed: a scan that visited 10,000
files or more asks the daemon to index the tree for next time (never waiting for it), and
the next runs are answered from the index with the scan's bytes."""

from __future__ import annotations

from pathlib import Path

from daemon_helpers import wait_for
from rg_helpers import NEEDS_CODESIFT_RG, Env

pytestmark = NEEDS_CODESIFT_RG


def test_a_large_tree_scanned_once_is_indexed_for_the_next_runs(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    for i in range(10_050):
        d = tree / f"d{i // 500:02}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"f{i:05}.txt").write_text("needle\n" if i % 1000 == 7 else "hay\n")
    env = Env(tmp_path)
    env.start()
    try:
        args = ("--sort", "path", "-n", "needle")
        first = env.rg(tree, "auto", *args)
        assert b"this root is not indexed" in first.stderr, first.stderr.decode()

        def indexed() -> bool:
            status = env.status() or {}
            roots = [r for r in status.get("roots", []) if r["root"] == str(tree.resolve())]
            return bool(roots) and roots[0]["watch"]["state"] == "caught up"

        wait_for("the daemon indexed the tree the scan asked it to", indexed, limit=120)
        later = env.rg(tree, "auto", *args)
        scan = env.rg(tree, "never", *args)
        assert b"files from the index" in later.stderr, later.stderr.decode()
        assert later.stdout == scan.stdout, f"expected {scan.stdout!r}\nactual   {later.stdout!r}"
        # A pattern the index cannot narrow is scanned without asking the daemon to select.
        unnarrowed = env.rg(tree, "auto", "--sort", "path", r"\w+")
        assert b"no trigram" in unnarrowed.stderr, unnarrowed.stderr.decode()
    finally:
        env.stop()
