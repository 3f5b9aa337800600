"""A live `codesift serve` for tests: a real uvicorn server on 127.0.0.1 (port 0) in a
thread, over a Workspace of a tree in tmp_path."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from codesift import Workspace
from codesift.serve import Server


@contextmanager
def live_server(root: Path, **options: Any) -> Iterator[Server]:
    server = Server(Workspace(root), port=0, **options).start()
    try:
        yield server
    finally:
        server.stop()
