"""Workspace.edit (compatibility mode), edit_result (linked mode) and edit_many."""

from __future__ import annotations

import os
import stat
import threading

import pytest

from codesift import (
    ConflictError,
    InvalidArgumentError,
    MatchError,
    StaleResultError,
    Workspace,
)
from codesift.edits import editor as editor_module

PY = "def handler(event):\n    if event:\n        run(event)\n    return None\n"


def edit_file(tree, content, old, new, **kw):
    root = tree({"f.py": content})
    result = Workspace(root).edit("f.py", old, new, **kw)
    return result, (root / "f.py").read_bytes()


# -- strategies --------------------------------------------------------------------------


def test_exact(tree):
    result, data = edit_file(tree, PY, "run(event)", "run(event, fast=True)")
    assert data.decode() == PY.replace("run(event)", "run(event, fast=True)")
    assert (result.strategy, result.replacements, result.first_line, result.last_line) == (
        "exact",
        1,
        3,
        3,
    )
    assert result.summary == "Edited f.py: 1 replacement at line 3"
    assert "-        run(event)" in result.diff and "+        run(event, fast=True)" in result.diff


def test_line_endings_normalised_and_new_converted_to_crlf(tree):
    crlf = PY.replace("\n", "\r\n")
    result, data = edit_file(
        tree,
        crlf,
        "if event:\n        run(event)",
        "if event:\n        log(event)\n        run(event)",
    )
    assert result.strategy == "line_endings"
    assert data == crlf.replace("run(event)\r\n", "log(event)\r\n        run(event)\r\n").encode()
    assert b"\n" not in data.replace(b"\r\n", b"")
    assert "line_endings" in result.summary


def test_whitespace_trimmed_lines_reindent_new(tree):
    # The model dropped the 4-space indentation of the block, in old and in new alike.
    result, data = edit_file(
        tree, PY, "if event:\n    run(event)", "if event:\n    validate(event)\n    run(event)"
    )
    assert result.strategy == "trimmed_lines"
    assert data.decode() == PY.replace(
        "        run(event)\n", "        validate(event)\n        run(event)\n"
    )
    assert "strategy: trimmed_lines" in result.summary


def test_fuzzy_edit_whose_new_starts_or_ends_with_a_blank_line(tree):
    # Deleting the first line of a mis-indented region leaves `new` starting with the blank
    # line that followed it: a line of content, not a newline to peel off.
    content = "class A:\n    pass\n\nclass B:\n    x = 1\n"
    _, data = edit_file(
        tree, content, "        pass\n\n    class B:", "\n    class B:"
    )  # fmt: skip
    assert data.decode() == "class A:\n\nclass B:\n    x = 1\n"
    _, data = edit_file(tree, content, "  class B:\n      x = 1", "  class B:\n      x = 1\n")
    assert data.decode() == "class A:\n    pass\n\nclass B:\n    x = 1\n\n"


C_FILE = "int f(int x) {\n\tif (x) {\n\t\treturn 1;\n\t}\n\treturn 0;\n}\n"


@pytest.mark.parametrize(
    ("content", "old", "new", "changed"),
    [
        pytest.param(
            C_FILE,
            "    if (x) {\n        return 1;\n    }",
            "    if (x > 0) {\n        return 1;\n    }",
            ("if (x) {", "if (x > 0) {"),
            id="tabs_for_spaces_are_mapped_back",
        ),
        pytest.param(
            PY,
            "    if event:   \n        run(event)  ",
            "    if event:   \n        run(event, 1)  ",
            ("run(event)", "run(event, 1)"),
            id="trailing_whitespace_in_old_and_new_is_normalised",
        ),
    ],
)
def test_a_fuzzy_edit_changes_only_what_new_changes(tree, content, old, new, changed):
    _, data = edit_file(tree, content, old, new)
    assert data.decode() == content.replace(*changed)


def test_dropped_blank_line(tree):
    content = "a = 1\n\nb = 2\nc = 3\n"
    result, data = edit_file(tree, content, "a = 1\nb = 2", "a = 1\nb = 20")
    assert result.strategy == "blank_lines"
    assert data.decode() == "a = 1\n\nb = 20\nc = 3\n"


def test_over_escaped_newlines(tree):
    result, data = edit_file(
        tree,
        PY,
        "if event:\\n        run(event)",
        "if event:\\n        run(event)\\n        done()",
    )
    assert result.strategy == "escapes+exact"
    assert data.decode() == PY.replace("run(event)\n", "run(event)\n        done()\n")


def test_several_matches_stop_with_count_and_lines(tree):
    root = tree({"f.py": "x = 1\ny = 2\nx = 1\n"})
    with pytest.raises(MatchError, match=r"matches 2 places.*lines 1, 3"):
        Workspace(root).edit("f.py", "x = 1", "x = 5")
    assert (root / "f.py").read_text() == "x = 1\ny = 2\nx = 1\n"


def test_several_matches_on_one_line_list_that_line_once(tree):
    root = tree({"f.py": "go(); go()\nstop()\ngo()\n"})
    with pytest.raises(MatchError) as caught:
        Workspace(root).edit("f.py", "go()", "run()")
    print("message:", caught.value)
    assert "matches 3 places, at lines 1, 3." in str(caught.value)


def test_several_fuzzy_matches_do_not_fall_through(tree):
    content = "if a:\n    go()\nif b:\n  go()\n"
    root = tree({"f.py": content})
    with pytest.raises(MatchError, match="2 places"):
        Workspace(root).edit("f.py", "go()\n", "stop()\n")  # exact: 2 places
    with pytest.raises(MatchError, match=r"2 places \(when compared by trimmed lines\)"):
        Workspace(root).edit("f.py", "\tgo()", "\tstop()")
    assert (root / "f.py").read_text() == content


def test_replace_all(tree):
    result, data = edit_file(tree, "x = 1\ny = 2\nx = 1\n", "x = 1", "x = 5", replace_all=True)
    assert data.decode() == "x = 5\ny = 2\nx = 5\n"
    assert (result.replacements, result.first_line, result.last_line) == (2, 1, 3)


def test_fuzzy_false_allows_only_exact_and_line_endings(tree):
    root = tree({"f.py": PY})
    ws = Workspace(root)
    with pytest.raises(MatchError):
        ws.edit("f.py", "if event:\n    run(event)", "x", fuzzy=False)
    assert ws.edit("f.py", "run(event)", "go(event)", fuzzy=False).strategy == "exact"


def test_no_match_shows_most_similar_region(tree):
    root = tree({"f.py": PY})
    with pytest.raises(MatchError) as err:
        Workspace(root).edit("f.py", "if events:\n    run(events)", "x")
    message = str(err.value)
    assert "not found" in message
    assert "     2\t    if event:" in message and "     3\t        run(event)" in message


@pytest.mark.parametrize("old,new", [("", "x"), ("same", "same")])
def test_bad_old_new(tree, old, new):
    root = tree({"f.py": "same\n"})
    with pytest.raises(InvalidArgumentError):
        Workspace(root).edit("f.py", old, new)


# -- byte-faithful writes --------------------------------------------------------------------


def test_bom_mode_trailing_newline_and_foreign_bytes_kept(tree):
    content = b"\xef\xbb\xbfcaf\xe9 = 1\nvalue = 2\nend"  # BOM, latin-1 byte, no final newline
    root = tree({"f.py": content})
    os.chmod(root / "f.py", 0o751)
    Workspace(root).edit("f.py", "value = 2", "value = 3")
    assert (root / "f.py").read_bytes() == content.replace(b"value = 2", b"value = 3")
    assert stat.S_IMODE((root / "f.py").stat().st_mode) == 0o751


def test_utf16_file_edit_keeps_encoding(tree):
    text = "alpha\nbeta\n"
    root = tree({"u.txt": b"\xff\xfe" + text.encode("utf-16-le")})
    Workspace(root).edit("u.txt", "beta", "gamma")
    assert (root / "u.txt").read_bytes() == b"\xff\xfe" + "alpha\ngamma\n".encode("utf-16-le")


def test_file_changed_between_read_and_write_is_not_overwritten(tree, monkeypatch):
    root = tree({"f.py": PY})
    ws = Workspace(root)
    real_plan = editor_module.plan_edit

    def interfering_plan(*args, **kwargs):
        # A writer that is not codesift (it takes no lock) lands between read and write.
        (root / "f.py").write_text("someone else's version\n")
        return real_plan(*args, **kwargs)

    monkeypatch.setattr("codesift.edits.editor.plan_edit", interfering_plan)
    with pytest.raises(ConflictError, match="changed on disk"):
        ws.edit("f.py", "run(event)", "go(event)")
    assert (root / "f.py").read_text() == "someone else's version\n"
    assert sorted(p.name for p in root.iterdir()) == ["f.py"]


def test_concurrent_edits_never_lose_an_update(tree):
    lines = "".join(f"counter_{i} = 0\n" for i in range(40))
    root = tree({"f.py": lines})
    ws = Workspace(root)
    errors = []

    def bump(i):
        try:
            ws.edit("f.py", f"counter_{i} = 0", f"counter_{i} = 1")
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=bump, args=(i,)) for i in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert (root / "f.py").read_text() == lines.replace(" = 0", " = 1")


# -- linked edits ----------------------------------------------------------------------------


def test_search_then_edit_by_id(tree):
    root = tree({"src/a.py": PY, "src/b.py": "run(event)\n"})
    ws = Workspace(root)
    hit = ws.grep("run\\(event\\)", path="src/a.py").matches[0]
    result = ws.edit_result(hit.id, "dispatch(event)")
    assert result.strategy == "search_result"
    assert (root / "src/a.py").read_text() == PY.replace("run(event)", "dispatch(event)")
    assert (root / "src/b.py").read_text() == "run(event)\n"


def test_unknown_id_is_the_match_failure_path(tree):
    ws = Workspace(tree({"a.py": PY}))
    with pytest.raises(StaleResultError) as err:
        ws.edit_result("sr_nope1", "x")
    assert isinstance(err.value, MatchError)


def test_multiline_crlf_hit_content_reused_as_old(tree):
    crlf = PY.replace("\n", "\r\n")
    root = tree({"w.py": crlf})
    ws = Workspace(root)
    (hit,) = ws.grep("if event:\n        run", literal=True).matches
    assert hit.content == "if event:\r\n        run"
    ws.edit("w.py", hit.content, "if event is not None:\r\n        run")
    assert (root / "w.py").read_bytes() == crlf.replace(
        "if event:", "if event is not None:"
    ).encode()


def test_two_hits_edited_independently_in_any_order(tree):
    content = "a = get()\nb = 1\nc = get()\nd = get()\n"
    root = tree({"f.py": content})
    ws = Workspace(root)
    first, second, third = ws.grep("get\\(\\)").matches
    ws.edit_result(third.id, "fetch()")
    ws.edit_result(first.id, "fetch(\n    retries=3,\n)")  # adds lines before the others
    ws.edit_result(second.id, "load()")
    assert (root / "f.py").read_text() == (
        "a = fetch(\n    retries=3,\n)\nb = 1\nc = load()\nd = fetch()\n"
    )


def test_edited_hit_is_used_up_and_overlapping_hits_invalidated(tree):
    root = tree({"f.py": "alpha beta gamma\n"})
    ws = Workspace(root)
    whole = ws.grep("alpha beta").matches[0]
    part = ws.grep("beta").matches[0]
    ws.edit_result(whole.id, "ALPHA BETA")
    for used in (whole.id, part.id):
        with pytest.raises(StaleResultError):
            ws.edit_result(used, "x")


def test_relocation_when_unique(tree):
    body = "".join(f"line {i}\n" for i in range(1, 10)) + "target = 1\n"
    root = tree({"f.py": body})
    ws = Workspace(root)
    (hit,) = ws.grep("target = 1").matches
    assert hit.line == 10
    (root / "f.py").write_text("new 1\nnew 2\nnew 3\nnew 4\n" + body)  # edited elsewhere
    result = ws.edit_result(hit.id, "target = 2")
    assert result.moved_from == 10 and result.first_line == 14
    assert "moved from line 10 to 14" in result.summary
    assert (root / "f.py").read_text().endswith("target = 2\n")


def assert_stale_and_untouched(tree, found: str, pattern: str, now: str, new: str) -> None:
    """A hit on `pattern` in f.py holding `found`; f.py then holds `now`: editing the hit to
    `new` is refused as stale, and f.py keeps `now`."""
    root = tree({"f.py": found})
    ws = Workspace(root)
    hit = ws.grep(pattern).matches[0]
    (root / "f.py").write_text(now)
    with pytest.raises(StaleResultError):
        ws.edit_result(hit.id, new)
    assert (root / "f.py").read_text() == now


def test_no_relocation_when_not_unique_then_or_now(tree):
    assert_stale_and_untouched(tree, "x = 1\nx = 1\n", "x = 1", "y\nx = 1\nx = 1\n", "x = 2")
    # unique when found, no longer unique now
    assert_stale_and_untouched(tree, "key = 1\n", "key = 1", "pad\nkey = 1\nkey = 1\n", "key = 2")


def test_linked_edit_is_never_fuzzy(tree):
    assert_stale_and_untouched(tree, "value = 1\n", "value = 1", "value  =  1\n", "value = 2")


def test_linked_edit_in_utf16_file(tree):
    root = tree({"u.txt": b"\xff\xfe" + "caf\u00e9 one\nneedle two\n".encode("utf-16-le")})
    ws = Workspace(root)
    (hit,) = ws.grep("needle").matches
    ws.edit_result(hit.id, "thread")
    assert (root / "u.txt").read_bytes() == b"\xff\xfe" + "caf\u00e9 one\nthread two\n".encode(
        "utf-16-le"
    )


# -- edit_many -----------------------------------------------------------------------------


def test_edit_many_all_or_nothing(tree):
    root = tree({"f.py": PY})
    ws = Workspace(root)
    with pytest.raises(MatchError, match="edit 2 of 2"):
        ws.edit_many("f.py", [("handler", "on_event"), ("missing text", "x")])
    assert (root / "f.py").read_text() == PY
    result = ws.edit_many("f.py", [("handler", "on_event"), ("return None", "return True")])
    assert result.replacements == 2
    assert (root / "f.py").read_text() == PY.replace("handler", "on_event").replace(
        "return None", "return True"
    )


def test_edit_many_matches_against_original_and_rejects_overlap(tree):
    root = tree({"f.py": "a b c\n"})
    ws = Workspace(root)
    with pytest.raises(InvalidArgumentError, match="overlap"):
        ws.edit_many("f.py", [("a b", "x"), ("b c", "y")])
    ws.edit_many("f.py", [("a", "b"), ("b", "a")])  # both matched on the original text
    assert (root / "f.py").read_text() == "b a c\n"


def test_edit_many_with_search_result_ids(tree):
    root = tree({"f.py": "one()\ntwo()\none()\n"})
    ws = Workspace(root)
    first, _ = ws.grep("one").matches
    ws.edit_many(
        "f.py",
        [
            {"search_result_id": first.id, "new": "ONE"},
            {"old_string": "two()", "new_string": "TWO()"},
        ],
    )
    assert (root / "f.py").read_text() == "ONE()\nTWO()\none()\n"
