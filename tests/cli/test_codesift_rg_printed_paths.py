"""Printing a hit's path costs no system call per path component: the printers make a path
into a hyperlink (canonicalizing it: a `readlink` per component) only when a hyperlink can be
written, and codesift-rg writes none (it hands `--hyperlink-format` to ripgrep)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from rg_helpers import BIN, Env

pytestmark = pytest.mark.skipif(not BIN.is_file(), reason="codesift-rg not built")

STRACE = shutil.which("strace")

# The standard printer's lines, the summary printer's paths and counts, the JSON printer.
MODES = [
    ("-n", "needle"),
    ("-l", "needle"),
    ("-c", "needle"),
    ("--json", "needle"),
]


def tree_of_deep_files(base: Path) -> Path:
    tree = base / "tree"
    deep = tree / "one" / "two" / "three" / "four"
    deep.mkdir(parents=True)
    for i in range(6):
        (deep / f"file{i}.txt").write_text(f"needle {i}\n")
    return tree


@pytest.mark.skipif(STRACE is None, reason="strace not installed (apt-get install strace)")
@pytest.mark.parametrize("mode", ["never", "force"])
@pytest.mark.parametrize("args", MODES, ids=" ".join)
def test_printing_hits_reads_no_link_of_the_printed_paths(
    tmp_path: Path, mode: str, args: tuple[str, ...]
) -> None:
    assert STRACE is not None
    tree = tree_of_deep_files(tmp_path)
    trace = tmp_path / "trace"
    with Env(tmp_path) as env:
        env.rg(tree, mode, "-l", "needle")  # the index is built before the traced run
        run = subprocess.run(
            [STRACE, "-f", "-qq", "-e", "trace=readlink,readlinkat", "-o", str(trace)]
            + [str(BIN), *args],
            cwd=tree,
            env=dict(env.env, CODESIFT_RG_INDEX=mode),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=120,
        )
    assert run.returncode == 0, run.stderr.decode()
    printed = [i for i in range(6) if f"file{i}.txt".encode() in run.stdout]
    assert printed == list(range(6)), run.stdout.decode()
    links_read = [line for line in trace.read_text().splitlines() if str(tree) in line]
    print(f"expected no readlink under {tree}\nactual {links_read}")
    assert links_read == []
