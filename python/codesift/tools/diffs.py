"""Unified diffs in the shape JavaScript agents print them (the `diff` package's
`createTwoFilesPatch`: an `Index:` header, `---`/`+++` lines with optional headers, hunks
always written `@@ -a,b +c,d @@`, 4 lines of context by default)."""

from __future__ import annotations

from ..text import linediff

NO_NEWLINE = "\\ No newline at end of file"


def two_files_patch(
    old_name: str,
    new_name: str,
    old: str,
    new: str,
    old_header: str | None = None,
    new_header: str | None = None,
    *,
    context: int = 4,
) -> str:
    """`createTwoFilesPatch(old_name, new_name, old, new, old_header, new_header)`."""
    out = []
    if old_name == new_name:
        out.append(f"Index: {old_name}")
    out.append("=" * 67)
    out.append(f"--- {old_name}" + ("" if old_header is None else f"\t{old_header}"))
    out.append(f"+++ {new_name}" + ("" if new_header is None else f"\t{new_header}"))
    out.extend(hunks(old, new, context=context))
    return "\n".join(out) + "\n"


def hunks(old: str, new: str, *, context: int = 4) -> list[str]:
    """The hunk lines of the diff from `old` to `new` (no file headers)."""
    a, b = _split(old), _split(new)
    out: list[str] = []
    for group in linediff.grouped_opcodes(linediff.opcodes(a, b), context):
        a0, a1, b0, b1 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        old_start = a0 + 1 if a1 > a0 else a0
        new_start = b0 + 1 if b1 > b0 else b0
        out.append(f"@@ -{old_start},{a1 - a0} +{new_start},{b1 - b0} @@")
        for tag, i0, i1, j0, j1 in group:
            if tag == "equal":
                out.extend(_marked(" ", a, i0, i1, len(a)))
                continue
            if tag in ("replace", "delete"):
                out.extend(_marked("-", a, i0, i1, len(a)))
            if tag in ("replace", "insert"):
                out.extend(_marked("+", b, j0, j1, len(b)))
    return out


def _split(text: str) -> list[str]:
    """Lines with their terminators, so a missing final newline shows in the diff."""
    return text.splitlines(keepends=True)


def _marked(sign: str, lines: list[str], start: int, end: int, size: int) -> list[str]:
    out = []
    for k in range(start, end):
        line = lines[k]
        body = line.rstrip("\r\n") if line.endswith("\n") else line
        out.append(sign + body)
        if not line.endswith("\n"):
            out.append(NO_NEWLINE)
    return out
