"""The spill files of tool results as MCP resources.

A tool result whose text was over the size cap was cut to a preview and saved whole to a
spill file; the server registers that file here and adds a `resource_link` to the result.
`resources/list` lists exactly the registered files and `resources/read` reads exactly them,
by URI (`codesift://spill/<name>`): nothing else is reachable, whatever the URI says, because
a URI is looked up in the registry, never turned into a path.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mcp import types
from mcp.shared.exceptions import MCPError

from ..tools.spill import SpillError

URI_PREFIX = "codesift://spill/"
MIME_TYPE = "text/plain"
#: Spill files kept listed at most (the oldest are forgotten first; their files stay).
MAX_LISTED = 1000


@dataclass(frozen=True)
class SpillFile:
    uri: str
    name: str
    path: Path
    size: int
    tool: str


class SpillResources:
    """The spill files this server's tool results pointed to."""

    def __init__(
        self, max_listed: int = MAX_LISTED, reader: Callable[[Path], bytes] | None = None
    ) -> None:
        # How a registered file is read: the spill directory's checked reader when the
        # server has one (see `SpillDir.read`), else an open that refuses a planted link.
        self._reader = reader or _read_bytes
        self._files: dict[str, SpillFile] = {}
        self._lock = threading.Lock()
        self._max_listed = max_listed

    def add(self, path: str | os.PathLike[str], tool: str) -> types.ResourceLink:
        """Registers the spill file at `path` (written by `tool`) and returns its link."""
        spill = Path(path)
        try:
            size = spill.stat().st_size
        except OSError:
            size = 0
        uri = URI_PREFIX + spill.name
        entry = SpillFile(uri=uri, name=spill.name, path=spill, size=size, tool=tool)
        with self._lock:
            self._files.pop(uri, None)
            self._files[uri] = entry
            while len(self._files) > self._max_listed:
                del self._files[next(iter(self._files))]
        return types.ResourceLink(
            uri=uri,
            name=entry.name,
            title=f"Full output of {tool}",
            description=(
                f"The whole text of a {tool} result that was cut to a preview "
                f"({size} bytes); read it with resources/read."
            ),
            mime_type=MIME_TYPE,
            size=size,
        )

    def list(self) -> types.ListResourcesResult:
        with self._lock:
            files = list(self._files.values())
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=f.uri,
                    name=f.name,
                    title=f"Full output of {f.tool}",
                    mime_type=MIME_TYPE,
                    size=f.size,
                )
                for f in files
            ]
        )

    def read(self, uri: str) -> types.ReadResourceResult:
        with self._lock:
            found = self._files.get(uri)
        if found is None:
            raise MCPError(
                code=types.INVALID_PARAMS,
                message=(
                    f"Unknown resource {uri[:200]!r}: this server's resources are the spill files "
                    "of its tool results (resources/list names them)"
                ),
            )
        try:
            text = self._reader(found.path).decode("utf-8", "replace")
        except (OSError, SpillError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else str(exc)
            raise MCPError(
                code=types.INVALID_PARAMS,
                message=f"Resource {uri!r} can no longer be read ({reason}); run the tool again",
            ) from None
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type=MIME_TYPE, text=text)]
        )


def _read_bytes(path: Path) -> bytes:
    """A spill file's bytes. Spill files are codesift's own output, outside the workspace
    (so not read through its sandbox); a symlink put in a spill file's place is refused."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as f:
        return f.read()


__all__ = ["URI_PREFIX", "SpillResources"]
