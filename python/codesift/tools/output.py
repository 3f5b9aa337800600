"""The cap on what a model reads: text over a line or byte limit becomes a preview, and the
whole of it goes to a spill file that `read_file` may read (the one exception to the
sandbox, served by a workspace of its own)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from ..escapes import escape_surrogates
from ..results import plural
from ..sandbox import PathArg
from ..workspace import Workspace
from .result import ToolResult

MAX_OUTPUT_LINES = 2000
MAX_OUTPUT_BYTES = 50 * 1024
MAX_LINE_CHARS = 250


class OutputCap:
    """Caps tool text and keeps the spill files.

    Args:
        spill_dir: where outputs over the cap are saved (default: a new temp dir, made on
            first use).
        max_output_lines / max_output_bytes: the cap on a result's text.
        max_line_chars: longer lines are shown as a window around the interesting part.
    """

    def __init__(
        self,
        spill_dir: PathArg | None = None,
        *,
        max_output_lines: int = MAX_OUTPUT_LINES,
        max_output_bytes: int = MAX_OUTPUT_BYTES,
        max_line_chars: int = MAX_LINE_CHARS,
    ) -> None:
        self._spill_root = Path(spill_dir) if spill_dir is not None else None
        self._spill_workspace: Workspace | None = None
        self._spill_count = 0
        self.max_output_lines = max_output_lines
        self.max_output_bytes = max_output_bytes
        self.max_line_chars = max_line_chars

    def finish(
        self,
        tool: str,
        text: str,
        data: dict[str, Any],
        *,
        truncated: bool = False,
        allow_spill: bool = True,
        read_hint: str = 'read_file(path="{spill}", offset={offset})',
    ) -> ToolResult:
        """Applies the output cap: over `max_output_lines` lines or `max_output_bytes` bytes,
        the text becomes a preview and the whole of it goes to a spill file; the preview ends
        with `read_hint` (formatted with the spill path and the first line not shown: each
        profile names its own read tool). Lone surrogates (non-UTF-8 file names) are escaped
        in the text (`\\xff`); `data` keeps exact strings."""
        data = dict(data)
        text = escape_surrogates(text)
        lines = text.split("\n")
        size = len(text.encode())
        over = len(lines) > self.max_output_lines or size > self.max_output_bytes
        spill = None
        if over and allow_spill:
            spill = self.spill(tool, text)
            preview: list[str] = []
            used = 0
            for line in lines[: self.max_output_lines]:
                used += len(line.encode()) + 1
                if used > self.max_output_bytes:
                    break
                preview.append(line)
            shown = (
                f"the first {plural(len(preview), 'line is', 'lines are')} shown"
                if preview
                else "its first line alone is over the size cap, so none is shown"
            )
            hint = read_hint.format(spill=spill, offset=len(preview) + 1)
            text = "\n".join(preview) + (
                f"\n\n[TRUNCATED: output was {plural(len(lines), 'line')} "
                f"({plural(size, 'byte')}); {shown}. The full output is in {spill}; read it "
                f"with {hint}]"
            )
            truncated = True
        data["truncated"] = bool(data.get("truncated")) or truncated
        data["spill_file"] = str(spill) if spill else None
        return ToolResult(text=text, data=data, is_error=False)

    def spill(self, tool: str, text: str) -> Path:
        if self._spill_root is None:
            self._spill_root = Path(tempfile.mkdtemp(prefix="codesift-spill-"))
        self._spill_root.mkdir(parents=True, exist_ok=True)
        self._spill_count += 1
        path = self._spill_root.resolve() / f"{tool}-{self._spill_count}.txt"
        # The spill directory is codesift's own, outside the workspace: not a workspace file.
        path.write_text(text, encoding="utf-8")
        return path

    def clip(self, text: str, column: int, length: int) -> tuple[str, bool]:
        """A window of at most `max_line_chars` characters around `length` characters at the
        1-based `column`; whether the line was cut."""
        limit = self.max_line_chars
        if len(text) <= limit:
            return text, False
        start = max(0, min(column - 1 - (limit - min(length, limit)) // 2, len(text) - limit))
        window = text[start : start + limit]
        return ("…" if start else "") + window + ("…" if start + limit < len(text) else ""), True

    def workspace_for(self, path: str, workspace: Workspace) -> Workspace:
        """The workspace to read `path` in: the spill directory's own for a spill file, else
        `workspace` (so nothing else outside the root is reachable)."""
        if self._spill_root is not None:
            spill = self._spill_root.resolve()
            candidate = Path(path.split(":")[0]) if path.startswith("/") else None
            if candidate is not None and (candidate == spill or spill in candidate.parents):
                if self._spill_workspace is None:
                    self._spill_workspace = Workspace(spill)
                return self._spill_workspace
        return workspace
