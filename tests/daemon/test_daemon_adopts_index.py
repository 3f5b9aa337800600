"""One index per tree: the daemon adopts an index already published for a root and its walk
options (by `codesift index build` or a workspace), checked as every index is, instead of
building another; and when it had to wait for another process's build, it adopts what that
build published rather than building the same index again."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

from daemon_helpers import daemon_env, published, root_status, wait_for
from trees import write_tree

from codesift import Workspace

TREE = {f"src/f{i}.c": f"int value_{i} = {i};\n" for i in range(300)}


def index_build(root: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "codesift", "index", "build", "--root", str(root)],
        env=daemon_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


def caught_up(root: Path) -> dict | None:
    status = root_status(root)
    return status if status and status["watch"]["state"] == "caught up" else None


def ask_the_daemon(root: Path) -> None:
    # The daemon answers `scan` at once and builds (or adopts) in the background.
    result = Workspace(root, index=True, index_watch=False).grep("value_7 =")
    assert result.total == 1


def test_an_index_published_before_is_adopted_not_built_again(
    served: subprocess.Popen[bytes], tmp_path: Path, index_cache: Path
) -> None:
    root = write_tree(tmp_path / "tree", TREE)
    index_build(root)
    generation = published(index_cache).stat().st_mtime_ns
    ask_the_daemon(root)
    status = wait_for("the daemon catches up", lambda: caught_up(root))
    print(status["index"])
    assert status["index"]["built"] == 0
    assert published(index_cache).stat().st_mtime_ns == generation, "published again"


def test_a_build_that_waited_for_another_adopts_what_it_published(
    served: subprocess.Popen[bytes], tmp_path: Path, index_cache: Path
) -> None:
    root = write_tree(tmp_path / "tree", TREE)
    # An index as another process would publish it, kept aside; none published for now.
    index_build(root)
    index_file = published(index_cache)
    kept = tmp_path / "kept.bin"
    shutil.copy2(index_file, kept)
    index_file.unlink()
    # This test is the other builder: it holds the build lock while the daemon wants one.
    with open(index_file.parent / "build.lock", "r+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        ask_the_daemon(root)
        wait_for(
            "the daemon is building (waiting for the lock)",
            lambda: (root_status(root) or {}).get("catching_up"),
        )
        # Published under the lock, as a build publishes: a temporary file renamed.
        temporary = index_file.with_suffix(".tmp-test")
        shutil.copy2(kept, temporary)
        os.rename(temporary, index_file)
        fcntl.flock(lock, fcntl.LOCK_UN)
    status = wait_for("the daemon catches up", lambda: caught_up(root))
    print(status["index"])
    assert (status["index"]["built"], status["index"]["adopted"]) == (0, 1)
    assert index_file.read_bytes() == kept.read_bytes(), "the adopted index was replaced"
    # And it serves from it: a search of the root is answered by the daemon.
    before = status["queries"]
    ask_the_daemon(root)
    assert root_status(root)["queries"] > before
