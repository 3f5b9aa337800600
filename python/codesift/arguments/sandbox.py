"""The workspace sandbox, lexical half: every path an operation receives is turned here into
one workspace-relative form, and a path that leaves the root by its text alone (`..`, an
absolute path elsewhere, a NUL byte) is refused. Symlinks are the engine's business: it opens
every path beneath its handle on the root (`openat2(RESOLVE_BENEATH)` or a component-by-component
equivalent), so no path can lead outside, whatever is swapped on disk meanwhile."""

from __future__ import annotations

import os
import posixpath

from ..errors import InvalidArgumentError, SandboxError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

PathArg = str | os.PathLike[str]


class Sandbox:
    """Turns user paths into workspace-relative ones for one root.

    `root` is the root's real path (as the engine opened it); `given` is the root as the
    caller wrote it, so that absolute paths spelled through a symlinked ancestor of the root
    (e.g. /tmp -> /private/tmp) are still recognised.
    """

    def __init__(self, root: str, given: PathArg | None = None) -> None:
        self._root_text = root
        self._root_path: Path | None = None
        self._roots = [os.fsencode(root)]
        if given is not None:
            spelled = os.fsencode(os.path.abspath(os.fspath(given)))
            if spelled not in self._roots:
                self._roots.append(spelled)

    @property
    def root(self) -> Path:
        """The root's real path. Made on first use: a search, which needs only its text,
        starts without importing `pathlib`."""
        if self._root_path is None:
            from pathlib import Path

            self._root_path = Path(self._root_text)
        return self._root_path

    def relative(self, path: PathArg = ".") -> str:
        """The workspace-relative POSIX form of `path` ("." for the root): relative to the
        root, or absolute inside it. `..` is resolved lexically and may not climb out."""
        raw = os.fsencode(path_text(path))
        if raw.startswith(b"/"):
            normalized = posixpath.normpath(raw)
            for root in self._roots:
                if normalized == root:
                    return "."
                if normalized.startswith(root.rstrip(b"/") + b"/"):
                    raw = normalized[len(root.rstrip(b"/")) + 1 :]
                    break
            else:
                raise self._outside(path)
        rel = posixpath.normpath(raw)
        if rel == b".." or rel.startswith(b"../"):
            raise self._outside(path)
        return os.fsdecode(rel)

    def display(self, rel: str) -> str:
        """How a workspace-relative path is shown: `./src/a.ts`, or `.` for the root."""
        return "." if rel in (".", "") else f"./{rel}"

    def _outside(self, path: PathArg) -> SandboxError:
        return SandboxError(
            f"{os.fspath(path)!r} is outside the workspace root {self.root}; use a path inside "
            "it (relative paths are resolved against the root)"
        )


def path_text(path: object, name: str = "path") -> str:
    """`path` as text, checked: a string or path-like, no NUL byte, encodable for the OS."""
    if not isinstance(path, str | os.PathLike):
        raise InvalidArgumentError(f"{name} must be a string, not {type(path).__name__}")
    text = os.fspath(path)
    if not isinstance(text, str):
        raise InvalidArgumentError(f"{name} must be text, not bytes")
    if "\x00" in text:
        raise SandboxError(f"{name} contains a NUL byte; pass a plain file path")
    try:
        os.fsencode(text)
    except UnicodeEncodeError:
        raise InvalidArgumentError(
            f"{name} contains characters that no file name can hold (a lone surrogate); pass "
            "the path as it was shown"
        ) from None
    if text.strip() == "":
        return "."
    return text
