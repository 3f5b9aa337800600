"""The spill directory: where the whole text of a tool result cut to a preview is saved.

Everything in it is treated as hostile, since other users and processes may plant things
there. The directory is private: made `0700` (a fresh `mkdtemp` by default), and on every
open it is opened with `O_NOFOLLOW | O_DIRECTORY` and checked with `fstat` to be a
directory owned by this user with no group or other access, and to be the same directory as
at first use. One that fails any check is not used (nothing is saved, and the preview says
why). Files are created through that descriptor with `O_CREAT | O_EXCL | O_NOFOLLOW`, mode
`0600`, under random names, so a planted symlink or file is never written through.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import stat
import tempfile
import threading
from pathlib import Path

from ..arguments.sandbox import PathArg

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]+")


class SpillError(Exception):
    """The spill directory cannot be used; the message says why and what to do."""


class SpillDir:
    """A private spill directory: `spill_dir` (made when missing), or a fresh temporary one
    made on first use."""

    def __init__(self, spill_dir: PathArg | None = None) -> None:
        self._given = Path(spill_dir) if spill_dir is not None else None
        self._path: Path | None = None
        self._identity: tuple[int, int] | None = None
        self._lock = threading.Lock()

    @property
    def path(self) -> Path | None:
        """The directory (absolute; its last component not resolved), once in use."""
        return self._path

    def write(self, tool: str, text: str) -> Path:
        """Saves `text` to a new file; returns its path. Raises `SpillError`."""
        fd = self.open(create=True)
        try:
            prefix = _UNSAFE_NAME.sub("_", tool)[:60] or "output"
            for _ in range(100):
                name = f"{prefix}-{secrets.token_hex(8)}.txt"
                try:
                    out = os.open(name, _FILE_FLAGS, 0o600, dir_fd=fd)
                except FileExistsError:
                    continue
                except OSError as exc:
                    raise SpillError(
                        f"cannot create a file in {self._path}: {exc.strerror}"
                    ) from None
                try:
                    with os.fdopen(out, "wb") as f:
                        f.write(text.encode("utf-8"))
                except OSError as exc:  # a disk full: no partial file is left behind
                    os.unlink(name, dir_fd=fd)
                    raise SpillError(f"cannot write to {self._path}: {exc.strerror}") from None
                assert self._path is not None
                return self._path / name
            raise SpillError(f"no free file name in {self._path}")
        finally:
            os.close(fd)

    def read(self, path: Path) -> bytes:
        """The bytes of a spill file this directory holds, opened through the checked
        directory's descriptor (never following a link, never blocking on a FIFO) and only
        when it is a regular file of ours. Raises `SpillError` (or `OSError` when it is gone)."""
        if self._path is None or path.parent != self._path:
            raise SpillError(f"{path} is not in this spill directory")
        fd = self.open(create=False)
        try:
            flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
            file = os.open(path.name, flags, dir_fd=fd)
        finally:
            os.close(fd)
        with os.fdopen(file, "rb") as f:
            info = os.fstat(f.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid():
                raise SpillError(f"{path} is not a regular file of this user")
            return f.read()

    def check(self) -> bool:
        """Whether the directory is in use and still private (see the module docs)."""
        try:
            os.close(self.open(create=False))
            return True
        except SpillError:
            return False

    def open(self, *, create: bool) -> int:
        """A descriptor of the checked directory (the caller closes it)."""
        with self._lock:
            if self._path is None:
                if not create:
                    raise SpillError("no output has been saved yet")
                self._path = self._make()
            path = self._path
            try:
                fd = os.open(path, _DIR_FLAGS)
            except OSError as exc:
                raise SpillError(_open_problem(path, exc)) from None
            try:
                info = os.fstat(fd)
                problem = _problem(path, info)
                identity = (info.st_dev, info.st_ino)
                if problem is None and self._identity not in (None, identity):
                    problem = f"{path} was replaced by another directory since first use"
                if problem is not None:
                    raise SpillError(problem)
                self._identity = identity
                return fd
            except BaseException:
                os.close(fd)
                raise

    def _make(self) -> Path:
        if self._given is None:
            # mkdtemp: a new directory, 0700, under a random name.
            made = Path(tempfile.mkdtemp(prefix="codesift-spill-"))
            return made.parent.resolve() / made.name
        given = self._given.expanduser().absolute()
        # The parents are the caller's choice; only the directory itself is codesift's.
        parent = given.parent.resolve()
        try:
            parent.mkdir(parents=True, exist_ok=True)
            os.mkdir(parent / given.name, 0o700)
        except FileExistsError:
            pass  # checked on open like any directory codesift did not make this instant
        except OSError:
            pass  # the open that follows reports it
        return parent / given.name


def _open_problem(path: Path, exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        return f"{path} does not exist (make it with mkdir -m 700, or pass another spill dir)"
    if exc.errno in (errno.ELOOP, errno.ENOTDIR) or os.path.islink(path):
        return f"{path} is a symlink or not a directory; pass a real directory as the spill dir"
    return f"cannot open {path}: {exc.strerror}"


def _problem(path: Path, info: os.stat_result) -> str | None:
    if not stat.S_ISDIR(info.st_mode):
        return f"{path} is not a directory"
    me = os.geteuid()
    if info.st_uid != me:
        return (
            f"{path} is owned by uid {info.st_uid}, not by this user ({me}); pass a spill dir "
            "of your own"
        )
    if info.st_mode & 0o077:
        return (
            f"{path} is open to other users (mode {stat.S_IMODE(info.st_mode):o}); run chmod 700 "
            "on it, or pass another spill dir"
        )
    return None


__all__ = ["SpillDir", "SpillError"]
