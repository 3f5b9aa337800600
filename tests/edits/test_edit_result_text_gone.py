"""A linked edit whose hit's text is gone from the file says so: the message names what
happened (no longer in the file, or now in several places), so the agent knows whether to
search again or to re-read the file."""

from __future__ import annotations

import pytest

from codesift import Workspace
from codesift.errors import StaleResultError


def _hit(ws: Workspace, pattern: str):
    result = ws.grep(pattern, path="f.txt")
    assert len(result.matches) == 1, f"expected one hit of {pattern}, got {result.matches}"
    return result.matches[0]


def test_text_no_longer_anywhere_in_the_file(tmp_path):
    (tmp_path / "f.txt").write_text("a = 1\ntarget = 2\nb = 3\n")
    ws = Workspace(tmp_path)
    hit = _hit(ws, r"target = \d")
    # Rewritten behind codesift's back: the hit's text is gone altogether.
    (tmp_path / "f.txt").write_text("a = 1\nb = 3\n")
    with pytest.raises(StaleResultError) as caught:
        ws.edit_result(hit.id, "target = 9")
    message = str(caught.value)
    assert "more than once" not in message, f"the text occurs nowhere, yet: {message!r}"
    assert "no longer" in message and "grep again" in message, message
    assert (tmp_path / "f.txt").read_text() == "a = 1\nb = 3\n"


def test_text_now_in_several_places(tmp_path):
    (tmp_path / "f.txt").write_text("a = 1\ntarget = 2\nb = 3\n")
    ws = Workspace(tmp_path)
    hit = _hit(ws, r"target = \d")
    (tmp_path / "f.txt").write_text("x\ntarget = 2\ny\ntarget = 2\n")
    with pytest.raises(StaleResultError) as caught:
        ws.edit_result(hit.id, "target = 9")
    message = str(caught.value)
    assert "more than once" in message, f"expected 'more than once' in {message!r}"
