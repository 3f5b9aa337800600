"""The remote root and search paths in it, checked lexically (the host's filesystem is not
reachable from here): a path that leaves the root is a `SandboxError`."""

from __future__ import annotations

import os
import posixpath

from ..errors import InvalidArgumentError, SandboxError


class RemoteRoot:
    """The directory searched on every host: absolute, `~/...`, or relative to the login
    directory. Search paths are given relative to it ("." for the root itself)."""

    def __init__(self, root: str) -> None:
        self.path = root.rstrip("/") or "/"

    def __str__(self) -> str:
        return self.path

    def start(self, path: object) -> str:
        """The search path relative to the root ("." for the root itself), checked lexically
        against the root: a path that leaves it is a `SandboxError`."""
        if isinstance(path, os.PathLike):
            path = os.fspath(path)
        if not isinstance(path, str):
            raise InvalidArgumentError(f"path must be a string, not {type(path).__name__}")
        if "\x00" in path:
            raise SandboxError("path must not contain a NUL byte")
        text = path.strip() or "."
        root = posixpath.normpath(self.path)
        if text.startswith("/"):
            if not root.startswith("/"):
                raise SandboxError(
                    f"{path} is absolute but the root {self.path} is not; give a path relative "
                    "to the root"
                )
            rel = posixpath.relpath(posixpath.normpath(text), root)
        else:
            rel = posixpath.normpath(text)
        if rel == ".." or rel.startswith("../"):
            raise SandboxError(
                f"{path} is outside the root {self.path}; search inside it (or use another root)"
            )
        return rel

    def relative_pattern(self, pattern: str) -> str:
        """A glob pattern written under an absolute root, made relative to it."""
        prefix = self.path.rstrip("/") + "/"
        if self.path.startswith("/") and pattern.startswith(prefix):
            return pattern[len(prefix) :]
        return pattern

    def display(self, start: str) -> str:
        """How results name the searched path: the root joined with `start`."""
        if start == ".":
            return self.path
        return posixpath.join(self.path, start)

    def is_system_root(self, start: str) -> bool:
        """Whether the search starts at `/` (where /proc, /sys and /dev are skipped)."""
        return posixpath.normpath(posixpath.join(self.path, start)) == "/"
