"""Every piped output mode of `codesift grep` prints the bytes it printed when Python rendered
each hit (pinned in `output_modes_golden.json`, written by the Python renderer before the
engine printed these modes), on a planted tree with what each mode must get right: several
matches on a line, overlapping context, CRLF lines, bytes that are not UTF-8 in a line and
in a file name, JSON's escapes, a file whose hits come in several pieces, caps, several
PATHs and a lone file.

`python tests/cli/test_cli_output_modes.py --write` rewrites the golden file from the build
installed (only when an output change is intended)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import codesift_grep_bytes

GOLDEN = Path(__file__).with_name("output_modes_golden.json")

#: A file with more hits than one streamed piece holds (8192): its count and its lines add up
#: over pieces.
MANY_LINES = 6000


def planted_tree(root: Path) -> Path:
    files: dict[str, bytes] = {
        "a.txt": (
            "spin_lock(&a); spin_lock(&b); mutex_lock(&c)\n"
            "no match here\n"
            "  rcu_read_lock();\n"
            'quote " back \\ tab\t bell \x07 esc \x1b del \x7f end_lock\n'
            "é wide ünïcode_lock then x_lock\n"
        ).encode(),
        "crlf.txt": b"first_lock\r\nplain\r\nsecond_lock and third_lock\r\n",
        "bad.txt": b"pre \xff\xfe bad_lock \xc3 post\nok_lock\n",
        "sub/ctx.py": "".join(
            f"line {n} a_lock\n" if n in (3, 4, 9, 20, 22) else f"line {n}\n" for n in range(1, 26)
        ).encode(),
        "sub/deeper/last.c": b"int x_lock;\n",
        b"odd\xffname.txt".decode("utf-8", "surrogateescape"): b"named_lock\n",
        "binary.bin": b"bin_lock\x00\x00\x00",
        "empty.txt": b"",
        "many.txt": "".join(f"{n}: p_lock q_lock\n" for n in range(MANY_LINES)).encode(),
    }
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


PATTERN = r"\w+_lock"
#: Each case: the arguments after `codesift grep` (run in the tree's root).
CASES: list[list[str]] = [
    [PATTERN],
    ["-N", PATTERN],
    ["--column", PATTERN],
    ["-o", PATTERN],
    ["-o", "--column", PATTERN],
    ["-o", "-N", PATTERN],
    ["-c", PATTERN],
    ["-c", "-o", PATTERN],
    ["--count-matches", PATTERN],
    ["-l", PATTERN],
    ["--json", PATTERN],
    ["--json", "--json-full", PATTERN],
    ["--json", "-c", PATTERN],
    ["--json", "-l", PATTERN],
    ["--json", "-C", "1", PATTERN, "sub"],
    ["--json", "-m", "3", PATTERN],
    ["-C", "1", PATTERN],
    ["-A", "2", PATTERN, "sub"],
    ["-B", "3", "--column", PATTERN, "sub"],
    ["-o", "-C", "1", PATTERN, "sub"],
    ["-m", "4", PATTERN],
    ["-m", "4", "-o", PATTERN],
    ["-m", "2", "-c", PATTERN],
    ["-m", "2", "-l", PATTERN],
    ["-m", "3", "--count-total", "-o", PATTERN],
    ["-i", "A_LOCK"],
    ["-w", "-F", "x_lock"],
    ["-F", "\\"],
    [PATTERN, "a.txt"],
    ["-H", "-o", PATTERN, "a.txt"],
    ["-c", PATTERN, "a.txt"],
    [PATTERN, "sub", "crlf.txt", "./a.txt"],
    ["-o", PATTERN, "sub/", "bad.txt"],
    ["-U", r"a_lock\nline", "sub"],
    ["-U", "-o", r"a_lock\nline", "sub"],
    ["-U", "-c", r"a_lock\nline", "sub"],
    ["-v", "-c", "lock"],
    ["-v", "line [12]", "sub"],
    ["nothing_matches_this"],
    ["--json", "nothing_matches_this"],
    ["-t", "py", "-o", PATTERN],
    ["-g", "*.txt", "-g", "!many.txt", "-l", PATTERN],
]


def normalized(out: bytes, root: Path) -> str:
    """The output as text (bytes that are not UTF-8 kept as surrogates), the hits' ids (a
    workspace's random prefix) and the tree's location written as placeholders."""
    text = out.decode("utf-8", "surrogateescape")
    text = re.sub(r'"id": "[^"]*"', '"id": "ID"', text)
    if '"truncated": true' in text:
        # A search cut at its limit stops its workers wherever they are: how many files
        # they had searched (and found binary) by then varies from run to run.
        text = re.sub(r'"(files_searched|binary_files)": \d+', r'"\1": N', text)
        text = re.sub(r'"binary": \{"count": \d+', '"binary": {"count": N', text)
    return text.replace(json.dumps(str(root))[1:-1], "ROOT")


#: Outputs up to this size are pinned as text (a failure shows them); longer ones by digest.
SHOWN = 4000


def pinned_form(done: subprocess.CompletedProcess[bytes], root: Path) -> dict[str, object]:
    text = normalized(done.stdout, root)
    encoded = text.encode("utf-8", "surrogateescape")
    form: dict[str, object] = {
        "exit": done.returncode,
        "size": len(encoded),
        "sha256": hashlib.sha256(encoded).hexdigest(),
    }
    if len(encoded) <= SHOWN:
        form["stdout"] = text
    return form


def key(args: list[str]) -> str:
    return json.dumps(args, ensure_ascii=True)


@pytest.fixture(scope="module")
def golden() -> dict[str, dict[str, object]]:
    return json.loads(GOLDEN.read_text())


@pytest.mark.parametrize("args", CASES, ids=[" ".join(c) for c in CASES])
def test_each_mode_prints_the_pinned_bytes(tmp_path, golden, args):
    root = planted_tree(tmp_path / "tree")
    done = codesift_grep_bytes(root, *args)
    pinned = golden[key(args)]
    actual = pinned_form(done, root)
    assert b"Traceback" not in done.stderr, done.stderr
    if actual != pinned:
        print("expected:", repr(pinned)[:3000])
        print("actual:  ", repr(actual)[:3000])
        print("actual stdout starts:", repr(normalized(done.stdout, root)[:3000]))
    assert actual == pinned


def write_golden(where: Path) -> None:
    root = planted_tree(where / "tree")
    pinned = {}
    for args in CASES:
        pinned[key(args)] = pinned_form(codesift_grep_bytes(root, *args), root)
    GOLDEN.write_text(json.dumps(pinned, indent=1, ensure_ascii=True) + "\n")


if __name__ == "__main__":
    import tempfile

    if sys.argv[1:] != ["--write"]:
        sys.exit(__doc__)
    os.environ["CODESIFT_DAEMON"] = "never"
    with tempfile.TemporaryDirectory() as scratch:
        write_golden(Path(scratch))
