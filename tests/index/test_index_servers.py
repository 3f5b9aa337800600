"""The index through the servers: `codesift mcp --index` (the MCP SDK's client over stdio) and
`codesift serve --index` (a real server process, its JSON API over HTTP) answer grep through
the persistent index, with exactly a scan's hits, and see a file changed behind their back.
Indexes go to the test's cache directory (conftest's `CODESIFT_CACHE_DIR`)."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx
from mcp import Client
from mcp_helpers import server_env, server_params
from processes import child

from codesift import Workspace

NEEDLE_FILES = ("src/m03.py", "src/m11.py")


def make_tree(root: Path) -> Path:
    for i in range(24):
        body = f"def handler_{i}(request):\n    return respond(request, {i})\n"
        if f"src/m{i:02d}.py" in NEEDLE_FILES:
            body += "# the rare_needle lives here\n"
        path = root / "src" / f"m{i:02d}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
    return root


def scan(root: Path) -> list[tuple[str, int, int, str]]:
    result = Workspace(root).grep("rare_needle", max_matches=None)
    assert result.indexed is False
    return [(m.file, m.line, m.column, m.text) for m in result.matches]


def served(matches: list[dict[str, Any]]) -> list[tuple[str, int, int, str]]:
    return [(m["file"], m["line"], m["column"], m["text"]) for m in matches]


def test_mcp_index_answers_grep_through_the_index(tmp_path, index_cache):
    root = make_tree(tmp_path / "ws")

    async def session():
        with anyio.fail_after(60):
            async with Client(server_params(root, "--index")) as client:
                found = await client.call_tool(
                    "grep_search", {"pattern": "rare_needle", "rank": False}
                )
                assert not found.is_error, found.content[0].text
                data = found.structured_content
                assert data["indexed"] is True, data
                assert served(data["matches"]) == scan(root)

                # Written behind the server's back: its watch sees the change.
                (root / "src/m05.py").write_text("rare_needle = 1\n")
                again = await client.call_tool(
                    "grep_search", {"pattern": "rare_needle", "rank": False}
                )
                data = again.structured_content
                assert data["indexed"] is True, data
                assert served(data["matches"]) == scan(root)
                assert ("src/m05.py", 1, 1, "rare_needle = 1") in served(data["matches"])

    anyio.run(session)
    # `--index` built the index into the test's cache directory.
    assert any(index_cache.rglob("index-*.bin")), list(index_cache.rglob("*"))


def test_serve_index_answers_grep_through_the_index(tmp_path, index_cache):
    root = make_tree(tmp_path / "ws")
    env = dict(server_env(), PYTHONUNBUFFERED="1", CODESIFT_CACHE_DIR=str(index_cache))
    argv = [sys.executable, "-m", "codesift", "serve", "--root", str(root), "--port", "0"]
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "stdin": subprocess.DEVNULL}
    with child([*argv, "--index", "--token", "tok"], text=True, env=env, **pipes) as process:
        assert process.stdout is not None
        banner = [process.stdout.readline() for _ in range(3)]
        url = re.search(r"http://127\.0\.0\.1:\d+", "".join(banner))
        assert url, banner
        with httpx.Client(base_url=url[0], timeout=60) as http:

            def grep() -> dict[str, Any]:
                response = http.post(
                    "/api/tools/grep_search", json={"pattern": "rare_needle", "rank": False}
                )
                assert response.status_code == 200, response.text
                body = response.json()
                assert body["is_error"] is False, body
                return dict(body["data"])

            data = grep()
            assert data["indexed"] is True, data
            assert served(data["matches"]) == scan(root)

            (root / "src/m03.py").write_text("no needle now\n")
            data = grep()
            assert data["indexed"] is True, data
            assert (
                served(data["matches"])
                == scan(root)
                == [("src/m11.py", 3, 7, "# the rare_needle lives here")]
            )
        # Ctrl-C stops it (a failed assertion above: `child` kills it).
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=30)
    # `--index` built the index into the test's cache directory.
    assert any(index_cache.rglob("index-*.bin")), list(index_cache.rglob("*"))
