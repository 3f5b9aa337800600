"""The workspace sandbox: every path an operation receives is resolved here, and nothing that
resolves outside the workspace root (by `..`, an absolute path, or a symlink anywhere along
it) gets through."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from .errors import InvalidArgumentError, NotFoundError, SandboxError

PathArg = str | os.PathLike[str]


class Sandbox:
    """Resolves user paths against one workspace root."""

    def __init__(self, root: PathArg) -> None:
        try:
            real = Path(os.fspath(root)).expanduser().resolve(strict=True)
        except (FileNotFoundError, NotADirectoryError):
            raise NotFoundError(
                f"workspace root {os.fspath(root)!r} does not exist; create it or pass an "
                "existing directory"
            ) from None
        except (OSError, RuntimeError) as exc:
            raise SandboxError(
                f"workspace root {os.fspath(root)!r} cannot be resolved: {exc}"
            ) from None
        if not real.is_dir():
            raise InvalidArgumentError(
                f"workspace root {os.fspath(root)!r} is not a directory; pass a directory"
            )
        self.root = real
        # The root as the caller wrote it, so absolute paths spelled through a symlinked
        # ancestor of the root (e.g. /tmp -> /private/tmp) are still recognised.
        self._given_root = Path(os.path.abspath(os.fspath(root)))

    def resolve(self, path: PathArg = ".", *, must_exist: bool = True) -> Path:
        """The real absolute path of `path` (relative to the root, or absolute inside it).

        Raises `SandboxError` for a path that leaves the root and `NotFoundError` for a
        missing one (unless `must_exist` is false: a new file is checked through its deepest
        existing parent).
        """
        text = _path_text(path)
        candidate = Path(text)
        if not candidate.is_absolute():
            candidate = self.root / candidate
        # The lexical check catches `..` escapes even where the target does not exist.
        lexical = Path(os.path.normpath(candidate))
        if not _inside(lexical, self.root) and _inside(lexical, self._given_root):
            lexical = self.root / lexical.relative_to(self._given_root)
        if not _inside(lexical, self.root):
            raise self._outside(text)
        existing = lexical
        while not os.path.lexists(existing):
            if existing == existing.parent:
                break
            existing = existing.parent
        try:
            real_existing = existing.resolve(strict=True)
        except (OSError, RuntimeError) as exc:
            raise SandboxError(f"{text!r} cannot be resolved ({exc}); check the path") from None
        if not _inside(real_existing, self.root):
            raise SandboxError(
                f"{text!r} leads outside the workspace through a symlink; "
                "only paths inside the workspace root can be used"
            )
        if existing != lexical:
            if must_exist:
                raise NotFoundError(
                    f"{self.display(lexical)} does not exist; check the path with glob or list_dir"
                )
            return real_existing / lexical.relative_to(existing)
        return real_existing

    def relative(self, path: Path) -> str:
        """The workspace-relative POSIX form of an absolute path inside the root ("." for it)."""
        rel = path.relative_to(self.root)
        return PurePosixPath(*rel.parts).as_posix() if rel.parts else "."

    def display(self, path: Path) -> str:
        """How a path is shown to a user or an LLM: `./src/a.ts`, or `.` for the root."""
        try:
            rel = self.relative(path)
        except ValueError:
            return str(path)
        return "." if rel == "." else f"./{rel}"

    def _outside(self, text: str) -> SandboxError:
        return SandboxError(
            f"{text!r} is outside the workspace root {self.root}; use a path inside it "
            "(relative paths are resolved against the root)"
        )


def _path_text(path: PathArg) -> str:
    if not isinstance(path, str | os.PathLike):
        raise InvalidArgumentError(f"path must be a string, not {type(path).__name__}")
    text = os.fspath(path)
    if not isinstance(text, str):
        raise InvalidArgumentError("path must be text, not bytes")
    if "\x00" in text:
        raise SandboxError("path contains a NUL byte; pass a plain file path")
    if text.strip() == "":
        return "."
    return text


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents
