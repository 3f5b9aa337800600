"""codesift-rg never searches the file its standard output goes to, whatever chose the files
(the walk or the index): `rg pattern > out.txt` inside the searched tree must not read its
own output back (with `--sort path` it would grow the file until the disk is full), as
ripgrep skips that file."""

from __future__ import annotations

import resource
import subprocess
from pathlib import Path

import pytest
from rg_helpers import BIN, NEEDS_CODESIFT_RG, Env

pytestmark = NEEDS_CODESIFT_RG

# A runaway search is cut by the kernel long before it fills the disk.
LIMIT_BYTES = 1 << 20


def limit_file_size() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT_BYTES, LIMIT_BYTES))


def make_tree(root: Path) -> Path:
    """Files whose hits make more output than a write buffer holds, so that the output file
    has grown (been flushed to) before a sorted search reaches it."""
    (root / "src").mkdir(parents=True)
    for i in range(300):
        (root / "src" / f"f{i:03}.txt").write_text(f"zebraword {i} {'x' * 200}\nother\n")
    (root / "zz_last.txt").write_text("zebraword last\n")
    return root


def rg_into_file(env: Env, tree: Path, mode: str, out_name: str, *args: str):
    """codesift-rg ARGS with stdout redirected to `tree/out_name`, as a shell does it."""
    out = tree / out_name
    with open(out, "wb") as stdout:
        done = subprocess.run(
            [str(BIN), *args],
            cwd=tree,
            env=dict(env.env, CODESIFT_RG_INDEX=mode),
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=subprocess.PIPE,
            timeout=60,
            preexec_fn=limit_file_size,
        )
    return done, out.read_bytes()


@pytest.mark.parametrize("mode", ["never", "force"])
@pytest.mark.parametrize(
    "args",
    [
        ("--sort", "path", "zebraword"),
        ("zebraword",),
        ("-c", "zebraword"),
        ("-l", "zebraword"),
        ("--sort", "path", "-n", "zebraword"),
    ],
    ids=lambda a: " ".join(a),
)
def test_the_output_file_is_never_searched(tmp_path: Path, mode: str, args: tuple[str, ...]):
    tree = make_tree(tmp_path / "tree")
    with Env(tmp_path) as env:
        # Indexed before the output file exists, as when an agent searches a tree it indexed.
        env.rg(tree, "force", "zebraword")
        # The expected answer: the same search printed to a pipe, with the output file
        # present (empty) as the shell makes it before the command starts.
        (tree / "zz_out.txt").write_bytes(b"")
        piped = env.rg(tree, "never", *args)
        (tree / "zz_out.txt").unlink()
        done, written = rg_into_file(env, tree, mode, "zz_out.txt", *args)
    assert done.returncode == 0, done.stderr
    assert b"zz_out.txt" not in written, f"searched its own output:\n{written[:600]!r}"
    expected = sorted(piped.stdout.splitlines())
    actual = sorted(written.splitlines())
    assert actual == expected, f"expected {expected}\nactual   {actual}"
    if mode == "force":
        assert b"files from the index" in done.stderr, done.stderr
