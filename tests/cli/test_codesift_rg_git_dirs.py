"""`codesift-rg --hidden` through the index lists the files of each `.git` from disk (ripgrep
enters them, the index never holds them): it looks only where the daemon's watch knows a
`.git` to be, not into every directory that holds a candidate."""

from __future__ import annotations

from pathlib import Path

from rg_helpers import NEEDS_CODESIFT_RG, Env, index_agrees

pytestmark = NEEDS_CODESIFT_RG


def test_hidden_search_looks_for_git_only_where_the_watch_saw_one(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    for d in range(40):
        (tree / f"d{d:02}" / "deep").mkdir(parents=True)
        (tree / f"d{d:02}" / "deep" / "a.c").write_text(f"needle {d}\n")
    # Two repositories' git directories, one without a candidate near it.
    (tree / "d07" / ".git").mkdir()
    (tree / "d07" / ".git" / "config").write_text("needle in a repository\n")
    (tree / "elsewhere" / ".git").mkdir(parents=True)
    (tree / "elsewhere" / ".git" / "HEAD").write_text("needle at the head\n")
    env = Env(tmp_path)
    with env:
        for run in ("first", "second"):
            out = index_agrees(env, tree, ("--sort", "path", "--hidden", "-n", "needle"), run)
            assert b"d07/.git/config:1:needle" in out, out.decode()
            assert b"elsewhere/.git/HEAD:1:needle" in out, out.decode()
        indexed = env.rg(tree, "force", "--hidden", "-l", "needle")
        log = indexed.stderr.decode()
        assert "files from the index" in log, log
        # The root and the two directories holding a `.git`: not the 80 holding candidates.
        expected = "git: 3 directories looked into"
        print(f"expected {expected!r}\nactual   {log!r}")
        assert expected in log
