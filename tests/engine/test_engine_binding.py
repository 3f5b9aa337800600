"""The compiled core's contract with Python: GIL released, stubs accurate, options applied."""

from __future__ import annotations

import subprocess
import sys
import threading

from codesift import Workspace


def test_gil_is_released_during_a_search(tree):
    block = ("lorem ipsum dolor sit amet " * 40 + "\n") * 400  # ~430 KB per file
    root = tree({f"d{i % 10}/f{i}.txt": block for i in range(120)})
    ws = Workspace(root, threads=1)
    done = threading.Event()
    ticks_during_search = 0

    def search() -> None:
        # A slow scan: a regex that must be tried at every position of ~50 MB.
        ws.grep(r"[a-z]+\d{3}[a-z]+", max_matches=None)
        done.set()

    worker = threading.Thread(target=search)
    worker.start()
    while not done.is_set():
        ticks_during_search += 1
    worker.join()
    # With the GIL held for the scan this loop could not run until the search returned.
    assert ticks_during_search > 10_000, ticks_during_search


def test_max_filesize_skips_large_files(tree):
    root = tree({"small.txt": "needle\n", "large.txt": "needle\n" + "x" * 5000})
    assert [m.file for m in Workspace(root, max_filesize=1000).grep("needle").matches] == [
        "small.txt"
    ]
    assert [f.path for f in Workspace(root, max_filesize=1000).glob("*.txt").files] == ["small.txt"]


def test_type_stubs_match_the_compiled_module():
    proc = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "codesift._core"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_package_type_checks():
    package = __import__("codesift").__path__[0]
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", package, "--ignore-missing-imports", "--no-incremental"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
