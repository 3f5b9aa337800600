"""What an error of `codesift serve` says to do: the edit preview's names the fields of its
JSON body and the server's routes, never a CLI flag or another agent's parameter; a tool
call's is its profile's. Line breaks are kept in the JSON text."""

from __future__ import annotations

import httpx
from serve_helpers import answer, live_server


def test_an_ambiguous_preview_advises_the_fields_of_the_request(tmp_path):
    (tmp_path / "b.py").write_text("x = 1\nx = 1\n")
    with live_server(tmp_path) as server, httpx.Client(base_url=server.url) as http:
        body = {"path": "b.py", "old_string": "x = 1", "new_string": "y"}
        got = answer(http.post("/api/preview", json=body))
    message = got["data"]["error"]["message"]
    assert got["is_error"] is True, got
    expected = (
        "old_string matches 2 places, at lines 1, 2. Include more surrounding lines to make "
        'it unique, or pass "replace_all": true to change every one. Or edit one hit by its '
        '"search_result_id".'
    )
    assert message == expected, f"expected {expected!r}, got {message!r}"


def test_a_failed_preview_shows_the_region_verbatim_and_the_read_route(tmp_path):
    (tmp_path / "a.py").write_text("def f():\n    x  =\t1\n")
    with live_server(tmp_path) as server, httpx.Client(base_url=server.url) as http:
        body = {"path": "a.py", "old_string": "x = 1", "new_string": "y"}
        message = answer(http.post("/api/preview", json=body))["data"]["error"]["message"]
    assert "\n     2\t    x  =\t1\n" in message, message
    assert "read the region first with POST /api/tools/read_file" in message, message


def test_a_tool_call_over_http_advises_in_its_profiles_words(tmp_path):
    (tmp_path / "a.py").write_text("foo(bar)\n")
    with live_server(tmp_path) as server, httpx.Client(base_url=server.url) as http:
        codesift = answer(http.post("/api/tools/grep_search", json={"pattern": "foo("}))
        claude = answer(
            http.post("/api/tools/Grep", params={"profile": "claude-code"}, json={"pattern": "("})
        )
    assert codesift["text"].endswith("\nEscape special characters with \\ or pass literal=true.")
    assert claude["text"].endswith("\nEscape special characters with \\.</tool_use_error>"), claude[
        "text"
    ]
