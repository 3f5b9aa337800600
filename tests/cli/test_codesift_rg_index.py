"""codesift-rg answering from the daemon's index: the same bytes as a scan for every
combination of ignore, hidden, glob, type, depth and output flags (one index of every file,
ripgrep's rules applied at query time); changes made just before a query are found; many
clients at once; a daemon killed mid-query costs a scan, never a wrong answer."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from rg_helpers import NEEDS_CODESIFT_RG, Env, json_without_timings

REAL_RG = Path("/work/venv/bin/rg")

pytestmark = NEEDS_CODESIFT_RG


def comparable(out: bytes, args: tuple[str, ...]) -> bytes:
    """`--json` and `--stats` output without its timings."""
    if "--json" not in args:
        return out
    return json_without_timings(out).encode()


def without_summary(out: bytes, args: tuple[str, ...]) -> bytes:
    lines = comparable(out, args).splitlines()
    return b"\n".join(line for line in lines if b'"type": "summary"' not in line)


def make_tree(root: Path) -> Path:
    root.mkdir()
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(root)], check=True)
    else:
        (root / ".git" / "info").mkdir(parents=True)
    (root / ".git" / "info").mkdir(parents=True, exist_ok=True)
    (root / ".git" / "info" / "exclude").write_text("excluded.txt\n")
    files = {
        ".gitignore": "*.log\nbuild/\n!keep.log\n",
        ".ignore": "by_ignore.txt\n",
        ".rgignore": "rg_only.txt\n",
        "a.log": "needle in a log\n",
        "keep.log": "needle kept\n",
        "excluded.txt": "needle excluded\n",
        "by_ignore.txt": "needle by .ignore\n",
        "rg_only.txt": "needle by .rgignore\n",
        "top.txt": "a needle\nNeedle upper\nneedless\n",
        "build/out.txt": "needle built\n",
        "src/main.rs": "fn needle() {}\n",
        "src/lib.py": "needle = 1\nother\n",
        "src/.hidden.rs": "// needle hidden\n",
        "src/sub/.gitignore": "*.tmp\n!important.tmp\n",
        "src/sub/x.tmp": "needle tmp\n",
        "src/sub/important.tmp": "needle important\n",
        "src/sub/deep/y.rs": "needle deep\n",
        "src/sub/deep/.ignore": "z.rs\n",
        "src/sub/deep/z.rs": "needle z\n",
        ".hiddendir/h.txt": "needle hidden dir\n",
        "docs/README.MD": "NEEDLE docs\n",
        "docs/empty.md": "nothing here\n",
        "big.txt": "needle " + "x" * 100 + "\n",
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "bin.dat").write_bytes(b"needle\x00binary\n")
    return root


FLAGS: list[tuple[str, ...]] = [
    (),
    ("--hidden",),
    ("--no-ignore",),
    ("--no-ignore-vcs",),
    ("--no-ignore-dot",),
    ("--no-ignore-exclude",),
    ("--no-ignore-parent",),
    ("--no-require-git",),
    ("-u",),
    ("-uu",),
    ("-uuu",),
    ("-uu", "-g", "!.git"),
    ("-g", "*.rs"),
    ("-g", "!src/**"),
    ("--iglob", "*.md"),
    ("-t", "rust"),
    ("-T", "rust"),
    ("--max-depth", "1"),
    ("--max-depth", "2", "--hidden"),
    ("--max-filesize", "50"),
    ("-i",),
    ("-S",),
    ("-F",),
    ("-w",),
    ("-l",),
    ("-c",),
    ("-c", "--include-zero"),
    ("--files-without-match",),
    ("-v",),
    ("--json",),
    ("-a",),
    ("-e", "needle", "-e", "NEEDLE"),
    ("--files",),
    ("-l", "--sortr", "path"),
]


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory):
    base = tmp_path_factory.mktemp("rgindex")
    with Env(base) as env:
        yield env, make_tree(base / "tree")


def scan_and_forced(env: Env, tree: Path, args: tuple[str, ...]) -> tuple[Any, Any]:
    """codesift-rg ARGS as a scan and forced through the index: the same exit code and
    (but for what a scan and the index may order or count apart) the same bytes."""
    scan = env.rg(tree, "never", *args)
    forced = env.rg(tree, "force", *args)
    assert (forced.returncode, comparable(forced.stdout, args)) == (
        scan.returncode,
        comparable(scan.stdout, args),
    ), f"rg {args}\nscan: {scan.stdout[:2000]!r}\nforce: {forced.stdout[:2000]!r} {forced.stderr!r}"
    return scan, forced


@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: " ".join(f) or "defaults")
@pytest.mark.parametrize("where", [(), ("src",), ("./",)], ids=["implicit", "src", "dot"])
def test_force_answers_equal_the_scan_byte_for_byte(setup, flags, where) -> None:
    env, tree = setup
    pattern = () if "-e" in flags or "--files" in flags else ("needle",)
    args = ("--sort", "path", *flags, *pattern, *where)
    scan, forced = scan_and_forced(env, tree, args)
    assert b"files from the index" in forced.stderr, forced.stderr
    if REAL_RG.is_file():
        real = env.rg(tree, "never", *args, binary=REAL_RG)
        # The closing summary's totals differ between rg and the scan itself (a known
        # difference of the scan, not of the index path): compared above, not here.
        assert without_summary(real.stdout, args) == without_summary(scan.stdout, args), (
            f"real rg {args}: {real.stdout!r} codesift-rg: {scan.stdout!r}"
        )


def test_the_index_path_is_counted_by_the_daemon(setup) -> None:
    env, tree = setup
    before = env.status()
    env.rg(tree, "force", "needle")
    after = env.status()
    roots = [r for r in after["roots"] if r["root"] == str(tree.resolve())]
    assert roots and after["queries"] > before["queries"], after


def test_changes_are_found_at_once_by_auto_with_a_warm_daemon(tmp_path: Path) -> None:
    env = Env(tmp_path)
    env.start()
    try:
        tree = make_tree(tmp_path / "tree")
        outside = tmp_path / "outside"
        (outside / "inner").mkdir(parents=True)
        (outside / "inner" / "moved.txt").write_text("fresh_token moved in\n")
        args = ("--sort", "path", "-n", "fresh_token")
        assert env.rg(tree, "force", *args).returncode == 1  # indexed, nothing yet

        def check(what: str) -> None:
            auto = env.rg(tree, "auto", *args)
            scan = env.rg(tree, "never", *args)
            assert auto.stdout == scan.stdout, f"{what}: auto {auto.stdout!r} scan {scan.stdout!r}"
            if REAL_RG.is_file():
                real = env.rg(tree, "never", *args, binary=REAL_RG)
                assert auto.stdout == real.stdout, f"{what}: {auto.stdout!r} real {real.stdout!r}"

        (tree / "new.txt").write_text("fresh_token new\n")
        check("write")
        os.rename(tree / "new.txt", tree / "src" / "renamed.txt")
        check("rename")
        (tree / "src" / "renamed.txt").unlink()
        check("delete")
        os.rename(outside / "inner", tree / "inner")
        check("a directory moved in")
        (tree / ".gitignore").write_text("inner/\n")
        check(".gitignore change")
        auto = env.rg(tree, "auto", *args)
        assert b"files from the index" in auto.stderr or b"scan" in auto.stderr, auto.stderr
    finally:
        env.stop()


def test_sixteen_concurrent_clients_get_the_scan_answer(setup) -> None:
    env, tree = setup
    args = ("--sort", "path", "-n", "needle")
    expected = env.rg(tree, "never", *args).stdout
    env.rg(tree, "force", *args)
    results: list[bytes] = [b""] * 16

    def one(i: int) -> None:
        results[i] = env.rg(tree, "auto", *args).stdout

    threads = [threading.Thread(target=one, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wrong = [i for i, r in enumerate(results) if r != expected]
    assert not wrong, f"clients {wrong} got {results[wrong[0]]!r}, expected {expected!r}"


def test_a_daemon_killed_mid_query_costs_a_scan_not_an_answer(tmp_path: Path) -> None:
    env = Env(tmp_path)
    env.start()
    tree = make_tree(tmp_path / "tree")
    for i in range(300):
        (tree / f"filler{i}.txt").write_text(f"line {i}\n" * 50)
    args = ("--sort", "path", "-n", "needle")
    expected = env.rg(tree, "never", *args).stdout
    env.rg(tree, "force", *args)
    results: list[bytes] = []
    lock = threading.Lock()

    def many() -> None:
        for _ in range(10):
            out = env.rg(tree, "auto", *args).stdout
            with lock:
                results.append(out)

    threads = [threading.Thread(target=many) for _ in range(4)]
    for t in threads:
        t.start()
    assert env.daemon is not None
    os.kill(env.daemon.pid, signal.SIGKILL)
    env.daemon.wait()
    for t in threads:
        t.join()
    wrong = [r for r in results if r != expected]
    assert len(results) == 40 and not wrong, f"{len(wrong)} wrong answers: {wrong[:1]!r}"
    after = env.rg(tree, "auto", *args)
    assert after.stdout == expected and b"scan" in after.stderr, after.stderr


SPAN_FLAGS: list[tuple[str, ...]] = [
    (),
    ("-n",),
    ("-n", "--column", "-o"),
    ("-c",),
    ("--count-matches",),
    ("-l",),
    ("-m", "2", "-n"),
    ("--vimgrep",),
    ("-n", "-C", "2"),
    ("-n", "-B", "1"),
    ("-b",),
    ("--json",),
    ("-n", "-i"),
]


@pytest.fixture(scope="module")
def big_files(tmp_path_factory: pytest.TempPathFactory):
    # Files of many 16 KiB units where only a few units hold the needle: the index sends the
    # parts that can match and codesift-rg reads only those, numbering lines as in the file.
    base = tmp_path_factory.mktemp("rgspans")
    tree = base / "tree"
    tree.mkdir()
    for f in range(6):
        lines = [f"filler {f} line {i} with words and more words\n" for i in range(6000)]
        for at in (5, 1500 + 7 * f, 1501 + 7 * f, 4200, 5999):
            lines[at] = f"line {at} has the spanneedle twice: SpanNeedle\n"
        text = "".join(lines)
        (tree / f"big{f}.txt").write_text(text if f % 2 else text.rstrip("\n"))
    (tree / "crlf.txt").write_bytes(
        b"".join(
            b"crlf spanneedle\r\n" if i in (10, 3000) else b"crlf filler %d\r\n" % i
            for i in range(9000)
        )
    )
    # Files written within moments of the build are read whole (their change time cannot
    # tell a later write apart): let the clock move past that margin first.
    time.sleep(2.1)
    with Env(base) as env:
        yield env, tree


@pytest.mark.parametrize("flags", SPAN_FLAGS, ids=lambda f: " ".join(f) or "defaults")
def test_files_read_in_parts_print_the_scans_bytes(big_files, flags) -> None:
    env, tree = big_files
    args = ("--sort", "path", *flags, "spanneedle")
    _, forced = scan_and_forced(env, tree, args)
    parts = not any(f in flags for f in ("-C", "-B", "-b", "--json"))
    read_in_parts = b"(0 read in parts)" not in forced.stderr
    assert b"files from the index" in forced.stderr, forced.stderr
    assert read_in_parts == parts, (
        f"expected {'some' if parts else 'no'} files read in parts: {forced.stderr!r}"
    )


def test_a_file_changed_after_the_answer_is_read_whole(big_files) -> None:
    env, tree = big_files
    args = ("--sort", "path", "-n", "spanneedle")
    env.rg(tree, "force", *args)
    # Same size, other bytes, other mtime: the daemon's answer may predate the change; the
    # reader sees a file that is not the recorded one and reads it all.
    target = tree / "big3.txt"
    text = target.read_text().replace("filler 3 line 10 ", "spanneedle at 10 ", 1)
    target.write_text(text)
    scan = env.rg(tree, "never", *args)
    forced = env.rg(tree, "force", *args)
    assert forced.stdout == scan.stdout, (scan.stdout[:400], forced.stdout[:400])
    assert b"big3.txt:11:spanneedle at 10" in forced.stdout, forced.stdout[:400]


def test_hidden_searches_enter_every_nested_repository_as_ripgrep_does(tmp_path: Path) -> None:
    """`--hidden` searches `.git` entries too: those of repositories whose directory holds no
    file the index selects must be searched as well (the daemon says where they are)."""
    tree = tmp_path / "tree"
    (tree / "nested" / "deeper").mkdir(parents=True)
    (tree / "bulk").mkdir()
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    subprocess.run(["git", "init", "-q", str(tree / "nested" / "deeper")], check=True)
    with open(tree / "nested" / "deeper" / ".git" / "config", "a") as f:
        f.write("# a needle in a nested repository's config\n")
    (tree / "nested" / "deeper" / "plain.txt").write_text("hay\n")
    (tree / "sub").mkdir()
    (tree / "sub" / ".git").write_text("gitdir: ../.git/modules/needle\n")  # a submodule's link
    (tree / "found.txt").write_text("a needle\n")
    for i in range(100):
        (tree / "bulk" / f"hay{i}.txt").write_text("hay and straw\n" * 500)
    # Files older than the index: a file changed around the build is read whatever it holds.
    time.sleep(2)
    with Env(tmp_path) as env:
        env.rg(tree, "force", "needle")
        for args in (("--hidden", "needle"), ("--hidden", "-l", "needle", "nested")):
            auto = env.rg(tree, "auto", "--sort", "path", *args)
            scan = env.rg(tree, "never", "--sort", "path", *args)
            assert b"files from the index" in auto.stderr, auto.stderr.decode()
            assert auto.stdout == scan.stdout, (
                f"rg {' '.join(args)}\nexpected {scan.stdout!r}\nactual   {auto.stdout!r}"
            )
            assert b".git" in scan.stdout, "the case searches a .git entry"
