"""The system calls codesift-rg makes to print, counted under strace: printing a hit's path
reads no link (the printers make a path into a hyperlink, canonicalizing it with a `readlink`
per component, only when a hyperlink can be written, and codesift-rg writes none: it hands
`--hyperlink-format` to ripgrep); piped output of a parallel search is written in blocks, not
with a write per file, unless `--line-buffered` asks for every file at once."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from rg_helpers import BIN, NEEDS_CODESIFT_RG, Env

STRACE = shutil.which("strace")

pytestmark = [
    NEEDS_CODESIFT_RG,
    pytest.mark.skipif(STRACE is None, reason="strace not installed (apt-get install strace)"),
]

# The standard printer's lines, the summary printer's paths and counts, the JSON printer.
MODES = [
    ("-n", "needle"),
    ("-l", "needle"),
    ("-c", "needle"),
    ("--json", "needle"),
]


def traced(
    env: Env, tree: Path, mode: str, calls: str, args: tuple[str, ...]
) -> tuple[subprocess.CompletedProcess[bytes], list[str]]:
    """codesift-rg `args` run from `tree` under strace tracing `calls`: the run, and the
    trace's lines."""
    assert STRACE is not None
    trace = tree.parent / "trace"
    run = subprocess.run(
        [STRACE, "-f", "-qq", "-e", f"trace={calls}", "-o", str(trace), str(BIN), *args],
        cwd=tree,
        env=dict(env.env, CODESIFT_RG_INDEX=mode),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr.decode()
    return run, trace.read_text().splitlines()


def tree_of_deep_files(base: Path) -> Path:
    tree = base / "tree"
    deep = tree / "one" / "two" / "three" / "four"
    deep.mkdir(parents=True)
    for i in range(6):
        (deep / f"file{i}.txt").write_text(f"needle {i}\n")
    return tree


@pytest.mark.parametrize("mode", ["never", "force"])
@pytest.mark.parametrize("args", MODES, ids=" ".join)
def test_printing_hits_reads_no_link_of_the_printed_paths(
    tmp_path: Path, mode: str, args: tuple[str, ...]
) -> None:
    tree = tree_of_deep_files(tmp_path)
    with Env(tmp_path) as env:
        env.rg(tree, mode, "-l", "needle")  # the index is built before the traced run
        run, trace = traced(env, tree, mode, "readlink,readlinkat", args)
    printed = [i for i in range(6) if f"file{i}.txt".encode() in run.stdout]
    assert printed == list(range(6)), run.stdout.decode()
    links_read = [line for line in trace if str(tree) in line]
    print(f"expected no readlink under {tree}\nactual {links_read}")
    assert links_read == []


FILES = 240


@pytest.mark.parametrize("mode", ["never", "force"])
def test_piped_output_is_written_in_blocks_unless_line_buffered(tmp_path: Path, mode: str) -> None:
    tree = tmp_path / "tree"
    for i in range(FILES):
        (tree / f"d{i % 12}").mkdir(parents=True, exist_ok=True)
        (tree / f"d{i % 12}" / f"f{i}.txt").write_text(f"one needle\nnone\nneedle {i}\n")
    with Env(tmp_path) as env:
        expected = env.rg(tree, "never", "-j1", "--sort", "path", "-n", "needle").stdout
        env.rg(tree, mode, "-l", "needle")  # the index is built before the traced runs
        writes = {}
        for buffering in ("--block-buffered", "--line-buffered"):
            run, trace = traced(env, tree, mode, "write", ("-j2", buffering, "-n", "needle"))
            # Files come in the order the threads finish them; each file's lines stay together.
            by_file = sorted(run.stdout.split(b"\n"))
            assert by_file == sorted(expected.split(b"\n")), run.stdout.decode()
            writes[buffering] = sum(1 for line in trace if " write(1," in line)
    print(f"writes to standard output for {FILES} files: {writes}")
    # A block is written when it is 64 KiB or has waited 10 ms: a few, even traced.
    assert writes["--block-buffered"] <= FILES // 4
    assert writes["--line-buffered"] == FILES
