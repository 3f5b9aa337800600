"""Spill files served as MCP resources are read through the private spill directory's
descriptor: a file swapped for a link or a FIFO after it was listed is refused, never
followed and never waited on."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError

from codesift import Workspace
from codesift.mcp.resources import SpillResources
from codesift.tools import Toolbox


@pytest.fixture
def served_spill(tmp_path: Path):
    (tmp_path / "root").mkdir()
    toolbox = Toolbox(Workspace(tmp_path / "root"), spill_dir=tmp_path / "spill")
    path = toolbox.output.spills.write("grep_search", "line\n" * 10)
    resources = SpillResources(reader=toolbox.output.spills.read)
    link = resources.add(path, "grep_search")
    return resources, str(link.uri), path, tmp_path


def test_a_listed_spill_file_is_read(served_spill) -> None:
    resources, uri, _, _ = served_spill
    text = resources.read(uri).contents[0].text
    assert text == "line\n" * 10, text


def test_a_spill_file_swapped_for_a_link_outside_is_refused(served_spill) -> None:
    resources, uri, path, tmp_path = served_spill
    secret = tmp_path / "secret.txt"
    secret.write_text("private\n")
    path.unlink()
    path.symlink_to(secret)
    with pytest.raises(MCPError) as raised:
        resources.read(uri)
    assert "private" not in str(raised.value), raised.value


def test_a_spill_file_swapped_for_a_fifo_does_not_hang(served_spill) -> None:
    resources, uri, path, _ = served_spill
    path.unlink()
    os.mkfifo(path)
    outcome: list[object] = []

    def read() -> None:
        try:
            outcome.append(resources.read(uri))
        except MCPError as exc:
            outcome.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(10)
    assert not reader.is_alive(), "reading a FIFO in a spill file's place blocked"
    assert isinstance(outcome[0], MCPError), outcome
