"""An indexed `codesift-rg` search reads ripgrep's rules only for the candidates whose
verdict the daemon does not keep yet: a run offers the verdicts it decided, and the next run
with the same flags (any pattern) gets its candidates with the dropped ones left out. Every
answer equals the real ripgrep's, before and after every kind of change inside the tree and
outside it; verdicts survive files created, written and renamed, and not rule changes."""

# The `env` fixture comes from the `--files` lists' tests (one daemon, rules of its own), and
# so does the mark that skips them all when codesift-rg is not built: each test names the
# fixture as a parameter, which ruff reads as a redefinition.
# ruff: noqa: F811

from __future__ import annotations

import os
from pathlib import Path

from rg_helpers import Env
from test_codesift_rg_files_list import (  # noqa: F401
    check,
    check_after_each,
    check_kept_by_the_first_run,
    check_refused,
    daemon_request,
    env,
    make_tree,
    move_in,
    pytestmark,
    rewrite,
    rule_changes,
)

OFFERED = b"verdicts offered, kept: true"
SERVED = b"rules: read for 0 of"

ARGVS = [
    ("needle",),
    ("-g", "*.c", "needle"),
    ("--hidden", "needle"),
    ("-t", "py", "needle"),
    ("-uu", "needle"),
    ("--no-ignore-parent", "-l", "needle"),
    # A directory inside the indexed tree: answered by the tree's index and watch.
    ("needle", "src"),
    ("-l", "needle", "src/sub"),
]


def needles(tree: Path) -> None:
    """Puts the word searched for in every file of the tree but `.git`'s, and beside them
    files without it that outweigh them (an index narrows a search to a small share)."""
    for path in tree.rglob("*"):
        if path.is_file() and ".git" not in path.relative_to(tree).parts:
            with open(path, "a") as f:
                f.write("a needle\n")
    (tree / "bulk").mkdir(exist_ok=True)
    for i in range(8):
        (tree / "bulk" / f"hay{i}.txt").write_text("hay and straw\n" * 200)


def test_verdicts_are_kept_served_and_every_answer_equals_ripgrep(env: Env, tmp_path: Path) -> None:
    tree = make_tree(tmp_path)
    needles(tree)
    env.rg(tree, "force", "needle")
    check_kept_by_the_first_run(env, tree, ARGVS, OFFERED, SERVED)
    # Another pattern with the same flags: its candidates were decided already.
    other = check(env, tree, ("int",), "another pattern")
    assert SERVED in other, other.decode()

    changes = [
        ("a file created", lambda: (tree / "new.c").write_text("a needle\n")),
        ("a file written", lambda: rewrite(tree / "a.c", "int a = 2; // needle\n")),
        ("a file removed", lambda: (tree / "src" / "b.c").unlink()),
        ("a file renamed", lambda: os.rename(tree / "tool.py", tree / "src" / "tool2.py")),
        ("a directory with files moved in", lambda: moved_in_with_needles(tmp_path, tree)),
        *rule_changes(tmp_path, tree),
        ("a nested .rgignore created", lambda: (tree / "moved" / ".rgignore").write_text("m.*\n")),
        ("a directory made", lambda: made_with_rules(tree)),
    ]
    check_after_each(env, tree, changes, ARGVS)


def moved_in_with_needles(tmp_path: Path, tree: Path) -> None:
    move_in(tmp_path, tree)
    needles(tree / "moved")


def made_with_rules(tree: Path) -> None:
    """A directory made, then a rule file and files inside it at once (before any search
    walked it)."""
    (tree / "made").mkdir()
    (tree / "made" / ".gitignore").write_text("hidden_by_rule.c\n")
    for name in ("hidden_by_rule.c", "shown.c"):
        (tree / "made" / name).write_text("a needle\n")


def test_files_created_and_renamed_keep_the_verdicts(env: Env, tmp_path: Path) -> None:
    tree = make_tree(tmp_path)
    needles(tree)
    env.rg(tree, "force", "needle")
    args = ("needle",)
    check(env, tree, args, "first run")
    (tree / "new.c").write_text("a needle\n")
    os.rename(tree / "tool.py", tree / "tool2.py")
    after = check(env, tree, args, "after a file was created and one renamed")
    # Only the two new paths are decided anew.
    assert b"rules: read for 2 of" in after, after.decode()
    assert SERVED in check(env, tree, args, "again"), "the new verdicts were kept"


def select_with_rules(tree: Path, key: str) -> dict:
    return {
        "op": "select",
        "root": str(tree.resolve()),
        "path": "",
        "walk": {"all_files": True, "list_unnarrowed": False},
        "build": False,
        "pattern": {"pattern": "needle", "literal": False, "multiline": False},
        "rules": key,
    }


def test_verdicts_decided_while_the_rules_changed_are_not_kept(env: Env, tmp_path: Path) -> None:
    tree = make_tree(tmp_path)
    needles(tree)
    env.rg(tree, "force", "needle")
    selected = daemon_request(env, select_with_rules(tree, "a test's flags"))
    token = selected.get("rules_token")
    assert token and selected.get("undecided") is None, selected
    store = {
        "op": "rules",
        "root": str(tree.resolve()),
        "walk": {"all_files": True},
        "key": "a test's flags",
        "token": token,
        "kept": ["a.c"],
        "dropped": ["tool.py"],
    }
    # ripgrep's own ignore file (codesift's walk does not read it: the watch goes on).
    rewrite(tree / ".rgignore", "a.c\n")
    stored = daemon_request(env, store)
    assert stored.get("stored") is False, f"expected stored false, got {stored}"
    fresh = daemon_request(env, select_with_rules(tree, "a test's flags"))
    assert fresh.get("undecided") is None, f"nothing kept, got {fresh}"
    stored = daemon_request(env, {**store, "token": fresh["rules_token"]})
    assert stored.get("stored") is True, stored
    served = daemon_request(env, select_with_rules(tree, "a test's flags"))
    files = served["files"]
    assert "tool.py" not in files and "a.c" in files, f"tool.py dropped, a.c kept: {files}"
    undecided = {files[i] for i in served["undecided"]}
    assert undecided == set(files) - {"a.c"}, f"expected all but a.c undecided, got {undecided}"


def test_bad_rules_requests_get_an_error_saying_what_is_wrong(env: Env, tmp_path: Path) -> None:
    tree = make_tree(tmp_path)
    base = {"op": "rules", "root": str(tree.resolve()), "walk": {"all_files": True}}
    cases = [
        ({**base, "token": "1:0"}, "key is required"),
        ({**base, "key": "k"}, "token is required"),
        ({**base, "key": "k" * ((64 << 10) + 1), "token": "1:0"}, "key is over the limit"),
        ({**base, "key": "k", "token": "1:0", "kept": "a.c"}, "kept must be an array"),
        ({**base, "key": "k", "token": "1:0", "kept": ["../out"]}, "relative to the root"),
        ({**base, "key": "k", "token": "1:0", "dropped": ["/etc/passwd"]}, "relative to the root"),
        ({**base, "key": "k", "token": "1:0", "walk": {}}, "walk.all_files"),
        ({**select_with_rules(tree, "k"), "walk": {}}, "walk.all_files"),
    ]
    check_refused(env, cases)


def test_a_rule_file_above_a_searched_directory_made_since_the_index_counts(
    env: Env, tmp_path: Path
) -> None:
    tree = make_tree(tmp_path)
    needles(tree)
    env.rg(tree, "force", "needle")
    # Made after the index was built: the watch follows `made` only once a select walks it.
    (tree / "made" / "sub").mkdir(parents=True)
    (tree / "made" / ".gitignore").write_text("")
    for name in ("a.c", "b.py"):
        (tree / "made" / "sub" / name).write_text("a needle\n")
    args = ("needle", "made/sub")
    check(env, tree, args, "a directory below one made since the index")
    check(env, tree, args, "again")
    rewrite(tree / "made" / ".gitignore", "*.c\n")
    check(env, tree, args, "the rule file above it rewritten")
    (tree / "made" / ".gitignore").write_text("*.py\n")
    check(env, tree, args, "the rule file above it replaced")
