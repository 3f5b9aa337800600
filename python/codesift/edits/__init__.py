"""The edits wing: every write to a workspace's files, through one `Editor`.

- `plan`: where an `old -> new` edit applies in a text and what it writes (no I/O);
- `text`: a decoded text's lines and line endings, and lines as `read` shows them;
- `diff`: the one unified-diff maker (split on `\\n`, with `\\ No newline` markers);
- `transaction`: several files written all or nothing;
- `history`: what codesift wrote, for `undo_edit`;
- `patch`: a parsed patch (`codesift.patches`) planned on the locked files and committed;
- `editor`: the `Editor` (lock → plan → commit → shift cached hits → record for undo).
"""

from __future__ import annotations

from .editor import EDIT_MAX_BYTES, Editor
from .plan import Change, Plan, apply_changes, plan_edit

__all__ = ["EDIT_MAX_BYTES", "Change", "Editor", "Plan", "apply_changes", "plan_edit"]
