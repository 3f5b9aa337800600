"""Property: for random files and edits, with or without an LLM-style mistake in `old` and
`new`, an edit either applies exactly the intended change or raises and leaves the file
byte-identical."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from codesift import CodesiftError, Workspace

WORDS = ["x", "y", "foo", "bar()", "return", "if", "=", "1", "(a, b)", "{", "}", "#", "'s'"]
MISTAKES = ["none", "dedent", "shift", "trailing", "crlf_file", "escaped", "tabs"]


@st.composite
def edit_cases(draw):
    use_tabs = draw(st.booleans())
    unit = "\t" if use_tabs else "    "
    n_lines = draw(st.integers(min_value=1, max_value=14))
    lines = []
    for _ in range(n_lines):
        if draw(st.integers(0, 6)) == 0:
            lines.append("")
            continue
        level = draw(st.integers(0, 3))
        words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4))
        lines.append(unit * level + " ".join(words))
    final_newline = draw(st.booleans())
    start = draw(st.integers(0, n_lines - 1))
    end = draw(st.integers(start + 1, n_lines))
    region = lines[start:end]
    new_region = list(region)
    action = draw(st.sampled_from(["change", "insert", "delete"]))
    pos = draw(st.integers(0, len(region) - 1))
    indent = region[pos][: len(region[pos]) - len(region[pos].lstrip())]
    if action == "change" or (action == "delete" and len(region) == 1):
        new_region[pos] = indent + draw(st.sampled_from(["changed()", "z = 2", "pass"]))
    elif action == "insert":
        new_region.insert(pos, indent + "inserted_line()")
    else:
        del new_region[pos]
    mistake = draw(st.sampled_from(MISTAKES))
    return lines, final_newline, start, end, region, new_region, mistake, unit


def render(lines, final_newline):
    return "\n".join(lines) + ("\n" if final_newline else "")


def apply_mistake(mistake, old_lines, new_lines, unit):
    def common_indent(lines):
        indents = [ln[: len(ln) - len(ln.lstrip())] for ln in lines if ln.strip()]
        if not indents:
            return ""
        prefix = indents[0]
        for i in indents[1:]:
            while not i.startswith(prefix):
                prefix = prefix[:-1]
        return prefix

    if mistake == "dedent":
        cut = common_indent(old_lines)
        if any(ln.strip() and not ln.startswith(cut) for ln in new_lines):
            # A line of new left of the cut cannot be dedented: no model writes that.
            return old_lines, new_lines, "\n"
        strip = lambda ls: [ln[len(cut) :] if ln.startswith(cut) else ln for ln in ls]  # noqa: E731
        return strip(old_lines), strip(new_lines), "\n"
    if mistake == "shift":
        return ["  " + ln for ln in old_lines], ["  " + ln for ln in new_lines], "\n"
    if mistake == "trailing":
        return [ln + "  " for ln in old_lines], [ln + "  " for ln in new_lines], "\n"
    if mistake == "tabs":
        other = "    " if unit == "\t" else "\t"
        swap = lambda ls: [  # noqa: E731
            other * ((len(ln) - len(ln.lstrip(unit[0]))) // len(unit)) + ln.lstrip(unit[0])
            for ln in ls
        ]
        return swap(old_lines), swap(new_lines), "\n"
    return old_lines, new_lines, "\n"


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(edit_cases())
def test_edit_is_exact_or_refused(case):
    lines, final_newline, start, end, region, new_region, mistake, unit = case
    original = render(lines, final_newline)
    region_text = "\n".join(region)
    new_text = "\n".join(new_region)
    if new_text == region_text or not region_text.strip():
        return
    # A region whose text recurs when whitespace is ignored is ambiguous for any engine once
    # the model mangles its whitespace (the mangled text may really be elsewhere).
    assume(_loosely_unique(lines, start, end))
    # The intended result: the region's own lines replaced, wherever else its text occurs.
    expected = render(lines[:start] + new_region + lines[end:], final_newline)
    old_lines, new_lines, _ = apply_mistake(mistake, region, new_region, unit)
    old, new = "\n".join(old_lines), "\n".join(new_lines)
    newline = "\n"
    if mistake == "crlf_file" and "\n" in original:  # a file without one has no style
        newline = "\r\n"
        original = original.replace("\n", "\r\n")
        expected = expected.replace("\n", "\r\n")
    if mistake == "escaped" and "\n" in old:
        # Only visible when old has a newline: escaping new alone is indistinguishable from
        # writing a backslash-n into a string literal on purpose.
        old, new = old.replace("\n", "\\n"), new.replace("\n", "\\n")
    if newline == "\n" and not old[:1].isspace() and original.count(old) == 1:
        # The mangled `old` still occurs verbatim (say `x\n` inside `    x\n`): the contract
        # puts the exact strategy first, so that exact span is what gets replaced. (In a CRLF
        # file an exact match may not split a `\r\n` pair, and an `old` that starts with
        # whitespace is not matched inside a line's indentation: both left to the engine.)
        expected = original.replace(old, new, 1)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "f.txt"
        path.write_bytes(original.encode())
        try:
            Workspace(tmp).edit("f.txt", old, new)
        except CodesiftError:
            assert path.read_bytes() == original.encode(), "a refused edit changed the file"
            return
        actual = path.read_bytes().decode()
        assert actual == expected, (
            f"wrong edit ({mistake}, newline {newline!r})\nold={old!r}\nnew={new!r}\n"
            f"expected={expected!r}\nactual=  {actual!r}"
        )


def _loosely_unique(lines, start, end):
    def windows(seq, key):
        return sum(seq[i : i + len(key)] == key for i in range(len(seq) - len(key) + 1))

    stripped = [line.strip() for line in lines]
    key = stripped[start:end]
    skeleton = [s for s in stripped if s]
    return windows(stripped, key) == 1 and windows(skeleton, [s for s in key if s]) == 1
