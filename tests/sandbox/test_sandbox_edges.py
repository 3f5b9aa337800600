"""Adversarial edge cases of the sandbox (DESIGN.md, "Paths and the sandbox"; README.md,
"Sandbox guarantees"): links to outside and to access-denied files, FIFOs where ignore files
should be, file names that are not UTF-8, `.git` directories, leftover temp files and writes
killed midway, writes to the access-ignore files themselves, memory and file-size limits,
OS errors, and nested git repositories. Whatever may block runs in a subprocess with a
deadline; every scenario is also run through the CLI, which must never print a traceback.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from sandbox_helpers import assert_no_traceback, codesift_exe, kill_group, run_cli, run_isolated
from trees import tree_fixture

from codesift import (
    CodesiftError,
    NotFoundError,
    SandboxError,
    Workspace,
)

SECRET = "OUTSIDE_SECRET"
AS_ROOT = os.geteuid() == 0


def _under(paths, prefix: str) -> list[str]:
    return [p for p in paths if p == prefix or p.startswith(prefix + "/")]


def _hits(result) -> list[tuple[str, str]]:
    return [(m.file, m.text) for m in result.matches]


# -- an absolute link to a directory outside the root ------------------------------------


@pytest.fixture
def outside_link(tree, tmp_path):
    outside = tmp_path / "OUTSIDE"
    (outside / "deep").mkdir(parents=True)
    (outside / "f.txt").write_text(f"needle {SECRET}\n")
    (outside / "deep" / "g.txt").write_text(f"needle {SECRET}\n")
    root = tree({"in.txt": "needle inside\n"})
    (root / "lnk").symlink_to(outside)  # absolute
    return root


@pytest.mark.parametrize("follow", [False, True], ids=["default", "follow_symlinks"])
@pytest.mark.parametrize("pattern", ["lnk/*", "lnk/**", "**", "lnk/f.txt", "**/g.txt", "*.txt"])
def test_d2_glob_lists_nothing_under_a_link_to_outside(outside_link, follow, pattern):
    ws = Workspace(outside_link, follow_symlinks=follow)
    try:
        paths = ws.glob(pattern).paths
    except SandboxError:
        return  # refusing is fine too; listing is not
    assert _under(paths, "lnk") == [], (
        f"glob({pattern!r}, follow_symlinks={follow}): expected no path under lnk/, got {paths}"
    )


@pytest.mark.parametrize("follow", [False, True], ids=["default", "follow_symlinks"])
def test_d2_grep_and_list_dir_through_a_link_to_outside_are_refused(outside_link, follow):
    ws = Workspace(outside_link, follow_symlinks=follow)
    with pytest.raises(SandboxError):
        got = ws.grep("needle", path="lnk")
        pytest.fail(f"grep(path='lnk'): expected SandboxError, got {_hits(got)}")
    with pytest.raises(SandboxError):
        got = ws.list_dir("lnk")
        pytest.fail(f"list_dir('lnk'): expected SandboxError, got {got!r}")
    hits = _hits(ws.grep("needle", max_matches=None))
    assert all(SECRET not in text for _, text in hits), f"expected no {SECRET} in hits, got {hits}"


def test_d2_cli_never_lists_outside_or_prints_a_traceback(outside_link):
    r = str(outside_link)
    for args in (
        ["glob", "lnk/*", "--root", r],
        ["glob", "**", "-L", "--root", r],
        ["grep", "needle", "lnk", "--root", r],
        ["grep", "-L", "needle", "lnk", "--root", r],
        ["ls", "lnk", "--root", r],
        ["read", "lnk/f.txt", "--root", r],
        ["edit", "lnk/f.txt", "needle", "pin", "--root", r],
        ["--help"],
    ):
        proc = run_cli(*args)
        assert_no_traceback(proc)
        assert SECRET not in proc.stdout, f"codesift {args}: {SECRET} in stdout:\n{proc.stdout}"
        if args[0] == "glob":
            listed = [line for line in proc.stdout.splitlines() if line.startswith("lnk/")]
            assert listed == [], f"codesift {args}: expected nothing under lnk/, got {listed}"


# -- links inside the root to access-denied files ----------------------------------------


denied_links = tree_fixture(
    {
        ".clineignore": "secret.txt\nprivate/\n",
        "secret.txt": "needle SECRET\n",
        "private/x.txt": "needle SECRET\n",
        "ok.txt": "needle ok\n",
    },
    links={"alias.txt": "secret.txt", "pub": "private"},
)


DENIED_FILES = {"secret.txt": b"needle SECRET\n", "private/x.txt": b"needle SECRET\n"}


def _assert_denied_unchanged(root: Path) -> None:
    for rel, data in DENIED_FILES.items():
        assert (root / rel).read_bytes() == data, f"{rel}: expected {data!r}, got " + repr(
            (root / rel).read_bytes()
        )
    assert os.readlink(root / "alias.txt") == "secret.txt"
    assert os.readlink(root / "pub") == "private"


@pytest.mark.parametrize("follow", [False, True], ids=["default", "follow_symlinks"])
def test_d3_search_never_shows_denied_files_through_links(denied_links, follow):
    ws = Workspace(denied_links, follow_symlinks=follow)
    hits = _hits(ws.grep("needle", max_matches=None))
    assert [h for h in hits if "SECRET" in h[1]] == [], f"expected only ok.txt, got hits {hits}"
    paths = ws.glob("**").paths
    shown = [p for p in paths if p in ("alias.txt", "pub/x.txt", "secret.txt", "private/x.txt")]
    assert shown == [], f"glob('**', follow_symlinks={follow}): expected none of them, got {paths}"
    for pattern in ("alias.txt", "pub/*", "**/x.txt"):
        assert ws.glob(pattern).paths == [], f"glob({pattern!r}): {ws.glob(pattern).paths}"


@pytest.mark.parametrize("follow", [False, True], ids=["default", "follow_symlinks"])
@pytest.mark.parametrize("path", ["alias.txt", "pub/x.txt"])
def test_d3_read_and_edit_through_links_to_denied_files_are_refused(denied_links, follow, path):
    ws = Workspace(denied_links, follow_symlinks=follow)
    with pytest.raises(SandboxError):
        got = ws.read(path)
        pytest.fail(f"read({path!r}): expected SandboxError, got {got!r}")
    with pytest.raises(SandboxError):
        got = ws.edit(path, "SECRET", "leaked")
        pytest.fail(f"edit({path!r}): expected SandboxError, got {got!r}")
    with pytest.raises(SandboxError):
        got = ws.edit_many(path, [("SECRET", "leaked")])
        pytest.fail(f"edit_many({path!r}): expected SandboxError, got {got!r}")
    with pytest.raises(SandboxError):
        got = ws.write(path, "leaked\n")
        pytest.fail(f"write({path!r}): expected SandboxError, got {got!r}")
    _assert_denied_unchanged(denied_links)


@pytest.mark.parametrize("follow", [False, True], ids=["default", "follow_symlinks"])
def test_d3_listing_and_searching_a_link_to_a_denied_directory_are_refused(denied_links, follow):
    ws = Workspace(denied_links, follow_symlinks=follow)
    with pytest.raises(SandboxError):
        got = ws.list_dir("pub")
        pytest.fail(f"list_dir('pub'): expected SandboxError, got {got!r}")
    with pytest.raises(SandboxError):
        got = ws.grep("needle", path="pub")
        pytest.fail(f"grep(path='pub'): expected SandboxError, got {_hits(got)}")
    with pytest.raises(SandboxError):
        got = ws.grep("needle", path="alias.txt")
        pytest.fail(f"grep(path='alias.txt'): expected SandboxError, got {_hits(got)}")


def test_d3_cli_never_shows_secret(denied_links):
    r = str(denied_links)
    for args in (
        ["grep", "-L", "needle", "--root", r],
        ["grep", "needle", "--root", r],
        ["grep", "-L", "needle", "--json", "--root", r],
        ["glob", "-L", "**", "--root", r],
        ["read", "alias.txt", "--root", r],
        ["read", "pub/x.txt", "--root", r],
        ["ls", "pub", "--root", r],
        ["edit", "alias.txt", "SECRET", "leaked", "--root", r],
    ):
        proc = run_cli(*args)
        assert_no_traceback(proc)
        assert "SECRET" not in proc.stdout, f"codesift {args}: SECRET in stdout:\n{proc.stdout}"
        if args[0] in ("grep", "glob"):
            assert "alias.txt" not in proc.stdout, f"codesift {args}:\n{proc.stdout}"
    _assert_denied_unchanged(denied_links)


# -- followed links inside the root --------------------------------------------------------


@pytest.fixture
def inside_links(tree):
    root = tree({"y/f.txt": "needle y\n", "sub/keep.txt": "keep\n"})
    os.symlink("../y", root / "sub" / "x")
    os.symlink(os.path.realpath(root / "y"), root / "abs")  # absolute, still inside
    return root


def test_followed_links_inside_the_root_relative_and_absolute(inside_links):
    ws = Workspace(inside_links, follow_symlinks=True)
    paths = ws.glob("**").paths
    for expected in ("sub/x/f.txt", "abs/f.txt", "y/f.txt"):
        assert expected in paths, (
            f"glob('**') with follow_symlinks: expected {expected}, got {paths}"
        )
    files = sorted({m.file for m in ws.grep("needle", max_matches=None).matches})
    assert files == ["abs/f.txt", "sub/x/f.txt", "y/f.txt"], files


def test_link_cycle_is_bounded(inside_links):
    os.symlink(".", inside_links / "loop")
    os.symlink("..", inside_links / "sub" / "up")
    res = run_isolated(
        f"""
        ws = codesift.Workspace({str(inside_links)!r}, follow_symlinks=True)
        RESULT = {{
            "glob": outcome(lambda: ws.glob("**", limit=100000).paths),
            "grep": outcome(lambda: [m.file for m in ws.grep("needle", max_matches=None).matches]),
            "list": outcome(lambda: ws.list_dir("loop").entries),
        }}
        """,
        timeout=30,
    )
    assert not res.timed_out, "a link cycle made glob/grep hang (30 s)\n" + res.describe()
    assert res.result is not None, res.describe()
    for name in ("glob", "grep"):
        got = res.result[name]
        assert got["ok"], f"{name} with a link cycle: expected a result, got {got}"
        assert len(got["value"]) <= 50, f"{name}: expected a bounded result, got {got['value']}"
        assert "y/f.txt" in got["value"], f"{name}: expected y/f.txt, got {got['value']}"
    listing = res.result["list"]
    assert listing["ok"] or listing["codesift"], listing


def test_followed_links_cli_never_prints_a_traceback(inside_links):
    os.symlink(".", inside_links / "loop")
    r = str(inside_links)
    for args in (
        ["glob", "-L", "**", "--root", r],
        ["grep", "-L", "needle", "--root", r],
        ["ls", "loop/loop/loop", "--root", r],
        ["read", "loop/loop/y/f.txt", "--root", r],
    ):
        assert_no_traceback(run_cli(*args, timeout=30))


# -- FIFOs where ignore files are read ----------------------------------------------------

FIFO_NAMES = [".gitignore", ".ignore", ".clineignore", "sub/.gitignore"]
FIFO_OPS = {
    "grep": 'sorted({m.file for m in ws.grep("x", timeout=1).matches})',
    "glob": 'ws.glob("**").paths',
    "read": 'ws.read("a.txt").content',
    "list_dir": 'ws.list_dir(".").entries',
    "write": 'ws.write("b.txt", "y").path',
}


def _fifo_tree(base: Path, fifo: str) -> Path:
    root = base
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("x\n")
    (root / "sub" / "c.txt").write_text("x\n")
    os.mkfifo(root / fifo)
    return root


def _isolated_op(root: Path, expr: str):
    return run_isolated(
        f"""
        def call():
            ws = codesift.Workspace({str(root)!r})
            return {expr}
        RESULT = outcome(call)
        """,
        timeout=20,
    )


@pytest.mark.parametrize("fifo", FIFO_NAMES)
def test_d6_fifo_as_ignore_file_never_blocks(tmp_path, fifo):
    jobs = {}
    for name, expr in FIFO_OPS.items():
        jobs[name] = (_fifo_tree(tmp_path / name, fifo), expr)
    read_root = _fifo_tree(tmp_path / "read-fifo", fifo)
    jobs["read the FIFO itself"] = (read_root, f"ws.read({fifo!r}).content")
    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        futures = {
            name: pool.submit(_isolated_op, root, expr) for name, (root, expr) in jobs.items()
        }
        results = {name: f.result() for name, f in futures.items()}
    problems = []
    for name, res in results.items():
        if res.timed_out:
            problems.append(f"{name}: blocked (killed after 20 s)")
            continue
        got = res.result
        if got is None:
            problems.append(f"{name}: crashed\n{res.describe()}")
        elif name == "read the FIFO itself":
            # An access-ignore file that cannot be read may also fail closed (SandboxError).
            allowed = {"NotAFileError"} | ({"SandboxError"} if fifo == ".clineignore" else set())
            if got["ok"] or got["type"] not in allowed:
                problems.append(f"{name}: expected {sorted(allowed)}, got {got}")
        elif not got["ok"]:
            # A FIFO as an access-ignore file may fail closed (a CodesiftError); a FIFO as a
            # .gitignore/.ignore only hides nothing.
            if fifo != ".clineignore" or not got["codesift"]:
                problems.append(f"{name}: expected a result, got {got}")
        elif name == "grep" and fifo != ".clineignore" and "a.txt" not in got["value"]:
            problems.append(f"{name}: expected a hit in a.txt, got {got}")
    assert not problems, f"FIFO at {fifo}:\n" + "\n".join(problems)


@pytest.mark.parametrize("fifo", [".gitignore", ".clineignore"])
def test_d6_cli_with_a_fifo_never_blocks_or_prints_a_traceback(tmp_path, fifo):
    root = str(_fifo_tree(tmp_path / "w", fifo))
    for args in (
        ["grep", "x", "--timeout", "1", "--root", root],
        ["glob", "**", "--root", root],
        ["ls", "--root", root],
        ["read", "a.txt", "--root", root],
        ["read", fifo, "--root", root],
    ):
        assert_no_traceback(run_cli(*args, timeout=20))


# -- file names that are not UTF-8 ---------------------------------------------------------

RAW = b"caf\xe9.py"
NAME = os.fsdecode(RAW)  # "caf\udce9.py"
TWIN = "caf\ufffd.py"  # what a lossy decoding of RAW looks like, a valid UTF-8 name


def _create_raw(root: Path, raw: bytes, data: bytes) -> None:
    fd = os.open(os.fsencode(root) + b"/" + raw, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def _raw_bytes(root: Path, raw: bytes) -> bytes:
    with open(os.fsencode(root) + b"/" + raw, "rb") as f:
        return f.read()


@pytest.fixture(params=["alone", "with_twin"])
def raw_name(request, tree):
    root = tree({})
    _create_raw(root, RAW, b"needle\n")
    if request.param == "with_twin":
        (root / TWIN).write_bytes(b"needle\n")
    return root, request.param == "with_twin"


def test_d7_search_and_listing_give_the_surrogateescape_name(raw_name):
    root, twin = raw_name
    ws = Workspace(root)
    expected = {NAME, TWIN} if twin else {NAME}
    paths = ws.glob("*.py").paths
    assert set(paths) == expected and len(paths) == len(expected), (
        f"glob('*.py'): expected {sorted(expected)!r}, got {paths!r}"
    )
    files = [m.file for m in ws.grep("needle").matches]
    assert sorted(files) == sorted(expected), f"grep: expected {sorted(expected)!r}, got {files!r}"
    single = [m.file for m in ws.grep("needle", path=NAME).matches]
    assert single == [NAME], f"grep(path=NAME): expected [{NAME!r}], got {single!r}"
    entries = ws.list_dir(".").entries
    assert sorted(entries) == sorted(expected), f"list_dir: expected {expected!r}, got {entries!r}"


def test_d7_read_and_edit_act_on_exactly_the_named_file(raw_name):
    root, twin = raw_name
    ws = Workspace(root)
    assert ws.read(NAME).content == "     1\tneedle", ws.read(NAME)
    ws.edit(NAME, "needle", "pin")
    assert _raw_bytes(root, RAW) == b"pin\n", _raw_bytes(root, RAW)
    if twin:
        assert (root / TWIN).read_bytes() == b"needle\n", "the UTF-8 twin was edited"
    on_disk = sorted(os.listdir(os.fsencode(root)))
    assert on_disk == sorted([RAW, TWIN.encode()] if twin else [RAW]), on_disk


def test_d7_edit_result_acts_on_exactly_the_file_of_the_hit(raw_name):
    root, twin = raw_name
    ws = Workspace(root)
    hits = {m.file: m for m in ws.grep("needle").matches}
    assert NAME in hits, f"expected a hit in {NAME!r}, got {list(hits)}"
    ws.edit_result(hits[NAME].id, "pin")
    assert _raw_bytes(root, RAW) == b"pin\n", _raw_bytes(root, RAW)
    if twin:
        assert (root / TWIN).read_bytes() == b"needle\n", "the UTF-8 twin was edited"
        assert TWIN in hits, f"expected a hit in {TWIN!r}, got {list(hits)}"
        ws.edit_result(hits[TWIN].id, "pan")
        assert (root / TWIN).read_bytes() == b"pan\n"
        assert _raw_bytes(root, RAW) == b"pin\n", "the non-UTF-8 file was edited again"


def test_d7_a_lossy_spelling_never_names_the_raw_file(tree):
    root = tree({})
    _create_raw(root, RAW, b"needle\n")
    ws = Workspace(root)
    for call in (lambda: ws.read(TWIN), lambda: ws.edit(TWIN, "needle", "pin")):
        with pytest.raises(NotFoundError):
            got = call()
            pytest.fail(f"{TWIN!r} does not exist, expected NotFoundError, got {got!r}")
    assert _raw_bytes(root, RAW) == b"needle\n"


def test_d7_write_a_surrogateescape_name(tree):
    root = tree({})
    ws = Workspace(root)
    ws.write("t\udcff.txt", "x")
    on_disk = os.listdir(os.fsencode(root))
    assert on_disk == [b"t\xff.txt"], f"expected [b't\\xff.txt'], got {on_disk}"
    assert _raw_bytes(root, b"t\xff.txt") == b"x"
    assert ws.read("t\udcff.txt").content == "     1\tx"


def test_d7_results_round_trip_through_json(raw_name):
    root, twin = raw_name
    ws = Workspace(root)
    for what, result, key in (
        ("glob", ws.glob("*.py"), "files"),
        ("grep", ws.grep("needle"), "matches"),
    ):
        data = result.to_dict()
        text = json.dumps(data)
        back = json.loads(text)
        assert back == data, f"{what}: json round trip changed the result:\n{data}\n{back}"
        names = [item["path" if what == "glob" else "file"] for item in back[key]]
        assert NAME in names, f"{what}: expected {NAME!r} in the JSON result, got {names!r}"
    listing = ws.list_dir(".").to_dict()
    assert json.loads(json.dumps(listing)) == listing
    edit = ws.edit(NAME, "needle", "pin").to_dict()
    assert json.loads(json.dumps(edit)) == edit
    assert edit["path"] == NAME, edit


def test_d7_cli_never_prints_a_traceback(raw_name, tmp_path):
    root, _ = raw_name
    r = str(root)
    # A strict UTF-8 stdout, as a user's terminal may have: a surrogate would fail to print.
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    for args in (
        ["glob", "*.py", "--root", r],
        ["glob", "*.py", "--json", "--root", r],
        ["grep", "needle", "--root", r],
        ["grep", "needle", "--json", "--root", r],
        ["ls", "--root", r],
        ["ls", "--json", "--root", r],
        ["read", RAW, "--root", r],
        ["read", RAW, "--json", "--root", r],
        ["edit", RAW, "needle", "pin", "--root", r],
    ):
        proc = run_cli(*args, env=env)
        assert_no_traceback(proc)
        assert proc.returncode != 2 or args[0] == "edit", (
            f"codesift {args}: expected success, got exit 2: {proc.stderr}"
        )
    assert _raw_bytes(root, RAW) in (b"needle\n", b"pin\n")


# -- .git directories --------------------------------------------------------------------


git_dirs = tree_fixture(
    {
        ".git/config": "needle\n",
        ".git/HEAD": "ref: refs/heads/main\n",
        "sub/.git/config": "needle\n",
        "sub/.git/HEAD": "ref: refs/heads/main\n",
        "sub/a.txt": "needle a\n",
        "b.txt": "needle b\n",
    }
)


def _git_paths(paths) -> list[str]:
    return [p for p in paths if ".git" in p.split("/")]


@pytest.mark.parametrize(
    "pattern", [".git/*", "**/config", "sub/.git/*", "**", ".git/**", "**/HEAD"]
)
def test_d12_glob_never_lists_git_files(git_dirs, pattern):
    paths = Workspace(git_dirs).glob(pattern).paths
    assert _git_paths(paths) == [], f"glob({pattern!r}): expected nothing from .git, got {paths}"


@pytest.mark.parametrize("git", [".git", "sub/.git"])
def test_d12_searching_and_listing_inside_git_are_refused(git_dirs, git):
    ws = Workspace(git_dirs)
    calls = {
        f"glob('*', path={git!r})": lambda: ws.glob("*", path=git).paths,
        f"grep(path={git!r})": lambda: _hits(ws.grep("needle", path=git)),
        f"grep(path={git + '/config'!r})": lambda: _hits(ws.grep("needle", path=git + "/config")),
        f"list_dir({git!r})": lambda: ws.list_dir(git).entries,
    }
    wrong = {}
    for name, call in calls.items():
        try:
            wrong[name] = call()
        except SandboxError:
            pass
        except CodesiftError as exc:
            wrong[name] = exc
    assert not wrong, f"expected SandboxError from each, got: {wrong}"


def test_d12_listing_and_search_hide_git(git_dirs):
    ws = Workspace(git_dirs)
    assert ws.list_dir(".").entries == ["sub/", "b.txt"], ws.list_dir(".").entries
    assert ws.list_dir("sub").entries == ["a.txt"], ws.list_dir("sub").entries
    files = [m.file for m in ws.grep("needle", max_matches=None).matches]
    assert files == ["b.txt", "sub/a.txt"], files


def test_d12_cli_never_shows_git_content_or_a_traceback(git_dirs):
    r = str(git_dirs)
    for args in (
        ["ls", ".git", "--root", r],
        ["ls", "sub/.git", "--root", r],
        ["grep", "needle", ".git", "--root", r],
        ["grep", "needle", ".git/config", "--root", r],
        ["glob", "*", ".git", "--root", r],
        ["glob", ".git/*", "--root", r],
        ["edit", ".git/config", "needle", "pin", "--root", r],
    ):
        proc = run_cli(*args)
        assert_no_traceback(proc)
        assert "needle" not in proc.stdout, f"codesift {args} showed .git content:\n{proc.stdout}"
    assert (git_dirs / ".git" / "config").read_text() == "needle\n"


# -- leftover temp files ------------------------------------------------------------------

TEMP = ".a.txt.codesift-1a2b3c4d.tmp"
TEMP_MARK = ".codesift-"


@pytest.fixture
def leftover(tree):
    return tree({"a.txt": "needle a\n", TEMP: "needle temp\n", "sub/c.txt": "c\n"})


def test_d16_leftover_temp_file_is_invisible(leftover):
    ws = Workspace(leftover)
    shown = {
        "glob('**')": ws.glob("**").paths,
        "glob('*.tmp')": ws.glob("*.tmp").paths,
        "grep('needle')": [m.file for m in ws.grep("needle", max_matches=None).matches],
        "grep('temp')": [m.file for m in ws.grep("temp", max_matches=None).matches],
        "list_dir('.')": ws.list_dir(".").entries,
    }
    leaks = {k: v for k, v in shown.items() if any(TEMP_MARK in p for p in v)}
    assert not leaks, f"expected no {TEMP_MARK} temp file in any result, got {leaks}"


@pytest.mark.parametrize("how", ["write", "edit"])
def test_d16_leftover_temp_file_is_removed_by_the_next_write(leftover, how):
    ws = Workspace(leftover)
    if how == "write":
        ws.write("a.txt", "fresh\n")
    else:
        ws.edit("a.txt", "needle a", "needle b")
    left = sorted(os.listdir(leftover))
    assert TEMP not in left, f"after {how} of a.txt: expected {TEMP} gone, directory has {left}"


CHILD_WRITER = textwrap.dedent(
    """
    import sys
    import codesift

    def content(g):
        return ("MARKER gen%d\\n" % g) + ("filler gen%d %s\\n" % (g, "x" * 60)) * 75000

    ws = codesift.Workspace(sys.argv[1])
    contents = [content(g) for g in range(3)]
    print("ready", flush=True)
    for i in range(100000):
        ws.write("big.txt", contents[i % 3])
    """
)


def _writer_content(g: int) -> bytes:
    return (f"MARKER gen{g}\n" + f"filler gen{g} {'x' * 60}\n" * 75000).encode()


def _temp_files_on_disk(root: Path) -> list[str]:
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            if TEMP_MARK in name:
                found.append(os.path.relpath(os.path.join(dirpath, name), root))
    return found


def test_d16_kill9_during_writes_leaves_no_partial_file_and_no_visible_temp(tree):
    root = tree({"keep.txt": "keep\n"})
    complete = {_writer_content(g) for g in range(3)}
    assert all(len(c) > 5_000_000 for c in complete)
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    partial, died = [], []
    for round_ in range(40):
        proc = subprocess.Popen(
            [sys.executable, "-c", CHILD_WRITER, str(root)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            start_new_session=True,
        )
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            assert line.strip() == "ready", f"writer did not start: {line!r} {proc.stderr.read()}"
            try:
                proc.wait(timeout=rng.uniform(0.0, 0.12))
            except subprocess.TimeoutExpired:
                pass
        finally:
            kill_group(proc)
            if proc.returncode != -signal.SIGKILL:
                died.append(f"round {round_}: exit {proc.returncode}: {proc.stderr.read()[-2000:]}")
            proc.stdout.close()
            proc.stderr.close()
        big = root / "big.txt"
        if big.exists():
            data = big.read_bytes()
            if data not in complete:
                partial.append(f"round {round_}: big.txt has {len(data)} bytes, not a full write")
    assert not died, f"the writer process failed on its own: {died}"
    assert not partial, f"seed {seed}: expected big.txt absent or complete, got {partial}"
    on_disk = _temp_files_on_disk(root)
    ws = Workspace(root)
    shown = {
        "glob('**')": ws.glob("**").paths,
        "grep('MARKER')": [m.file for m in ws.grep("MARKER", max_matches=None).matches],
        "list_dir('.')": ws.list_dir(".").entries,
    }
    leaks = {k: v for k, v in shown.items() if any(TEMP_MARK in p for p in v)}
    assert not leaks, f"seed {seed}: temp files on disk {on_disk}; visible in results: {leaks}"
    ws.write("big.txt", _writer_content(0).decode())
    after = _temp_files_on_disk(root)
    assert after == [], f"seed {seed}: expected no temp file after one more write, found {after}"
    assert (root / "big.txt").read_bytes() == _writer_content(0)


def test_d16_cli_never_shows_temp_files(leftover):
    r = str(leftover)
    for args in (
        ["glob", "**", "--root", r],
        ["grep", "needle", "--root", r],
        ["ls", "--root", r],
        ["read", TEMP, "--root", r],
    ):
        proc = run_cli(*args)
        assert_no_traceback(proc)
        if args[0] != "read":
            assert TEMP_MARK not in proc.stdout, f"codesift {args}:\n{proc.stdout}"


# -- access-ignore files cannot be written --------------------------------------------------


access_files = tree_fixture(
    {
        ".clineignore": "secret.txt\n",
        ".codesiftignore": "*.key\n",
        "secret.txt": "s\n",
        "sub/a.txt": "a\n",
    },
    links={"ci_alias": ".clineignore"},
)


def _access_state(root: Path) -> dict[str, bytes | None]:
    names = [
        ".clineignore",
        ".codesiftignore",
        "sub/.codesiftignore",
        "sub/.clineignore",
        "new/.clineignore",
    ]
    return {n: (root / n).read_bytes() if (root / n).exists() else None for n in names}


ACCESS_WRITES = {
    "write .clineignore": lambda ws: ws.write(".clineignore", ""),
    "edit .clineignore": lambda ws: ws.edit(".clineignore", "secret.txt", "x"),
    "edit_many .clineignore": lambda ws: ws.edit_many(".clineignore", [("secret.txt", "x")]),
    "write .codesiftignore": lambda ws: ws.write(".codesiftignore", ""),
    "write sub/.codesiftignore (new)": lambda ws: ws.write("sub/.codesiftignore", ""),
    "write sub/.clineignore (new)": lambda ws: ws.write("sub/.clineignore", "a.txt\n"),
    "write new/.clineignore (new dir)": lambda ws: ws.write("new/.clineignore", ""),
    "edit ci_alias -> .clineignore": lambda ws: ws.edit("ci_alias", "secret.txt", "x"),
}


@pytest.mark.parametrize("what", list(ACCESS_WRITES))
def test_access_ignore_files_cannot_be_written(access_files, what):
    ws = Workspace(access_files)
    before = _access_state(access_files)
    with pytest.raises(SandboxError):
        got = ACCESS_WRITES[what](ws)
        pytest.fail(f"{what}: expected SandboxError, got {got!r}")
    after = _access_state(access_files)
    assert after == before, (
        f"{what}: expected the access-ignore files unchanged:\n{before}\n{after}"
    )
    with pytest.raises(SandboxError):
        ws.read("secret.txt")


def test_access_ignore_file_cannot_be_edited_through_a_search_hit(access_files):
    ws = Workspace(access_files)
    hits = [m for m in ws.grep("secret", max_matches=None).matches if m.file == ".clineignore"]
    before = _access_state(access_files)
    for hit in hits:  # if the file is searchable at all, its hits must not be editable
        with pytest.raises(SandboxError):
            got = ws.edit_result(hit.id, "x")
            pytest.fail(f"edit_result on a hit in .clineignore: expected SandboxError, got {got!r}")
    assert _access_state(access_files) == before


def test_access_ignore_write_through_a_link_never_changes_it(access_files):
    ws = Workspace(access_files)
    before = _access_state(access_files)
    try:
        ws.write("ci_alias", "")
    except CodesiftError:
        pass
    assert _access_state(access_files) == before, "write through a link changed .clineignore"


def test_access_ignore_cli_refuses_without_a_traceback(access_files):
    r = str(access_files)
    for args in (
        ["edit", ".clineignore", "secret.txt", "x", "--root", r],
        ["edit", "ci_alias", "secret.txt", "x", "--root", r],
        ["edit", ".codesiftignore", "*.key", "x", "--root", r],
    ):
        proc = run_cli(*args)
        assert_no_traceback(proc)
        assert proc.returncode == 2, f"codesift {args}: expected exit 2, got {proc.returncode}"
    assert (access_files / ".clineignore").read_text() == "secret.txt\n"
    assert (access_files / ".codesiftignore").read_text() == "*.key\n"


# -- memory limits ---------------------------------------------------------------------

GIB = 1 << 30


def _need_disk(path: Path, size: int) -> None:
    if shutil.disk_usage(path).free < size + GIB:
        pytest.skip(f"needs {size >> 20} MiB free")


def test_d11_edit_of_a_huge_sparse_file_is_binary_not_memory_error(tree):
    root = tree({"a.txt": "a\n"})
    with open(root / "huge.bin", "wb"):
        pass
    os.truncate(root / "huge.bin", 2 * GIB)
    res = run_isolated(
        f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, ({GIB}, {GIB}))
        ws = codesift.Workspace({str(root)!r})
        RESULT = {{
            "edit": outcome(lambda: ws.edit("huge.bin", "a", "b").summary),
            "read": outcome(lambda: ws.read("huge.bin").content[:50]),
            "grep": outcome(lambda: [m.file for m in ws.grep("a").matches]),
        }}
        """,
        timeout=120,
    )
    assert res.result is not None, res.describe()
    edit = res.result["edit"]
    assert not edit["ok"] and edit["type"] == "BinaryFileError", (
        f"edit of a 2 GiB NUL file under a 1 GiB address-space limit: expected BinaryFileError, "
        f"got {edit}"
    )
    read = res.result["read"]
    assert not read["ok"] and read["type"] == "BinaryFileError", f"read: {read}"
    assert res.result["grep"] == {"ok": True, "value": ["a.txt"]}, res.result["grep"]
    assert os.path.getsize(root / "huge.bin") == 2 * GIB


def test_d11_edit_of_a_text_file_over_the_size_limit_says_so(tree):
    root = tree({})
    size = 130 << 20
    _need_disk(root, size)
    line = b"a" * 63 + b"\n"
    with open(root / "big.txt", "wb") as f:
        f.write(line * (size // len(line)) + b"needle_end\n")
    total = os.path.getsize(root / "big.txt")
    res = run_isolated(
        f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, ({GIB}, {GIB}))
        ws = codesift.Workspace({str(root)!r})
        RESULT = outcome(lambda: ws.edit("big.txt", "needle_end", "pin").summary)
        """,
        timeout=180,
    )
    got = res.result
    assert got is not None, res.describe()
    assert not got["ok"] and got["codesift"], (
        f"edit of a {total >> 20} MiB text file: expected a CodesiftError naming the size limit, "
        f"got {got}"
    )
    assert re.search(r"(?i)\blimit\b|too (large|big)|larger than|exceeds", got["message"]), (
        f"expected the message to mention the size limit, got {got['message']!r}"
    )
    assert os.path.getsize(root / "big.txt") == total
    with open(root / "big.txt", "rb") as f:
        f.seek(total - 11)
        assert f.read() == b"needle_end\n"


def test_d11_cli_never_prints_a_traceback(tree):
    root = tree({"a.txt": "a\n"})
    with open(root / "huge.bin", "wb"):
        pass
    os.truncate(root / "huge.bin", 2 * GIB)
    script = f'ulimit -v {GIB >> 10}; exec "$0" "$@"'
    for args in (["edit", "huge.bin", "a", "b"], ["read", "huge.bin"], ["grep", "a"]):
        try:
            proc = subprocess.run(
                ["sh", "-c", script, *codesift_exe(), *args, "--root", str(root)],
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
        except subprocess.TimeoutExpired:
            pytest.fail(f"codesift {args} under a 1 GiB limit did not finish in 120 s")
        assert "Traceback" not in proc.stderr, f"codesift {args}:\n{proc.stderr}"
        assert "MemoryError" not in proc.stderr, f"codesift {args}:\n{proc.stderr}"
        assert proc.returncode in (0, 1, 2), f"codesift {args}: exit {proc.returncode}"


# -- OS errors become CodesiftError ----------------------------------------------------


def test_d13_name_too_long_is_a_codesift_error(tree):
    root = tree({})
    ws = Workspace(root)
    for call in (
        lambda: ws.write("a" * 300 + ".txt", "x"),
        lambda: ws.write("sub/" + "a" * 300 + "/x.txt", "x"),
        lambda: ws.read("a" * 300 + ".txt"),
        lambda: ws.edit("a" * 300 + ".txt", "a", "b"),
        lambda: ws.list_dir("a" * 300),
        lambda: ws.grep("x", path="a" * 300),
        lambda: ws.glob("*", path="a" * 300),
    ):
        with pytest.raises(CodesiftError):
            got = call()
            pytest.fail(f"expected a CodesiftError for a 300-byte name, got {got!r}")
    assert os.listdir(root) == [], os.listdir(root)


def test_d13_path_too_long_is_a_codesift_error_or_works(tree):
    root = tree({})
    ws = Workspace(root)
    deep = "d/" * 3000 + "x"
    try:
        ws.write(deep, "y")
    except CodesiftError:
        pass  # an ENAMETOOLONG, reported as codesift's own error
    else:
        # Resolving one component at a time has no PATH_MAX: then the file is really there.
        assert ws.read(deep).content == "     1\ty"
    for call in (lambda: ws.read("d/" * 3000 + "y"), lambda: ws.list_dir("d/" * 3000)):
        try:
            call()
        except CodesiftError:
            pass


def test_d13_file_size_limit_is_a_codesift_error_and_leaves_nothing(tree):
    root = tree({"small.txt": "small\n"})
    res = run_isolated(
        f"""
        import resource, signal
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))
        ws = codesift.Workspace({str(root)!r})
        RESULT = {{
            "new": outcome(lambda: ws.write("big.txt", "x" * 5_000_000).path),
            "existing": outcome(lambda: ws.write("small.txt", "y" * 5_000_000).path),
        }}
        """,
        timeout=60,
    )
    assert res.result is not None, res.describe()
    for name, got in res.result.items():
        assert not got["ok"] and got["codesift"], (
            f"write of 5 MB ({name} file) under a 1 MiB RLIMIT_FSIZE: expected a CodesiftError, "
            f"got {got}"
        )
    left = sorted(os.listdir(root))
    assert left == ["small.txt"], f"expected no big.txt and no temp file, got {left}"
    assert (root / "small.txt").read_text() == "small\n"


@pytest.mark.skipif(AS_ROOT, reason="root bypasses permission checks")
def test_d13_permission_denied_is_a_codesift_error(tree):
    root = tree({"ro/a.txt": "a\n", "secret/s.txt": "s\n", "noread.txt": "n\n", "ok.txt": "ok\n"})
    os.chmod(root / "ro", 0o555)
    os.chmod(root / "secret", 0o000)
    os.chmod(root / "noread.txt", 0o000)
    try:
        ws = Workspace(root)
        for name, call in (
            ("write in a read-only dir", lambda: ws.write("ro/b.txt", "x")),
            ("edit in a read-only dir", lambda: ws.edit("ro/a.txt", "a", "b")),
            ("read an unreadable file", lambda: ws.read("noread.txt")),
            ("edit an unreadable file", lambda: ws.edit("noread.txt", "n", "m")),
            ("list an unreadable dir", lambda: ws.list_dir("secret")),
            ("read in an unreadable dir", lambda: ws.read("secret/s.txt")),
        ):
            with pytest.raises(CodesiftError):
                got = call()
                pytest.fail(f"{name}: expected a CodesiftError, got {got!r}")
        files = [m.file for m in ws.grep("ok", max_matches=None).matches]
        assert files == ["ok.txt"], files
    finally:
        os.chmod(root / "ro", 0o755)
        os.chmod(root / "secret", 0o755)
        os.chmod(root / "noread.txt", 0o644)


def test_d13_cli_never_prints_a_traceback(tree):
    root = tree({"big.txt": "needle\n" + "x" * 3_000_000 + "\n"})
    r = str(root)
    for args in (
        ["read", "a" * 300 + ".txt", "--root", r],
        ["edit", "a" * 300 + ".txt", "a", "b", "--root", r],
        ["ls", "a" * 300, "--root", r],
        ["grep", "x", "a" * 300, "--root", r],
        ["read", "d/" * 3000 + "x", "--root", r],
        ["glob", "*", "d/" * 3000, "--root", r],
    ):
        assert_no_traceback(run_cli(*args))
    # A file-size limit (1 MiB) while an edit rewrites a 3 MB file; SIGXFSZ ignored.
    script = 'trap \'\' XFSZ; ulimit -f 1024; exec "$0" "$@"'
    proc = subprocess.run(
        ["sh", "-c", script, *codesift_exe(), "edit", "big.txt", "needle", "pin", "--root", r],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert_no_traceback(proc)
    assert proc.returncode == 2, f"expected exit 2, got {proc.returncode}: {proc.stderr}"
    assert (root / "big.txt").read_text().startswith("needle\n")
    assert sorted(os.listdir(root)) == ["big.txt"], os.listdir(root)


# -- nested git repository --------------------------------------------------------------------


nested_repo = tree_fixture(
    {
        ".gitignore": "*.log\n",
        ".ignore": "*.tmp\n",
        ".clineignore": "*.key\n",
        "top.log": "needle top\n",
        "top.txt": "needle top txt\n",
        "nested/.git/HEAD": "ref: refs/heads/main\n",
        "nested/.gitignore": "*.out\n",
        "nested/a.log": "needle nested log\n",
        "nested/x.tmp": "needle tmp\n",
        "nested/k.key": "needle key\n",
        "nested/b.out": "needle out\n",
        "nested/ok.txt": "needle ok\n",
    }
)


NESTED_VISIBLE = ["nested/a.log", "nested/ok.txt", "top.txt"]


def test_nested_git_repository_stops_the_outer_gitignore(nested_repo):
    ws = Workspace(nested_repo)
    paths = [p for p in ws.glob("**").paths if not p.split("/")[-1].startswith(".")]
    assert paths == NESTED_VISIBLE, f"glob('**'): expected {NESTED_VISIBLE}, got {paths}"
    files = sorted({m.file for m in ws.grep("needle", max_matches=None).matches})
    assert files == NESTED_VISIBLE, f"grep: expected {NESTED_VISIBLE}, got {files}"
    assert ws.glob("*.log").paths == ["nested/a.log"], ws.glob("*.log").paths
    listing = ws.list_dir("nested").entries
    assert listing == [".gitignore", "a.log", "ok.txt"], (
        f"list_dir('nested'): expected ['.gitignore', 'a.log', 'ok.txt'], got {listing}"
    )


def test_nested_git_repository_keeps_ignore_and_access_rules(nested_repo):
    ws = Workspace(nested_repo)
    with pytest.raises(SandboxError):
        ws.read("nested/k.key")
    with pytest.raises(SandboxError):
        ws.edit("nested/k.key", "needle", "pin")
    assert ws.read("nested/x.tmp").content == "     1\tneedle tmp"  # .ignore only hides
    # The boundary of the nested repository stops only the outer .gitignore: .ignore (*.tmp)
    # and the access-ignore file (*.key) still apply inside it, and so does its own .gitignore.
    for shown in (
        ws.glob("**", path="nested").paths,
        ws.glob("**").paths,
        [m.file for m in ws.grep("needle", max_matches=None).matches],
        [m.file for m in ws.grep("needle", path="nested", max_matches=None).matches],
        ["nested/" + e for e in ws.list_dir("nested").entries],
    ):
        hidden = [p for p in shown if p in ("nested/x.tmp", "nested/k.key", "nested/b.out")]
        assert hidden == [], f"expected x.tmp, k.key and b.out hidden, got {shown}"
    assert (nested_repo / "nested/k.key").read_text() == "needle key\n"


def test_nested_git_cli_gives_the_same_answers_without_a_traceback(nested_repo):
    r = str(nested_repo)
    for args, expect in (
        (["glob", "*.log", "--root", r], "nested/a.log"),
        (["grep", "needle", "--root", r], "nested/a.log"),
        (["ls", "nested", "--root", r], "a.log"),
        (["read", "nested/k.key", "--root", r], None),
    ):
        proc = run_cli(*args)
        assert_no_traceback(proc)
        if expect:
            assert expect in proc.stdout, f"codesift {args}: expected {expect}, got {proc.stdout}"
        assert "needle key" not in proc.stdout and "top.log" not in proc.stdout, proc.stdout


def test_nested_git_repository_as_a_gitfile(nested_repo):
    """A submodule's .git is a file (`gitdir: ...`): the boundary is the same."""
    shutil.rmtree(nested_repo / "nested" / ".git")
    (nested_repo / "nested" / ".git").write_text("gitdir: ../.git/modules/nested\n")
    ws = Workspace(nested_repo)
    logs = ws.glob("*.log").paths
    assert logs == ["nested/a.log"], f"expected ['nested/a.log'], got {logs}"
