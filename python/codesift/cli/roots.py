"""The workspace root of a command-line path, as `rg PATTERN DIR` would treat it: the path's
enclosing repository (the nearest ancestor holding `.git`), else the path itself (a file's
directory for a file). And how a result path is shown back the way the user wrote the path
(`rg` prints `/abs/dir/x.py` for `/abs/dir`, `src/x.py` for `src`, `x.py` for no path)."""

from __future__ import annotations

import os
import posixpath
import re

from ..arguments.sandbox import path_text
from ..errors import NotFoundError

# `file:START-END` (or `file:LINE`) as `codesift read` accepts it.
# Compiled on first use (by `re`'s cache), not at every command's start.
LINE_RANGE = r"^(?P<path>.+?)(?P<range>:\d+(?:-\d+)?)$"


class RootedPath:
    """A command-line path resolved against the root it implies.

    `root` is an absolute real directory; `path` is the given path relative to it ("." for
    the root itself, with a `read` line range kept); `given` is the path as the user wrote it
    (None when no path was given: the current directory)."""

    # A plain class, not a dataclass: every command makes one, and defining a dataclass
    # (and importing `dataclasses`, with `inspect`) is a cost that start-up pays.
    __slots__ = ("root", "path", "given", "is_file", "cwd")

    def __init__(
        self, root: str, path: str, given: str | None, is_file: bool = False, cwd: str = ""
    ) -> None:
        self.root, self.path, self.given, self.is_file, self.cwd = root, path, given, is_file, cwd

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"RootedPath({fields})"

    def show(self, result_path: str) -> str:
        """A root-relative result path as `rg` prints it: below the given path as it was
        written (`/abs/dir/x.py`, `./src/x.py`), or relative to the current directory when
        no path was given."""
        if self.given is None:
            if self.cwd == self.root:
                return result_path
            return os.path.relpath(posixpath.join(self.root, result_path), self.cwd)
        if self.is_file:
            return self.given
        below = result_path if self.path == "." else posixpath.relpath(result_path, self.path)
        if below == ".":
            return self.given
        return self.given + below if self.given.endswith("/") else f"{self.given}/{below}"


def enclosing_repository(directory: str) -> str | None:
    """The nearest directory, from `directory` up, that holds `.git` (a directory, or the
    file of a worktree or submodule)."""
    current = directory
    while True:
        if os.path.lexists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def root_of(given: str | None, *, line_range: bool = False) -> RootedPath:
    """The root implied by a command-line path (the current directory when None).

    Symlinks in the path are resolved first, so that a path through a link finds the
    repository of what it names (and the sandbox never sees a link leaving the root). A
    missing path is a `NotFoundError` naming it as written. With `line_range`, a trailing
    `:START-END` of a path that does not exist as written is kept out of the lookup (as
    `read` parses it)."""
    try:
        return _root_of(given, line_range)
    except FileNotFoundError:  # the current directory was removed
        raise NotFoundError(
            "the current directory no longer exists; cd into a directory or pass --root"
        ) from None


def _root_of(given: str | None, line_range: bool) -> RootedPath:
    text = "." if given is None else path_text(given)
    suffix = ""
    if line_range and not os.path.lexists(text):
        m = re.match(LINE_RANGE, text)
        if m:
            text, suffix = m["path"], m["range"]
    if not os.path.lexists(text):
        raise NotFoundError(
            f"{given} does not exist; check the path (relative paths are relative to the "
            "current directory unless --root is given)"
        )
    target = os.path.realpath(text)
    is_dir = os.path.isdir(target)
    directory = target if is_dir else os.path.dirname(target)
    while not os.path.isdir(directory):  # a dangling link: its nearest existing ancestor
        directory = os.path.dirname(directory)
    root = enclosing_repository(directory) or directory
    rel = os.path.relpath(target, root)
    is_file = os.path.exists(target) and not is_dir
    return RootedPath(
        root=root,
        path=rel.replace(os.sep, "/") + suffix,
        given=given,
        is_file=is_file,
        cwd=os.path.realpath(os.getcwd()),
    )
