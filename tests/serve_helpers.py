"""A live `codesift serve` for tests: a real uvicorn server on 127.0.0.1 (port 0) in a
thread, over a Workspace of a tree in tmp_path."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from codesift import Workspace
from codesift.serve import Server


@contextmanager
def live_server(root: Path, **options: Any) -> Iterator[Server]:
    server = Server(Workspace(root), port=0, **options).start()
    try:
        yield server
    finally:
        server.stop()


def auth(server: Server) -> dict[str, str]:
    """The header that lets a request of a test write through `server`."""
    return {"Authorization": f"Bearer {server.token}"}


def post_tool(
    http: httpx.Client, name: str, args: Any, headers: dict[str, str] | None = None
) -> httpx.Response:
    """`POST /api/tools/<name>` with `args` as its JSON body."""
    return http.post(f"/api/tools/{name}", json=args, headers=headers or {})


def answer(response: httpx.Response, status: int = 200) -> Any:
    """The JSON body of a response that has `status`, is JSON and holds no traceback."""
    assert response.status_code == status, (
        f"expected HTTP {status}, got {response.status_code}: {response.text[:500]}"
    )
    assert response.headers["content-type"].startswith("application/json"), response.headers
    assert "Traceback" not in response.text, response.text
    return response.json()
