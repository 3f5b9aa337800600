"""Type stubs of the compiled core, `codesift._core`."""

from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Generic, SupportsIndex, TypeVar, final, overload

from typing_extensions import Self

__all__ = [
    "CancelToken",
    "Engine",
    "FileLock",
    "GlobMatch",
    "GrepMatch",
    "ResultList",
    "ResultIter",
    "GlobOutcome",
    "GrepOutcome",
    "GrepStream",
    "Listing",
    "GlobMatcher",
    "normalize_glob",
    "file_types",
    "CodesiftError",
    "SandboxError",
    "NotFoundError",
    "NotAFileError",
    "BinaryFileError",
    "PatternError",
    "MatchError",
    "StaleResultError",
    "ConflictError",
    "InvalidArgumentError",
    "CancelledError",
    "daemon_dir",
    "daemon_request",
    "daemon_serve",
    "daemon_spawn",
    "__version__",
]

__version__: str

class CodesiftError(Exception): ...
class SandboxError(CodesiftError): ...
class NotFoundError(CodesiftError): ...
class NotAFileError(CodesiftError): ...
class BinaryFileError(CodesiftError): ...
class PatternError(CodesiftError): ...
class MatchError(CodesiftError): ...
class StaleResultError(MatchError): ...
class ConflictError(CodesiftError): ...
class InvalidArgumentError(CodesiftError): ...
class CancelledError(CodesiftError): ...

@final
class CancelToken:
    def __new__(cls) -> Self: ...
    def cancel(self) -> None: ...
    @property
    def cancelled(self) -> bool: ...
    @property
    def files_walked(self) -> int: ...
    @property
    def files_searched(self) -> int: ...

_Item = TypeVar("_Item", "GlobMatch", "GrepMatch")

@final
class GlobMatch:
    @property
    def path(self) -> str: ...
    @property
    def mtime_ms(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def host(self) -> str | None: ...
    def __new__(cls, path: str, mtime_ms: int, size: int, host: str | None = None) -> Self: ...
    def to_dict(self) -> dict[str, object]: ...
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class GrepMatch:
    @property
    def id(self) -> str: ...
    @property
    def file(self) -> str: ...
    @property
    def line(self) -> int: ...
    @property
    def column(self) -> int: ...
    @property
    def end_line(self) -> int: ...
    @property
    def byte_offset(self) -> int: ...
    @property
    def content(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def before(self) -> list[str]: ...
    @property
    def after(self) -> list[str]: ...
    @property
    def host(self) -> str | None: ...
    @property
    def byte_length(self) -> int: ...
    @property
    def unique(self) -> bool: ...
    @property
    def file_size(self) -> int: ...
    @property
    def file_mtime_ns(self) -> int: ...
    @property
    def encoding(self) -> str: ...
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def __new__(
        cls,
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
        encoding: str = ...,
    ) -> Self: ...
    def to_dict(self) -> dict[str, object]: ...

@final
class ResultList(Sequence[_Item], Generic[_Item]):
    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, key: SupportsIndex, /) -> _Item: ...
    @overload
    def __getitem__(self, key: slice, /) -> list[_Item]: ...
    def __iter__(self) -> ResultIter[_Item]: ...
    def __eq__(self, value: object, /) -> bool: ...
    def __add__(self, other: Iterable[_Item], /) -> list[_Item]: ...
    def __radd__(self, other: Iterable[_Item], /) -> list[_Item]: ...

@final
class ResultIter(Iterator[_Item], Generic[_Item]):
    def __iter__(self) -> Self: ...
    def __next__(self) -> _Item: ...
    def __length_hint__(self) -> int: ...

@final
class GlobOutcome:
    files: ResultList[GlobMatch]
    total: int
    truncated: bool
    ignored: int
    errors: int
    search_path: str
    skipped: dict[str, tuple[int, list[str]]]

@final
class GrepOutcome:
    matches: ResultList[GrepMatch]
    first_id: int
    total: int
    truncated: bool
    timed_out: bool
    files_searched: int
    files_with_matches: int
    binary_files: int
    unreadable: int
    ignored: int
    search_path: str
    indexed: bool
    counts: list[int]
    skipped: dict[str, tuple[int, list[str]]]

@final
class GrepStream:
    def __iter__(self) -> Self: ...
    def __next__(self) -> tuple[int, ResultList[GrepMatch]]: ...
    def next_lines(
        self,
        show: Callable[[str], str | None],
        line_number: bool,
        column: bool,
        fd: int | None = None,
    ) -> bytes | bool | tuple[int, ResultList[GrepMatch]] | None: ...
    def close(self) -> None: ...
    @property
    def outcome(self) -> GrepOutcome | None: ...

@final
class Listing:
    entries: list[tuple[str, bool, bool]]
    total: int
    truncated: bool
    ignored: int
    path: str
    skipped: dict[str, tuple[int, list[str]]]

@final
class Engine:
    def __new__(
        cls,
        root: str | Path,
        *,
        gitignore: bool = True,
        access_files: list[str] = ...,
        hidden: bool = True,
        follow_symlinks: bool = False,
        max_filesize: int | None = None,
        threads: int | None = None,
        id_prefix: str = ...,
        index: str = "off",
        watch: bool = True,
        strict: bool = False,
        daemon: list[str] | None = None,
    ) -> Self: ...
    @property
    def root(self) -> str: ...
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
        types: list[str] = ...,
        types_not: list[str] = ...,
        hidden: bool | None = None,
        no_ignore: bool | None = None,
        cancel: CancelToken | None = None,
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
        max_matches: int | None = ...,
        count_total: bool = False,
        timeout: float | None = None,
        mode: str = "content",
        offset: int = 0,
        types: list[str] = ...,
        types_not: list[str] = ...,
        hidden: bool | None = None,
        no_ignore: bool | None = None,
        cancel: CancelToken | None = None,
    ) -> GrepOutcome: ...
    def grep_iter(
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
        max_matches: int | None = None,
        timeout: float | None = None,
        mode: str = "content",
        types: list[str] = ...,
        types_not: list[str] = ...,
        hidden: bool | None = None,
        no_ignore: bool | None = None,
        cancel: CancelToken | None = None,
    ) -> GrepStream: ...
    def list_dir(self, path: str | Path) -> tuple[list[tuple[str, bool]], int, str]: ...
    def list_tree(
        self,
        path: str | Path,
        *,
        depth: int | None = None,
        limit: int = 1000,
        hidden: bool | None = None,
        no_ignore: bool | None = None,
    ) -> Listing: ...
    def open_read(self, path: str | Path) -> tuple[int, str, int]: ...
    def lock(self, path: str | Path, max_bytes: int) -> FileLock: ...
    def create(self, path: str | Path, data: bytes, mode: int | None = None) -> FileLock: ...
    def check_create(self, path: str | Path) -> str: ...
    def write(self, path: str | Path, data: bytes) -> tuple[str, bool]: ...
    def real(self, path: str | Path) -> str | None: ...
    def exists(self, path: str | Path) -> bool: ...
    def index_build(
        self,
        progress: Callable[[int, int], object] | None = None,
        cancel: CancelToken | None = None,
    ) -> dict[str, int]: ...
    def index_status(self) -> dict[str, Any]: ...
    def index_drop(self) -> bool: ...

@final
class FileLock:
    @property
    def data(self) -> bytes: ...
    @property
    def real(self) -> str: ...
    @property
    def mode(self) -> int: ...
    def replace(self, data: bytes) -> None: ...
    def remove(self) -> None: ...
    def release(self) -> None: ...
    def __enter__(self) -> Self: ...
    def __exit__(self, *args: object) -> None: ...

@final
class GlobMatcher:
    def __new__(cls, patterns: list[str], case_sensitive: bool = True) -> Self: ...
    def is_match(self, rel_search: str, rel_root: str) -> bool: ...

def normalize_glob(pattern: str) -> str: ...
def file_types() -> list[tuple[str, list[str]]]: ...
def daemon_serve(idle: float) -> bool: ...
def daemon_request(request: str, timeout: float) -> tuple[str | None, str | None]: ...
def daemon_spawn(argv: list[str]) -> None: ...
def daemon_dir() -> str | None: ...
