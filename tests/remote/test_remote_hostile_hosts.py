"""A broken or compromised host is untrusted input: whatever it prints must end as a clear
error of that host in `result.errors` (the other hosts' hits kept), never a traceback, a
hang, a hit outside the searched path, or a later linked edit of another file.

The hostile hosts are real sshd instances on 127.0.0.1 (tests/sshd.py) whose PATH starts
with fakes: "evil" has a `codesift` that passes the probe and then runs the script the test
wrote (printing any JSON it likes); "evilsh" has no codesift and a `grep` and `find` that
run the test's script instead. "sh" is an honest host searched alongside.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sshd import SshLab

from codesift.errors import InvalidArgumentError
from codesift.remote import RemoteError, RemoteGlobResult, RemoteWorkspace, codesift_strategy, ssh

FAKE_CODESIFT = """#!/bin/sh
if [ "$1" = apply-hit ] && [ "$2" = --help ]; then exit 0; fi
echo $$ >> "$FAKE_DIR/pids"
exec sh "$FAKE_DIR/behave" "$@"
"""
FAKE_TOOL = """#!/bin/sh
echo $$ >> "$FAKE_DIR/pids"
exec sh "$FAKE_DIR/behave" {tool} "$@"
"""
# The shell strategy first checks the pattern alone (`grep -E -e ERE`): that check passes.
PATTERN_CHECK = 'if [ "$1" = grep ] && [ "$2" = -E ]; then exit 0; fi\n'
HIT = {
    "file": "a.py",
    "line": 1,
    "column": 1,
    "end_line": 1,
    "byte_offset": 0,
    "byte_length": 5,
    "content": "hello",
    "text": "hello",
}


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SshLab]:
    lab = SshLab(tmp_path_factory.mktemp("ssh"))
    fake = lab.workdir / "fake"
    fake.mkdir()
    evil_bin, shell_bin = fake / "evil-bin", fake / "evilsh-bin"
    evil_bin.mkdir()
    shell_bin.mkdir()
    (evil_bin / "codesift").write_text(FAKE_CODESIFT)
    for tool in ("grep", "find"):
        (shell_bin / tool).write_text(FAKE_TOOL.format(tool=tool))
    for script in [evil_bin / "codesift", shell_bin / "grep", shell_bin / "find"]:
        script.chmod(0o755)
    for tool in ("sh", "cat", "printf", "head", "yes", "sleep", "echo"):
        found = shutil.which(tool, path="/usr/bin:/bin")
        assert found, tool
        (shell_bin / tool).symlink_to(found)
    env = {"FAKE_DIR": str(fake)}
    try:
        lab.start("evil", f"{evil_bin}:/usr/bin:/bin", env)
        lab.start("evilsh", str(shell_bin), env)
        lab.start("sh", "/usr/bin:/bin")
        yield lab
    finally:
        lab.stop()


@pytest.fixture
def host_does(lab: SshLab) -> Iterator[Callable[[str], Path]]:
    """`host_does(script)`: what the fake codesift, grep and find run from now on (as
    `sh script ARGS`); returns the fake directory. Whatever they leave running is stopped
    after the test (by the pids they wrote)."""
    fake = lab.workdir / "fake"

    def write(script: str) -> Path:
        (fake / "behave").write_text(script)
        return fake

    yield write
    pids = fake / "pids"
    if pids.exists():
        for pid in pids.read_text().split():
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(pid), signal.SIGKILL)
        pids.unlink()


@pytest.fixture
def remote(
    remote: Callable[..., RemoteWorkspace], tmp_path: Path
) -> Callable[..., RemoteWorkspace]:
    """`remote(hosts, **options)`: the shared fixture's RemoteWorkspace, on a small tree."""
    (tmp_path / "a.py").write_text("hello\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "b.py").write_text("hello\n")
    return lambda hosts, **options: remote(hosts, tmp_path, **options)


def replies(fake: Path, answer: object) -> str:
    """A script that prints `answer` (JSON text as is, anything else as JSON)."""
    path = fake / "answer.json"
    path.write_text(answer if isinstance(answer, str) else json.dumps(answer))
    return f"cat '{path}'\n"


def grep_answer(**changes: object) -> dict[str, object]:
    return {"matches": [{**HIT, **changes}], "total": 1, "truncated": False}


def glob_answer(**changes: object) -> dict[str, object]:
    entry = {"path": "a.py", "mtime_ms": 1, "size": 6, **changes}
    return {"files": [entry], "total": 1, "truncated": False}


def raw_hit(field: str, value: str) -> str:
    """A grep answer whose `field` is the raw JSON text `value` (NaN, Infinity, ...)."""
    fields = ", ".join(f'"{k}": {value if k == field else json.dumps(v)}' for k, v in HIT.items())
    return '{"matches": [{' + fields + '}], "total": 1, "truncated": false}'


def assert_only_honest_host(result: object, bad: str, why: str) -> None:
    """Every hit or file is the honest host's (there are some), and `bad` failed with `why`."""
    if isinstance(result, RemoteGlobResult):
        found = [(f.host, f.path) for f in result.files]
    else:
        found = [(m.host, m.file) for m in result.matches]  # type: ignore[attr-defined]
    errors = result.errors  # type: ignore[attr-defined]
    shown = f"{found[:10]}{' ...' if len(found) > 10 else ''} ({len(found)} in all)"
    assert found and all(host == "sh" for host, _ in found), f"expected hits of sh only: {shown}"
    assert bad in errors, f"expected an error of {bad}, got {errors}"
    assert why in errors[bad], f"expected {why!r} in {errors[bad]!r}"


BAD_GREP_ANSWERS = {
    "negative line": grep_answer(line=-1),
    "huge line": grep_answer(line=10**30),
    "line NaN": raw_hit("line", "NaN"),
    "offset Infinity": raw_hit("byte_offset", "Infinity"),
    "total Infinity": '{"matches": [], "total": 1e999, "truncated": false}',
    "line as a string": grep_answer(line="1"),
    "line as a bool": grep_answer(line=True),
    "file as a number": grep_answer(file=5),
    "before as a string": grep_answer(before="abc"),
    "byte_length negative": grep_answer(byte_length=-5),
    "lone surrogate in content": raw_hit("content", '"\\udc80"'),
    "absolute file": grep_answer(file="/etc/passwd"),
    "file with ..": grep_answer(file="../../etc/passwd"),
    "file with a hidden ..": grep_answer(file="src/../../x.py"),
    "file with NUL": grep_answer(file="a\x00b.py"),
    "file outside the search path": grep_answer(file="a.py"),  # searched: src
    "empty file name": grep_answer(file=""),
}
WHY = "cannot be trusted"


@pytest.mark.parametrize("case", list(BAD_GREP_ANSWERS))
def test_a_host_answering_nonsense_is_an_error_of_that_host(host_does, remote, case) -> None:
    host_does(replies(host_does(""), BAD_GREP_ANSWERS[case]))
    path = "src" if case == "file outside the search path" else "."
    result = remote("evil,sh").grep("hello", path)
    assert_only_honest_host(result, "evil", WHY)


def test_a_file_name_that_is_not_utf8_is_still_a_hit(host_does, remote) -> None:
    # codesift's JSON names such a file in surrogateescape form: a legitimate answer.
    host_does(replies(host_does(""), raw_hit("file", '"a\\udcff.py"')))
    result = remote("evil").grep("hello")
    assert result.errors == {}, result.errors
    assert [m.file for m in result.matches] == ["a\udcff.py"], result.matches


@pytest.mark.parametrize(
    "answer",
    [
        "{not json",
        '{"matches": [{"file": "a.py"',
        "[1, 2]",
        "[" * 100_000 + "]" * 100_000,
        {"matches": {"a.py": 1}, "total": 1, "truncated": False},
    ],
    ids=["malformed", "truncated", "a list", "nested too deep", "matches an object"],
)
def test_malformed_json_is_an_error_of_that_host(host_does, remote, answer) -> None:
    host_does(replies(host_does(""), answer))
    result = remote("evil,sh").grep("hello")
    assert_only_honest_host(result, "evil", "evil")


@pytest.mark.parametrize(
    "answer",
    [
        glob_answer(size=-5),
        glob_answer(mtime_ms=10**20),
        glob_answer(path="/etc/shadow"),
        glob_answer(path="../x"),
        '{"files": [{"path": "a.py", "mtime_ms": NaN, "size": 6}], "total": 1, "truncated": false}',
    ],
    ids=["negative size", "huge mtime", "absolute path", "path with ..", "NaN mtime"],
)
def test_a_glob_answer_out_of_range_is_an_error_of_that_host(host_does, remote, answer) -> None:
    host_does(replies(host_does(""), answer))
    result = remote("evil,sh").glob("*.py")
    assert_only_honest_host(result, "evil", WHY)


@pytest.mark.parametrize(
    ("printed", "path"),
    [
        (r"/etc/passwd\0001:0:hello\n", "."),
        (r"./../../etc/passwd\0001:0:hello\n", "."),
        (r"./a.py\0001:0:hello\n", "src"),
        (r"./a.py\000100000000000000000000000:0:hello\n", "."),
        (r"./a.py\0000:0:hello\n", "."),
    ],
    ids=["absolute", "dotdot", "outside the search path", "huge line", "line 0"],
)
def test_shell_strategy_grep_output_naming_other_files(host_does, remote, printed, path) -> None:
    host_does(PATTERN_CHECK + f"printf '{printed}'\n")
    result = remote("evilsh,sh", strategy="shell").grep("hello", path)
    assert_only_honest_host(result, "evilsh", WHY)


@pytest.mark.parametrize(
    "record",
    [r"1.5\t3\t/etc/x.py", r"1.5\t3\t./../x.py", r"1e300\t3\t./a.py", r"1.5\t-3\t./a.py"],
    ids=["absolute", "dotdot", "huge mtime", "negative size"],
)
def test_shell_strategy_find_output_out_of_range(host_does, remote, record) -> None:
    host_does(f"printf 'P\\000{record}\\000'\n")
    result = remote("evilsh,sh", strategy="shell").glob("**/*.py")
    assert_only_honest_host(result, "evilsh", WHY)


def test_find_numbers_that_are_not_numbers_are_skipped(host_does, remote) -> None:
    host_does(r"printf 'P\000inf\t3\t./a.py\000nan\t3\t./a.py\000'" + "\n")
    result = remote("evilsh", strategy="shell").glob("**/*.py")
    assert result.errors == {} and result.files == [], (result.errors, result.files)


@pytest.mark.parametrize("strategy", ["codesift", "shell"])
def test_endless_output_is_cut_at_the_cap(host_does, remote, monkeypatch, strategy) -> None:
    """A host that prints past the cap and then hangs: memory stays bounded and the search
    ends (no timeout given)."""
    monkeypatch.setattr(ssh, "MAX_REPLY_BYTES", 1 << 20, raising=False)
    host_does(PATTERN_CHECK + "head -c 3000000 /dev/zero\nexec sleep 60\n")
    host = "evil" if strategy == "codesift" else "evilsh"
    result = remote(f"{host},sh", strategy="auto").grep("hello")
    assert_only_honest_host(result, host, "printed more than 1 MiB")


def test_a_collected_answer_over_the_cap_is_refused(host_does, remote, monkeypatch) -> None:
    monkeypatch.setattr(ssh, "MAX_REPLY_BYTES", 1 << 20, raising=False)
    files = [{"path": f"f{i:07d}.py", "mtime_ms": 1, "size": 1} for i in range(60_000)]
    host_does(replies(host_does(""), {"files": files, "total": len(files), "truncated": False}))
    result = remote("evil,sh").glob("*.py")
    assert_only_honest_host(result, "evil", "printed more than 1 MiB")


def test_a_host_that_hangs_cannot_outlast_the_timeout(host_does, remote, monkeypatch) -> None:
    monkeypatch.setattr(codesift_strategy, "REPLY_GRACE_SECONDS", 1.0, raising=False)
    host_does("exec sleep 60\n")
    result = remote("evil,sh", connect_timeout=1).grep("hello", timeout=1)
    assert_only_honest_host(result, "evil", "did not answer within")


def hit_of_evil(host_does, remote) -> tuple[RemoteWorkspace, str, Path]:
    fake = host_does("")
    (fake / "apply-request").unlink(missing_ok=True)
    rws = remote("evil,sh")
    # The fake's grep answer names a.py; its apply-hit keeps the request and answers with
    # the file `edit_answer.json` (written by each test).
    host_does(
        'if [ "$1" = apply-hit ]; then cat > "$FAKE_DIR/apply-request"; '
        'exec cat "$FAKE_DIR/edit_answer.json"; fi\n' + replies(fake, grep_answer())
    )
    result = rws.grep("hello")
    assert result.errors == {}, result.errors
    [hit] = [m for m in result.matches if m.host == "evil"]
    return rws, hit.id, fake


EDIT = {
    "path": "a.py",
    "replacements": 1,
    "strategy": "exact",
    "first_line": 1,
    "last_line": 1,
    "diff": "-hello\n+bye\n",
    "span": {"byte_offset": 0, "old_length": 5, "new_length": 3, "line_delta": 0},
}


@pytest.mark.parametrize(
    "answer",
    [
        {k: v for k, v in EDIT.items() if k != "diff"},
        {**EDIT, "path": "../../etc/passwd"},
        {**EDIT, "path": "other.py"},
        {**EDIT, "first_line": "1"},
        {**EDIT, "span": {"byte_offset": -1, "old_length": 5, "new_length": 3}},
        {**EDIT, "span": {"byte_offset": 10**30}},
        {**EDIT, "span": [1, 2]},
        {**EDIT, "moved_from": "x"},
    ],
    ids=[
        "no diff",
        "another path",
        "another file",
        "line a string",
        "negative span",
        "huge span",
        "span a list",
        "moved_from a string",
    ],
)
def test_a_bad_edit_answer_is_a_clear_error(host_does, remote, answer) -> None:
    rws, hit_id, fake = hit_of_evil(host_does, remote)
    (fake / "edit_answer.json").write_text(json.dumps(answer))
    with pytest.raises(RemoteError, match=WHY):
        rws.edit_result(hit_id, "bye")
    request = json.loads((fake / "apply-request").read_text())
    assert request["file"] == "a.py", f"the edit must name the hit's file: {request}"


def test_a_good_edit_answer_is_taken(host_does, remote) -> None:
    rws, hit_id, fake = hit_of_evil(host_does, remote)
    (fake / "edit_answer.json").write_text(json.dumps(EDIT))
    done = rws.edit_result(hit_id, "bye")
    assert (done.host, done.path, done.replacements) == ("evil", "a.py", 1), done


def test_more_hits_or_files_than_asked_for_is_an_error(host_does, remote) -> None:
    answer = {"matches": [{**HIT, "line": n} for n in range(1, 6)], "total": 5}
    host_does(replies(host_does(""), {**answer, "truncated": False}))
    result = remote("evil,sh").grep("hello", max_matches=2)
    assert_only_honest_host(result, "evil", "over max_matches=2")
    files = [{"path": f"f{n}.py", "mtime_ms": 1, "size": 1} for n in range(5)]
    host_does(replies(host_does(""), {"files": files, "total": 5, "truncated": False}))
    result = remote("evil,sh").glob("**/*.py", limit=2)
    assert_only_honest_host(result, "evil", "over limit=2")


def test_a_hosts_error_message_is_cut(host_does, remote) -> None:
    error = {"error": {"type": "RemoteError", "message": "boom " * 200_000}}
    host_does(replies(host_does(""), error))
    result = remote("evil,sh").grep("hello")
    assert_only_honest_host(result, "evil", "boom")
    assert len(result.errors["evil"]) < 5000, len(result.errors["evil"])


def test_an_edit_on_a_host_that_hangs_ends(host_does, remote, monkeypatch) -> None:
    monkeypatch.setattr(codesift_strategy, "EDIT_SECONDS", 1.0, raising=False)
    rws, hit_id, fake = hit_of_evil(host_does, remote)
    host_does('if [ "$1" = apply-hit ]; then exec sleep 60; fi\n')
    with pytest.raises(RemoteError, match="did not answer within"):
        rws.edit_result(hit_id, "bye")


def test_ids_a_host_prints_are_not_used(host_does, remote) -> None:
    """Ids are given here: a host that prints ids (another host's, or each other's) cannot
    make two hits share one, nor make a hit of one host be edited on another."""
    rws = remote("evil,sh")
    host_does(replies(host_does(""), {"matches": [], "total": 0, "truncated": False}))
    honest = rws.grep("hello")
    [sh_id] = [m.id for m in honest.matches if m.host == "sh" and m.file == "a.py"]
    printed = [{**HIT, "id": sh_id}, {**HIT, "line": 1, "id": sh_id}]
    host_does(replies(host_does(""), {"matches": printed, "total": 2, "truncated": False}))
    result = rws.grep("hello")
    ids = [m.id for m in result.matches]
    assert len(set(ids)) == len(ids) and sh_id not in ids, f"ids must be new and distinct: {ids}"
    [sh_hit] = [m for m in result.matches if m.host == "sh" and m.file == "a.py"]
    with pytest.raises(InvalidArgumentError, match="found on sh by strategy"):
        rws.edit_result(sh_hit.id, "bye")
