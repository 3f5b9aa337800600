"""Workspace.grep(rank=True): the same hits as without it, definitions of the matched
identifier first (tree-sitter tags, in every language ranked), then the Zoekt-like scores;
deterministic; each hit says why; paging, modes, streams and the index agree."""

from __future__ import annotations

import os
import random
import time

import pytest

from codesift import Workspace

#: Per language: the file defining the name, its line, the definition's kind, and a file
#: using it twice. The defining file sorts after the one using it, so that path order puts
#: the references first.
DEFINITIONS = {
    "c": (
        "int frobnicate_widget(int x)\n{\n\treturn x;\n}\n",
        1,
        "function",
        "void f(void)\n{\n\tfrobnicate_widget(1);\n\tfrobnicate_widget(2);\n}\n",
        "frobnicate_widget",
    ),
    "h": (
        "/**\n * doc\n */\nstatic inline void * __must_check frob_ptr(long error)\n{\n"
        "\treturn (void *) error;\n}\n",
        4,
        "function",
        "int g(void)\n{\n\treturn frob_ptr(-1) == frob_ptr(-2);\n}\n",
        "frob_ptr",
    ),
    "cpp": (
        "namespace w {\nint frobnicate_widget(int x) {\n  return x;\n}\n}\n",
        2,
        "function",
        "int g() {\n  return w::frobnicate_widget(1) + w::frobnicate_widget(2);\n}\n",
        "frobnicate_widget",
    ),
    "rs": (
        "pub fn frobnicate_widget(x: u32) -> u32 {\n    x\n}\n",
        1,
        "function",
        "fn g() -> u32 {\n    frobnicate_widget(1) + frobnicate_widget(2)\n}\n",
        "frobnicate_widget",
    ),
    "go": (
        "package w\n\nfunc FrobnicateWidget(x int) int {\n\treturn x\n}\n",
        3,
        "function",
        "package w\n\nfunc g() int {\n\treturn FrobnicateWidget(1) + FrobnicateWidget(2)\n}\n",
        "FrobnicateWidget",
    ),
    "py": (
        "class Frob:\n    def frobnicate_widget(self, x):\n        return x\n",
        2,
        "function",
        "frob.frobnicate_widget(1)\nfrob.frobnicate_widget(2)\n",
        "frobnicate_widget",
    ),
    "js": (
        "function frobnicateWidget(x) {\n  return x;\n}\n",
        1,
        "function",
        "const y = frobnicateWidget(1);\nconst z = frobnicateWidget(2);\n",
        "frobnicateWidget",
    ),
    "ts": (
        "export interface FrobWidget {\n  size: number;\n}\n",
        1,
        "interface",
        "const w: FrobWidget = { size: 1 };\nconst v: FrobWidget = w;\n",
        "FrobWidget",
    ),
    "java": (
        "public class Frob {\n    public int frobnicateWidget(int x) {\n        return x;\n"
        "    }\n}\n",
        2,
        "method",
        "class G {\n    int g(Frob f) {\n        return f.frobnicateWidget(1) + "
        "f.frobnicateWidget(2);\n    }\n}\n",
        "frobnicateWidget",
    ),
    "cs": (
        "public class Frob {\n    public int FrobnicateWidget(int x) {\n        return x;\n"
        "    }\n}\n",
        2,
        "method",
        "class G {\n    int G1(Frob f) {\n        return f.FrobnicateWidget(1) + "
        "f.FrobnicateWidget(2);\n    }\n}\n",
        "FrobnicateWidget",
    ),
    "rb": (
        "class Frob\n  def frobnicate_widget(x)\n    x\n  end\nend\n",
        2,
        "method",
        "Frob.new.frobnicate_widget(1)\nFrob.new.frobnicate_widget(2)\n",
        "frobnicate_widget",
    ),
    "php": (
        "<?php\nfunction frobnicate_widget($x) {\n    return $x;\n}\n",
        2,
        "function",
        "<?php\n$y = frobnicate_widget(1);\n$z = frobnicate_widget(2);\n",
        "frobnicate_widget",
    ),
    "kt": (
        "fun frobnicateWidget(x: Int): Int {\n    return x\n}\n",
        1,
        "function",
        "val y = frobnicateWidget(1)\nval z = frobnicateWidget(2)\n",
        "frobnicateWidget",
    ),
}


def placed(result):
    return [(m.file, m.line, m.column, m.content) for m in result.matches]


@pytest.mark.parametrize("ext", sorted(DEFINITIONS))
def test_the_definition_comes_first_in_every_language(tree, ext):
    definition, line, kind, uses, name = DEFINITIONS[ext]
    root = tree({f"a_uses/use.{ext}": uses, f"z_defs/frob.{ext}": definition})
    ws = Workspace(root)
    ranked = ws.grep(name, literal=True, case_sensitive=True, rank=True)
    plain = ws.grep(name, literal=True, case_sensitive=True)
    first = ranked.matches[0]
    print("ranked:", [(m.file, m.line, m.role, m.kind, m.score) for m in ranked.matches])
    assert (first.file, first.line) == (f"z_defs/frob.{ext}", line)
    assert (first.role, first.kind) == ("definition", kind), first.why
    assert first.why.startswith(f"definition ({kind})")
    assert [m.role for m in ranked.matches[1:]] == ["reference"] * (len(ranked.matches) - 1)
    assert sorted(placed(ranked)) == sorted(placed(plain))
    assert plain.matches[0].file == f"a_uses/use.{ext}"  # path order puts a use first
    assert all(m.role is None and m.score is None for m in plain.matches)


def test_ranked_hits_are_the_unranked_ones_and_deterministic(tree):
    rng = random.Random(5)
    words = ["alpha", "alpha_beta", "beta", "xalphax", "gamma"]
    files = {}
    for n in range(40):
        folder = rng.choice(["src", "tests", "vendor/lib", "lib", "docs"])
        ext = rng.choice(["c", "py", "txt", "go"])
        body = "\n".join(
            " ".join(rng.choice(words) for _ in range(rng.randint(1, 5)))
            for _ in range(rng.randint(1, 12))
        )
        files[f"{folder}/f{n}.{ext}"] = body + "\n"
    ws = Workspace(tree(files))
    for pattern in ["alpha", r"\w+_beta", "a", "gamma|beta"]:
        plain = ws.grep(pattern, max_matches=None)
        ranked = ws.grep(pattern, max_matches=None, rank=True)
        again = ws.grep(pattern, max_matches=None, rank=True)
        print(pattern, len(plain.matches), len(ranked.matches))
        assert sorted(placed(ranked)) == sorted(placed(plain))
        assert placed(ranked) == placed(again)
        assert ranked.total == plain.total == len(plain.matches)
        assert ranked.files_with_matches == plain.files_with_matches
        scores = [m.score for m in ranked.matches]
        assert scores == sorted(scores, reverse=True)


def test_whole_words_and_source_files_come_before_parts_and_tests(tree):
    root = tree(
        {
            "a/notes.go": "reparse_thingy\n",
            "b/tests/check.go": "uses parse_thing here\n",
            "c/src/main.go": "uses parse_thing here\n",
            "d/vendor/x.go": "uses parse_thing here\n",
            "e/parse_thing.go": "so parse_thing\n",
        }
    )
    ranked = Workspace(root).grep("parse_thing", rank=True)
    got = [(m.file, m.why) for m in ranked.matches]
    print(got)
    assert got == [
        ("e/parse_thing.go", "reference, whole word, file named after it"),
        ("c/src/main.go", "reference, whole word"),
        ("b/tests/check.go", "reference, whole word, test file"),
        ("d/vendor/x.go", "reference, whole word, vendored file"),
        ("a/notes.go", "reference, inside a word"),
    ]


def test_pages_of_a_ranked_search_are_slices_of_it(tree):
    files = {f"d{n}/f.c": "int x = alpha(1);\nalpha_two();\n" * (n % 3 + 1) for n in range(12)}
    files["zz/alpha.c"] = "int alpha(int x)\n{\n\treturn x;\n}\n"
    ws = Workspace(tree(files))
    whole = placed(ws.grep("alpha", rank=True, max_matches=None))
    pages = []
    for offset in range(0, len(whole), 7):
        page = ws.grep("alpha", rank=True, offset=offset, max_matches=7)
        assert page.truncated == (offset + 7 < len(whole)), (offset, len(whole))
        assert page.total == len(whole)
        pages.extend(placed(page))
    assert pages == whole
    assert whole[0][:2] == ("zz/alpha.c", 1)
    streamed = [(m.file, m.line, m.column, m.content) for m in ws.grep_iter("alpha", rank=True)]
    assert streamed == whole
    capped = ws.grep_iter("alpha", rank=True, max_matches=3)
    assert [(m.file, m.line, m.column, m.content) for m in capped] == whole[:3]


def test_files_and_count_modes_order_files_by_their_best_hit(tree):
    root = tree(
        {
            "a/use.c": "void f(void)\n{\n\tgrow_it(1);\n\tgrow_it(2);\n\tgrow_it(3);\n}\n",
            "b/tests/t.c": "void t(void)\n{\n\tgrow_it(4);\n}\n",
            "c/grow.c": "int grow_it(int x)\n{\n\treturn x;\n}\n",
        }
    )
    ws = Workspace(root)
    files = ws.grep("grow_it", rank=True, mode="files")
    counted = ws.grep("grow_it", rank=True, mode="count")
    print(files.files, counted.file_counts)
    assert files.files == ["c/grow.c", "a/use.c", "b/tests/t.c"]
    assert list(counted.file_counts) == [("c/grow.c", 1), ("a/use.c", 3), ("b/tests/t.c", 1)]
    assert counted.matches[0].role == "definition"


def test_an_index_ranks_as_a_scan_does(tree):
    files = {f"m{n}/f.py": "def frob_it(x):\n    return frob_it(x - 1)\n" for n in range(5)}
    files["a/use.py"] = "frob_it(1)\nfrob_it(2)\n"
    # Files without a hit: an index that selects every file is not used.
    files.update({f"other/o{n}.py": f"value_{n} = {n}\n" for n in range(50)})
    root = tree(files)
    # Files changed just before a build are searched from disk, not through the index.
    for path in root.rglob("*.py"):
        os.utime(path, (time.time() - 60, time.time() - 60))
    scanned = Workspace(root).grep("frob_it", rank=True, max_matches=None)
    indexed_ws = Workspace(root, index=True)
    indexed_ws.index_build()
    indexed = indexed_ws.grep("frob_it", rank=True, max_matches=None)
    assert indexed.indexed
    assert [
        (*hit, m.role, m.score) for hit, m in zip(placed(indexed), indexed.matches, strict=True)
    ] == [(*hit, m.role, m.score) for hit, m in zip(placed(scanned), scanned.matches, strict=True)]
    assert [m.role for m in scanned.matches[:5]] == ["definition"] * 5


def test_definitions_stay_fresh_after_edits_behind_an_indexed_workspace(tree):
    """Tags are read at the query, through the same files the search reads: an edit made
    behind the index's back (same size, old mtime restored) moves the definition, and the
    ranked answer follows it at once, equal to a scan's."""
    definition = "def frob_it(x):\n    return x\n"
    call = "y = frob_it(3)\n#############\n"  # as long as the definition
    files = {"a.py": definition, "b.py": call}
    files.update({f"other/o{n}.py": f"value_{n} = {n}\n" for n in range(50)})
    root = tree(files)
    old = time.time() - 60
    for path in root.rglob("*.py"):
        os.utime(path, (old, old))
    ws = Workspace(root, index=True)
    ws.index_build()
    before = ws.grep("frob_it", rank=True, max_matches=None)
    assert before.indexed
    first = before.matches[0]
    assert (first.file, first.role, first.kind) == ("a.py", "definition", "function")

    # Behind its back: the definition moves from a.py to b.py; sizes and mtimes kept.
    assert len(call) == len(definition)
    (root / "a.py").write_text(call)
    (root / "b.py").write_text(definition)
    for name in ("a.py", "b.py"):
        os.utime(root / name, (old, old))

    after = ws.grep("frob_it", rank=True, max_matches=None)
    scanned = Workspace(root).grep("frob_it", rank=True, max_matches=None)
    got = [(m.file, m.line, m.role, m.kind) for m in after.matches]
    want = [(m.file, m.line, m.role, m.kind) for m in scanned.matches]
    print("indexed:", got, "scanned:", want, sep="\n")
    assert got == want
    assert got[0] == ("b.py", 1, "definition", "function")
    assert ("a.py", 1, "reference", None) in got


def test_a_file_changed_between_ranked_searches_ranks_by_its_new_text(tree):
    # Windows parsed once are remembered by their bytes: after the definition moves to the
    # other file, the same search finds it there, and the old place is a reference.
    definition, _, _, uses, name = DEFINITIONS["c"]
    root = tree({"a_uses/use.c": uses, "z_defs/frob.c": definition})
    ws = Workspace(root)
    before = ws.grep(name, literal=True, case_sensitive=True, rank=True)
    assert (before.matches[0].file, before.matches[0].role) == ("z_defs/frob.c", "definition")
    (root / "a_uses/use.c").write_text(definition)
    (root / "z_defs/frob.c").write_text(uses)
    after = ws.grep(name, literal=True, case_sensitive=True, rank=True)
    got = [(m.file, m.line, m.role) for m in after.matches]
    want = [
        ("a_uses/use.c", 1, "definition"),
        ("z_defs/frob.c", 3, "reference"),
        ("z_defs/frob.c", 4, "reference"),
    ]
    assert got == want, f"expected {want}, got {got}"


def test_a_python_function_with_a_long_signature_is_a_definition(tree):
    """Its parameters run past the window parsed around the hit: the head is still seen."""
    params = "".join(f"    option_{n}: int = {n},\n" for n in range(12))
    root = tree(
        {
            "a_use.py": "value = make_field(1)\n",
            "fields.py": f"def make_field(  # noqa: C901\n{params}) -> int:\n    return 1\n",
        }
    )
    result = Workspace(root).grep("make_field", rank=True)
    got = [(m.file, m.line, m.role, m.kind) for m in result.matches]
    print(got)
    assert got[0] == ("fields.py", 1, "definition", "function")


def test_values_assigned_do_not_use_up_the_windows_parsed(tree):
    """Windows parsed are capped (4,096 a search, in path order): hits in a value assigned
    after a type (`struct s *p = grow_it(1);`) or in a one-line body's `return` are never
    definitions, so they are not parsed and a definition in a later file still is."""
    body = "".join(f"\tstruct s *p{n} = grow_it({n});\n" for n in range(4200))
    root = tree(
        {
            "a_uses.c": f"void f(void)\n{{\n{body}}}\n",
            "b_inline.h": "static inline int g(void) { return grow_it(0); }\n",
            "z_defs/grow.c": "int grow_it(int x)\n{\n\treturn x;\n}\n",
        }
    )
    result = Workspace(root).grep("grow_it", rank=True, max_matches=2)
    got = [(m.file, m.line, m.role, m.kind) for m in result.matches]
    want = [("z_defs/grow.c", 1, "definition", "function"), ("a_uses.c", 3, "reference", None)]
    assert got == want, f"expected {want}, got {got}"


def test_a_parameter_on_a_head_spread_over_lines_is_no_definition(tree):
    """The window around a function's head ends at the line that opens its body: the
    statements after it made the parser read a parameter as a variable."""
    root = tree(
        {
            "state.c": "void\npush_state(union state **stack_top,\n"
            "\t\t union state *state)\n{\n\tFUNCTION_ENTRY();\n\n"
            "\t/* Push it */\n\n\tstate->next = *stack_top;\n\t*stack_top = state;\n}\n",
        }
    )
    result = Workspace(root).grep("stack_top", rank=True)
    got = [(m.line, m.role, m.kind) for m in result.matches]
    want = [(2, "reference", None), (9, "reference", None), (10, "reference", None)]
    assert got == want, f"expected {want}, got {got}"


def test_heads_past_the_windows_cap_are_no_definitions_though_recognised(tree):
    """The search recognises plain C heads as it reads each file, on its threads; the cap on
    windows (4,096 a search, in path order) still decides which hits are asked about: a
    head in a file past the first 4,096 windows ranks as a reference, as before."""
    heads = "".join(f"int grow_it(int x)\n{{\n\treturn {n};\n}}\n" for n in range(4100))
    root = tree(
        {
            "a_many.c": heads,
            "z_defs/grow.c": "int grow_it(int x)\n{\n\treturn x;\n}\n",
        }
    )
    for index in (False, True):
        result = Workspace(root, index=index).grep("grow_it", rank=True, max_matches=None)
        roles = [(m.file, m.role, m.kind) for m in result.matches]
        assert roles.count(("a_many.c", "definition", "function")) == 4096
        assert ("z_defs/grow.c", "reference", None) in roles
        assert len(roles) == 4101


def test_a_files_pieces_in_a_ranked_answer_share_one_path_string(tmp_path):
    # a.c's definition ranks first and its references after b.c's definition-like line: a.c
    # is in two pieces, which name it with one Python string (not one made per piece).
    (tmp_path / "a.c").write_text(
        "int helper(void)\n{\n\treturn 1;\n}\nint other(void) { return helper() + helper(); }\n"
    )
    (tmp_path / "b.c").write_text("int helper(void);\nint use(void) { return helper(); }\n")
    matches = Workspace(tmp_path, index=False).grep("helper", rank=True, max_matches=None).matches
    files = [m.file for m in matches]
    print("ranked:", [(m.file, m.line, m.role) for m in matches])
    assert files == ["a.c", "b.c", "a.c", "a.c", "b.c"]
    assert files[0] is files[2] and files[1] is files[4]
