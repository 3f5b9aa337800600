"""`Workspace.glob_iter` streams `glob`'s files sorted by path: the same files, field by field,
in the same (byte) order, with the same figures at the end; a limit stops the walk, and
closing the iterator stops it too."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codesift import Workspace
from codesift.arguments import MAX_COUNT


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "t"
    # Names whose byte order differs from a walk's name order: "a.txt" < "a/x" < "a-b" is
    # wrong; in bytes "-" (2d) < "." (2e) < "/" (2f).
    files = [
        "a/x.py",
        "a/deep/y.py",
        "a.txt",
        "a-b/z.py",
        "a.b/w.py",
        "src/m.py",
        "src/sub/n.py",
        "src-x/o.py",
        ".hidden/h.py",
        "ignored/i.py",
        "README.md",
        "B.py",
        "é/e.py",
    ]
    for i in range(300):
        files.append(f"many/d{i % 7}/f{i:04}.py")
    for rel in files:
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(f"{rel}\n")
    (root / ".gitignore").write_text("ignored/\n")
    return root


def figures(result):
    return (
        result.total,
        result.truncated,
        result.ignored,
        result.unreadable,
        result.path,
        result.skipped.to_dict(),
    )


@pytest.mark.parametrize(
    ("pattern", "path", "options"),
    [
        ("**/*.py", ".", {}),
        ("*", ".", {}),
        ("src/**", ".", {}),
        ("{a,a-b,src,src-x}/**", ".", {}),
        ("**/*.PY", ".", {"case_sensitive": False}),
        ("*.py", "many", {}),
        ("**", ".", {"type": "py"}),
        ("**", ".", {"type_not": "py", "no_ignore": True, "hidden": False}),
        ("*.py", "a/x.py", {}),
    ],
)
def test_the_stream_is_glob_field_by_field(tree, pattern, path, options):
    ws = Workspace(tree)
    whole = ws.glob(pattern, path, limit=MAX_COUNT, **options)
    with ws.glob_iter(pattern, path, **options) as files:
        streamed = list(files)
    want = [(f.path, f.mtime_ms, f.size) for f in whole.files]
    got = [(f.path, f.mtime_ms, f.size) for f in streamed]
    assert got == want, (got[:10], want[:10])
    assert streamed == list(whole.files)
    assert files.result is not None
    assert figures(files.result) == figures(whole), (figures(files.result), figures(whole))


def test_a_limit_gives_globs_first_files_and_says_truncated(tree):
    ws = Workspace(tree)
    whole = ws.glob("**/*.py", limit=5)
    files = ws.glob_iter("**/*.py", limit=5)
    got = [f.path for f in files]
    assert got == [f.path for f in whole.files], (got, whole.files)
    assert files.result is not None
    assert (files.result.truncated, files.result.total) == (True, 5), files.result


def test_closing_stops_the_walk(tree):
    ws = Workspace(tree)
    files = ws.glob_iter("**/*.py")
    first = next(files)
    assert first.path == ".hidden/h.py", first
    files.close()
    assert list(files) == []
    assert files.result is None


def test_a_bad_pattern_or_path_raises_before_the_walk(tree):
    from codesift import NotFoundError, PatternError

    ws = Workspace(tree)
    with pytest.raises(PatternError):
        ws.glob_iter("a{")
    with pytest.raises(NotFoundError):
        ws.glob_iter("*", "missing")


def test_many_files_come_in_path_order_without_a_limit(tree):
    ws = Workspace(tree)
    for i in range(3000):
        (tree / "many" / f"g{i:05}.txt").write_text("")
    streamed = [f.path for f in ws.glob_iter("many/**")]
    assert streamed == sorted(streamed, key=os.fsencode)
    assert streamed == [f.path for f in ws.glob("many/**", limit=MAX_COUNT).files]
    assert len(streamed) == 3300
