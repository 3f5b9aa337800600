"""Compatibility: the edit history moved to `codesift.edits.history`."""

from __future__ import annotations

from .edits.history import EditHistory, Version, digest

__all__ = ["EditHistory", "Version", "digest"]
