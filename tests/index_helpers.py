"""What the index tests compare: a search's hits, less what differs from process to process."""

from __future__ import annotations

from typing import Any


def hits(result: Any) -> list[dict]:
    """The hits of a grep result as dicts, without their ids (drawn afresh by each workspace)."""
    rows = []
    for match in result.matches:
        row = match.to_dict()
        row.pop("id")
        rows.append(row)
    return rows
