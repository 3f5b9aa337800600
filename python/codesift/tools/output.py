"""The cap on what a model reads: text over a line or byte limit becomes a preview, and the
whole of it goes to a spill file that `read_file` may read (the one exception to the
sandbox, served by a workspace of its own, and only while the spill directory is private:
see `spill`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..arguments.sandbox import PathArg
from ..results.matches import plural
from ..text.escapes import escape_surrogates
from ..workspace import Workspace
from .spill import SpillDir, SpillError
from .tool_result import ToolResult

MAX_OUTPUT_LINES = 2000
MAX_OUTPUT_BYTES = 50 * 1024
MAX_LINE_CHARS = 250


class OutputCap:
    """Caps tool text and keeps the spill files.

    Args:
        spill_dir: where outputs over the cap are saved (default: a new temp dir, made on
            first use); it must be private (0700, the user's own, not a symlink), else
            nothing is saved.
        max_output_lines / max_output_bytes: the cap on a result's text.
        max_line_chars: longer lines are shown as a window around the interesting part.
        read_hint: how to read a spill file on, formatted with its path and the first line
            not shown (each profile names its own read tool).
    """

    def __init__(
        self,
        spill_dir: PathArg | None = None,
        *,
        max_output_lines: int = MAX_OUTPUT_LINES,
        max_output_bytes: int = MAX_OUTPUT_BYTES,
        max_line_chars: int = MAX_LINE_CHARS,
        read_hint: str = 'read_file(path="{spill}", offset={offset})',
    ) -> None:
        self.spills = SpillDir(spill_dir)
        self._spill_workspace: Workspace | None = None
        self.max_output_lines = max_output_lines
        self.max_output_bytes = max_output_bytes
        self.max_line_chars = max_line_chars
        self.read_hint = read_hint

    def finish(
        self,
        tool: str,
        text: str,
        data: dict[str, Any],
        *,
        truncated: bool = False,
        allow_spill: bool = True,
    ) -> ToolResult:
        """Applies the output cap: over `max_output_lines` lines or `max_output_bytes` bytes,
        the text becomes a preview and the whole of it goes to a spill file; the preview ends
        with `read_hint`. Lone surrogates (non-UTF-8 file names) are escaped in the text
        (`\\xff`); `data` keeps exact strings."""
        data = dict(data)
        text = escape_surrogates(text)
        lines = text.split("\n")
        size = len(text.encode())
        over = len(lines) > self.max_output_lines or size > self.max_output_bytes
        spill: Path | None = None
        problem = ""
        if over and allow_spill:
            try:
                spill = self.spill(tool, text)
            except SpillError as exc:
                problem = str(exc)
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
            if spill is not None:
                hint = self.read_hint.format(spill=spill, offset=len(preview) + 1)
                where = f"The full output is in {spill}; read it with {hint}"
            else:
                where = f"The full output was not saved: {problem}"
            text = "\n".join(preview) + (
                f"\n\n[TRUNCATED: output was {plural(len(lines), 'line')} "
                f"({plural(size, 'byte')}); {shown}. {where}]"
            )
            truncated = True
        data["truncated"] = bool(data.get("truncated")) or truncated
        data["spill_file"] = str(spill) if spill else None
        return ToolResult(text=text, data=data, is_error=False)

    def spill(self, tool: str, text: str) -> Path:
        """Saves `text` to a new spill file (raises `SpillError` when the spill directory
        cannot be used)."""
        return self.spills.write(tool, text)

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
        """The workspace to read `path` in: the spill directory's own for a spill file, while
        that directory is still private, else `workspace` (so nothing else outside the root
        is reachable)."""
        spill = self.spills.path
        if spill is not None and path.startswith("/"):
            candidate = Path(path.split(":")[0])
            if (candidate == spill or spill in candidate.parents) and self.spills.check():
                if self._spill_workspace is None:
                    self._spill_workspace = Workspace(spill)
                return self._spill_workspace
        return workspace
