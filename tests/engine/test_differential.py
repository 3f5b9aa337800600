"""Differential test against ripgrep on a real tree nobody here wrote: the Python standard
library. For each pattern the set of (file, byte offset of each match) must equal ripgrep's
(`rg --json --no-ignore --hidden`)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest

from codesift import Workspace

# (pattern, literal, case_sensitive, multiline)
CASES = [
    ("import os", True, True, False),
    ("self.", True, True, False),
    (r"def \w+\(self", False, True, False),
    (r"\bclass\s+\w+\(", False, True, False),
    ("error", True, False, False),
    (r"utf-?8", False, False, False),
    (r"TODO|FIXME|XXX", False, True, False),
    (r"[0-9]{4}-[0-9]{2}-[0-9]{2}", False, True, False),
    (r"\p{Greek}+", False, True, False),
    (r"[àéèüöñ]\w*", False, False, False),
    ("import os\nimport sys", True, True, True),
    (r"\):\n\s+\"\"\"", False, True, True),
]


@pytest.fixture(scope="session")
def stdlib_tree(tmp_path_factory) -> Path:
    source = Path(sysconfig.get_paths()["stdlib"])
    target = tmp_path_factory.mktemp("stdlib") / "lib"
    shutil.copytree(
        source,
        target,
        symlinks=True,
        ignore=shutil.ignore_patterns("site-packages", "__pycache__", "config-*"),
    )
    return target


@pytest.fixture(scope="session")
def rg() -> str:
    path = shutil.which("rg")
    assert path, "ripgrep is needed: pip install 'ripgrep>=15.1'"
    return path


def rg_offsets(rg: str, root: Path, pattern, literal, case_sensitive, multiline) -> set:
    # codesift never searches .git (DESIGN); rg with --hidden would.
    args = [rg, "--json", "--no-ignore", "--hidden", "--no-config", "-g", "!.git"]
    args.append("-s" if case_sensitive else "-i")
    if literal:
        args.append("-F")
    if multiline:
        args.append("-U")
    proc = subprocess.run([*args, "-e", pattern, "."], cwd=root, capture_output=True, check=False)
    assert proc.returncode in (0, 1), proc.stderr.decode()
    found = set()
    for line in proc.stdout.splitlines():
        message = json.loads(line)
        if message["type"] != "match":
            continue
        data = message["data"]
        path = data["path"].get("text")
        assert path is not None, "non-UTF-8 file name in the stdlib"
        path = path.removeprefix("./")
        for sub in data["submatches"]:
            found.add((path, data["absolute_offset"] + sub["start"]))
    return found


def adjust_for_rg(root: Path, found: set) -> set:
    """ripgrep strips a UTF-8 BOM before searching (its offsets start after it) and may
    report matches that precede a NUL byte; codesift keeps file offsets and skips any file
    with a NUL byte. Bring rg's set onto codesift's terms."""
    adjusted = set()
    cache: dict[str, bytes] = {}
    for path, offset in found:
        head = cache.setdefault(path, (root / path).read_bytes())
        if b"\x00" in head:
            continue
        adjusted.add((path, offset + 3 if head.startswith(b"\xef\xbb\xbf") else offset))
    return adjusted


@pytest.mark.parametrize("pattern,literal,case_sensitive,multiline", CASES)
def test_same_matches_as_ripgrep(stdlib_tree, rg, pattern, literal, case_sensitive, multiline):
    ws = Workspace(stdlib_tree, gitignore=False)
    result = ws.grep(
        pattern,
        literal=literal,
        case_sensitive=case_sensitive,
        multiline=multiline or None,
        max_matches=None,
    )
    ours = {(m.file, m.byte_offset) for m in result.matches if m.encoding.startswith("utf-8")}
    theirs = adjust_for_rg(
        stdlib_tree, rg_offsets(rg, stdlib_tree, pattern, literal, case_sensitive, multiline)
    )
    # UTF-16 files are transcoded by both tools, so their offsets are not file offsets.
    utf16 = {m.file for m in result.matches if m.encoding.startswith("utf-16")}
    theirs = {hit for hit in theirs if hit[0] not in utf16}
    assert len(ours) > 0, f"pattern {pattern!r} should match something in the stdlib"
    missing, extra = sorted(theirs - ours)[:10], sorted(ours - theirs)[:10]
    assert ours == theirs, f"only rg: {missing} ... only codesift: {extra}"
