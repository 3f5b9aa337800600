"""`Workspace.edit` on a corpus of real files with injected LLM-style mistakes (see
`edit_corpus.py`): never a wrong edit, nearly always the intended one."""

from __future__ import annotations

from pathlib import Path

import pytest
from edit_corpus import available_sources, build_cases, describe_wrong, run_cases, self_check

MIN_CASES = 200
MIN_EXACT_SHARE = 0.95


def test_corpus_is_well_formed(tmp_path: Path) -> None:
    cases = build_cases(tmp_path)
    assert len(cases) >= MIN_CASES
    sources = {c.source for c in cases}
    assert len(sources) >= max(2, min(3, len(available_sources()))), sources
    problems = self_check(cases)
    assert not problems, "\n".join(problems[:20])


def test_edit_corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = build_cases(tmp_path)
    result = run_cases(cases)
    with capsys.disabled():
        print("\n" + result["report"])

    assert not result["wrong"], f"{len(result['wrong'])} wrong edits:\n\n" + describe_wrong(result)
    assert result["must_refuse_refused"] == result["must_refuse_total"]
    assert result["exact_share"] >= MIN_EXACT_SHARE, result["report"]
