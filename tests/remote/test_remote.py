"""Remote search over a real OpenSSH server on 127.0.0.1 (see tests/sshd.py).

Three sshd instances share one host key and one authorized client key; they differ only in
the PATH their sessions get:
- "cs": the directory of the current `codesift` console script first -> strategy "codesift";
- "sh": /usr/bin:/bin (the system python3 has no codesift) -> strategy "shell";
- "nogrep": a directory with sh and find but no grep -> strategy "shell" without grep.
The "remote" trees are temp directories of this machine, so tests can check their bytes.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from sshd import SshLab, SshServer, closed_port, codesift_bin_dir
from trees import TreeSpec, write_tree

from codesift import Workspace
from codesift.errors import (
    InvalidArgumentError,
    NotFoundError,
    PatternError,
    SandboxError,
    StaleResultError,
)
from codesift.remote import (
    PathPattern,
    RemoteError,
    RemoteGrepResult,
    RemoteSettings,
    RemoteWorkspace,
    expand_braces,
    parse_hosts,
    to_ere,
)
from codesift.tools import Toolbox

HOSTILE = [
    "$(touch PWNED)",
    "`touch PWNED`",
    "'; touch PWNED; echo '",
    '"; touch PWNED; echo "',
    "x; touch PWNED",
    "a|touch PWNED",
    "$HOME && touch PWNED",
]
NEWLINE_NAME = "dir/we:ird\nname.txt"


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SshLab]:
    lab = SshLab(tmp_path_factory.mktemp("ssh"))
    try:
        lab.start("cs", f"{codesift_bin_dir()}:/usr/bin:/bin")
        lab.start("sh", "/usr/bin:/bin")
        nogrep = lab.workdir / "nogrep-bin"
        nogrep.mkdir()
        for tool in ("sh", "find", "cat"):
            found = shutil.which(tool, path="/usr/bin:/bin")
            assert found, tool
            (nogrep / tool).symlink_to(found)
        lab.start("nogrep", str(nogrep))
        yield lab
    finally:
        lab.stop()


BASIC: TreeSpec = {
    "src/app.py": "def hello():\n    return 'Hello world'\n\n\nprint(hello())\n",
    "src/util/strings.py": "HELLO = 'hello'\nnumber = 12345\n",
    "docs/readme.md": "# hello docs\nno match here\n",
    "web/index.ts": "export const hello = 1;\n",
    NEWLINE_NAME: "hello from a strange name\n",
}


def hits(result: RemoteGrepResult) -> list[tuple[str | None, str, int, int, str]]:
    return [(m.host, m.file, m.line, m.column, m.content) for m in result.matches]


def same_hits(result: RemoteGrepResult, host: str) -> list[tuple[str, int, int, int, str, str]]:
    return [
        (m.file, m.line, m.column, m.byte_offset, m.content, m.text)
        for m in result.matches
        if m.host == host
    ]


# -- strategies ------------------------------------------------------------------------------------


def test_auto_strategy_picks_codesift_or_shell_per_host(remote, tree) -> None:
    root = tree(BASIC)
    rws = remote("cs,sh", root)
    assert rws.strategy_of("cs") == "codesift"
    assert rws.strategy_of("sh") == "shell"
    assert remote("cs", root, strategy="shell").strategy_of("cs") == "shell"
    with pytest.raises(RemoteError, match="codesift is not installed on sh"):
        remote("sh", root, strategy="codesift").strategy_of("sh")


def test_grep_on_two_hosts_matches_local_search(remote, tree) -> None:
    root = tree(BASIC)
    local = Workspace(root).grep("hello", context_lines=1)
    expected = [(m.file, m.line, m.column, m.byte_offset, m.content, m.text) for m in local.matches]
    result = remote("cs,sh", root).grep("hello", context_lines=1)

    assert isinstance(result, RemoteGrepResult)
    assert result.errors == {}
    assert same_hits(result, "cs") == expected
    assert same_hits(result, "sh") == expected
    # Ordered by host as given, then path, line, column; every hit names its host.
    assert [m.host for m in result.matches] == ["cs"] * len(expected) + ["sh"] * len(expected)
    assert result.total == 2 * len(expected)
    assert result.summary.startswith(f"Found {2 * len(expected)} matches for /hello/ in {root}")
    assert f"in {root} on cs, sh" in result.summary
    by_host = {h: [m for m in result.matches if m.host == h] for h in ("cs", "sh")}
    for remote_hit, local_hit in zip(by_host["sh"], local.matches, strict=True):
        assert remote_hit.before == local_hit.before and remote_hit.after == local_hit.after
    data = result.to_dict()
    assert {m["host"] for m in data["matches"]} == {"cs", "sh"}
    assert data["hosts"] == ["cs", "sh"]
    ids = [m.id for m in result.matches]
    assert len(set(ids)) == len(ids) and all(i.startswith("sr_") for i in ids)


@pytest.mark.parametrize(
    ("pattern", "options"),
    [
        (r"\d+", {}),
        (r"(?:def|print)\s+\w+", {"case_sensitive": True}),
        (r"hel+o", {"case_sensitive": True}),
        ("HELLO", {}),
        ("l", {"include": "*.py", "exclude": "util"}),
        ("hello", {"include": "src/**/*.py"}),
        ("o", {"path": "src", "include": "util/*.py"}),
        ("return 'Hello", {"literal": True}),
        (r"[[:digit:]]{3}", {}),
    ],
)
def test_shell_strategy_finds_what_codesift_finds(remote, tree, pattern, options) -> None:
    root = tree(BASIC)
    path = options.pop("path", ".")
    local = Workspace(root).grep(pattern, path, **options)
    expected = [(m.file, m.line, m.column, m.byte_offset, m.content, m.text) for m in local.matches]
    assert expected, "the local search should find something"
    result = remote("cs,sh", root).grep(pattern, path, **options)
    assert same_hits(result, "cs") == expected
    assert same_hits(result, "sh") == expected


def test_glob_on_both_strategies_follows_codesift_rules(remote, tree) -> None:
    root = tree({**BASIC, "src/b.tsx": "", "src/c.ts": "", "A.PY": ""})
    ws = Workspace(root)
    rws = remote("cs,sh", root)
    cases = [
        ("*.py", "."),
        ("src/**/*.py", "src"),
        ("**/*.go", "."),
        ("util/*.py", "src"),
        ("*.{ts,tsx}", "."),
        ("[!a]*.py", "."),
        ("*:ird*", "."),
        ("src/", "."),
        ("**", "docs"),
    ]
    for pattern, path in cases:
        expected = ws.glob(pattern, path).paths
        result = rws.glob(pattern, path)
        for host in ("cs", "sh"):
            assert [f.path for f in result.files if f.host == host] == expected, (pattern, host)
        assert result.total == 2 * len(expected)
    insensitive = rws.glob("*.py", case_sensitive=False)
    assert [f.path for f in insensitive.files if f.host == "sh"] == ws.glob(
        "*.py", case_sensitive=False
    ).paths
    newest = rws.glob("*.py", sort="mtime", limit=1)
    assert newest.truncated
    assert len([f for f in newest.files if f.host == "sh"]) == 1
    stat = os.stat(root / "src/app.py")
    files = {(f.host, f.path): f for f in rws.glob("app.py").files}
    assert files["sh", "src/app.py"].size == stat.st_size == files["cs", "src/app.py"].size
    assert abs(files["sh", "src/app.py"].mtime_ms - stat.st_mtime_ns // 1_000_000) <= 1
    summary = rws.glob("*.md").summary
    assert summary == f'Found 2 files matching "*.md" in {root} on cs, sh (sorted by path)'


def test_root_under_the_remote_home(lab: SshLab, remote) -> None:
    write_tree(lab.home / "proj dir", {"a.txt": "hello home\n"})
    rws = remote("cs,sh", "~/proj dir")
    result = rws.grep("home")
    assert [(m.host, m.file, m.column) for m in result.matches] == [
        ("cs", "a.txt", 7),
        ("sh", "a.txt", 7),
    ]
    assert [f.path for f in rws.glob("*.txt").files] == ["a.txt", "a.txt"]
    assert "in ~/proj dir on cs, sh" in result.summary


def test_file_name_with_colon_and_newline(remote, tree) -> None:
    root = tree(BASIC)
    rws = remote("cs,sh", root)
    result = rws.grep("strange name")
    assert hits(result) == [
        ("cs", NEWLINE_NAME, 1, 14, "strange name"),
        ("sh", NEWLINE_NAME, 1, 14, "strange name"),
    ]
    found = rws.glob("*name.txt")
    assert [(f.host, f.path) for f in found.files] == [("cs", NEWLINE_NAME), ("sh", NEWLINE_NAME)]


def test_ignore_rules_apply_with_codesift_but_not_with_shell(remote, tree) -> None:
    root = tree(
        {
            **BASIC,
            ".gitignore": "build/\n",
            ".clineignore": "secrets.txt\n",
            "build/out.js": "needle in build output\n",
            "secrets.txt": "needle in a secret\n",
            "kept.txt": "needle kept\n",
            ".git/config": "needle in git\n",
        }
    )
    rws = remote("cs,sh", root)
    result = rws.grep("needle")
    # codesift honours .gitignore and .clineignore on the host; the shell strategy reads no
    # ignore files (but never searches .git).
    assert [m.file for m in result.matches if m.host == "cs"] == ["kept.txt"]
    assert [m.file for m in result.matches if m.host == "sh"] == [
        "build/out.js",
        "kept.txt",
        "secrets.txt",
    ]
    files = rws.glob("*.{js,txt}")
    assert [f.path for f in files.files if f.host == "cs"] == [NEWLINE_NAME, "kept.txt"]
    assert [f.path for f in files.files if f.host == "sh"] == [
        "build/out.js",
        NEWLINE_NAME,
        "kept.txt",
        "secrets.txt",
    ]


# -- many hosts and failures ----------------------------------------------------------------------


def test_refused_host_is_reported_and_others_are_kept(lab: SshLab, remote, tree) -> None:
    root = tree(BASIC)
    dead = f"127.0.0.1:{closed_port()}"
    cs = lab.servers["cs"]
    rws = remote(f"{cs.address},{dead}", root)
    result = rws.grep("hello", include="*.py")
    assert set(result.errors) == {dead}
    assert "connection refused" in result.errors[dead].lower()
    assert [(m.host, m.file) for m in result.matches] == [
        (cs.address, "src/app.py"),
        (cs.address, "src/app.py"),
        (cs.address, "src/app.py"),
        (cs.address, "src/util/strings.py"),
        (cs.address, "src/util/strings.py"),
    ]
    assert result.summary.endswith(f"[1 host failed: {dead}]")
    assert result.to_dict()["errors"] == result.errors
    globbed = rws.glob("*.md")
    assert [f.host for f in globbed.files] == [cs.address] and set(globbed.errors) == {dead}
    # A single unreachable host is a result with the error, not an exception.
    alone = remote(dead, root).glob("*")
    assert alone.files == [] and "refused" in alone.errors[dead]


def test_refused_authentication_and_missing_grep(lab: SshLab, remote, tree) -> None:
    root = tree(BASIC)
    stranger = lab.workdir / "stranger_key"
    if not stranger.exists():
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(stranger)], check=True
        )
    config = lab.workdir / "stranger_config"
    config.write_text(lab.ssh_config.read_text().replace(str(lab.client_key), str(stranger)))
    refused = remote("cs", root, ssh_config=str(config)).grep("hello")
    assert refused.matches == []
    assert "authentication refused" in refused.errors["cs"]
    assert "identity_file" in refused.errors["cs"]

    result = remote("cs,nogrep", root).grep("hello", include="*.md")
    assert [(m.host, m.file) for m in result.matches] == [("cs", "docs/readme.md")]
    assert "grep is not installed on nogrep" in result.errors["nogrep"]
    # find is there, so glob works on that host.
    assert [f.path for f in remote("nogrep", root).glob("*.md").files] == ["docs/readme.md"]


def test_host_that_never_answers_times_out(remote, tree) -> None:
    root = tree(BASIC)
    with socket.socket() as silent:  # accepts TCP connections, never speaks SSH
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        mute = f"127.0.0.1:{silent.getsockname()[1]}"
        result = remote(f"{mute},sh", root, connect_timeout=1).grep("hello", include="*.ts")
    assert [(m.host, m.file) for m in result.matches] == [("sh", "web/index.ts")]
    assert "timed out after 1s" in result.errors[mute]


def test_max_matches_per_host_and_in_total(remote, tree) -> None:
    root = tree({"a.txt": "x\n" * 4, "b.txt": "x x\n", "c.txt": "x\n"})
    rws = remote("cs,sh", root)
    result = rws.grep("x", max_matches=3)
    assert [(m.host, m.file, m.line, m.column) for m in result.matches] == [
        (host, "a.txt", line, 1) for host in ("cs", "sh") for line in (1, 2, 3)
    ]
    assert result.truncated and result.total == 6
    everything = rws.grep("x", max_matches=100)
    assert len(everything.matches) == 14 and not everything.truncated
    shared = rws.grep("x", max_total=5)
    assert [m.host for m in shared.matches] == ["cs", "cs", "cs", "sh", "sh"]
    assert shared.truncated


def test_errors_of_the_caller_are_raised(remote, tree) -> None:
    root = tree(BASIC)
    rws = remote("cs,sh", root)
    with pytest.raises(NotFoundError, match="does not exist"):
        rws.grep("hello", "no/such/dir")
    with pytest.raises(SandboxError):
        rws.grep("hello", "../..")
    with pytest.raises(PatternError):
        rws.grep("(unclosed")
    with pytest.raises(PatternError):
        rws.glob("src/[abc")
    with pytest.raises(NotFoundError, match="root"):
        remote("sh", root / "missing").glob("*")
    with pytest.raises(InvalidArgumentError, match="not valid"):
        RemoteWorkspace("-oProxyCommand=touch PWNED", "/")
    with pytest.raises(InvalidArgumentError, match="empty entry"):
        RemoteWorkspace("a,,b", "/")


# -- security ------------------------------------------------------------------------------------


def test_hostile_patterns_are_searched_literally(lab: SshLab, remote, tree) -> None:
    root = tree(
        {"hostile.txt": "".join(f"line {p}\n" for p in HOSTILE), "-rf/--help": "-rf here\n"}
    )
    rws = remote("cs,sh", root)
    places = [root, lab.home, Path.cwd(), Path("/tmp")]
    for n, pattern in enumerate(HOSTILE, start=1):
        result = rws.grep(pattern, literal=True)
        assert result.errors == {}
        for host in ("cs", "sh"):
            found = [(m.line, m.content) for m in result.matches if m.host == host]
            assert found == [(n, pattern)], (host, pattern)
        regex = rws.grep(pattern, path="hostile.txt", include=pattern + "*")
        assert regex.matches == [] or all(m.file == "hostile.txt" for m in regex.matches)
        rws.glob(pattern + "*.txt")
        with pytest.raises(NotFoundError):
            rws.grep("line", path=pattern)
    # A newline cannot end the quoted word either: codesift searches across the line break,
    # the shell strategy says it cannot.
    multi = rws.grep("$(touch PWNED)\nline `touch PWNED`", literal=True)
    assert [(m.host, m.line, m.end_line) for m in multi.matches] == [("cs", 1, 2)]
    assert "multiline search needs codesift on sh" in multi.errors["sh"]
    # Names that look like options stay operands.
    dashed = rws.grep("-rf", path="-rf", include="--help")
    assert [(m.host, m.file, m.column) for m in dashed.matches] == [
        ("cs", "-rf/--help", 1),
        ("sh", "-rf/--help", 1),
    ]
    assert [f.path for f in rws.glob("--*", path="-rf").files] == ["-rf/--help"] * 2
    assert not any((place / "PWNED").exists() for place in places)


def test_control_socket_is_private_and_connection_reused(lab: SshLab, remote, tree) -> None:
    root = tree(BASIC)
    server: SshServer = lab.servers["cs"]
    before = server.logins()
    rws = remote("cs", root)
    rws.grep("hello")
    rws.glob("*.py")
    rws.grep("world")
    assert server.logins() == before + 1  # one handshake for the probe and three commands
    control = Path(rws.control_dir)
    assert control.stat().st_mode & 0o777 == 0o700
    sockets = list(control.iterdir())
    assert len(sockets) == 1 and len(str(sockets[0])) < 100
    assert sockets[0].is_socket()
    rws.close()
    assert not control.exists()
    rws.grep("hello")  # reconnects after close
    assert server.logins() == before + 2


# -- linked edits ----------------------------------------------------------------------------------


def test_remote_edit_by_search_result_id(remote, tree) -> None:
    root = tree({"conf.py": "DEBUG = True\nname = 'a'\nDEBUG_SQL = True\n"})
    rws = remote("cs", root)
    result = rws.grep("True", case_sensitive=True)
    first, second = result.matches
    edited = rws.edit_result(first.id, "False")
    assert edited.summary == "Edited conf.py on cs: 1 replacement at line 1"
    assert edited.to_dict()["host"] == "cs"
    assert "-DEBUG = True\n+DEBUG = False" in edited.diff
    assert (root / "conf.py").read_bytes() == b"DEBUG = False\nname = 'a'\nDEBUG_SQL = True\n"
    # The other hit of the search was shifted by the edit and still applies exactly.
    rws.edit_result(second.id, "Maybe\nMORE = 1")
    assert (root / "conf.py").read_bytes() == (
        b"DEBUG = False\nname = 'a'\nDEBUG_SQL = Maybe\nMORE = 1\n"
    )
    with pytest.raises(StaleResultError, match="unknown, expired or was used up"):
        rws.edit_result(first.id, "again")


def test_remote_edit_relocates_or_fails_like_local(remote, tree) -> None:
    root = tree({"app.py": "x = 1\nvalue = compute()\n"})
    rws = remote("cs", root)
    [hit] = rws.grep("compute()", literal=True).matches
    (root / "app.py").write_text("# header\n\nx = 1\nvalue = compute()\n")
    moved = rws.edit_result(hit.id, "compute(fast=True)")
    assert moved.moved_from == 2 and moved.first_line == 4
    assert "moved from line 2 to 4" in moved.summary
    assert (root / "app.py").read_text() == "# header\n\nx = 1\nvalue = compute(fast=True)\n"

    [gone] = rws.grep("x = 1", literal=True).matches
    (root / "app.py").write_text("y = 2\n")
    with pytest.raises(StaleResultError, match=f"search result {gone.id} .*no longer there"):
        rws.edit_result(gone.id, "x = 3")
    assert (root / "app.py").read_text() == "y = 2\n"


def test_edit_of_a_shell_strategy_hit_needs_codesift(remote, tree) -> None:
    root = tree(BASIC)
    rws = remote("sh", root)
    hit = rws.grep("hello", include="*.ts").matches[0]
    with pytest.raises(InvalidArgumentError, match="linked edits need codesift on the host"):
        rws.edit_result(hit.id, "bye")
    assert (root / "web/index.ts").read_text() == BASIC["web/index.ts"]


# -- tool layer ------------------------------------------------------------------------------------


def test_tool_layer_searches_and_edits_remote_hosts(lab: SshLab, tree) -> None:
    remote_root = tree(BASIC)
    local = Workspace(tree({"local.txt": "hello local\n"}))
    settings = RemoteSettings(ssh_config=str(lab.ssh_config), root=str(remote_root))
    toolbox = Toolbox(local, remote=settings)
    try:
        out = toolbox.call("grep_search", {"pattern": "def hello", "ip": "cs"})
        assert not out.is_error and out.data is not None, out.text
        [match] = out.data["matches"]
        assert match["host"] == "cs" and match["file"] == "src/app.py"
        assert f"cs:src/app.py:1:1 [{match['id']}] def hello():" in out.text
        assert "on cs" in out.text.splitlines()[0]
        assert settings.workspace("cs") is settings.workspace(" cs ")

        edit = toolbox.call("edit", {"searchResultId": match["id"], "new_string": "def hi"})
        assert not edit.is_error, edit.text
        assert edit.text.startswith("Edited src/app.py on cs")
        assert (remote_root / "src/app.py").read_text().startswith("def hi():\n")

        shell_hit = toolbox.call("grep_search", {"pattern": "hello", "host": "sh", "path": "web"})
        assert shell_hit.data is not None
        shell_id = shell_hit.data["matches"][0]["id"]
        refused = toolbox.call("edit", {"search_result_id": shell_id, "new_string": "x"})
        assert refused.is_error and "linked edits need codesift" in refused.text

        files = toolbox.call("glob_search", {"pattern": "*.md", "host": "sh,cs"})
        assert files.text.splitlines()[1:] == ["sh:docs/readme.md", "cs:docs/readme.md"]

        dead = f"127.0.0.1:{closed_port()}"
        failed = toolbox.call("grep_search", {"pattern": "hello", "host": f"cs,{dead}"})
        assert not failed.is_error
        assert f"[host {dead} failed: connection refused" in failed.text
        bad = toolbox.call("grep_search", {"pattern": "x", "host": "-oProxyCommand=x"})
        assert bad.is_error and "not valid" in bad.text
        assert not toolbox.call("grep_search", {"pattern": "hello local"}).is_error
    finally:
        settings.close()


# -- pieces without ssh ---------------------------------------------------------------------------


def test_parse_hosts() -> None:
    specs = parse_hosts("h1, deploy@h2:2222,[::1]:2200,fe80::1,alias")
    assert [(s.label, s.user, s.host, s.port) for s in specs] == [
        ("h1", None, "h1", None),
        ("deploy@h2:2222", "deploy", "h2", 2222),
        ("[::1]:2200", None, "::1", 2200),
        ("fe80::1", None, "fe80::1", None),
        ("alias", None, "alias", None),
    ]
    for bad in ("", "h1:99999", "-oX=y", "a b", "us er@h", "h;rm"):
        with pytest.raises(InvalidArgumentError):
            parse_hosts(bad)


def test_regex_and_glob_translation() -> None:
    assert to_ere(r"\d+(?:px|em)?") == ("[0-9]+(px|em)?", False)
    assert to_ere(r"(?i)a.*?b[\w\-]") == ("a.*b[[:alnum:]_-]", True)
    assert to_ere(r"a\-b\#\.c\\") == (r"a-b#\.c\\", False)
    with pytest.raises(PatternError, match="install codesift"):
        to_ere(r"(?=lookahead)")
    assert expand_braces("*.{ts,{tsx,jsx}}") == ["*.ts", "*.tsx", "*.jsx"]
    pattern = PathPattern(["src/**/*.py", "*.md"])
    assert pattern.is_match("a/b.py", "src/a/b.py")
    assert pattern.is_match("x/README.md", "x/README.md")
    assert not pattern.is_match("b.py", "lib/b.py")


def test_sshd_helpers_fail_with_the_package_name(monkeypatch) -> None:
    import sshd

    monkeypatch.setattr(sshd, "SSHD", "/nonexistent/sshd")
    with pytest.raises(pytest.fail.Exception, match="openssh-server"):
        sshd.require_openssh()
