"""Safe file access under the workspace root: what was opened is checked to be inside the
root *after* opening it (so a path swapped for a symlink between the sandbox check and the
open is caught), and files are replaced atomically (temp file + rename in the same
directory, opened through a verified directory handle), never left partial or empty."""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

from .errors import (
    BinaryFileError,
    CodesiftError,
    ConflictError,
    NotAFileError,
    NotFoundError,
    SandboxError,
)

READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _real_path_of(fd: int) -> Path | None:
    try:
        return Path(os.readlink(f"/proc/self/fd/{fd}"))
    except OSError:
        return None


def _check_inside(fd: int, root: Path, shown: str) -> None:
    real = _real_path_of(fd)
    if real is not None and real != root and root not in real.parents:
        raise SandboxError(
            f"{shown} was replaced by a link to outside the workspace while being opened; "
            "nothing was read or written"
        )


def open_regular(path: Path, root: Path, shown: str) -> tuple[int, os.stat_result]:
    """An open descriptor of the regular file `path` (a resolved path inside `root`)."""
    try:
        fd = os.open(path, READ_FLAGS)
    except FileNotFoundError:
        raise NotFoundError(
            f"{shown} does not exist; check the path with glob or list_dir"
        ) from None
    except IsADirectoryError:
        raise NotAFileError(f"{shown} is a directory; use list_dir to see what is in it") from None
    except OSError as exc:
        if exc.errno == 40:  # ELOOP: the last component became a symlink
            raise SandboxError(f"{shown} is now a symlink; resolve it again") from None
        raise CodesiftError(f"cannot open {shown}: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = _kind(info.st_mode)
            raise NotAFileError(
                f"{shown} is {kind}, not a regular file; only files can be read or edited"
            )
        _check_inside(fd, root, shown)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd, info


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_bytes(path: Path, root: Path, shown: str) -> tuple[bytes, os.stat_result]:
    fd, info = open_regular(path, root, shown)
    with os.fdopen(fd, "rb") as f:
        return f.read(), info


def atomic_write(
    path: Path,
    data: bytes,
    root: Path,
    shown: str,
    *,
    expected: bytes | None = None,
    mode: int | None = None,
) -> None:
    """Replaces (or creates) `path` with `data` atomically. With `expected`, the write only
    happens if the file still holds exactly those bytes; otherwise `ConflictError`."""
    dir_fd = os.open(path.parent, DIR_FLAGS)
    tmp_name = f".{path.name}.codesift-{secrets.token_hex(4)}.tmp"
    created = False
    try:
        _check_inside(dir_fd, root, shown)
        fd = os.open(
            tmp_name,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
            0o666,
            dir_fd=dir_fd,
        )
        created = True
        with os.fdopen(fd, "wb") as tmp:
            tmp.write(data)
            tmp.flush()
            if mode is not None:
                os.fchmod(tmp.fileno(), stat.S_IMODE(mode))
            os.fsync(tmp.fileno())
        if expected is not None:
            current = _read_at(dir_fd, path.name)
            if current != expected:
                raise ConflictError(
                    f"{shown} changed on disk since it was read; nothing was written. Read it "
                    "again and redo the edit"
                )
        os.rename(tmp_name, path.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        created = False
        with contextlib.suppress(OSError):
            os.fsync(dir_fd)
    finally:
        if created:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name, dir_fd=dir_fd)
        os.close(dir_fd)


def _read_at(dir_fd: int, name: str) -> bytes | None:
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        return f.read()


BINARY_SNIFF = 8192


class TextFile:
    """A file's bytes decoded for editing, and the way back to exactly the same bytes.

    UTF-8 is decoded with `surrogateescape`, so bytes that are not UTF-8 (a latin-1 file, a
    stray byte) survive untouched; a UTF-8 BOM is kept; UTF-16 with a BOM is decoded and
    re-encoded in the same byte order. Search hits address "view bytes": the file's bytes
    for UTF-8 files, the UTF-8 transcoding for UTF-16 ones.
    """

    def __init__(self, data: bytes, shown: str) -> None:
        self.data = data
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):
            self.codec = "utf-16-le" if data[0] == 0xFF else "utf-16-be"
            self.bom = data[:2]
            try:
                self.text = data[2:].decode(self.codec)
            except UnicodeDecodeError:
                raise BinaryFileError(
                    f"{shown} is not valid UTF-16; it cannot be edited as text"
                ) from None
            self.view_prefix = b""
        else:
            if b"\x00" in data[:BINARY_SNIFF] or (len(data) > BINARY_SNIFF and b"\x00" in data):
                raise BinaryFileError(
                    f"{shown} is a binary file (it contains NUL bytes); it cannot be read or "
                    "edited as text"
                )
            self.codec = "utf-8"
            self.bom = b"\xef\xbb\xbf" if data.startswith(b"\xef\xbb\xbf") else b""
            self.text = data[len(self.bom) :].decode("utf-8", "surrogateescape")
            self.view_prefix = self.bom

    def encode(self, text: str) -> bytes:
        if self.codec == "utf-8":
            return self.bom + text.encode("utf-8", "surrogateescape")
        return self.bom + text.encode(self.codec, "surrogatepass")

    def view(self, text: str | None = None) -> bytes:
        """The bytes search offsets refer to, for `text` (default: the file's text)."""
        body = self.text if text is None else text
        return self.view_prefix + body.encode("utf-8", "surrogateescape")

    def index_of_view_offset(self, offset: int) -> int:
        """The text index of view byte `offset`."""
        view = self.view()
        return len(view[len(self.view_prefix) : offset].decode("utf-8", "surrogateescape"))

    def view_offset_of_index(self, index: int, text: str | None = None) -> int:
        body = self.text if text is None else text
        return len(self.view_prefix) + len(body[:index].encode("utf-8", "surrogateescape"))
