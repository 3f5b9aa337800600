"""The parts of `codesift.remote` that need no ssh: paths in the root, the shell-strategy
scripts (run here with the local `sh`, as a host would run them) and the parsing of their
output, the fair sharing of a total limit, and the hit ids."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from remote_helpers import grep_query
from trees import TreeSpec, write_tree

from codesift.errors import SandboxError, StaleResultError
from codesift.remote.fanout import fair_share
from codesift.remote.hit_ids import HitRegistry
from codesift.remote.paths import RemoteRoot
from codesift.remote.queries import GlobQuery, Hit
from codesift.remote.scripts import EXIT_NO_PATH, ShellScripts
from codesift.remote.shell_output import GrepReader, parse_find_output

pytestmark = pytest.mark.skipif(
    shutil.which("grep") is None or shutil.which("find") is None, reason="needs grep and find"
)

TREE: TreeSpec = {
    "src/a.py": "alpha = 1\nbeta = 'alpha alpha'\n",
    "src/b.txt": "nothing\n",
    "-rf/--help": "alpha in a dashed name\n",
    ".git/config": "alpha\n",
}


def run_here(script: str) -> subprocess.CompletedProcess[bytes]:
    """Runs a script as a host does (fed to `sh -s` on stdin)."""
    return subprocess.run(["sh", "-s"], input=script.encode(), capture_output=True, check=False)


def test_paths_stay_in_the_root() -> None:
    root = RemoteRoot("/srv/app/")
    assert root.path == "/srv/app"
    assert root.start("/srv/app/src/x.py") == "src/x.py"
    assert root.start("src/../lib") == "lib"
    assert root.start("") == "."
    assert root.display("src") == "/srv/app/src" and root.display(".") == "/srv/app"
    assert root.relative_pattern("/srv/app/src/*.py") == "src/*.py"
    for outside in ("..", "../etc", "/etc/passwd", "/srv/application"):
        with pytest.raises(SandboxError):
            root.start(outside)
    with pytest.raises(SandboxError, match="relative"):
        RemoteRoot("~/proj").start("/etc")
    assert RemoteRoot("/").is_system_root(".") and not root.is_system_root(".")


def test_grep_script_and_reader_find_columns_and_skip_git(tmp_path: Path) -> None:
    write_tree(tmp_path, TREE)
    query = grep_query("alpha")
    script = ShellScripts(RemoteRoot(str(tmp_path))).grep(query, "alpha", False)
    done = run_here(script)
    assert done.returncode == 0, done.stderr
    reader = GrepReader(query, None)
    reader.feed(done.stdout)
    hits = [(h.file, h.line, h.column, h.byte_offset, h.content) for h in reader.outcome(b"").hits]
    # Without a Python regex to place the match, grep's selected line is the hit.
    expected = [
        ("-rf/--help", 1, 1, 0, "alpha in a dashed name"),
        ("src/a.py", 1, 1, 0, "alpha = 1"),
        ("src/a.py", 2, 1, 10, "beta = 'alpha alpha'"),
    ]
    assert hits == expected, f"expected {expected}, got {hits}"


def test_grep_reader_places_each_match_and_stops_after_enough(tmp_path: Path) -> None:
    write_tree(tmp_path, TREE)
    query = grep_query("alpha", "src", max_matches=2)
    script = ShellScripts(RemoteRoot(str(tmp_path))).grep(query, "alpha", False)
    done = run_here(script)
    reader = GrepReader(query, re.compile("alpha", re.IGNORECASE))
    reader.feed(done.stdout)
    outcome = reader.outcome(b"")
    got = [(h.file, h.line, h.column, h.byte_offset, h.content) for h in outcome.hits]
    expected = [("src/a.py", 1, 1, 0, "alpha"), ("src/a.py", 2, 9, 18, "alpha")]
    assert got == expected, f"expected {expected}, got {got}"
    assert outcome.truncated and outcome.total == 2


def test_find_script_lists_files_by_codesift_glob_rules(tmp_path: Path) -> None:
    write_tree(tmp_path, TREE)
    scripts = ShellScripts(RemoteRoot(str(tmp_path)))
    query = GlobQuery("*.{py,txt}", ".", limit=10, sort="path", case_sensitive=True)
    done = run_here(scripts.find(query))
    assert done.returncode == 0, done.stderr
    found = parse_find_output(done.stdout, done.stderr, query)
    assert [f[0] for f in found.files] == ["src/a.py", "src/b.txt"]
    assert found.files[0][2] == len(TREE["src/a.py"]) and found.total == 2
    missing = run_here(scripts.find(GlobQuery("*", "nope", 10, "path", True)))
    assert missing.returncode == EXIT_NO_PATH


def test_hostile_root_and_pattern_are_quoted(tmp_path: Path) -> None:
    root = tmp_path / "$(touch PWNED) 'x'"
    write_tree(root, {"f.txt": "; touch PWNED\n"})
    query = grep_query("; touch PWNED", literal=True)
    done = run_here(ShellScripts(RemoteRoot(str(root))).grep(query, query.pattern, False))
    assert done.returncode == 0, done.stderr
    assert b"f.txt\x001:0:; touch PWNED" in done.stdout
    assert not list(tmp_path.rglob("PWNED")) and not Path("PWNED").exists()


def test_fair_share_takes_round_robin() -> None:
    kept, cut = fair_share({"a": [1, 2, 3, 4], "b": [5], "c": [6, 7]}, 5)
    assert cut and kept == {"a": [1, 2], "b": [5], "c": [6, 7]}, kept
    assert fair_share({"a": [1]}, None) == ({"a": [1]}, False)


def test_hit_ids_remember_their_host_and_strategy() -> None:
    registry = HitRegistry(capacity=100)

    def hit(line: int) -> Hit:
        return Hit("f.py", line, 1, line, 0, 1, "x", "x", [], [])

    matches = registry.register(
        {"h1": [hit(1), hit(2)], "h2": [hit(3)]}, ["h2", "h1"], {"h1": "codesift", "h2": "shell"}
    )
    assert [(m.host, m.line) for m in matches] == [("h2", 3), ("h1", 1), ("h1", 2)]
    assert [registry.origin(m.id) for m in matches] == [
        ("h2", "shell"),
        ("h1", "codesift"),
        ("h1", "codesift"),
    ]
    assert all(registry.owns(m.id) for m in matches) and not registry.owns("sr_zz")
    with pytest.raises(StaleResultError):
        registry.origin(registry.cache.prefix + "zz")
