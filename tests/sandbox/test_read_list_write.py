"""read, list_dir and write."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading

import pytest

from codesift import BinaryFileError, InvalidArgumentError, NotAFileError, Workspace


def test_read_numbers_lines_like_cat_n(tree):
    ws = Workspace(tree({"a.py": "one\ntwo\nthree\n"}))
    result = ws.read("a.py")
    assert result.content == "     1\tone\n     2\ttwo\n     3\tthree"
    assert (result.start_line, result.end_line, result.total_lines) == (1, 3, 3)
    assert not result.truncated
    assert result.summary == "Read lines 1-3 of a.py (3 lines)"


def test_read_offset_limit_and_range_suffix(tree):
    ws = Workspace(tree({"a.txt": "".join(f"line {i}\n" for i in range(1, 101))}))
    part = ws.read("a.txt", offset=10, limit=3)
    assert part.content.splitlines() == ["    10\tline 10", "    11\tline 11", "    12\tline 12"]
    assert part.truncated
    assert "offset=13" in part.summary
    assert ws.read("a.txt:10-12").content == part.content
    assert ws.read("a.txt:100").content == "   100\tline 100"
    assert ws.read("a.txt", offset=99).truncated is False
    beyond = ws.read("a.txt", offset=500)
    assert beyond.content == "" and "nothing at offset 500" in beyond.summary
    with pytest.raises(InvalidArgumentError):
        ws.read("a.txt:12-10")


def test_read_file_whose_name_has_a_colon(tree):
    ws = Workspace(tree({"weird:1-2": "x\n"}))
    assert ws.read("weird:1-2").content == "     1\tx"


def test_read_cuts_long_lines_and_default_limit(tree):
    text = "x" * 5000 + "\n" + "".join(f"{i}\n" for i in range(3000))
    result = Workspace(tree({"big.txt": text})).read("big.txt")
    first = result.content.split("\n")[0]
    assert first == "     1\t" + "x" * 2000 + "... [line truncated: 5000 characters]"
    assert result.end_line == 2000 and result.truncated and result.long_lines == 1


def test_read_streams_large_files(tree):
    root = tree({})
    big = root / "huge.log"
    with open(big, "wb") as f:
        f.write(b"first line\n" + b"y" * (10 * 1024 * 1024) + b"\nlast\n")
        f.seek(2 * 1024**3)  # a sparse 2 GB tail: never read
        f.write(b"\n")
    result = Workspace(root).read("huge.log", limit=1)
    assert result.content == "     1\tfirst line" and result.truncated


def test_read_crlf_bom_and_utf16(tree):
    root = tree(
        {
            "crlf.txt": b"a\r\nb\r\n",
            "bom.txt": b"\xef\xbb\xbfhello\n",
            "u16.txt": b"\xff\xfe" + "hi\nthere\n".encode("utf-16-le"),
        }
    )
    ws = Workspace(root)
    assert ws.read("crlf.txt").content == "     1\ta\n     2\tb"
    assert ws.read("bom.txt").content == "     1\thello"
    assert ws.read("u16.txt").content == "     1\thi\n     2\tthere"


def test_read_refuses_directories_fifos_and_binaries(tree):
    root = tree({"d/x.txt": "x", "bin.dat": b"\x00\x01\x02"})
    os.mkfifo(root / "pipe")
    ws = Workspace(root)
    with pytest.raises(NotAFileError, match="directory"):
        ws.read("d")
    with pytest.raises(NotAFileError, match="FIFO"):
        ws.read("pipe")
    with pytest.raises(BinaryFileError):
        ws.read("bin.dat")
    with pytest.raises(NotAFileError, match="device"):
        Workspace("/dev").read("null")


def test_list_dir_sorted_dirs_first(tree):
    root = tree({"b.txt": "", "a.txt": "", "zdir/x": "", "adir/y": "", ".hidden": ""})
    result = Workspace(root).list_dir()
    assert result.entries == ["adir/", "zdir/", ".hidden", "a.txt", "b.txt"]
    assert Workspace(root, hidden=False).list_dir().entries == ["adir/", "zdir/", "a.txt", "b.txt"]


def test_list_dir_limit(tree):
    root = tree({f"f{i:02}.txt": "" for i in range(12)})
    result = Workspace(root).list_dir(limit=5)
    assert result.truncated and result.total == 12
    assert result.text.splitlines()[-1] == "[TRUNCATED: first 5 items]"
    assert result.entries == [f"f{i:02}.txt" for i in range(5)]


def test_list_dir_of_a_file_is_an_error(tree):
    with pytest.raises(NotAFileError):
        Workspace(tree({"a.txt": ""})).list_dir("a.txt")


def test_write_creates_parents_atomically_and_keeps_mode(tree):
    root = tree({"script.sh": "#!/bin/sh\necho a\n"})
    os.chmod(root / "script.sh", 0o755)
    ws = Workspace(root)
    created = ws.write("deep/er/new.txt", "hello\n")
    assert created.created and created.bytes_written == 6
    assert (root / "deep/er/new.txt").read_text() == "hello\n"
    over = ws.write("script.sh", "#!/bin/sh\necho b\n")
    assert not over.created
    assert stat.S_IMODE((root / "script.sh").stat().st_mode) == 0o755
    assert not [p for p in root.rglob("*.tmp")]


def test_write_onto_a_directory_is_refused(tree):
    ws = Workspace(tree({"d/x": ""}))
    with pytest.raises(NotAFileError):
        ws.write("d", "x")


def test_failed_write_leaves_old_content(tree):
    """A write that fails halfway (here: over the process's file size limit) raises a
    CodesiftError and leaves the old file and no temporary file behind."""
    root = tree({"keep.txt": "original\n"})
    script = (
        "import resource, signal, sys\n"
        "from codesift import Workspace, CodesiftError\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))\n"
        "try:\n"
        "    Workspace(sys.argv[1]).write('keep.txt', 'x' * (3 << 20))\n"
        "except CodesiftError as exc:\n"
        "    print(type(exc).__name__, exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(root)], capture_output=True, text=True, timeout=60
    )
    assert "size limit" in done.stdout, (done.stdout, done.stderr)
    assert (root / "keep.txt").read_text() == "original\n"
    assert sorted(p.name for p in root.iterdir()) == ["keep.txt"]


def test_concurrent_writes_never_corrupt(tree):
    root = tree({"f.txt": "start\n"})
    ws = Workspace(root)
    payloads = [f"writer {i}\n" * 2000 for i in range(8)]
    threads = [threading.Thread(target=ws.write, args=("f.txt", p)) for p in payloads]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert (root / "f.txt").read_text() in payloads
