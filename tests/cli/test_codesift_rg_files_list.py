"""`codesift-rg --files` answered from a list the daemon keeps: the list printed by a run
(its own walk, as ripgrep's) is offered to the daemon, which serves it to the same command
line until the tree changes in a way that can change the listing. Every answer equals a
scan and the real ripgrep, before and after every kind of change, inside the tree and
outside it (a parent directory's ignore file, the global git excludes)."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from rg_helpers import NEEDS_CODESIFT_RG, Env, real_rgs

pytestmark = NEEDS_CODESIFT_RG

KEPT = b"from the daemon's list"
OFFERED = b"list offered, kept: true"

ARGVS = [
    ("--files",),
    ("--files", "-g", "*.c"),
    ("--files", "--hidden", "-g", "!.git"),
    ("--files", "-uu", "-g", "!.git/"),
    ("--files", "-t", "py"),
    ("--files", "--sort", "path"),
    ("--files", "--sortr=modified"),
    ("--files", "src"),
]
# Lists of files inside `.git` are never kept (the watch does not follow git's own files).
UNKEPT = [("--files", "-uu"), ("--files", "--hidden")]


def make_tree(base: Path) -> Path:
    """A repository inside a parent directory with its own `.gitignore` (read by ripgrep
    as a parent's rules)."""
    parent = base / "parent"
    tree = parent / "tree"
    (tree / "src" / "sub").mkdir(parents=True)
    (tree / "build").mkdir()
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    (parent / ".gitignore").write_text("")
    files = {
        ".gitignore": "build/\n*.log\n",
        ".rgignore": "rg_only.txt\n",
        "a.c": "int a;\n",
        "tool.py": "print(1)\n",
        "rg_only.txt": "x\n",
        "x.log": "x\n",
        ".hidden.c": "x\n",
        "build/out.c": "x\n",
        "src/b.c": "x\n",
        "src/sub/c.py": "x\n",
        "src/parent_ignored.txt": "x\n",
    }
    for name, text in files.items():
        (tree / name).write_text(text)
    return tree


def lines(out: bytes) -> list[bytes]:
    return sorted(out.splitlines())


@pytest.fixture
def env(tmp_path: Path):
    config = tmp_path / "config"
    (config / "git").mkdir(parents=True)
    (config / "git" / "ignore").write_text("")
    env = Env(tmp_path)
    # The global git excludes are found through XDG_CONFIG_HOME: this test's own.
    env.env.update(XDG_CONFIG_HOME=str(config), HOME=str(tmp_path))
    env.env.pop("GIT_CONFIG_GLOBAL", None)
    with env:
        yield env


def reference(env: Env, tree: Path, args: tuple[str, ...]) -> subprocess.CompletedProcess:
    """The real ripgrep's answer (15 first), else codesift-rg's own scan."""
    reals = real_rgs()
    if reals:
        return env.rg(tree, "never", *args, binary=reals[0][0])
    return env.rg(tree, "never", *args)


def check(env: Env, tree: Path, args: tuple[str, ...], what: str) -> bytes:
    """Runs `args` with the daemon (auto) and checks it against the reference; returns the
    debug lines (stderr)."""
    auto = env.rg(tree, "auto", *args)
    ref = reference(env, tree, args)
    sort = "--sort" in args
    got = auto.stdout if sort else lines(auto.stdout)
    want = ref.stdout if sort else lines(ref.stdout)
    assert (auto.returncode, got) == (ref.returncode, want), (
        f"{what}: rg {' '.join(args)}\nexpected {ref.returncode} {want!r}\n"
        f"actual   {auto.returncode} {got!r}\n{auto.stderr.decode()}"
    )
    return auto.stderr


def test_a_kept_list_is_served_and_equals_ripgrep_after_every_change(env, tmp_path: Path) -> None:
    tree = make_tree(tmp_path)
    # The index of the tree (a force run builds it and waits).
    env.rg(tree, "force", "--files")
    check_kept_by_the_first_run(env, tree, ARGVS, OFFERED, KEPT)
    for args in UNKEPT:
        check(env, tree, args, "first run")
        second = check(env, tree, args, "second run")
        assert KEPT not in second, f"rg {args}: a list with .git in it was kept"

    changes = [
        ("a file created", lambda: (tree / "new.c").write_text("x\n")),
        ("a file removed", lambda: (tree / "a.c").unlink()),
        ("a file renamed", lambda: os.rename(tree / "tool.py", tree / "src" / "tool2.py")),
        ("a directory with files moved in", lambda: move_in(tmp_path, tree)),
        *rule_changes(tmp_path, tree),
        ("a directory made unreadable", lambda: (tree / "src" / "sub").chmod(0o000)),
    ]
    check_after_each(env, tree, changes, ARGVS + UNKEPT)
    (tree / "src" / "sub").chmod(0o755)


def check_kept_by_the_first_run(
    env: Env, tree: Path, argvs: list[tuple[str, ...]], offered: bytes, kept: bytes
) -> None:
    """Each command line twice: the first run offers what it decided (or finds it kept
    already), the second is served what was kept; both answers equal the reference."""
    for args in argvs:
        first = check(env, tree, args, "first run")
        assert offered in first or kept in first, f"rg {args}: {first.decode()}"
        second = check(env, tree, args, "second run")
        assert kept in second, f"rg {args}: what was kept was not used\n{second.decode()}"


def rule_changes(tmp_path: Path, tree: Path) -> list[tuple[str, Callable[[], object]]]:
    """The changes to the ignore rules of `make_tree`'s tree (inside it and outside it),
    each with what it is."""
    return [
        (".gitignore changed", lambda: (tree / ".gitignore").write_text("*.log\n")),
        (".rgignore rewritten in place", lambda: rewrite(tree / ".rgignore", "*.py\n")),
        ("a nested .ignore created", lambda: (tree / "src" / ".ignore").write_text("*.c\n")),
        (
            "the parent directory's .gitignore changed",
            lambda: rewrite(tmp_path / "parent" / ".gitignore", "parent_ignored.txt\n"),
        ),
        (
            "the global git excludes changed",
            lambda: rewrite(tmp_path / "config" / "git" / "ignore", "*.c\n"),
        ),
    ]


def check_after_each(
    env: Env,
    tree: Path,
    changes: list[tuple[str, Callable[[], object]]],
    argvs: list[tuple[str, ...]],
) -> None:
    """Makes each change in turn; after each, every command line twice equals the
    reference."""
    for what, change in changes:
        change()
        for args in argvs:
            check(env, tree, args, what)
            check(env, tree, args, f"{what}, again")


def move_in(tmp_path: Path, tree: Path) -> None:
    outside = tmp_path / "outside" / "moved"
    outside.mkdir(parents=True)
    (outside / "m.c").write_text("x\n")
    (outside / "m.py").write_text("x\n")
    os.rename(outside, tree / "moved")


def rewrite(path: Path, text: str) -> None:
    """Writes into the existing file (no new inode: only its contents and times change)."""
    with open(path, "r+") as f:
        f.truncate(0)
        f.write(text)


def test_a_write_to_a_files_contents_keeps_the_list(env, tmp_path: Path) -> None:
    tree = make_tree(tmp_path)
    env.rg(tree, "force", "--files")
    args = ("--files", "-g", "*.c")
    check(env, tree, args, "first run")
    rewrite(tree / "a.c", "int a = 2;\n")
    after = check(env, tree, args, "after a write to a.c's contents")
    assert KEPT in after, after.decode()


def daemon_request(env: Env, body: dict) -> dict:
    """One request to the test's daemon, through the package's own client."""
    code = (
        "import json, sys\n"
        "from codesift import daemon\n"
        "reply, err = daemon.request(json.loads(sys.argv[1]))\n"
        "print(json.dumps(reply if reply is not None else {'client_error': err}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, json.dumps(body)],
        env=env.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def check_refused(env: Env, cases: list[tuple[dict, str]]) -> None:
    """Each request of `cases` gets an error whose message says the text beside it, and the
    daemon goes on serving."""
    for body, message in cases:
        reply = daemon_request(env, body)
        error = reply.get("error", {})
        assert message in error.get("message", ""), f"expected {message!r}, got {reply}"
    assert env.status() is not None, "the daemon still serves"


def files_request(tree: Path, key: str) -> dict:
    """A `files` lookup of `tree` under `key` (add `store` to offer a list)."""
    return {
        "op": "files",
        "root": str(tree.resolve()),
        "walk": {"all_files": True},
        "build": False,
        "key": key,
    }


def varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def compact(paths: list[str]) -> str:
    """A list's compact form (front coding) as the store carries it: base64."""
    out, previous = bytearray(), b""
    for path in paths:
        name = path.encode()
        shared = 0
        while shared < min(len(name), len(previous)) and name[shared] == previous[shared]:
            shared += 1
        out += varint(shared) + varint(len(name) - shared) + name[shared:]
        previous = name
    return base64.b64encode(bytes(out)).decode()


def store(request: dict, token: str, paths: list[str]) -> dict:
    """`request` offering `paths` as the list walked since the miss that gave `token`."""
    return {**request, "store": {"token": token, "compact": compact(paths)}}


def test_a_list_walked_while_the_tree_changed_is_not_kept(env, tmp_path: Path) -> None:
    tree = make_tree(tmp_path)
    env.rg(tree, "force", "--files")
    request = files_request(tree, "a test's command line")
    miss = daemon_request(env, request)
    assert "miss" in miss, miss
    (tree / "created_during_the_walk.c").write_text("x\n")
    stored = daemon_request(env, store(request, miss["miss"], ["a.c"]))
    assert stored.get("stored") is False, f"expected stored false, got {stored}"
    assert "miss" in daemon_request(env, request)
    # A store at the token the tree is at is kept and served as given.
    token = daemon_request(env, request)["miss"]
    stored = daemon_request(env, store(request, token, ["a.c"]))
    assert stored.get("stored") is True, stored
    assert daemon_request(env, request).get("compact") == compact(["a.c"])


def test_bad_files_requests_get_an_error_saying_what_is_wrong(env, tmp_path: Path) -> None:
    tree = make_tree(tmp_path)
    base = {"op": "files", "root": str(tree.resolve()), "walk": {"all_files": True}}
    cases = [
        ({**base}, "key is required"),
        ({**base, "key": "k" * ((64 << 10) + 1)}, "key is over the limit"),
        ({**base, "key": "k", "store": {"compact": ""}}, "store.token is required"),
        ({**base, "key": "k", "store": {"token": "1:0"}}, "store.compact is required"),
        ({**base, "key": "k", "store": {"token": "1:0", "compact": "a?=="}}, "base64"),
        ({**base, "key": "k", "walk": {}}, "walk.all_files"),
    ]
    check_refused(env, cases)


def test_a_file_made_in_a_new_directory_after_its_list_was_kept_is_listed(
    env, tmp_path: Path
) -> None:
    tree = make_tree(tmp_path)
    env.rg(tree, "force", "--files")
    args = ("--files", "-g", "*.c")
    (tree / "made_later").mkdir()
    check(env, tree, args, "a new directory, empty")
    kept = check(env, tree, args, "again, kept")
    assert KEPT in kept, kept.decode()
    # The directory is new since the index was built: no search has walked it yet.
    (tree / "made_later" / "inside.c").write_text("x\n")
    after = check(env, tree, args, "a file made inside the new directory")
    assert KEPT not in after, after.decode()
    (tree / "made_later" / "deeper").mkdir()
    check(env, tree, args, "a directory inside it")
    (tree / "made_later" / "deeper" / "d.c").write_text("x\n")
    check(env, tree, args, "a file inside that")


def test_a_path_that_leaves_a_served_root_is_not_answered_from_its_lists(
    env, tmp_path: Path
) -> None:
    tree = make_tree(tmp_path)
    (tmp_path / "elsewhere").mkdir()
    env.rg(tree, "force", "--files")
    request = files_request(tree, "one command line")
    token = daemon_request(env, request)["miss"]
    stored = daemon_request(env, store(request, token, ["a.c"]))
    assert stored.get("stored") is True, stored
    # Starts with the served root's path, names another directory.
    outside = {**request, "root": str(tree.resolve()) + "/../../elsewhere"}
    reply = daemon_request(env, outside)
    assert "compact" not in reply, f"expected no list for {outside['root']}, got {reply}"


def make_wide_tree(base: Path, dirs: int) -> Path:
    """`dirs` directories of a few files each: non-ASCII names, long shared prefixes."""
    tree = base / "wide"
    for d in range(dirs):
        sub = tree / "drivers" / "net" / "ethernet" / f"vendor_{d:03}" / "very_long_directory_name"
        sub.mkdir(parents=True)
        for name in ("main.c", "main.h", "réseau.c", "日本.txt", "main_helpers.c"):
            (sub / name).write_text("x\n")
    (tree / "top.c").write_text("x\n")
    return tree


def test_a_kept_list_is_printed_byte_for_byte_as_ripgrep_prints(env, tmp_path: Path) -> None:
    tree = make_wide_tree(tmp_path, 40)
    env.rg(tree, "force", "--files")
    for args in [("--files", "--sort", "path"), ("--files", "-j1"), ("--files",)]:
        first = env.rg(tree, "auto", *args)
        assert OFFERED in first.stderr or KEPT in first.stderr, first.stderr.decode()
        second = env.rg(tree, "auto", *args)
        assert KEPT in second.stderr, f"rg {args}: not served\n{second.stderr.decode()}"
        ref = reference(env, tree, args)
        if args == ("--files",):
            # ripgrep's parallel walk prints in no fixed order: the same lines.
            got, want = lines(second.stdout), lines(ref.stdout)
        else:
            got, want = second.stdout, ref.stdout
        assert (second.returncode, got) == (ref.returncode, want), (
            f"rg {' '.join(args)}\nexpected {want!r}\nactual   {got!r}"
        )


def test_a_list_over_what_the_daemon_keeps_is_not_offered(tmp_path: Path) -> None:
    config = tmp_path / "config"
    (config / "git").mkdir(parents=True)
    (config / "git" / "ignore").write_text("")
    env = Env(tmp_path)
    env.env.update(XDG_CONFIG_HOME=str(config), HOME=str(tmp_path))
    # Read by the daemon when it starts (the first force run below starts it).
    env.env["CODESIFT_LISTING_BYTES"] = "300"
    with env:
        tree = make_wide_tree(tmp_path, 40)
        env.rg(tree, "force", "--files")
        args = ("--files", "--sort", "path")
        first = env.rg(tree, "auto", *args)
        assert b"not offered: it is over the bytes the daemon keeps" in first.stderr, (
            first.stderr.decode()
        )
        assert OFFERED not in first.stderr, first.stderr.decode()
        second = env.rg(tree, "auto", *args)
        assert KEPT not in second.stderr, second.stderr.decode()
        ref = reference(env, tree, args)
        assert (second.returncode, second.stdout) == (ref.returncode, ref.stdout), (
            f"expected {ref.stdout!r}\nactual   {second.stdout!r}"
        )
        # A list within the bound is still kept.
        small = ("--files", "-g", "top.c")
        assert OFFERED in env.rg(tree, "auto", *small).stderr
        served = env.rg(tree, "auto", *small)
        assert KEPT in served.stderr and served.stdout == b"top.c\n", served
