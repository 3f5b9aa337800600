"""Piped `-v` and `--count-total` stream as the other modes do: the first lines go out while
the engine's streams still run (no whole-answer search is made), and the bytes are those the
whole answer printed: `-v` as rg prints it, `--count-total` under a cap with the same lines,
the same stderr summary (the total of every match) and the same `--json` document."""

from __future__ import annotations

import contextlib
import io
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import codesift_grep as run

from codesift import Workspace, cli, workspace
from codesift.cli import grep_json

IDS = re.compile(r"sr_[0-9a-z]+")


def tree_of(root: Path, files: int) -> Path:
    """Many files (some with no match, some all matches), and one file with more hits than
    a stream piece holds (it comes in several pieces)."""
    for i in range(files):
        d = root / f"d{i // 100:03}"
        d.mkdir(parents=True, exist_ok=True)
        body = {0: "plain\n", 1: "needle\nplain\nneedle needle\n", 2: "needle\nneedle\n"}[i % 3]
        (d / f"f{i:05}.txt").write_text(body)
    (root / "big.txt").write_text("needle needle\nplain\n" * 6000)
    return root


class Recorder(io.StringIO):
    """A stdout that notes, at its first write, how many engine streams were open and how
    many had ended."""

    def __init__(self, streams: dict[str, int]) -> None:
        super().__init__()
        self.streams = streams
        self.at_first_write: dict[str, int] | None = None

    def write(self, text: str) -> int:
        if self.at_first_write is None and text:
            self.at_first_write = dict(self.streams)
        return super().write(text)

    def isatty(self) -> bool:
        return False


@pytest.mark.parametrize(
    "args",
    [
        ["-v", "needle"],
        ["-v", "-c", "needle"],
        ["-v", "-C", "1", "needle"],
        ["--count-total", "-m", "5", "needle"],
        ["--count-total", "-m", "5", "-l", "needle"],
        ["--count-total", "-m", "5", "--json", "needle"],
    ],
    ids=" ".join,
)
def test_first_output_goes_out_while_the_search_streams(tmp_path, monkeypatch, args):
    root = tree_of(tmp_path / "t", 400)
    streams = {"opened": 0, "ended": 0, "whole": 0}
    real_grep = Workspace.grep

    def grep(self: Workspace, *a: Any, **kw: Any) -> Any:
        if not kw.get("stream"):
            streams["whole"] += 1
            return real_grep(self, *a, **kw)
        it = real_grep(self, *a, **kw)
        streams["opened"] += 1
        real_next = it.next_piece

        def next_piece() -> Any:
            piece = real_next()
            if piece is None:
                streams["ended"] += 1
            return piece

        it.next_piece = next_piece  # type: ignore[method-assign]
        return it

    monkeypatch.setattr(workspace.Workspace, "grep", grep)
    out = Recorder(streams)
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.chdir(root)
    code = cli.main(["grep", *args])
    assert code == 0, (args, code)
    assert streams["whole"] == 0, f"{args}: a whole-answer search was made: {streams}"
    seen = out.at_first_write
    assert seen is not None and seen["opened"] > seen["ended"], (
        f"{args}: the first output waited for the streams to end: {seen}"
    )


def expected_inverted(root: Path, *, cap: int | None = None) -> str:
    """`-v needle` from the files themselves: each line without the word, in path order."""
    out = []
    left = cap
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = path.relative_to(root).as_posix()
        for n, line in enumerate(path.read_text().split("\n")[:-1], 1):
            if "needle" not in line and (left is None or left > 0):
                out.append(f"{rel}:{n}:{line}\n")
                left = None if left is None else left - 1
    return "".join(out)


def test_inverted_lines_equal_the_whole_answer(tmp_path):
    root = tree_of(tmp_path / "t", 120)
    got = run(root, "-v", "needle")
    assert got.stdout == expected_inverted(root), got.stdout[:800]
    capped = run(root, "-v", "-m", "7", "needle")
    assert capped.stdout == expected_inverted(root, cap=7), capped.stdout


def test_a_capped_invert_never_prints_a_matching_line(tree):
    # The cap counts printed lines: the search that says which lines match is not cut short
    # (when it was, a matching line past its cut passed for a non-matching one).
    root = tree({"x.txt": "needle\nneedle\nneedle\nplain\n"})
    got = run(root, "-v", "-m", "1", "needle")
    assert got.stdout == "x.txt:4:plain\n", (got.stdout, got.stderr)
    assert got.returncode == 0


def whole_json(root: Path, cap: int, **options: Any) -> str:
    ws = Workspace(root)
    result = ws.grep(
        "needle", ".", max_matches=cap, count_total=True, case_sensitive=True, **options
    )
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        grep_json.print_grep_json(ws, result, False)
    return buffer.getvalue()


@pytest.mark.parametrize("cap", [1, 5, 7000, 20000])
@pytest.mark.parametrize(
    ("flags", "options"),
    [([], {}), (["-l"], {"mode": "files"}), (["--count-matches"], {"mode": "count"})],
    ids=["content", "files", "count"],
)
def test_count_total_under_a_cap_prints_what_the_whole_answer_did(tmp_path, cap, flags, options):
    root = tree_of(tmp_path / "t", 150)
    ws = Workspace(root)
    whole = ws.grep(
        "needle", ".", max_matches=cap, count_total=True, case_sensitive=True, **options
    )
    for extra in ([], ["--json"]):
        got = run(root, "--count-total", "-m", str(cap), *flags, *extra, "needle")
        if extra:
            expected = whole_json(root, cap, **options)
            assert IDS.sub("ID", got.stdout) == IDS.sub("ID", expected), (
                f"expected:\n{expected[-900:]}\ngot:\n{got.stdout[-900:]}"
            )
            continue
        without = run(root, "-m", str(cap), *flags, "needle")
        assert got.stdout == without.stdout, (got.stdout[:500], without.stdout[:500])
        summary = whole.summary + "\n" if whole.truncated else ""
        assert got.stderr == summary, f"expected stderr {summary!r}, got {got.stderr!r}"
