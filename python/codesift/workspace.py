"""`Workspace`: the sandboxed entry point for searching (and, later, editing) one tree."""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from pathlib import Path

from . import _core
from .cache import ResultCache
from .errors import InvalidArgumentError, SandboxError
from .results import GlobResult, GrepResult
from .sandbox import PathArg, Sandbox

DEFAULT_ACCESS_FILES = (".clineignore", ".codesiftignore")
GLOB_SORTS = ("path", "mtime", "none")
ID_SALT_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"


class Workspace:
    """A directory tree to search, with its sandbox, ignore rules and result cache.

    Args:
        root: the workspace root; every path is resolved inside it.
        gitignore: honour `.gitignore`, `.ignore` and `.git/info/exclude` in searches.
        ignore_files: access-ignore file names: what they match is invisible to search and
            denied for read and edit.
        hidden: include hidden (dot) files.
        follow_symlinks: follow symlinks whose target stays inside the root.
        max_filesize: skip files larger than this many bytes.
        threads: worker threads (default: one per CPU).
        cache_size: search hits kept for `edit_result`.
    """

    def __init__(
        self,
        root: PathArg,
        *,
        gitignore: bool = True,
        ignore_files: Iterable[str] = DEFAULT_ACCESS_FILES,
        hidden: bool = True,
        follow_symlinks: bool = False,
        max_filesize: int | None = None,
        threads: int | None = None,
        cache_size: int = 100_000,
    ) -> None:
        self.sandbox = Sandbox(root)
        if isinstance(ignore_files, str):
            ignore_files = (ignore_files,)
        self.ignore_files = tuple(ignore_files)
        _check_optional_int("max_filesize", max_filesize, minimum=0)
        _check_optional_int("threads", threads, minimum=1)
        _check_optional_int("cache_size", cache_size, minimum=1)
        # A random salt per workspace: an id from another workspace (or an earlier run of
        # the same server) is unknown here instead of naming some other hit.
        salt = "".join(secrets.choice(ID_SALT_ALPHABET) for _ in range(3))
        self._engine = _core.Engine(
            str(self.sandbox.root),
            gitignore=bool(gitignore),
            access_files=list(self.ignore_files),
            hidden=bool(hidden),
            follow_symlinks=bool(follow_symlinks),
            max_filesize=max_filesize,
            threads=threads,
            id_prefix=f"sr_{salt}",
        )
        self.cache = ResultCache(self._engine.id_prefix, capacity=cache_size)

    @property
    def root(self) -> Path:
        return self.sandbox.root

    def __repr__(self) -> str:
        return f"Workspace({str(self.root)!r})"

    # -- search -------------------------------------------------------------------------

    def glob(
        self,
        pattern: str,
        path: PathArg = ".",
        *,
        limit: int = 2000,
        sort: str = "path",
        case_sensitive: bool = True,
    ) -> GlobResult:
        """Files matching `pattern` under `path`, files only (see README for the rules)."""
        _check_text("pattern", pattern)
        _check_optional_int("limit", limit, minimum=0, required=True)
        if sort not in GLOB_SORTS:
            raise InvalidArgumentError(f'sort must be one of "path", "mtime", "none", not {sort!r}')
        target = self._search_target(path)
        outcome = self._engine.glob(
            str(target),
            _strip_root(pattern, self.root),
            case_sensitive=bool(case_sensitive),
            limit=limit,
            sort=sort,
        )
        return GlobResult(
            files=outcome.files,
            total=outcome.total,
            truncated=outcome.truncated,
            ignored=outcome.ignored,
            pattern=pattern,
            path=self.sandbox.display(target),
            sort=sort,
            limit=limit,
            unreadable=outcome.errors,
        )

    def grep(
        self,
        pattern: str,
        path: PathArg = ".",
        *,
        include: str | Iterable[str] | None = None,
        exclude: str | Iterable[str] | None = None,
        literal: bool = False,
        case_sensitive: bool = False,
        multiline: bool | None = None,
        context_lines: int = 0,
        before: int | None = None,
        after: int | None = None,
        max_matches: int | None = 500,
        count_total: bool = False,
        timeout: float | None = None,
    ) -> GrepResult:
        """Every match of `pattern` under `path`, one hit per match, ordered by path, line
        and column; each hit's `id` can be passed to `edit_result`."""
        _check_text("pattern", pattern, allow_empty=True)
        _check_optional_int("context_lines", context_lines, minimum=0, required=True)
        _check_optional_int("before", before, minimum=0)
        _check_optional_int("after", after, minimum=0)
        _check_optional_int("max_matches", max_matches, minimum=1)
        if timeout is not None and (
            isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0
        ):
            raise InvalidArgumentError(
                f"timeout must be a positive number of seconds, not {timeout!r}"
            )
        includes = _glob_list("include", include)
        excludes = _glob_list("exclude", exclude)
        target = self._search_target(path)
        outcome = self._engine.grep(
            str(target),
            pattern,
            literal=bool(literal),
            case_sensitive=bool(case_sensitive),
            multiline=None if multiline is None else bool(multiline),
            before=context_lines if before is None else before,
            after=context_lines if after is None else after,
            include=includes,
            exclude=excludes,
            max_matches=max_matches,
            count_total=bool(count_total),
            timeout=None if timeout is None else float(timeout),
        )
        matches = outcome.matches
        self.cache.add_batch(outcome.first_id, matches)
        return GrepResult(
            matches=matches,
            total=outcome.total,
            truncated=outcome.truncated,
            pattern=pattern,
            path=self.sandbox.display(target),
            literal=bool(literal),
            include=includes,
            exclude=excludes,
            max_matches=max_matches,
            files_searched=outcome.files_searched,
            files_with_matches=outcome.files_with_matches,
            binary_files=outcome.binary_files,
            unreadable=outcome.unreadable,
            ignored=outcome.ignored,
            timed_out=outcome.timed_out,
            timeout=timeout,
        )

    # -- helpers ------------------------------------------------------------------------

    def _search_target(self, path: PathArg) -> Path:
        target = self.sandbox.resolve(path)
        if self._engine.verdict(str(target), target.is_dir()) == "denied":
            raise SandboxError(
                f"{self.sandbox.display(target)} is denied by an access-ignore file "
                f"({', '.join(self.ignore_files)}); search elsewhere"
            )
        return target


def _strip_root(pattern: str, root: Path) -> str:
    """An absolute pattern inside the root, made relative to it."""
    root_text = str(root).rstrip("/") + "/"
    return pattern[len(root_text) :] if pattern.startswith(root_text) else pattern


def _check_text(name: str, value: object, *, allow_empty: bool = False) -> None:
    if not isinstance(value, str):
        raise InvalidArgumentError(f"{name} must be a string, not {type(value).__name__}")
    if not allow_empty and not value:
        raise InvalidArgumentError(f"{name} must not be empty")
    if "\x00" in value:
        raise InvalidArgumentError(f"{name} must not contain a NUL byte")


def _check_optional_int(name: str, value: object, *, minimum: int, required: bool = False) -> None:
    if value is None and not required:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgumentError(f"{name} must be an integer, not {value!r}")
    if value < minimum:
        raise InvalidArgumentError(f"{name} must be at least {minimum}, not {value}")


def _glob_list(name: str, value: str | Iterable[str] | None) -> list[str]:
    """Glob filters as a list; a string may hold several, separated by commas outside braces
    (`"*.ts,*.tsx"` = `["*.ts", "*.tsx"]`, `"*.{ts,tsx}"` stays whole)."""
    if value is None:
        return []
    items = [value] if isinstance(value, str) else list(value)
    globs: list[str] = []
    for item in items:
        if not isinstance(item, str):
            raise InvalidArgumentError(f"{name} must be a glob or a list of globs, not {item!r}")
        globs.extend(part for part in _split_top_level(item) if part)
    return globs


def _split_top_level(text: str) -> list[str]:
    parts, depth, current = [], 0, []
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        if ch == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    parts.append("".join(current).strip())
    return parts


__all__ = ["Workspace"]
