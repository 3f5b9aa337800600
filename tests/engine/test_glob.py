"""Workspace.glob against DESIGN's Glob section."""

from __future__ import annotations

import json
import os
import time

import pytest

from codesift import NotFoundError, PatternError, SandboxError, Workspace


def paths(result) -> list[str]:
    return [f.path for f in result.files]


def test_pattern_without_slash_matches_name_at_any_depth(tree):
    root = tree({"README.md": "", "docs/a.md": "", "docs/deep/b.md": "", "src/c.rs": ""})
    ws = Workspace(root)
    assert paths(ws.glob("*.md")) == ["README.md", "docs/a.md", "docs/deep/b.md"]
    assert paths(ws.glob("*.md")) == paths(ws.glob("**/*.md"))


def test_design_example_src_ts_with_path_src(tree):
    files = {f"src/mod{i}/f{i}.ts": "" for i in range(27)}
    files.update({"src/x.js": "", "other/y.ts": ""})
    ws = Workspace(tree(files))
    result = ws.glob("src/**/*.ts", path="src")
    assert result.total == 27, result.summary
    assert result.summary == 'Found 27 files matching "src/**/*.ts" in ./src (sorted by path)'
    assert all(p.startswith("src/") for p in paths(result))


def test_pattern_relative_to_search_dir(tree):
    ws = Workspace(tree({"internal/a/x.go": "", "internal/y.go": "", "cmd/z.go": ""}))
    assert paths(ws.glob("**/*.go", path="internal")) == ["internal/a/x.go", "internal/y.go"]
    assert paths(ws.glob("a/*.go", path="internal")) == ["internal/a/x.go"]
    assert paths(ws.glob("internal/a/*.go", path="internal")) == ["internal/a/x.go"]


def test_glob_syntax(tree):
    ws = Workspace(tree({"a1.txt": "", "a2.txt": "", "b1.txt": "", "c.md": "", "d/e.txt": ""}))
    assert paths(ws.glob("a?.txt")) == ["a1.txt", "a2.txt"]
    assert paths(ws.glob("[ab]1.txt")) == ["a1.txt", "b1.txt"]
    assert paths(ws.glob("*.{md,txt}")) == ["a1.txt", "a2.txt", "b1.txt", "c.md", "d/e.txt"]
    # `*` does not cross a directory separator, `**` does.
    assert paths(ws.glob("d*.txt")) == []
    assert paths(ws.glob("*/e.txt")) == ["d/e.txt"]
    assert paths(ws.glob("**/e.txt")) == ["d/e.txt"]


def test_files_only_not_directories(tree):
    root = tree({"pkg.ts/inner.js": "", "real.ts": ""})
    assert paths(Workspace(root).glob("*.ts")) == ["real.ts"]


def test_sort_by_path_is_byte_order(tree):
    root = tree({"a.txt": "", "a/b.txt": "", "a-b/c.txt": "", "ab.txt": "", "B.txt": ""})
    got = paths(Workspace(root).glob("**"))
    assert got == sorted(got, key=lambda p: p.encode())
    assert got == ["B.txt", "a-b/c.txt", "a.txt", "a/b.txt", "ab.txt"]


def test_sort_by_mtime_newest_first(tree):
    root = tree({"old.txt": "", "mid.txt": "", "new.txt": ""})
    now = time.time()
    for i, name in enumerate(["old.txt", "mid.txt", "new.txt"]):
        os.utime(root / name, (now - 100 + i * 10, now - 100 + i * 10))
    assert paths(Workspace(root).glob("*.txt", sort="mtime")) == ["new.txt", "mid.txt", "old.txt"]


def test_sort_none_returns_the_same_set(tree):
    files = {f"d{i % 3}/f{i}.py": "" for i in range(30)}
    ws = Workspace(tree(files))
    assert sorted(paths(ws.glob("*.py", sort="none"))) == paths(ws.glob("*.py"))


def test_limit_and_truncation_rule(tree):
    ws = Workspace(tree({f"f{i}.txt": "" for i in range(5)}))
    exact = ws.glob("*.txt", limit=5)
    assert (exact.total, exact.truncated, len(exact.files)) == (5, False, 5)
    cut = ws.glob("*.txt", limit=4)
    assert (cut.total, cut.truncated, paths(cut)) == (5, True, [f"f{i}.txt" for i in range(4)])
    assert "[TRUNCATED" in cut.summary


def test_mtime_and_size(tree):
    root = tree({"a.txt": "hello"})
    os.utime(root / "a.txt", (1_700_000_000.5, 1_700_000_000.5))
    (match,) = Workspace(root).glob("a.txt").files
    assert (match.path, match.size, match.mtime_ms) == ("a.txt", 5, 1_700_000_000_500)


def test_gitignore_honoured_without_git_and_counted(tree):
    root = tree({".gitignore": "build/\n*.log\n", "build/out.js": "", "a.log": "", "a.js": ""})
    ws = Workspace(root)
    result = ws.glob("*")
    assert paths(result) == [".gitignore", "a.js"]
    assert result.ignored == 2
    assert paths(Workspace(root, gitignore=False).glob("*.js")) == ["a.js", "build/out.js"]


def test_nested_gitignore_and_negation(tree):
    root = tree(
        {
            ".gitignore": "*.gen\n",
            "sub/.gitignore": "!keep.gen\n",
            "sub/keep.gen": "",
            "sub/drop.gen": "",
        }
    )
    assert paths(Workspace(root).glob("*.gen")) == ["sub/keep.gen"]


def test_git_info_exclude_and_git_dir_never_listed(tree):
    root = tree({".git/info/exclude": "local.txt\n", ".git/HEAD": "", "local.txt": "", "x.txt": ""})
    ws = Workspace(root)
    assert paths(ws.glob("*")) == ["x.txt"]
    assert paths(Workspace(root, gitignore=False).glob("*")) == ["local.txt", "x.txt"]


def test_hidden_files_included_by_default(tree):
    root = tree({".env": "", ".config/x.toml": "", "y.toml": ""})
    assert paths(Workspace(root).glob("*")) == [".config/x.toml", ".env", "y.toml"]
    assert paths(Workspace(root, hidden=False).glob("*")) == ["y.toml"]


def test_access_ignore_files_hide_entries(tree):
    root = tree(
        {
            ".clineignore": "secrets/\n",
            ".codesiftignore": "*.key\n",
            "secrets/a.txt": "",
            "id.key": "",
            "ok.txt": "",
        }
    )
    ws = Workspace(root)
    assert paths(ws.glob("*.txt")) == ["ok.txt"]
    assert paths(ws.glob("*.key")) == []
    # Access-ignore files apply even with gitignore off.
    assert paths(Workspace(root, gitignore=False).glob("*.txt")) == ["ok.txt"]
    with pytest.raises(SandboxError, match="access-ignore"):
        ws.glob("*", path="secrets")


def test_symlinks_not_followed_unless_asked_and_only_inside(tree, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "leak.txt").write_text("x")
    root = tree({"real/a.txt": ""})
    (root / "out").symlink_to(outside)
    (root / "alias").symlink_to(root / "real")
    assert paths(Workspace(root).glob("*.txt")) == ["real/a.txt"]
    followed = paths(Workspace(root, follow_symlinks=True).glob("*.txt"))
    assert followed == ["alias/a.txt", "real/a.txt"]


def test_literal_directory_prefix(tree):
    root = tree({"drivers/net/a.h": "", "drivers/b.h": "", "include/c.h": "", "drivers.h": ""})
    ws = Workspace(root)
    assert paths(ws.glob("drivers/**/*.h")) == ["drivers/b.h", "drivers/net/a.h"]
    assert paths(ws.glob("nope/**/*.h")) == []


def test_case_insensitive_glob(tree):
    ws = Workspace(tree({"README.MD": "", "x.md": ""}))
    assert paths(ws.glob("*.md")) == ["x.md"]
    assert paths(ws.glob("*.md", case_sensitive=False)) == ["README.MD", "x.md"]


def test_paths_absolute_inside_root_are_accepted(tree):
    root = tree({"src/a.py": ""})
    ws = Workspace(root)
    assert paths(ws.glob("*.py", path=str(root / "src"))) == ["src/a.py"]
    assert paths(ws.glob(str(root / "src") + "/*.py")) == ["src/a.py"]


@pytest.mark.parametrize("bad", ["../", "/etc", "src/../../x", "a\x00b"])
def test_paths_outside_root_are_sandbox_errors(tree, bad):
    ws = Workspace(tree({"src/a.py": ""}))
    with pytest.raises(SandboxError):
        ws.glob("*", path=bad)


def test_missing_path_and_bad_glob(tree):
    ws = Workspace(tree({"a.py": ""}))
    with pytest.raises(NotFoundError, match="does not exist"):
        ws.glob("*", path="nope")
    with pytest.raises(PatternError, match="invalid glob"):
        ws.glob("src/[a")


def test_to_dict_is_json_ready(tree):
    ws = Workspace(tree({"a.py": "x"}))
    data = ws.glob("*.py").to_dict()
    assert json.loads(json.dumps(data))["files"][0]["path"] == "a.py"
    assert set(data["files"][0]) == {"path", "mtime_ms", "size"}
    assert {"files", "total", "truncated", "ignored"} <= set(data)
