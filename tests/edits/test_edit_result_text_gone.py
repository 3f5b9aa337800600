"""A linked edit whose hit's text is gone from the file says so: the message names what
happened (no longer in the file, or now in several places), so the agent knows whether to
search again or to re-read the file."""

from __future__ import annotations

import pytest

from codesift import Workspace
from codesift.errors import StaleResultError


def _stale_edit_message(root, rewritten: str) -> str:
    """The error of a linked edit of `target = 2` in f.txt after f.txt became `rewritten`
    behind codesift's back; f.txt is left as `rewritten`."""
    (root / "f.txt").write_text("a = 1\ntarget = 2\nb = 3\n")
    ws = Workspace(root)
    result = ws.grep(r"target = \d", path="f.txt")
    assert len(result.matches) == 1, f"expected one hit of target, got {result.matches}"
    (root / "f.txt").write_text(rewritten)
    with pytest.raises(StaleResultError) as caught:
        ws.edit_result(result.matches[0].id, "target = 9")
    assert (root / "f.txt").read_text() == rewritten, "the stale edit wrote"
    return str(caught.value)


def test_text_no_longer_anywhere_in_the_file(tmp_path):
    # The hit's text is gone altogether.
    message = _stale_edit_message(tmp_path, "a = 1\nb = 3\n")
    assert "more than once" not in message, f"the text occurs nowhere, yet: {message!r}"
    assert "no longer" in message and "grep again" in message, message


def test_text_now_in_several_places(tmp_path):
    message = _stale_edit_message(tmp_path, "x\ntarget = 2\ny\ntarget = 2\n")
    assert "more than once" in message, f"expected 'more than once' in {message!r}"
