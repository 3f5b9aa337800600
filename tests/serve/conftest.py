"""Tests of `codesift serve`: a live HTTP server, its command language, concurrency bounds and
the page in headless Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_helpers import live_server

from codesift.serve import Server


@pytest.fixture
def server(root: Path) -> Iterator[Server]:
    """A live server over the module's `root` tree."""
    with live_server(root) as running:
        yield running
