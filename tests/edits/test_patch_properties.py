"""Property: any generated patch — random files (LF or CRLF, with or without a final newline,
many repeated lines), random changes written as an apply_patch envelope or a unified diff,
with adds, deletes and moves, some deliberately wrong — either applies exactly (every file
equals the reference computed in memory) or raises and leaves every file byte-identical."""

from __future__ import annotations

import difflib
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from codesift import CodesiftError, Workspace

# Few distinct lines, so that contexts repeat; whitespace variants that only fuzzy levels mix.
VOCABULARY = [
    "x = 1",
    "y = 2",
    "",
    "    return x",
    "if a:",
    "pass",
    "    pass",
    "pass  ",
    "}",
    "z()",
]
WRONG = ["none", "none", "none", "mutate", "add_existing", "delete_missing", "move_onto_existing"]


@dataclass
class Source:
    lines: list[str]
    newline: str
    final_newline: bool

    def render(self, lines: list[str] | None = None) -> bytes:
        body = self.lines if lines is None else lines
        if not body:
            return b""
        text = self.newline.join(body) + (self.newline if self.final_newline else "")
        return text.encode()

    def as_envelope_sees_it(self) -> Source:
        """The same bytes as an apply_patch envelope reads them: it has no end-of-file newline
        notation, so (as for Codex, which splits on "\\n" and drops the empty last piece) a
        last line that is empty and has no newline is the newline ending the line before.
        A unified diff tells the two apart with `\\ No newline at end of file`."""
        if self.lines and self.lines[-1] == "" and not self.final_newline:
            return Source(self.lines[:-1], self.newline, True)
        return self


@dataclass
class Case:
    files: dict[str, Source]
    patch: str
    format: str
    expected: dict[str, bytes]
    must_fail: bool
    notes: list[str] = field(default_factory=list)


def lines_strategy(max_size: int = 12) -> st.SearchStrategy[list[str]]:
    return st.lists(st.sampled_from(VOCABULARY), min_size=0, max_size=max_size)


@st.composite
def modified(draw: st.DrawFn, lines: list[str]) -> list[str]:
    out = list(lines)
    for step in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["replace", "insert", "delete"]))
        at = draw(st.integers(0, len(out)))
        new = [f"new_{step}_{i}" for i in range(draw(st.integers(1, 2)))]
        if kind == "insert" or not out or at == len(out):
            out[at:at] = new
        elif kind == "replace":
            out[at : at + 1] = new
        else:
            del out[at]
    return out


def envelope_hunks(old: list[str], new: list[str], context: int, eof_marker: bool) -> list[str]:
    out: list[str] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        out.append("@@")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(" " + line for line in old[i1:i2])
                continue
            out.extend("-" + line for line in old[i1:i2])
            out.extend("+" + line for line in new[j1:j2])
        if eof_marker and group[-1][2] == len(old):
            out.append("*** End of File")
    return out


def unified_body(old: Source, new_lines: list[str], name_a: str, name_b: str, n: int) -> str:
    def with_ends(lines: list[str], final: bool) -> list[str]:
        ends = [line + "\n" for line in lines]
        if ends and not final:
            ends[-1] = ends[-1][:-1]
        return ends

    diff = difflib.unified_diff(
        with_ends(old.lines, old.final_newline),
        with_ends(new_lines, old.final_newline),
        name_a,
        name_b,
        n=n,
    )
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in diff
    )


@st.composite
def cases(draw: st.DrawFn) -> Case:
    count = draw(st.integers(1, 3))
    files: dict[str, Source] = {}
    for i in range(count):
        lines = draw(lines_strategy())
        final_newline = draw(st.booleans()) or not lines
        # A file without a single line ending has no style to keep: new lines end with "\n".
        has_ending = len(lines) > 1 or (len(lines) == 1 and final_newline)
        newline = draw(st.sampled_from(["\n", "\r\n"])) if has_ending else "\n"
        files[f"d{i % 2}/f{i}.txt"] = Source(lines, newline, final_newline)
    fmt = draw(st.sampled_from(["apply_patch", "unified"]))
    if fmt == "apply_patch":
        files = {name: src.as_envelope_sees_it() for name, src in files.items()}
    context = draw(st.integers(1, 3))
    expected = {name: src.render() for name, src in files.items()}
    sections: list[str] = []
    for i, (name, src) in enumerate(files.items()):
        action = draw(st.sampled_from(["update", "update", "delete", "move", "keep"]))
        if action == "keep" or (action == "update" and not src.lines and fmt == "unified"):
            continue
        if action == "delete":
            del expected[name]
            if fmt == "apply_patch":
                sections.append(f"*** Delete File: {name}")
            elif not src.lines:
                sections.append(f"diff --git a/{name} b/{name}\ndeleted file mode 100644\n")
            else:
                sections.append(unified_body(src, [], f"a/{name}", "/dev/null", context))
            continue
        new_lines = draw(modified(src.lines))
        target = f"moved/{i}.txt" if action == "move" else name
        if action == "move":
            del expected[name]
        expected[target] = src.render(new_lines)
        if fmt == "apply_patch":
            eof = draw(st.booleans())
            head = [f"*** Update File: {name}"]
            if action == "move":
                head.append(f"*** Move to: {target}")
            sections.append("\n".join(head + envelope_hunks(src.lines, new_lines, context, eof)))
        elif new_lines == src.lines and action == "move":
            # The changes cancelled out: difflib prints nothing, git prints a pure rename.
            sections.append(
                f"diff --git a/{name} b/{target}\nsimilarity index 100%\n"
                f"rename from {name}\nrename to {target}\n"
            )
        else:
            sections.append(unified_body(src, new_lines, f"a/{name}", f"b/{target}", context))
    if draw(st.booleans()):
        added = draw(st.lists(st.sampled_from(VOCABULARY + ["fresh"]), min_size=1, max_size=5))
        expected["added/new.txt"] = "".join(line + "\n" for line in added).encode()
        if fmt == "apply_patch":
            sections.append("\n".join(["*** Add File: added/new.txt"] + ["+" + a for a in added]))
        else:
            body = "".join("+" + a + "\n" for a in added)
            sections.append(
                f"--- /dev/null\n+++ b/added/new.txt\n@@ -0,0 +1,{len(added)} @@\n{body}"
            )
    wrong = draw(st.sampled_from(WRONG))
    must_fail = False
    if wrong == "mutate":
        candidates = [
            (s, k)
            for s, section in enumerate(sections)
            for k, line in enumerate(section.split("\n"))
            if line[:1] in (" ", "-") and not line.startswith(("--- ", "-- "))
        ]
        if candidates:
            s, k = draw(st.sampled_from(candidates))
            lines = sections[s].split("\n")
            lines[k] = lines[k][0] + "MUTATED line that is nowhere"
            sections[s] = "\n".join(lines)
            must_fail = True
    elif wrong == "add_existing":
        existing = next(iter(files))
        if fmt == "apply_patch":
            sections.append(f"*** Add File: {existing}\n+clash")
        else:
            sections.append(f"--- /dev/null\n+++ b/{existing}\n@@ -0,0 +1 @@\n+clash\n")
        must_fail = True
    elif wrong == "delete_missing":
        if fmt == "apply_patch":
            sections.append("*** Delete File: missing.txt")
        else:
            sections.append("--- a/missing.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n")
        must_fail = True
    elif wrong == "move_onto_existing" and len(files) > 1:
        names = list(files)
        src, dest = files[names[0]], names[1]
        if src.lines:
            if fmt == "apply_patch":
                sections.append(
                    f"*** Update File: {names[0]}\n*** Move to: {dest}\n"
                    + "\n".join(envelope_hunks(src.lines, src.lines + ["tail"], 1, False))
                )
            else:
                sections.append(
                    unified_body(src, src.lines + ["tail"], f"a/{names[0]}", f"b/{dest}", 1)
                )
            must_fail = True
    if fmt == "apply_patch":
        patch = "\n".join(["*** Begin Patch", *sections, "*** End Patch"])
    else:
        patch = "".join(s if s.endswith("\n") else s + "\n" for s in sections)
    return Case(files, patch, draw(st.sampled_from([fmt, "auto"])), expected, must_fail)


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


@settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(cases())
@example(  # once falsified: an empty last context line marked "\ No newline at end of file"
    Case(
        files={"d1/f1.txt": Source(["x = 1"] * 7 + [""], "\n", False)},
        patch="--- a/d1/f1.txt\n+++ b/d1/f1.txt\n@@ -6,3 +6,3 @@\n x = 1\n-x = 1\n+new_0_0\n \n"
        "\\ No newline at end of file\n",
        format="unified",
        expected={"d1/f1.txt": b"x = 1\n" * 6 + b"new_0_0\n"},
        must_fail=False,
    )
)
def test_a_patch_applies_exactly_or_changes_nothing(case: Case) -> None:
    if not case.patch.strip() or case.patch.strip() == "*** Begin Patch\n*** End Patch":
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name, src in case.files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(src.render())
        before = snapshot(root)
        try:
            Workspace(root).apply_patch(case.patch, format=case.format)
        except CodesiftError as exc:
            event(f"refused: {type(exc).__name__}")
            assert snapshot(root) == before, f"a failed patch changed files: {exc}"
            return
        event("applied")
        assert not case.must_fail, f"a wrong patch applied:\n{case.patch}"
        assert snapshot(root) == case.expected, f"patch:\n{case.patch}"


def test_most_generated_valid_patches_apply() -> None:
    """The property above is not met by refusing everything: unambiguous patches apply."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        lines = [f"line {i}" for i in range(40)]
        (root / "a.txt").write_text("\n".join(lines) + "\n")
        new = list(lines)
        new[3], new[20:22], new[35:35] = "changed 3", ["changed 20"], ["inserted"]
        hunks = envelope_hunks(lines, new, 3, True)
        patch = "\n".join(["*** Begin Patch", "*** Update File: a.txt", *hunks, "*** End Patch"])
        Workspace(root).apply_patch(patch)
        assert (root / "a.txt").read_text() == "\n".join(new) + "\n"
