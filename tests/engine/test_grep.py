"""Workspace.grep against DESIGN's Grep section."""

from __future__ import annotations

import json

import pytest

from codesift import (
    InvalidArgumentError,
    NotFoundError,
    PatternError,
    SandboxError,
    StaleResultError,
    Workspace,
)

TS_FILES = {
    "src/api/users.ts": "import x\nexport function getUser (id) {\n  return db.getUser(id)\n}\n",
    "src/api/users.js": "function getUser(id) {}\n",
    "src/util.ts": "// nothing here\n",
    "lib/other.ts": "getUser()\n",
}


def hits(result):
    return [(m.file, m.line, m.column) for m in result.matches]


def test_design_example_with_include_and_context(tree):
    ws = Workspace(tree(TS_FILES))
    result = ws.grep(r"getUser\s*\(", path="src", include="*.ts", context_lines=1)
    assert hits(result) == [("src/api/users.ts", 2, 17), ("src/api/users.ts", 3, 13)]
    assert result.summary == r'Found 2 matches for /getUser\s*\(/ in ./src (filter: "*.ts")'
    first, second = result.matches
    assert first.content == "getUser ("
    assert first.text == "export function getUser (id) {"
    assert first.before == ["import x"]
    # Context lines are there whether or not they match too: each hit stands on its own.
    assert first.after == ["  return db.getUser(id)"]
    assert second.before == ["export function getUser (id) {"]
    assert second.after == ["}"]


def test_case_insensitive_by_default(tree):
    ws = Workspace(tree({"a.txt": "Foo\nfoo\nFOO\n"}))
    assert len(ws.grep("foo").matches) == 3
    assert [m.line for m in ws.grep("foo", case_sensitive=True).matches] == [2]


def test_literal_mode(tree):
    ws = Workspace(tree({"a.txt": "a.b\naxb\n(x)\n"}))
    assert [m.line for m in ws.grep("a.b").matches] == [1, 2]
    assert [m.line for m in ws.grep("a.b", literal=True).matches] == [1]
    assert [m.content for m in ws.grep("(x)", literal=True).matches] == ["(x)"]
    assert ws.grep("a.b", literal=True).summary.startswith('Found 1 match for "a.b"')


def test_two_hits_on_one_line_are_two_matches(tree):
    ws = Workspace(tree({"a.py": "x = foo(foo)\n"}))
    result = ws.grep("foo")
    assert hits(result) == [("a.py", 1, 5), ("a.py", 1, 9)]
    assert len({m.id for m in result.matches}) == 2
    assert [m.byte_offset for m in result.matches] == [4, 8]


def test_column_counts_characters_and_offsets_are_bytes(tree):
    ws = Workspace(tree({"u.txt": "héllo wörld\n"}))
    (m,) = ws.grep("wörld").matches
    assert (m.column, m.byte_offset, m.content) == (7, 7, "wörld")


def test_content_is_exact_bytes_and_text_is_whole_line(tree):
    root = tree({"a.txt": b"one\r\nhas Needle inside\r\n"})
    (m,) = Workspace(root).grep("needle").matches
    assert m.content == "Needle"
    assert m.text == "has Needle inside"
    raw = (root / "a.txt").read_bytes()
    assert raw[m.byte_offset : m.byte_offset + len(m.content)] == b"Needle"


def test_multiline_literal_in_crlf_file(tree):
    root = tree({"w.c": b"int a;\r\nvoid f() {\r\n  return;\r\n}\r\n"})
    ws = Workspace(root)
    (m,) = ws.grep("void f() {\n  return;", literal=True).matches
    assert m.content == "void f() {\r\n  return;"
    assert (m.line, m.end_line, m.column) == (2, 3, 1)
    assert m.text == "void f() {"
    raw = (root / "w.c").read_bytes()
    assert raw[m.byte_offset : m.byte_offset + len(m.content.encode())] == m.content.encode()


def test_multiline_regex_newline_matches_crlf_and_lf(tree):
    ws = Workspace(tree({"lf.txt": "ab\ncd\n", "crlf.txt": "ab\r\ncd\r\n"}))
    result = ws.grep(r"b\nc")
    assert [(m.file, m.content) for m in result.matches] == [
        ("crlf.txt", "b\r\nc"),
        ("lf.txt", "b\nc"),
    ]


def test_multiline_forced(tree):
    ws = Workspace(tree({"a.rs": "fn main() {\n    body();\n}\n"}))
    (m,) = ws.grep(r"fn main\(\) \{[\s\S]*?\}", multiline=True).matches
    assert (m.line, m.end_line) == (1, 3)
    assert m.content == "fn main() {\n    body();\n}"


def test_order_is_path_line_column_whatever_the_threads(tree):
    files = {f"d{i % 7}/f{i:03}.txt": "x y x\n" * (i % 4 + 1) for i in range(120)}
    root = tree(files)
    one = hits(Workspace(root, threads=1).grep("x", max_matches=None))
    many = hits(Workspace(root, threads=4).grep("x", max_matches=None))
    assert one == many
    assert one == sorted(one, key=lambda h: (h[0].encode(), h[1], h[2]))


def test_first_n_are_the_first_in_sorted_order(tree):
    files = {f"d{i % 9}/f{i:03}.txt": "hit\n" * (i % 5) for i in range(200)}
    root = tree(files)
    full = hits(Workspace(root, threads=4).grep("hit", max_matches=None))
    for threads in (1, 2, 4):
        ws = Workspace(root, threads=threads)
        for n in (1, 7, 50, 123):
            assert hits(ws.grep("hit", max_matches=n)) == full[:n], (threads, n)


def test_exactly_at_limit_is_not_truncated(tree):
    ws = Workspace(tree({"a.txt": "x\n" * 3, "b.txt": "x\n" * 2}))
    exact = ws.grep("x", max_matches=5)
    assert (len(exact.matches), exact.total, exact.truncated) == (5, 5, False)
    assert "TRUNCATED" not in exact.summary
    cut = ws.grep("x", max_matches=4)
    assert (len(cut.matches), cut.truncated) == (4, True)
    assert cut.total == 4
    assert cut.summary.endswith("[TRUNCATED: reached limit 4 before completing search]")
    counted = ws.grep("x", max_matches=4, count_total=True)
    assert (len(counted.matches), counted.total, counted.truncated) == (4, 5, True)
    assert hits(counted) == hits(cut)


def test_count_total_keeps_the_first_n(tree):
    files = {f"f{i:02}.txt": "k\n" * 3 for i in range(40)}
    ws = Workspace(tree(files), threads=4)
    counted = ws.grep("k", max_matches=10, count_total=True)
    assert counted.total == 120
    assert hits(counted) == hits(ws.grep("k", max_matches=None))[:10]


def test_binary_files_skipped_and_counted(tree):
    ws = Workspace(tree({"bin.dat": b"needle\x00\x01", "t.txt": "needle\n"}))
    result = ws.grep("needle")
    assert [m.file for m in result.matches] == ["t.txt"]
    assert result.binary_files == 1


def test_nul_after_first_block_still_binary(tree):
    data = b"needle\n" + b"a" * 200_000 + b"\x00"
    ws = Workspace(tree({"late.bin": data}))
    result = ws.grep("needle")
    assert result.matches == [] and result.binary_files == 1


def test_utf16_with_bom_is_decoded(tree):
    text = "first\nsecond needle\n"
    root = tree(
        {
            "le.txt": b"\xff\xfe" + text.encode("utf-16-le"),
            "be.txt": b"\xfe\xff" + text.encode("utf-16-be"),
        }
    )
    result = Workspace(root).grep("needle")
    assert [(m.file, m.line, m.column, m.text) for m in result.matches] == [
        ("be.txt", 2, 8, "second needle"),
        ("le.txt", 2, 8, "second needle"),
    ]
    assert {m.encoding for m in result.matches} == {"utf-16-le", "utf-16-be"}


def test_invalid_utf8_shown_lossily_with_exact_offsets(tree):
    raw = b"caf\xe9 au lait\nnext line\n"
    root = tree({"latin1.txt": raw})
    (m,) = Workspace(root).grep("lait").matches
    assert m.text == "caf\ufffd au lait"
    assert raw[m.byte_offset : m.byte_offset + 4] == b"lait"
    assert m.column == 9


def test_include_and_exclude_lists(tree):
    ws = Workspace(
        tree(
            {
                "a.ts": "x",
                "b.tsx": "x",
                "c.js": "x",
                "vendor/d.ts": "x",
                "src/gen/e.ts": "x",
            }
        )
    )
    files = lambda r: [m.file for m in r.matches]  # noqa: E731
    assert files(ws.grep("x", include=["*.ts", "*.tsx"])) == [
        "a.ts",
        "b.tsx",
        "src/gen/e.ts",
        "vendor/d.ts",
    ]
    assert files(ws.grep("x", include="*.ts,*.tsx")) == files(ws.grep("x", include="*.{ts,tsx}"))
    assert files(ws.grep("x", include="*.ts", exclude=["vendor", "src/gen/**"])) == ["a.ts"]


def test_timeout_returns_partial_results_not_an_error(tree):
    ws = Workspace(tree({f"f{i}.txt": "x\n" for i in range(50)}))
    result = ws.grep("x", timeout=1e-9)
    assert result.truncated and result.timed_out
    assert "timed out" in result.summary


def test_gitignored_files_hidden_but_explicit_file_searchable(tree):
    root = tree({".gitignore": "gen.py\n", "gen.py": "needle\n", "src.py": "needle\n"})
    ws = Workspace(root)
    assert [m.file for m in ws.grep("needle").matches] == ["src.py"]
    assert [m.file for m in ws.grep("needle", path="gen.py").matches] == ["gen.py"]


def test_access_denied_paths(tree):
    root = tree({".clineignore": "private/\n", "private/k.txt": "needle", "ok.txt": "needle"})
    ws = Workspace(root)
    assert [m.file for m in ws.grep("needle").matches] == ["ok.txt"]
    with pytest.raises(SandboxError):
        ws.grep("needle", path="private/k.txt")


def test_unreadable_entries_are_counted_not_fatal(tree):
    root = tree({"a.txt": "needle\n"})
    (root / "loop").symlink_to(root)
    result = Workspace(root, follow_symlinks=True).grep("needle")
    assert [m.file for m in result.matches] == ["a.txt"]
    assert result.unreadable >= 1


def test_ids_are_unique_prefixed_and_cached(tree):
    ws = Workspace(tree({"a.txt": "x x\nx\n"}))
    first, second = ws.grep("x"), ws.grep("x")
    ids = [m.id for m in first.matches + second.matches]
    assert len(set(ids)) == len(ids) == 6
    assert all(i.startswith("sr_") for i in ids)
    assert ws.cache.get(first.matches[1].id) == first.matches[1]
    assert ws.cache.get("sr_unknown") is None
    other = Workspace(ws.root)
    assert other.cache.get(first.matches[0].id) is None


def test_bad_input(tree):
    ws = Workspace(tree({"a.txt": "x"}))
    with pytest.raises(PatternError, match="invalid regex"):
        ws.grep("foo(")
    with pytest.raises(PatternError, match="invalid glob"):
        ws.grep("x", include="[a")
    with pytest.raises(SandboxError):
        ws.grep("x", path="../..")
    with pytest.raises(NotFoundError):
        ws.grep("x", path="missing")
    with pytest.raises(InvalidArgumentError):
        ws.grep("x", max_matches=0)
    with pytest.raises(InvalidArgumentError):
        ws.grep("x", timeout=-1)


def test_to_dict_is_json_ready(tree):
    ws = Workspace(tree({"a.txt": "x\n"}))
    data = ws.grep("x").to_dict()
    match = json.loads(json.dumps(data))["matches"][0]
    assert set(match) == {
        "id",
        "file",
        "line",
        "column",
        "end_line",
        "byte_offset",
        "content",
        "text",
        "before",
        "after",
    }
    assert {"matches", "total", "truncated", "summary"} <= set(data)


def test_cache_is_bounded_and_evicts_least_recently_used(tree):
    ws = Workspace(tree({"a.txt": "x\n" * 4}), cache_size=8)
    first = ws.grep("x").matches
    second = ws.grep("x").matches
    assert ws.cache.get(first[0].id) == first[0]  # use the first batch: now the second is older
    third = ws.grep("x").matches
    assert len(ws.cache) == 8
    assert ws.cache.get(first[1].id) == first[1]
    assert ws.cache.get(second[0].id) is None
    assert ws.cache.get(third[3].id) == third[3]
    with pytest.raises(StaleResultError):
        ws.edit_result(second[0].id, "y")


def test_first_n_on_a_large_tree_with_a_rare_pattern(tree):
    """More files than the ordered prefix (4096): the rest of the tree is scanned unordered,
    and the result is still exactly the first N in sorted order."""
    files = {
        f"d{i % 13:02}/f{i:05}.txt": ("rare\n" if i % 97 == 0 else "common\n") for i in range(6000)
    }
    # Hits only late in sorted order (d12 sorts last), so the ordered prefix cannot settle.
    files.update({f"d12/zz{i:03}.txt": "late rare rare\n" for i in range(30)})
    root = tree(files)
    ws = Workspace(root, threads=2)
    full = hits(ws.grep("rare", max_matches=None))
    assert len(full) == 62 + 60
    for n in (1, 20, 62, 100, 121, 122, 500):
        result = ws.grep("rare", max_matches=n)
        assert hits(result) == full[:n], n
        assert result.truncated == (len(full) > n), n
    counted = ws.grep("rare", max_matches=10, count_total=True)
    assert counted.total == len(full) and hits(counted) == full[:10]
