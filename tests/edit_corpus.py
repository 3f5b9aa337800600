"""Evaluation corpus for `Workspace.edit`: real source files nobody on this project wrote, with
the mistakes language models make when they quote the text to replace.

For each sampled file (Python stdlib, C headers under /usr/include, Rust crates in the cargo
registry) the generator picks a small region that is unique in the file, builds an intended
change of it (rename an identifier, change a number, insert or delete a line) and then writes
one case per mistake kind: `old`/`new` as a model would send them, and the bytes the file must
hold after a correct edit. `run_cases` applies every case to a fresh copy of its file and sorts
the outcome into `exact` (file == expected), `refused` (CodesiftError, file untouched) or
`wrong` (anything else: the one unacceptable outcome).

Run `python tests/edit_corpus.py [limit_files]` to print the figures.
"""

from __future__ import annotations

import difflib
import os
import random
import re
import sys
import sysconfig
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SEED = 20240611
MAX_FILE_BYTES = 200_000
MIN_FILE_LINES = 30
MAX_LINE_CHARS = 200
REGION_ATTEMPTS = 400

# Files per source kind; a missing source's share goes to the Python stdlib.
QUOTAS = {"py": 24, "h": 20, "rs": 16}
# Share of the header sample taken from tab-indented headers (so `spaces_for_tabs` has cases).
TAB_HEADER_SHARE = 0.5

KINDS = (
    "exact",
    "dedent",
    "indent_shift",
    "tabs_for_spaces",
    "spaces_for_tabs",
    "trailing_ws",
    "crlf_file",
    "blank_dropped",
    "escaped_newlines",
    "not_in_file",
)

SKIP_DIRS = {"site-packages", "dist-packages", "test", "tests", "idle_test", "__pycache__"}
IDENT_RE = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")
NUMBER_RE = re.compile(r"(?<![\w.])\d+(?![\w.])")
# Words not worth renaming: keywords and very common type names of the three languages.
RESERVED = frozenset(
    "and as assert async await break case class const continue crate def del dyn elif else "
    "enum except extern false finally fn for from global if impl import in int is lambda let "
    "loop match mod move mut None nonlocal not or pass pub raise ref return self Self static "
    "struct super trait True False try type typedef union unsafe unsigned use where while with "
    "yield void char long short signed define include ifdef ifndef endif undef sizeof".split()
)
INSERTED = {
    "py": ("# NOTE: keep in sync with the caller", "_checkpoint = None", "pass  # reviewed"),
    "h": ("/* NOTE: keep in sync with the caller */", "/* reviewed */", "#define CS_REVIEWED 1"),
    "rs": ("// NOTE: keep in sync with the caller", "let _checkpoint = ();", "// reviewed"),
}
INVENTED = {
    "py": ("result = self._resolve_pending(items)", "return fallback_value"),
    "h": ("extern int cs_resolve_pending (void *items);", "#define CS_FALLBACK_VALUE 0"),
    "rs": ("let result = self.resolve_pending(&items)?;", "return Ok(fallback_value);"),
}


@dataclass
class EditCase:
    """One edit to apply: `Workspace(root).edit(rel_path, old, new)` must leave `expected`."""

    name: str
    kind: str
    root: Path
    rel_path: str
    old: str
    new: str
    expected: bytes
    must_refuse: bool
    source: str = ""  # "py", "h" or "rs"
    original: bytes = b""  # the file as written to disk before the edit
    change: str = ""  # the intended change, for reports


@dataclass(frozen=True)
class SourceFile:
    source: str
    rel_path: str
    text: str


@dataclass
class Outcome:
    name: str
    kind: str
    outcome: str  # "exact" | "refused" | "wrong"
    detail: str = ""
    strategy: str = ""
    must_refuse: bool = False


# -- source files ------------------------------------------------------------------------


def _walk(root: Path, suffix: str, skip: set[str]) -> list[Path]:
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in skip)
        found.extend(Path(dirpath) / f for f in filenames if f.endswith(suffix))
    return sorted(found)


def _candidates() -> dict[str, list[tuple[Path, str]]]:
    """Sorted (path, relative name) listings per source kind."""
    out: dict[str, list[tuple[Path, str]]] = {}
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    out["py"] = [(p, str(p.relative_to(stdlib))) for p in _walk(stdlib, ".py", SKIP_DIRS)]
    include = Path("/usr/include")
    if include.is_dir():
        out["h"] = [(p, str(p.relative_to(include))) for p in _walk(include, ".h", set())]
    rust: list[tuple[Path, str]] = []
    for index in sorted((Path.home() / ".cargo" / "registry" / "src").glob("*")):
        rust.extend((p, str(p.relative_to(index))) for p in _walk(index, ".rs", {"target"}))
    if rust:
        out["rs"] = rust
    return {k: v for k, v in out.items() if v}


def available_sources() -> list[str]:
    return sorted(_candidates())


def _load(path: Path) -> str | None:
    try:
        if path.is_symlink() or path.stat().st_size > MAX_FILE_BYTES:
            return None
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if "\r" in text or "\0" in text or text.count("\n") < MIN_FILE_LINES:
        return None
    return text


def _is_tab_indented(text: str) -> bool:
    tabs = sum(1 for line in text.split("\n") if line.startswith("\t"))
    spaces = sum(1 for line in text.split("\n") if line.startswith(" "))
    return tabs > spaces


def sample_files(seed: int = SEED, limit_files: int | None = None) -> list[SourceFile]:
    """A reproducible sample of real files, interleaved by source kind."""
    listings = _candidates()
    quotas = {k: q for k, q in QUOTAS.items() if k in listings}
    quotas["py"] = quotas.get("py", 0) + sum(q for k, q in QUOTAS.items() if k not in listings)
    per_source: dict[str, list[SourceFile]] = {}
    for source, quota in quotas.items():
        order = list(listings.get(source, []))
        random.Random(f"{seed}:{source}").shuffle(order)
        # Headers: a share of tab-indented files first, then any header.
        want_tabs = int(quota * TAB_HEADER_SHARE) if source == "h" else 0
        tabbed: list[SourceFile] = []
        other: list[SourceFile] = []
        for path, rel in order:
            if len(tabbed) >= want_tabs and len(tabbed) + len(other) >= quota:
                break
            text = _load(path)
            if text is None:
                continue
            if len(tabbed) < want_tabs and _is_tab_indented(text):
                tabbed.append(SourceFile(source, rel, text))
            else:
                other.append(SourceFile(source, rel, text))
        per_source[source] = tabbed + other[: quota - len(tabbed)]
    # Round-robin, so that `limit_files` keeps every source kind.
    merged: list[SourceFile] = []
    for i in range(max((len(v) for v in per_source.values()), default=0)):
        merged.extend(v[i] for v in per_source.values() if i < len(v))
    return merged[:limit_files] if limit_files is not None else merged


# -- regions and changes -----------------------------------------------------------------

Line = tuple[int, str]  # (index in the region, or -1 for an inserted line; text)


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _key(line: str) -> str:
    return line.strip(" \t")


def _clean(line: str) -> bool:
    """No trailing whitespace and no whitespace or control characters other than space/tab."""
    if len(line) > MAX_LINE_CHARS or line != line.rstrip(" \t"):
        return False
    return not any((ch.isspace() or not ch.isprintable()) and ch not in " \t" for ch in line)


def _pure_indent(lines: Sequence[str]) -> str | None:
    """The single indent character of the region ("" if unindented), None if mixed."""
    chars = {ch for line in lines if line.strip() for ch in _indent(line)}
    if len(chars) > 1:
        return None
    return chars.pop() if chars else ""


class FileInfo:
    def __init__(self, sf: SourceFile) -> None:
        self.sf = sf
        self.text = sf.text
        self.lines = sf.text.split("\n")
        self.nb_pos = [i for i, line in enumerate(self.lines) if _key(line)]
        self.nb_keys = [_key(self.lines[i]) for i in self.nb_pos]
        self.key_set = set(self.nb_keys)
        self.by_key: dict[str, list[int]] = {}
        for p, k in enumerate(self.nb_keys):
            self.by_key.setdefault(k, []).append(p)
        self.tab_file = _is_tab_indented(sf.text)
        self.unit = self._indent_unit()

    def _indent_unit(self) -> int:
        steps: Counter[int] = Counter()
        prev = 0
        for i in self.nb_pos:
            ind = _indent(self.lines[i])
            if "\t" in ind:
                continue
            if len(ind) > prev and len(ind) - prev in (2, 3, 4, 8):
                steps[len(ind) - prev] += 1
            prev = len(ind)
        return steps.most_common(1)[0][0] if steps else 4

    def unique_loose(self, region: Sequence[str]) -> bool:
        """The region's non-blank lines, whitespace-trimmed, occur once as a run in the file."""
        seq = [_key(line) for line in region if _key(line)]
        hits = 0
        for p in self.by_key.get(seq[0], []):
            if self.nb_keys[p : p + len(seq)] == seq:
                hits += 1
        return hits == 1


@dataclass
class Change:
    """An intended change of a region, applied to (possibly transformed) region lines."""

    op: str  # "rename" | "number" | "insert" | "delete"
    target: int  # region index of the line changed/deleted, or inserted before
    word: str = ""
    occurrence: int = 0
    replacement: str = ""
    indent_from: int = 0

    def describe(self) -> str:
        if self.op in ("rename", "number"):
            return f"{self.op} {self.word!r}->{self.replacement!r} on line {self.target + 1}"
        if self.op == "insert":
            return f"insert {self.replacement!r} before line {self.target + 1}"
        return f"delete line {self.target + 1}"

    def apply(self, lines: Sequence[Line]) -> list[Line]:
        out: list[Line] = []
        pattern = IDENT_RE if self.op == "rename" else NUMBER_RE
        indent = next((_indent(t) for i, t in lines if i == self.indent_from), "")
        for idx, text in lines:
            if idx == self.target:
                if self.op == "delete":
                    continue
                if self.op == "insert":
                    out.append((-1, indent + self.replacement))
                else:
                    matches = [m for m in pattern.finditer(text) if m.group() == self.word]
                    m = matches[self.occurrence]
                    text = text[: m.start()] + self.replacement + text[m.end() :]
            out.append((idx, text))
        return out


def _pick_change(
    rng: random.Random, fi: FileInfo, region: Sequence[str], blank: int | None
) -> Change | None:
    """A small realistic change; never touches a dropped blank line or its neighbours."""
    keep = {blank - 1, blank, blank + 1} if blank is not None else set()
    free = [i for i, line in enumerate(region) if line.strip() and i not in keep]
    ops = ["rename", "rename", "number", "insert", "insert", "delete"]
    rng.shuffle(ops)
    for op in ops:
        if op in ("rename", "number") and free:
            i = rng.choice(free)
            pattern = IDENT_RE if op == "rename" else NUMBER_RE
            words = [m.group() for m in pattern.finditer(region[i])]
            if op == "rename":
                words = [w for w in words if len(w) >= 3 and w not in RESERVED]
            if not words:
                continue
            word = rng.choice(words)
            if op == "rename":
                repl = word + rng.choice(("_new", "_v2", "2", "_tmp", "_value"))
            else:
                repl = str(int(word) + rng.choice((1, 2, 10)))
            return Change(op, i, word, rng.randrange(words.count(word)), repl)
        if op == "insert":
            # The new line goes before region[p]; not next to the dropped blank line.
            spots = [
                p for p in range(1, len(region)) if blank is None or p not in (blank, blank + 1)
            ]
            if not spots:
                continue
            p = rng.choice(spots)
            src = p if region[p].strip() else p - 1
            if not region[src].strip():
                continue
            text = rng.choice(INSERTED[fi.sf.source])
            return Change(op, p, replacement=text, indent_from=src)
        if op == "delete" and free and sum(1 for x in region if x.strip()) >= 3:
            return Change(op, rng.choice(free))
    return None


# -- mistakes ----------------------------------------------------------------------------

Transform = Callable[[list[Line]], list[Line]]


def _per_line(fn: Callable[[int, str], str]) -> Transform:
    return lambda lines: [(i, fn(i, t) if t.strip() else t) for i, t in lines]


def _dedent_by(prefix: str) -> Transform:
    def fn(_: int, t: str) -> str:
        if not t.startswith(prefix):
            raise ValueError("line lacks the common indentation")
        return t[len(prefix) :]

    return _per_line(fn)


def _convert_indent(old: str, new: str) -> Transform:
    def fn(_: int, t: str) -> str:
        ind = _indent(t)
        if ind.replace(old, "") != "":
            raise ValueError("indentation is not a multiple of the unit")
        return new * (len(ind) // len(old)) + t[len(ind) :]

    return _per_line(fn)


def _mistake(
    kind: str, rng: random.Random, fi: FileInfo, region: Sequence[str], blank: int | None
) -> Transform | None:
    """The per-line transformation of `kind` for this region (None: not applicable)."""
    pure = _pure_indent(region)
    body = [line for line in region if line.strip()]
    if kind in ("exact", "crlf_file", "escaped_newlines", "not_in_file"):
        return lambda lines: list(lines)
    if kind == "dedent":
        common = os.path.commonprefix([_indent(line) for line in body])
        return _dedent_by(common) if pure and common else None
    if kind == "indent_shift":
        if pure is None:
            return None
        extra = "\t" if pure == "\t" else " " * rng.choice((2, 4))
        return _per_line(lambda _, t: extra + t)
    if kind == "tabs_for_spaces":
        if fi.tab_file or pure != " " or any(len(_indent(x)) % fi.unit for x in body):
            return None
        return _convert_indent(" " * fi.unit, "\t")
    if kind == "spaces_for_tabs":
        return _convert_indent("\t", "    ") if fi.tab_file and pure == "\t" else None
    if kind == "trailing_ws":
        nonblank = [i for i, line in enumerate(region) if line.strip()]
        chosen = set(rng.sample(nonblank, rng.randint(1, len(nonblank))))
        pads = {i: " " * rng.randint(1, 3) for i in chosen}
        return _per_line(lambda i, t: t + pads.get(i, ""))
    if kind == "blank_dropped":
        assert blank is not None
        return lambda lines: [(i, t) for i, t in lines if i != blank]
    raise ValueError(kind)


def _inner_blanks(region: Sequence[str]) -> list[int]:
    """Blank lines between two non-blank lines that each occur once in the region (so where
    the blank belongs in `new` is unambiguous)."""
    return [
        b
        for b in range(1, len(region) - 1)
        if not region[b].strip()
        and region[b - 1].strip()
        and region[b + 1].strip()
        and region.count(region[b - 1]) == 1
        and region.count(region[b + 1]) == 1
    ]


def _anchor_ok(kind: str, fi: FileInfo, i: int) -> bool:
    """Lines a region for `kind` is built around (cheap pre-filter)."""
    line = fi.lines[i]
    if kind == "blank_dropped":
        return not line.strip() and 0 < i < len(fi.lines) - 1
    if kind in ("dedent", "tabs_for_spaces"):
        return line.startswith(" ") and line.strip() != ""
    if kind == "spaces_for_tabs":
        return line.startswith("\t") and line.strip() != ""
    return line.strip() != ""


@dataclass
class Plan:
    start: int
    region: list[str]
    change: Change
    transform: Transform
    blank: int | None = None


def _plan(kind: str, rng: random.Random, fi: FileInfo) -> Plan | None:
    """A region for `kind` with its intended change and mistake, or None if none fits."""
    if (kind == "spaces_for_tabs") != fi.tab_file and kind in (
        "spaces_for_tabs",
        "tabs_for_spaces",
    ):
        return None
    anchors = [i for i in range(len(fi.lines)) if _anchor_ok(kind, fi, i)]
    for _ in range(REGION_ATTEMPTS if anchors else 0):
        a = rng.choice(anchors)
        length = rng.randint(3 if kind == "blank_dropped" else 2, 8)
        start = rng.randint(max(0, a - length + 1), a)
        region = fi.lines[start : start + length]
        if len(region) < length or not region[0].strip() or not region[-1].strip():
            continue
        if sum(1 for x in region if x.strip()) < 2 or not all(_clean(x) for x in region):
            continue
        if kind == "escaped_newlines" and any("\\" in x for x in region):
            continue
        blank = None
        if kind == "blank_dropped":
            blanks = _inner_blanks(region)
            if not blanks:
                continue
            blank = rng.choice(blanks)
        old_exact = "\n".join(region)
        if fi.text.count(old_exact) != 1 or not fi.unique_loose(region):
            continue
        change = _pick_change(rng, fi, region, blank)
        transform = _mistake(kind, rng, fi, region, blank)
        if change is None or transform is None:
            continue
        return Plan(start, region, change, transform, blank)
    return None


def _not_in_file_line(rng: random.Random, fi: FileInfo, line: str) -> str | None:
    """A line a model might misremember in place of `line`, absent from the file."""
    ind = _indent(line)
    words = [m for m in IDENT_RE.finditer(line) if len(m.group()) >= 3]
    options: list[str] = [ind + s for s in INVENTED[fi.sf.source]]
    if words:
        m = rng.choice(words)
        options.append(line[: m.start()] + m.group() + "_cached" + line[m.end() :])
    rng.shuffle(options)
    for cand in options:
        if _key(cand) not in fi.key_set:
            return cand
    return None


# -- cases -------------------------------------------------------------------------------


def _join(lines: Iterable[Line], sep: str = "\n") -> str:
    return sep.join(t for _, t in lines)


def cases_for_file(
    sf: SourceFile, workdir: Path, counter: Iterable[int], seed: int = SEED
) -> list[EditCase]:
    fi = FileInfo(sf)
    ids = iter(counter)
    original = sf.text.encode("utf-8")
    cases: list[EditCase] = []
    for kind in KINDS:
        rng = random.Random(f"{seed}:{sf.source}:{sf.rel_path}:{kind}")
        plan = _plan(kind, rng, fi)
        if plan is None:
            continue
        base = list(enumerate(plan.region))
        old_exact = _join(base)
        new_exact = _join(plan.change.apply(base))
        try:
            mistaken = plan.transform(base)
            old_lines, new_lines = mistaken, plan.change.apply(mistaken)
        except ValueError:
            continue
        sep = "\\n" if kind == "escaped_newlines" else "\n"
        old, new = _join(old_lines, sep), _join(new_lines, sep)
        expected = original.replace(old_exact.encode(), new_exact.encode(), 1)
        on_disk = original
        must_refuse = False
        if kind == "crlf_file":
            on_disk = original.replace(b"\n", b"\r\n")
            expected = expected.replace(b"\n", b"\r\n")
        elif kind == "not_in_file":
            i = rng.choice([i for i, t in old_lines if t.strip()])
            bad = _not_in_file_line(rng, fi, plan.region[i])
            if bad is None:
                continue
            old = _join((j, bad if j == i else t) for j, t in old_lines)
            expected, must_refuse = original, True
        if kind != "exact" and old.encode() in on_disk:
            continue  # the mistake must really break the exact match
        n = next(ids)
        root = workdir / f"{n:04d}-{kind}"
        rel = f"{sf.source}/{sf.rel_path}"
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(on_disk)
        lines = f"L{plan.start + 1}-{plan.start + len(plan.region)}"
        cases.append(
            EditCase(
                name=f"{rel}:{lines}:{kind}",
                kind=kind,
                root=root,
                rel_path=rel,
                old=old,
                new=new,
                expected=expected,
                must_refuse=must_refuse,
                source=sf.source,
                original=on_disk,
                change=plan.change.describe(),
            )
        )
    return cases


def build_cases(workdir: Path, limit_files: int | None = None, seed: int = SEED) -> list[EditCase]:
    """Samples real files and writes one directory per case under `workdir`."""
    workdir.mkdir(parents=True, exist_ok=True)
    counter = iter(range(1_000_000))
    cases: list[EditCase] = []
    for sf in sample_files(seed, limit_files):
        cases.extend(cases_for_file(sf, workdir, counter, seed))
    return cases


def self_check(cases: Sequence[EditCase]) -> list[str]:
    """Corpus sanity problems (empty when every case is well-formed)."""
    problems: list[str] = []
    for c in cases:
        disk = (c.root / c.rel_path).read_bytes()
        if disk != c.original:
            problems.append(f"{c.name}: file on disk differs from `original`")
        if c.must_refuse != (c.kind == "not_in_file"):
            problems.append(f"{c.name}: must_refuse mismatch")
        if c.must_refuse and c.expected != c.original:
            problems.append(f"{c.name}: refusal case expects a change")
        if not c.must_refuse and c.expected == c.original:
            problems.append(f"{c.name}: intended change is a no-op")
        if c.kind == "exact" and disk.count(c.old.encode()) != 1:
            problems.append(f"{c.name}: exact old does not occur exactly once")
        if c.kind != "exact" and c.old.encode() in disk:
            problems.append(f"{c.name}: mistaken old still matches exactly")
        if c.kind == "escaped_newlines" and "\n" in c.old:
            problems.append(f"{c.name}: escaped old has a real newline")
    return problems


# -- running -----------------------------------------------------------------------------


def _visible(text: str) -> str:
    return text.replace("\r", "\\r").replace("\t", "\\t")


def short_diff(expected: bytes, actual: bytes, limit: int = 24) -> str:
    a = expected.decode("utf-8", "replace").splitlines(keepends=True)
    b = actual.decode("utf-8", "replace").splitlines(keepends=True)
    diff = difflib.unified_diff(a, b, "expected", "actual", n=1, lineterm="")
    lines = [_visible(line.rstrip("\n")) for line in diff]
    if len(lines) > limit:
        lines = lines[:limit] + [f"... ({len(lines) - limit} more diff lines)"]
    return "\n".join(lines)


def run_case(case: EditCase) -> Outcome:
    """Applies one case to its file and classifies the outcome."""
    from codesift import CodesiftError, Workspace

    path = case.root / case.rel_path
    before = path.read_bytes()

    def outcome(kind: str, detail: str = "", strategy: str = "") -> Outcome:
        return Outcome(case.name, case.kind, kind, detail, strategy, case.must_refuse)

    try:
        result = Workspace(case.root).edit(case.rel_path, case.old, case.new)
    except CodesiftError as exc:
        first = str(exc).splitlines()[0] if str(exc) else ""
        msg = f"{type(exc).__name__}: {first}"[:200]
        after = path.read_bytes()
        if after != before:
            detail = f"refused ({msg}) but changed the file\n"
            return outcome("wrong", detail + short_diff(before, after))
        return outcome("refused", msg)
    except Exception as exc:  # noqa: BLE001 - any other failure is a wrong outcome
        return outcome("wrong", f"raised {type(exc).__name__}: {exc}"[:300])
    after = path.read_bytes()
    strategy = str(getattr(result, "strategy", ""))
    if case.must_refuse:
        detail = f"applied ({strategy}) although old is not in the file\n"
        return outcome("wrong", detail + short_diff(case.expected, after), strategy)
    if after != case.expected:
        detail = f"strategy {strategy!r}; intended change: {case.change}\n"
        return outcome("wrong", detail + short_diff(case.expected, after), strategy)
    return outcome("exact", strategy=strategy)


def run_cases(cases: Sequence[EditCase]) -> dict[str, Any]:
    """Applies every case. Returns counts per kind (`by_kind`) and `overall`, `exact_share`
    (over cases that must be applied), the `wrong` and `refused` outcomes, and `report`."""
    started = time.perf_counter()
    outcomes = [run_case(c) for c in cases]
    by_kind: dict[str, Counter[str]] = {k: Counter() for k in KINDS}
    strategies: dict[str, Counter[str]] = {k: Counter() for k in KINDS}
    for o in outcomes:
        by_kind[o.kind].update(("cases", o.outcome))
        if o.strategy:
            strategies[o.kind][o.strategy] += 1
    overall: Counter[str] = Counter()
    for counts in by_kind.values():
        overall.update(counts)
    to_apply = [o for o in outcomes if not o.must_refuse]
    to_refuse = [o for o in outcomes if o.must_refuse]
    result: dict[str, Any] = {
        "total": len(cases),
        "by_kind": {k: dict(v) for k, v in by_kind.items() if v},
        "overall": dict(overall),
        "sources": dict(Counter(c.source for c in cases)),
        "exact_share": sum(o.outcome == "exact" for o in to_apply) / max(1, len(to_apply)),
        "wrong": [o for o in outcomes if o.outcome == "wrong"],
        "refused": [o for o in outcomes if o.outcome == "refused"],
        "must_refuse_total": len(to_refuse),
        "must_refuse_refused": sum(o.outcome == "refused" for o in to_refuse),
        "strategies": {k: dict(v) for k, v in strategies.items() if v},
        "seconds": time.perf_counter() - started,
    }
    result["report"] = format_report(result)
    return result


def format_report(result: dict[str, Any]) -> str:
    header = f"{'kind':<18}{'cases':>7}{'exact':>7}{'refused':>9}{'wrong':>7}{'exact %':>9}"
    rule = "-" * len(header)

    def row(name: str, c: dict[str, int], share: str) -> str:
        return (
            f"{name:<18}{c.get('cases', 0):>7}{c.get('exact', 0):>7}"
            f"{c.get('refused', 0):>9}{c.get('wrong', 0):>7}{share:>9}"
        )

    rows = [header, rule]
    for kind, c in result["by_kind"].items():
        share = "-" if kind == "not_in_file" else f"{100 * c.get('exact', 0) / c['cases']:.1f}"
        rows.append(row(kind, c, share))
    rows += [rule, row("total", result["overall"], f"{100 * result['exact_share']:.1f}")]
    sources = ", ".join(f"{k} {v}" for k, v in sorted(result["sources"].items()))
    rows.append(f"(total exact %: over the cases that must be applied; cases by source: {sources})")
    rows.append(
        f"must-refuse cases refused: {result['must_refuse_refused']}/{result['must_refuse_total']}"
        f"; run time {result['seconds']:.1f} s"
    )
    rows.append("strategies used:")
    for kind, counts in result["strategies"].items():
        used = ", ".join(f"{s} {n}" for s, n in sorted(counts.items(), key=lambda x: -x[1]))
        rows.append(f"  {kind:<18}{used}")
    unexpected = [o for o in result["refused"] if not o.must_refuse]
    for label, items in (("wrong", result["wrong"]), ("refused (should apply)", unexpected)):
        if items:
            rows.append(f"{label}: {len(items)}")
            rows.extend(f"  {o.name}: {(o.detail or ' ').splitlines()[0]}" for o in items)
    return "\n".join(rows)


def describe_wrong(result: dict[str, Any], limit: int = 20) -> str:
    """The wrong cases with their diffs, for assertion messages."""
    items: list[Outcome] = result["wrong"]
    parts = [f"{o.name} [{o.kind}]\n{o.detail}" for o in items[:limit]]
    if len(items) > limit:
        parts.append(f"... and {len(items) - limit} more")
    return "\n\n".join(parts)


def main(argv: Sequence[str]) -> int:
    limit = int(argv[0]) if argv else None
    with tempfile.TemporaryDirectory(prefix="edit-corpus-") as tmp:
        cases = build_cases(Path(tmp), limit)
        kinds = Counter(c.kind for c in cases)
        print(f"{len(cases)} cases: " + ", ".join(f"{k} {kinds[k]}" for k in KINDS))
        import codesift

        if not hasattr(codesift.Workspace, "edit"):
            print("Workspace.edit does not exist yet: nothing to run")
            return 0
        result = run_cases(cases)
        print(result["report"])
        if result["wrong"]:
            print("\n" + describe_wrong(result))
        return 1 if result["wrong"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
