"""The persistent index: a search that uses it returns exactly what a scan returns (every
field of every hit, order, limits, truncation), stays right when files change behind its
back, and never trusts a damaged index."""

from __future__ import annotations

import json
import mmap
import os
import random
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest
from index_helpers import hits

from codesift import Workspace

STDLIB = Path(sysconfig.get_paths()["stdlib"])
#: A file changed less than 2 s before a build may hide a change in its timestamps: it is
#: searched from disk until it is older (tests that need files the index trusts wait this).
RACY_SECONDS = 2.1


def same_as_scan(root: Path, pattern: str, **options) -> bool:
    """Asserts the indexed search equals the scan; returns whether the index answered."""
    indexed = Workspace(root, index="auto").grep(pattern, **options)
    scanned = Workspace(root).grep(pattern, **options)
    assert hits(indexed) == hits(scanned), (pattern, options)
    for field in ("total", "truncated"):
        assert getattr(indexed, field) == getattr(scanned, field), (field, pattern, options)
    if not scanned.truncated:  # a search cut short counts the files it happened to reach
        assert indexed.binary_files == scanned.binary_files, (pattern, options)
    return indexed.indexed


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """A copy of part of the standard library, a binary file, a UTF-16 file, a big file
    cut into many units, CRLF lines and non-ASCII text."""
    root = tmp_path_factory.mktemp("corpus") / "tree"
    shutil.copytree(STDLIB / "json", root / "json", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(STDLIB / "email", root / "email", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "bin.dat").write_bytes(b"needle \x00 binary needle\n")
    (root / "utf16.txt").write_bytes("needle in UTF-16\n".encode("utf-16"))
    lines = [f"line {i} filler text for units {i * 7919 % 1000}\n" for i in range(6_000)]
    lines[5_000] = "the unique_marker_in_a_big_file sits here\n"
    (root / "big.txt").write_text("".join(lines))
    # Many units whose hits repeat in other units (or not): a search that reads only some
    # units must still tell which hits' texts are unique in the whole file.
    handlers = [
        f"def handler_{i % 997}(self): return value_{i} + {i * 31 % 4001}\n" for i in range(4_000)
    ]
    handlers[3_333] = "    x = handler_unique_one(self) + handler_5(self)\n"
    (root / "handlers.py").write_text("".join(handlers))
    (root / "crlf.txt").write_bytes(b"first line\r\nsecond needle\r\nthird\r\n")
    (root / "unicode.txt").write_text("Stra\u00dfe K\u212aelvin \u017fong caf\u00e9 needle\n")
    return root


@pytest.fixture(scope="module")
def corpus_cache(corpus, tmp_path_factory) -> str:
    cache = str(tmp_path_factory.mktemp("corpus-cache"))
    saved = os.environ.get("CODESIFT_CACHE_DIR")
    os.environ["CODESIFT_CACHE_DIR"] = cache
    try:
        stats = Workspace(corpus).index_build()
    finally:
        if saved is not None:
            os.environ["CODESIFT_CACHE_DIR"] = saved
    assert stats["files"] > 30 and stats["indexed_files"] < stats["files"]
    return cache


@pytest.fixture
def indexed_corpus(corpus, corpus_cache, monkeypatch) -> Path:
    monkeypatch.setenv("CODESIFT_CACHE_DIR", corpus_cache)
    return corpus


PATTERNS = [
    ("import json", {}),
    ("def \\w+\\(self", {"case_sensitive": True}),
    ("unique_marker_in_a_big_file", {}),
    ("needle", {}),
    ("kelvin", {}),
    ("STRASSE", {}),
    ("\\bclass\\s+\\w+\\(", {"case_sensitive": True}),
    ("return (None|True|False)", {"case_sensitive": True}),
    ("second needle\nthird", {}),
    ("raise\\s+\\w+Error", {"max_matches": 3}),
    ("self", {"max_matches": 50}),
    ("self", {"max_matches": 50, "count_total": True}),
    ("import", {"include": "*.py", "exclude": "email/mime/**"}),
    ("encode", {"context_lines": 2, "max_matches": None}),
    ("zzz_not_anywhere_zzz", {}),
    ("[^\\s\\S]", {}),
    (".*", {"max_matches": 20}),
    ("\\w+", {"max_matches": 20}),
    ("handler_\\d+\\(", {"max_matches": None}),
    ("handler_99\\d", {"max_matches": None}),
    ("value_39\\d\\d +", {"max_matches": None}),
    ("handler_(unique_one|5)", {"max_matches": None}),
    ("handler_5\\b", {"max_matches": 2}),
    ("return value_123\\b", {}),
]


@pytest.mark.parametrize(("pattern", "options"), PATTERNS)
def test_indexed_search_equals_the_scan(indexed_corpus, pattern, options):
    used = same_as_scan(indexed_corpus, pattern, **options)
    # Selective patterns are answered through the index; patterns without a required
    # trigram are scans.
    if pattern in ("unique_marker_in_a_big_file", "zzz_not_anywhere_zzz", "kelvin"):
        assert used, pattern
    if pattern in (".*", "\\w+"):
        assert not used, pattern


def test_generated_patterns_equal_the_scan(indexed_corpus):
    rng = random.Random(7)
    words = ["import", "def", "self", "return", "json", "mail", "header", "encode", "value"]
    words += ["K\u212aelvin", "Stra\u00dfe", "caf\u00e9", "needle", "second", "None"]
    words += ["handler_7", "value_12", "unique_one"]
    used_index = 0
    for _ in range(240):
        a, b = rng.sample(words, 2)
        pattern = rng.choice(
            [
                a,
                f"{a}.*{b}",
                f"({a}|{b})",
                f"{a}\\s*\\(",
                f"{a[:3]}[a-z]+",
                f"(?i){a.upper()}",
                f"^\\s*{a}",
                f"{a}$",
                f"\\b{a[:4]}\\w*",
                f"{a}\\n",
                f"[{a[:2]}]{{2}}{b[:3]}",
                f"{a}?{b}+",
            ]
        )
        options = rng.choice(
            [
                {},
                {"max_matches": None},
                {"case_sensitive": True},
                {"max_matches": 7},
                {"literal": True, "max_matches": None},
                {"multiline": True, "max_matches": None},
                {"include": "*.py", "max_matches": None},
                {"exclude": "email/**", "context_lines": 1},
                {"count_total": True, "max_matches": 3},
            ]
        )
        used_index += same_as_scan(indexed_corpus, pattern, **options)
    assert used_index > 40


def test_changes_behind_its_back_are_seen(tree, tmp_path):
    files = {f"src/m{i}.py": f"value_{i} = {i}\nprint(value_{i})\n" for i in range(50)}
    root = tree(files)
    ws = Workspace(root, index=True)
    ws.index_build()
    (root / "src/m3.py").write_text("fresh_token = 1\n")  # changed (size)
    (root / "src/new.py").write_text("fresh_token = 2\n")  # created
    os.unlink(root / "src/m4.py")  # deleted
    os.rename(root / "src/m5.py", root / "src/moved.py")  # renamed
    same_size = root / "src/m6.py"
    before = same_size.stat()
    same_size.write_text(same_size.read_text().replace("value_6", "fresh_6"))
    os.utime(same_size, ns=(before.st_atime_ns, before.st_mtime_ns))  # same size and mtime
    ws.edit("src/m7.py", "value_7 = 7", "fresh_token = 7")  # through codesift
    for pattern in ["fresh_token", "fresh_6", "value_4", "value_5", "value_\\d+"]:
        same_as_scan(root, pattern, max_matches=None)
    found = {m.file for m in ws.grep("fresh", max_matches=None).matches}
    assert found == {"src/m3.py", "src/new.py", "src/m6.py", "src/m7.py"}


@pytest.mark.parametrize("watch", [True, False])
def test_a_long_lived_workspace_sees_every_change(tree, watch):
    """The first indexed search catches the watch up; later ones answer from it (no walk)
    and must see changes made behind codesift's back as well as its own."""
    files = {f"pkg/m{i}.py": f"value_{i} = {i}\nprint(value_{i})\n" for i in range(40)}
    files[".gitignore"] = "*.log\n"
    root = tree(files)
    ws = Workspace(root, index=True, index_watch=watch)
    ws.index_build()
    assert ws.grep("value_1\\b").total == 2
    assert ws.index_status()["watching"] is watch
    rng = random.Random(3)
    for step in range(12):
        action = rng.choice(["edit", "write", "create", "delete", "rename", "mkdir", "touch"])
        n = rng.randrange(40)
        target = root / f"pkg/m{n}.py"
        if action == "edit" and target.exists():
            ws.edit(f"pkg/m{n}.py", f"value_{n} = ", f"token_{step} = ")
        elif action == "write" and target.exists():
            target.write_text(f"token_{step} = 1\n")
        elif action == "create":
            (root / f"pkg/new_{step}.py").write_text(f"token_{step} = 2\n")
        elif action == "delete" and target.exists():
            target.unlink()
        elif action == "rename" and target.exists():
            target.rename(root / f"pkg/moved_{step}.py")
        elif action == "mkdir":
            (root / f"sub{step}/deeper").mkdir(parents=True)
            (root / f"sub{step}/deeper/x.py").write_text(f"token_{step} = 3\n")
            (root / f"sub{step}/x.log").write_text(f"token_{step} = 4\n")
        elif action == "touch" and target.exists():
            stat = target.stat()
            target.write_text(target.read_text().replace("print", "prant"))
            os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        for pattern in ["token_\\d+", "value_\\d+ =", "prant"]:
            indexed = ws.grep(pattern, max_matches=None)
            scanned = Workspace(root).grep(pattern, max_matches=None)
            assert hits(indexed) == hits(scanned), (step, action, pattern)
            if pattern == "prant":  # in few files: the index narrows it
                assert indexed.indexed
        for glob, path in [("**/*.py", "."), ("*", "pkg"), ("**", ".")]:
            listed = ws.glob(glob, path, limit=10**6)
            walked = Workspace(root).glob(glob, path, limit=10**6)
            assert [(f.path, f.size, f.mtime_ms) for f in listed.files] == [
                (f.path, f.size, f.mtime_ms) for f in walked.files
            ], (step, action, glob, path)
    (root / ".gitignore").write_text("*.py\n")  # rules change: the watch starts over
    for pattern in ["token_\\d+", "value_\\d+ ="]:
        assert hits(ws.grep(pattern, max_matches=None)) == hits(
            Workspace(root).grep(pattern, max_matches=None)
        )


def test_a_damaged_index_is_never_trusted(tree, index_cache):
    root = tree({"a.txt": "needle\n", "b.txt": "other\n"})
    ws = Workspace(root, index="auto")
    ws.index_build()
    status = ws.index_status()
    assert status["exists"] and status["problem"] is None and status["files"] == 2
    path = Path(status["path"])
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    data = data[:-5]
    path.write_bytes(bytes(data))
    damaged = Workspace(root, index="auto")
    assert damaged.index_status()["problem"]
    result = damaged.grep("needle")
    assert [m.file for m in result.matches] == ["a.txt"] and not result.indexed
    rebuilt = Workspace(root, index=True)
    assert [m.file for m in rebuilt.grep("needle").matches] == ["a.txt"]
    assert rebuilt.index_status()["problem"] is None


def test_options_and_drop(tree):
    root = tree({".hidden/a.txt": "needle\n", "b.txt": "needle\n"})
    Workspace(root).index_build()
    # Other options see other files: the index built for the defaults is not theirs.
    assert not Workspace(root, hidden=False, index="auto").index_status()["exists"]
    no_hidden = Workspace(root, hidden=False, index="auto").grep("needle")
    assert [m.file for m in no_hidden.matches] == ["b.txt"]
    ws = Workspace(root, index="auto")
    assert ws.index_drop() is True
    assert ws.index_drop() is False
    assert not ws.index_status()["exists"]


def test_index_lives_outside_the_tree(tree, index_cache):
    root = tree({"a.txt": "x\n"})
    before = sorted(p.name for p in root.rglob("*"))
    Workspace(root).index_build()
    assert sorted(p.name for p in root.rglob("*")) == before
    assert any(index_cache.rglob("index-*.bin"))


def test_cli_index_commands(tree, index_cache):
    root = tree({"a.txt": "needle\n"})
    env = dict(os.environ, CODESIFT_CACHE_DIR=str(index_cache))

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "codesift", *args, "--root", str(root)],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )

    assert "no index" in run("index", "status").stdout
    built = run("index", "build", "--json")
    assert built.returncode == 0, built.stderr
    assert json.loads(built.stdout)["files"] == 1
    assert "1 files" in run("index", "status").stdout
    grep = run("grep", "needle", "--json")
    assert json.loads(grep.stdout)["indexed"] in (True, False)
    assert json.loads(grep.stdout)["total"] == 1
    assert run("index", "drop").stdout.strip() == "index removed"


@pytest.fixture
def bulky_tree(tree):
    """Enough text that a build takes a noticeable moment (about 30 MB)."""
    body = "".join(f"    entry_{i} = compute({i}, 'filler text here')\n" for i in range(250))
    files = {f"d{i % 40}/f{i}.py": f"# file {i}\nmarker_{i % 97} = 1\n{body}" for i in range(2500)}
    return tree(files)


def test_a_build_killed_halfway_leaves_the_old_index(bulky_tree, index_cache):
    root = bulky_tree
    Workspace(root).index_build()
    before = Workspace(root, index="auto").index_status()
    script = "import sys\nfrom codesift import Workspace\nWorkspace(sys.argv[1]).index_build()\n"
    env = dict(os.environ, CODESIFT_CACHE_DIR=str(index_cache))
    for delay in (0.05, 0.2, 0.4):
        child = subprocess.Popen([sys.executable, "-c", script, str(root)], env=env)
        try:
            child.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            child.kill()
        child.wait()
        ws = Workspace(root, index="auto")
        status = ws.index_status()
        assert status["problem"] is None and status["files"] == before["files"], status
        result = ws.grep("marker_42 =", max_matches=None)
        assert hits(result) == hits(Workspace(root).grep("marker_42 =", max_matches=None))
        assert result.indexed


def test_searches_during_a_rebuild_equal_the_scan(bulky_tree, index_cache):
    root = bulky_tree
    Workspace(root).index_build()
    env = dict(os.environ, CODESIFT_CACHE_DIR=str(index_cache))
    builder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys\nfrom codesift import Workspace\n"
            "for _ in range(3):\n    Workspace(sys.argv[1]).index_build()\n",
            str(root),
        ],
        env=env,
    )
    expected = hits(Workspace(root).grep("marker_7 =", max_matches=None))
    searches = 0
    try:
        while builder.poll() is None and searches < 200:
            ws = Workspace(root, index="auto", index_watch=False)
            assert hits(ws.grep("marker_7 =", max_matches=None)) == expected
            searches += 1
    finally:
        builder.wait(timeout=120)
    assert builder.returncode == 0 and searches > 0


def test_rule_changes_are_seen_by_a_watching_workspace(tree):
    files = {f"filler/f{i}.txt": "nothing to see here\n" * 20 for i in range(30)}
    files.update(
        {
            ".git/info/exclude": "",
            "a.log": "needle\n",
            "b.txt": "needle\n",
            "sub/c.txt": "needle\n",
        }
    )
    root = tree(files)
    ws = Workspace(root, index=True)
    ws.index_build()
    assert len(ws.grep("needle").matches) == 3
    assert ws.index_status()["watching"]
    (root / ".git/info/exclude").write_text("*.log\n")
    assert [m.file for m in ws.grep("needle").matches] == ["b.txt", "sub/c.txt"]
    (root / "sub/.gitignore").write_text("c.txt\n")
    assert [m.file for m in ws.grep("needle").matches] == ["b.txt"]
    assert [f.path for f in ws.glob("**").files] == [
        f.path for f in Workspace(root).glob("**").files
    ]


def test_many_changes_rebuild_the_index_in_the_background(tree):
    """Past the threshold of changed files a watching workspace builds a new index in the
    background and swaps it in; every search before, during and after equals the scan."""
    files = {f"pkg/m{i:03}.py": f"value_{i} = {i}\nprint(value_{i})\n" for i in range(400)}
    root = tree(files)
    time.sleep(RACY_SECONDS)  # files changed just before a build are searched from disk
    ws = Workspace(root, index=True)
    assert ws.grep("value_7\\b").indexed
    first = ws.index_status()
    assert first["watching"] and first["changed_since_build"] == 0
    for i in range(300):  # behind codesift's back, more than the threshold (256)
        (root / f"pkg/m{i:03}.py").write_text(f"changed_{i} = {i}\nprint(changed_{i})\n")
    patterns = ["changed_1\\d\\b", "value_3\\d\\d\\b", "print\\(changed_29"]
    deadline = time.monotonic() + 60
    while True:
        for pattern in patterns:
            indexed = ws.grep(pattern, max_matches=None)
            assert hits(indexed) == hits(Workspace(root).grep(pattern, max_matches=None))
            assert indexed.indexed
        status = ws.index_status()
        if status["background_rebuilds"] >= 1 and not status["rebuilding"]:
            break
        assert time.monotonic() < deadline, status
        time.sleep(0.05)
    assert status["built_at_ns"] > first["built_at_ns"]
    # The new index holds the changes: the new watch has nothing to search from disk.
    assert status["watching"] and status["changed_since_build"] == 0, status
    for pattern in patterns:
        assert hits(ws.grep(pattern, max_matches=None)) == hits(
            Workspace(root).grep(pattern, max_matches=None)
        )


def test_strict_sees_changes_no_watch_reports(tree):
    """A write through a shared memory map raises no inotify event; `strict=True` checks
    every file's state before each query and finds the new text."""
    root = tree({f"m{i}.txt": f"old_token_{i}\n" for i in range(20)})
    time.sleep(RACY_SECONDS)  # else every file is "racily clean" and read from disk anyway
    ws = Workspace(root, index=True, strict=True)
    assert ws.grep("old_token_5\\b").total == 1
    assert ws.index_status()["strict"] and not ws.index_status()["watching"]
    # The file stays open: closing a descriptor opened for writing would raise an event.
    with open(root / "m5.txt", "r+b") as f, mmap.mmap(f.fileno(), 0) as mapped:
        mapped[:3] = b"new"
        mapped.flush()
        found = ws.grep("new_token_5\\b")
        assert found.indexed
        assert [(m.file, m.line) for m in found.matches] == [("m5.txt", 1)]
        assert ws.grep("old_token_5\\b").total == 0
