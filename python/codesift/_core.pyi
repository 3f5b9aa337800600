"""Type stubs of the compiled core, `codesift._core`."""

from pathlib import Path

__version__: str

class CodesiftError(Exception): ...
class SandboxError(CodesiftError): ...
class NotFoundError(CodesiftError): ...
class NotAFileError(CodesiftError): ...
class BinaryFileError(CodesiftError): ...
class PatternError(CodesiftError): ...
class MatchError(CodesiftError): ...
class StaleResultError(MatchError): ...
class InvalidArgumentError(CodesiftError): ...

class GlobMatch:
    path: str
    mtime_ms: int
    size: int
    host: str | None
    def __init__(self, path: str, mtime_ms: int, size: int, host: str | None = None) -> None: ...
    def to_dict(self) -> dict[str, object]: ...

class GrepMatch:
    id: str
    file: str
    line: int
    column: int
    end_line: int
    byte_offset: int
    content: str
    text: str
    before: list[str]
    after: list[str]
    host: str | None
    byte_length: int
    unique: bool
    file_size: int
    file_mtime_ns: int
    encoding: str
    def __init__(
        self,
        id: str,
        file: str,
        line: int,
        column: int,
        end_line: int,
        byte_offset: int,
        content: str,
        text: str,
        before: list[str] = ...,
        after: list[str] = ...,
        host: str | None = None,
        byte_length: int | None = None,
        unique: bool = False,
        file_size: int = 0,
        file_mtime_ns: int = 0,
        encoding: str = "utf-8",
    ) -> None: ...
    def to_dict(self) -> dict[str, object]: ...

class GlobOutcome:
    files: list[GlobMatch]
    total: int
    truncated: bool
    ignored: int
    errors: int

class GrepOutcome:
    matches: list[GrepMatch]
    first_id: int
    total: int
    truncated: bool
    timed_out: bool
    files_searched: int
    files_with_matches: int
    binary_files: int
    unreadable: int
    ignored: int

class Engine:
    def __init__(
        self,
        root: str | Path,
        *,
        gitignore: bool = True,
        access_files: list[str] = ...,
        hidden: bool = True,
        follow_symlinks: bool = False,
        max_filesize: int | None = None,
        threads: int | None = None,
        id_prefix: str = "sr_",
    ) -> None: ...
    @property
    def root(self) -> Path: ...
    @property
    def id_prefix(self) -> str: ...
    def glob(
        self,
        search_path: str | Path,
        pattern: str,
        *,
        case_sensitive: bool = True,
        limit: int = 2000,
        sort: str = "path",
    ) -> GlobOutcome: ...
    def grep(
        self,
        search_path: str | Path,
        pattern: str,
        *,
        literal: bool = False,
        case_sensitive: bool = False,
        multiline: bool | None = None,
        before: int = 0,
        after: int = 0,
        include: list[str] = ...,
        exclude: list[str] = ...,
        max_matches: int | None = 500,
        count_total: bool = False,
        timeout: float | None = None,
    ) -> GrepOutcome: ...
    def verdict(self, path: str | Path, is_dir: bool = False) -> str: ...
