"""Compatibility: edit planning moved to `codesift.edits.plan` (and its text helpers to
`codesift.edits.text`)."""

from __future__ import annotations

from .edits.plan import (
    Change,
    Plan,
    apply_changes,
    check_disjoint,
    plan_edit,
)
from .edits.text import convert_newlines, dominant_newline, newline_near, newline_of

__all__ = [
    "Change",
    "Plan",
    "apply_changes",
    "check_disjoint",
    "convert_newlines",
    "dominant_newline",
    "newline_near",
    "newline_of",
    "plan_edit",
]
