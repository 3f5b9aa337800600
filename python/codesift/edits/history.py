"""What codesift wrote through one Workspace, per file, so that `undo_edit` can put the file
back: a bounded history, kept in memory.

Each entry holds the file's bytes before the write (None when codesift created the file) and a
digest of what it wrote (None when it deleted the file). Undo restores the bytes before, but
only while the file still holds exactly what codesift wrote: a change made since (by anyone)
is never overwritten.

Bounds: `versions` entries per file (the oldest go first), `files` files (the least recently
written go first) and `max_bytes` bytes of kept content in all (the oldest entries of the least
recently written files go first). A write whose previous content alone exceeds `max_bytes`
ends that file's history: an undo could not go past it anyway.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict, deque
from dataclasses import dataclass

DEFAULT_VERSIONS = 10
DEFAULT_FILES = 64
DEFAULT_MAX_BYTES = 64 * 1024 * 1024


def digest(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


@dataclass(frozen=True)
class Version:
    """One write: the bytes before it and a digest of the bytes it left."""

    before: bytes | None
    after: bytes | None
    mode: int | None = None

    @property
    def size(self) -> int:
        return len(self.before or b"")


class EditHistory:
    """The bounded per-file history of one Workspace's writes (thread-safe)."""

    def __init__(
        self,
        *,
        versions: int = DEFAULT_VERSIONS,
        files: int = DEFAULT_FILES,
        max_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        self.versions = versions
        self.files = files
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, deque[Version]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def record(
        self, path: str, before: bytes | None, after: bytes | None, mode: int | None = None
    ) -> None:
        """Records that `path` (workspace-relative, where it really is) went from `before`
        (None: did not exist) to `after` (None: deleted)."""
        version = Version(before, None if after is None else digest(after), mode)
        with self._lock:
            if version.size > self.max_bytes:
                self._drop(path)
                return
            stack = self._entries.pop(path, None) or deque()
            stack.append(version)
            self._bytes += version.size
            while len(stack) > self.versions:
                self._bytes -= stack.popleft().size
            self._entries[path] = stack
            while len(self._entries) > self.files:
                self._drop(next(iter(self._entries)))
            while self._bytes > self.max_bytes:
                oldest_path = next(iter(self._entries))
                oldest = self._entries[oldest_path]
                self._bytes -= oldest.popleft().size
                if not oldest:
                    del self._entries[oldest_path]

    def last(self, path: str) -> Version | None:
        with self._lock:
            stack = self._entries.get(path)
            return stack[-1] if stack else None

    def pop(self, path: str, version: Version) -> None:
        """Forgets `version` if it is still the last of `path` (it was undone)."""
        with self._lock:
            stack = self._entries.get(path)
            if stack and stack[-1] is version:
                stack.pop()
                self._bytes -= version.size
                if not stack:
                    del self._entries[path]

    def count(self, path: str) -> int:
        with self._lock:
            return len(self._entries.get(path, ()))

    def forget(self, path: str) -> None:
        with self._lock:
            self._drop(path)

    def _drop(self, path: str) -> None:
        stack = self._entries.pop(path, None)
        if stack:
            self._bytes -= sum(v.size for v in stack)
