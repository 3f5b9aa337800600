"""Compatibility: multi-file commits moved to `codesift.edits.transaction`."""

from __future__ import annotations

from .edits.transaction import FileWrite, commit

__all__ = ["FileWrite", "commit"]
