"""`codesift shim`: a private directory holding `rg`, a link to the installed `codesift-rg`, to
put first on PATH so that agents and shells running `rg` get codesift-rg.

The directory is `$XDG_DATA_HOME/codesift/shim` (else `~/.local/share/codesift/shim`). Its
two last components are codesift's: each is created `0700` and opened with
`O_NOFOLLOW | O_DIRECTORY`, then checked through that descriptor to be a directory owned by
this user (a looser mode of one's own is tightened), so a planted symlink or another user's
directory is refused, never followed; the links are made through that descriptor too.

Beside `rg` it keeps `.real-rg`, a link to the `ripgrep` package's `rg` of this Python
environment when there is one: codesift-rg hands an argv it does not serve to the real rg
(`CODESIFT_REAL_RG`, else PATH, else that record, else the `rg` beside the environment that
holds codesift-rg), and an editable install's codesift-rg lives in the source tree, where it
cannot find the environment by itself.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from ..errors import CodesiftError

BINARY_NAME = "codesift-rg"
#: codesift-rg reads this name beside the link it ran through (rust/rg/fallback.rs).
RECORD = ".real-rg"
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class ShimError(CodesiftError):
    """The shim cannot be made; the message says why and what to do."""


@dataclass(frozen=True)
class Shim:
    path: Path  # the directory to put first on PATH
    binary: Path  # what its `rg` links to
    real_rg: Path | None  # what its `.real-rg` links to (the fallback of last resort)
    # What `rg` linked to before, when this call re-pointed it (another installation's
    # codesift-rg, say); None when it was already `binary` or there was none.
    previous_binary: str | None = None


def installed_binary() -> Path:
    """Where `pip install` puts codesift-rg: the package's `bin/` (in the source tree for an
    editable install)."""
    return Path(__file__).resolve().parent.parent / "bin" / BINARY_NAME


def environment_rg() -> Path | None:
    """The real rg of this Python environment: the `rg` in its scripts directory, else the
    one the installed `ripgrep` distribution lists among its files (a virtual environment made
    with `--system-site-packages` that found `ripgrep` already installed in the base
    interpreter has no `rg` of its own); an executable, not a link to a codesift-rg."""
    scripts = sysconfig.get_path("scripts")
    candidates = [Path(scripts) / "rg"] if scripts else []
    candidates.extend(_distribution_rgs())
    for rg in candidates:
        if rg.is_file() and os.access(rg, os.X_OK) and rg.resolve().name != BINARY_NAME:
            return rg.absolute()
    return None


def _distribution_rgs() -> list[Path]:
    """The `rg` executables the installed `ripgrep` distribution lists, where they are."""
    from importlib import metadata

    try:
        files = metadata.distribution("ripgrep").files or []
    except metadata.PackageNotFoundError:
        return []
    return [Path(str(file.locate())) for file in files if file.name == "rg"]


def shim_dir() -> Path:
    """`$XDG_DATA_HOME/codesift/shim`, else `~/.local/share/codesift/shim` (a relative
    `XDG_DATA_HOME` is ignored, as the XDG specification says)."""
    data = os.environ.get("XDG_DATA_HOME", "")
    if data and os.path.isabs(data):
        base = Path(data)
    else:
        try:
            base = Path.home() / ".local" / "share"
        except RuntimeError:
            raise ShimError(
                "cannot tell where your home directory is: set HOME or XDG_DATA_HOME"
            ) from None
    return base / "codesift" / "shim"


def make_shim() -> Shim:
    """Creates or refreshes the shim (idempotent) and returns what it holds."""
    binary = installed_binary()
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        raise ShimError(
            f"codesift-rg is not installed with this codesift ({binary} is missing): it is "
            "built when the package is installed from source with a Rust toolchain present; "
            "run `pip install .` (or `pip install -e .`) in a codesift checkout with `cargo` "
            "on PATH, then run `codesift shim` again"
        )
    directory = shim_dir()
    base = directory.parent.parent
    try:
        base.mkdir(parents=True, exist_ok=True)
        base_fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise ShimError(
            f"cannot create {base}: {exc.strerror}; set XDG_DATA_HOME to a directory you own"
        ) from None
    fds = [base_fd]
    try:
        parent = base
        for name in (directory.parent.name, directory.name):
            fds.append(_private_dir(fds[-1], parent / name, name))
            parent = parent / name
        shim_fd = fds[-1]
        previous = _link(shim_fd, directory, "rg", str(binary))
        real_rg = environment_rg()
        if real_rg is None:
            _remove(shim_fd, directory, RECORD)
        else:
            _link(shim_fd, directory, RECORD, str(real_rg))
    finally:
        for fd in fds:
            os.close(fd)
    return Shim(directory, binary, real_rg, previous)


def _private_dir(parent_fd: int, path: Path, name: str) -> int:
    """A descriptor of `name` under `parent_fd`, made 0700 when missing, refused when it is a
    symlink, not a directory, or not this user's."""
    try:
        os.mkdir(name, 0o700, dir_fd=parent_fd)
    except FileExistsError:
        pass
    except OSError as exc:
        raise ShimError(f"cannot create {path}: {exc.strerror}") from None
    try:
        fd = os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise ShimError(
                f"{path} is a symlink or not a directory, so it is not used: remove it and "
                "run `codesift shim` again"
            ) from None
        raise ShimError(f"cannot open {path}: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISDIR(info.st_mode):
            raise ShimError(f"{path} is not a directory: remove it and run `codesift shim` again")
        if info.st_uid != os.geteuid():
            raise ShimError(
                f"{path} belongs to another user (uid {info.st_uid}), so it is not used: "
                "remove it, or set XDG_DATA_HOME to a directory of your own"
            )
        if stat.S_IMODE(info.st_mode) != 0o700:
            os.fchmod(fd, 0o700)
        return fd
    except BaseException:
        os.close(fd)
        raise


def _link(dir_fd: int, directory: Path, name: str, target: str) -> str | None:
    """Makes `name` a symlink to `target`, replacing whatever link or file had that name in
    one rename (a concurrent `rg` sees the old link or the new one, never none). Returns
    what the link it replaced pointed to (None when there was no link, or it was right)."""
    previous: str | None = None
    try:
        previous = os.readlink(name, dir_fd=dir_fd)
        if previous == target:
            return None
    except OSError:
        pass
    temporary = f".{name}.{secrets.token_hex(6)}"
    try:
        os.symlink(target, temporary, dir_fd=dir_fd)
        os.replace(temporary, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        return previous
    except OSError as exc:
        try:
            os.unlink(temporary, dir_fd=dir_fd)
        except OSError:
            pass
        raise ShimError(
            f"cannot make {directory / name}: {exc.strerror}; remove it and run "
            "`codesift shim` again"
        ) from None


def _remove(dir_fd: int, directory: Path, name: str) -> None:
    try:
        os.unlink(name, dir_fd=dir_fd)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise ShimError(f"cannot remove {directory / name}: {exc.strerror}") from None
