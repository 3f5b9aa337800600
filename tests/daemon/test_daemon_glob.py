"""A glob of an indexed workspace asked to the host's index daemon (op "glob") equals a scan's
glob field by field (files with size and mtime, total, truncated, ignored, unreadable,
skipped with examples, the search path), before and after another process changes the tree
behind its back (a write, a delete, a rename, a new directory with files, a `.gitignore`
change); a long-lived workspace whose greps the daemon answers gets its globs answered there
too; a name that is not UTF-8 survives the wire."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import daemon_helpers as helpers
import pytest
from daemon_helpers import ask, connect
from trees import write_tree

from codesift import Workspace

NOT_UTF8 = b"src/caf\xe9.c"

TREE = {
    ".gitignore": "build/\n*.log\n",
    "src/main.c": "int main() { return 0; }\n",
    "src/util.c": "static void helper(void) {}\n",
    "src/deep/x.h": "#define X 1\n",
    "src/deep/y.py": "print(1)\n",
    "docs/a.md": "docs\n",
    ".hidden/h.c": "hidden\n",
    "build/out.c": "ignored\n",
    "trace.log": "ignored by a glob rule\n",
    "bin/blob.dat": b"\x00binary\n",
}

#: (pattern, path, options) of `Workspace.glob`.
GLOBS: list[tuple[str, str, dict[str, Any]]] = [
    ("*", ".", {}),
    ("*.c", ".", {}),
    ("src/**/*.h", ".", {}),
    ("*.c", "src", {}),
    ("deep/*", "src", {}),
    ("**", ".", {"limit": 3}),
    ("*", ".", {"sort": "mtime"}),
    ("*.C", ".", {"case_sensitive": False}),
    ("*", ".", {"type": "c"}),
    ("*", ".", {"type_not": "c", "limit": 0}),
    ("fresh/**", ".", {}),
    ("nothing-matches-*", ".", {}),
]


def shown(ws: Workspace, pattern: str, path: str, options: dict[str, Any]) -> dict[str, Any]:
    """Every field of a glob's result, each file with its size and mtime."""
    result = ws.glob(pattern, path, **options)
    data = result.to_dict()
    data["file_fields"] = [(f.path, f.size, f.mtime_ms) for f in result.files]
    return data


def root_status(root: Path) -> dict[str, Any] | None:
    return helpers.root_status(root, gitignore=True)


def prime(root: Path) -> None:
    helpers.prime(root, gitignore=True)


def raw_glob(socket_dir: Path, root: Path, pattern: str) -> dict[str, Any]:
    """The daemon's own reply to a glob, on the wire."""
    sock = connect(socket_dir)
    try:
        reply = ask(
            sock,
            {
                "op": "glob",
                "root": os.path.realpath(root),
                "path": "",
                "walk": {"gitignore": True, "hidden": True},
                "glob": {"pattern": pattern},
            },
        )
    finally:
        sock.close()
    assert reply is not None, "the daemon closed the connection"
    return reply


def change_in_another_process(root: Path, gitignore: bool) -> None:
    """From another process: a rule file change (and a file it does not hide), or files
    written, appended, renamed, deleted and a new directory."""
    if not gitignore:
        changes = {"fresh/top.h": "new\n"}
        helpers.change_in_another_process(root, "appended, a new size\n", "new\n", changes)
        return
    script = """
import os, sys
root = sys.argv[1]
with open(os.path.join(root, ".gitignore"), "a") as f:
    f.write("docs/\\n")
with open(os.path.join(root, "src/late.c"), "w") as f:
    f.write("late\\n")
"""
    subprocess.run([sys.executable, "-c", script, str(root)], check=True, timeout=60)


@pytest.fixture
def indexed_tree(tmp_path: Path) -> Path:
    root = write_tree(tmp_path / "ws", TREE)
    (root / os.fsdecode(NOT_UTF8)).write_bytes(b"not utf-8 name\n")
    Workspace(root, index=True, index_watch=False).index_build()
    return root


def test_a_glob_answered_by_the_daemon_equals_a_scan_before_and_after_changes(
    served: subprocess.Popen[bytes], indexed_tree: Path, socket_dir: Path
) -> None:
    # A long-lived workspace (as `codesift mcp` and `serve` hold one) whose greps the
    # daemon answers: its globs are asked there too.
    long_lived = Workspace(indexed_tree, index=True)
    prime(indexed_tree)
    long_lived.grep("warm-up", max_matches=1)
    for phase in ("before", "changed", "gitignore changed"):
        if phase != "before":
            change_in_another_process(indexed_tree, gitignore=phase == "gitignore changed")
            # A rule file changed: the watch catches up again (meanwhile globs scan).
            Workspace(indexed_tree, index="auto", index_watch=False).glob("*")
            prime(indexed_tree)
        before = root_status(indexed_tree)
        assert before is not None
        for pattern, path, options in GLOBS:
            scan = shown(Workspace(indexed_tree), pattern, path, options)
            for name, ws in (
                ("short-lived", Workspace(indexed_tree, index="auto", index_watch=False)),
                ("long-lived", long_lived),
            ):
                asked = shown(ws, pattern, path, options)
                assert asked == scan, (
                    f"{phase}, {name}, glob({pattern!r}, {path!r}, {options}):\n"
                    f"scan   {scan}\ndaemon {asked}"
                )
        after = root_status(indexed_tree)
        assert after is not None
        globs = after["glob_queries"] - before["glob_queries"]
        answered = after["glob_answers"] - before["glob_answers"]
        assert globs == answered == 2 * len(GLOBS), (
            f"{phase}: expected the daemon asked and answering {2 * len(GLOBS)} globs, "
            f"was asked {globs}, answered {answered}"
        )
        assert after["watch"]["state"] == "caught up", after["watch"]
        # The daemon answered them itself (no `scan`): on the wire, every file with its
        # size and mtime, a name that is not UTF-8 as its bytes.
        reply = raw_glob(socket_dir, indexed_tree, "*.c")
        assert reply.get("ok") is True and "scan" not in reply, reply
        names = [bytes(f[0]) if isinstance(f[0], list) else f[0].encode() for f in reply["files"]]
        assert NOT_UTF8 in names, f"expected {NOT_UTF8!r} among {names}"
        assert all(isinstance(f[1], int) and isinstance(f[2], int) for f in reply["files"])


def test_a_glob_the_daemon_is_not_asked_about_walks(
    served: subprocess.Popen[bytes], indexed_tree: Path
) -> None:
    """Overridden walk options, a search of one file, `strict`, and `index=False` are not
    asked; each still equals a scan."""
    prime(indexed_tree)
    before = root_status(indexed_tree)
    assert before is not None
    cases = [
        (Workspace(indexed_tree, index=True), "*", ".", {"hidden": False}),
        (Workspace(indexed_tree, index=True), "*", ".", {"no_ignore": True}),
        (Workspace(indexed_tree, index=True), "*.c", "src/util.c", {}),
        (Workspace(indexed_tree, index=True, strict=True), "*", ".", {}),
        (Workspace(indexed_tree, index=False), "*", ".", {}),
    ]
    for ws, pattern, path, options in cases:
        scan = shown(Workspace(indexed_tree), pattern, path, options)
        assert shown(ws, pattern, path, options) == scan, (pattern, path, options)
    after = root_status(indexed_tree)
    assert after is not None
    assert after["glob_queries"] == before["glob_queries"], (before, after)


def test_a_bad_glob_request_is_an_error_reply(
    served: subprocess.Popen[bytes], indexed_tree: Path, socket_dir: Path
) -> None:
    root = os.path.realpath(indexed_tree)
    sock = connect(socket_dir)
    try:
        for glob, expected in [
            ({"pattern": "*", "limit": -1}, "limit must be at least 0"),
            ({"pattern": "*", "sort": "size"}, "sort must be one of"),
            ({"pattern": "*", "hidden": False}, "walk options go in walk"),
            ({"pattern": "*", "colour": True}, "unknown field"),
        ]:
            reply = ask(sock, {"op": "glob", "root": root, "path": "", "glob": glob})
            assert reply is not None and "error" in reply, reply
            message = reply["error"]["message"]
            assert expected in message, f"expected {expected!r} in {message!r}"
    finally:
        sock.close()
