"""`Workspace`: the sandboxed entry point for searching, reading and editing one tree (its
edits go through `codesift.edits.Editor`)."""

from __future__ import annotations

import os
from _thread import allocate_lock
from collections.abc import Callable, Iterable, Mapping, Sequence

from . import _core
from .arguments import (
    MAX_COUNT,
    check_flag,
    check_ignore_files,
    check_int,
    check_names,
    check_unicode,
    glob_request,
    grep_request,
)
from .arguments.options import GLOB_FILTERS, GLOB_OPTIONS, GREP_OPTIONS, GREP_STREAM_OPTIONS
from .arguments.sandbox import PathArg, Sandbox, path_text
from .control.current import current_token
from .errors import InvalidArgumentError
from .results.streams import GlobIter, GrepIter

# The edit machinery and the results of reading and editing are imported on first use: a
# search needs none of them. Nor does a streamed search need the results of glob and grep
# (dataclasses, whose import brings `inspect`), `pathlib` or `typing`: a piped `codesift
# grep` reads the engine's figures as they are.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Literal, TypeVar, Unpack, overload

    T = TypeVar("T")

    from .arguments.options import GlobFilters, GlobOptions, GrepOptions, GrepStreamOptions
    from .edits import Editor
    from .edits.history import EditHistory
    from .results.cache import HitState, LiveSearches, ResultCache
    from .results.files import (
        EditResult,
        FileLine,
        FileLines,
        ListResult,
        PatchResult,
        ReadResult,
        UndoResult,
        WriteResult,
    )
    from .results.matches import GlobResult, GrepResult
    from .results.ranked import SearchResult

DEFAULT_ACCESS_FILES = (".clineignore", ".codesiftignore")
# Compiled on first use (by `re`'s cache), not at every search's start.
LINE_RANGE = r"^(?P<path>.+?):(?P<start>\d+)(?:-(?P<end>\d+))?$"
ID_SALT_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"


def _made_once(name: str, lock: str, make: Callable[..., T], *first: str) -> T:
    """The `Workspace` property `name`, made on first use, once: `make(workspace, *parts)`
    under the workspace's lock named `lock`, where `parts` are its attributes named in `first`,
    read before that lock is taken (they may be made under the same lock). Setting the
    property puts another in its place; its doc is `make`'s. Type checkers see the value
    (`T`) in the property's place, as they would see a plain attribute."""
    slot = f"_{name}"  # where the workspace keeps it (`vars(workspace)[slot]`)

    def get(workspace: Workspace) -> object:
        made = vars(workspace).get(slot)
        if made is None:
            parts = [getattr(workspace, part) for part in first]
            with getattr(workspace, lock):
                made = vars(workspace).get(slot)
                if made is None:
                    made = vars(workspace)[slot] = make(workspace, *parts)
        return made

    def put(workspace: Workspace, made: object) -> None:
        vars(workspace)[slot] = made

    return property(get, put, doc=make.__doc__)  # type: ignore[return-value]


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
        index: use a persistent trigram index for grep: False (never), "auto" (when one
            was built for this root and these options), True (build it on first use).
            Results are exactly a scan's either way (see README, "Index").
        index_watch: keep an inotify watch so that indexed searches need not `stat` the
            whole tree (for long-lived workspaces; a one-shot search does not gain). Once the
            watch has seen many files change (256, or one in 32), a new index is built in the
            background and swapped in.
        strict: re-check every file's state (`stat`) before every indexed search instead of
            trusting the watch (for trees written by means inotify does not see: writes
            through a shared `mmap`, other machines on a network file system).
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
        index: bool | str = False,
        index_watch: bool = True,
        strict: bool = False,
    ) -> None:
        self.ignore_files = check_ignore_files(ignore_files)
        #: The walk options this workspace was opened with (read-only by convention): a tool
        #: that needs a sibling view of the same tree (e.g. without access-ignore files, to
        #: tell what each kind of rule hid) opens it with these.
        self.gitignore = bool(gitignore)
        self.hidden = bool(hidden)
        self.follow_symlinks = bool(follow_symlinks)
        self.max_filesize = max_filesize
        check_int("max_filesize", max_filesize, minimum=0)
        check_int("threads", threads, minimum=1)
        check_int("cache_size", cache_size, minimum=1)
        # A random salt per workspace: an id from another workspace (or an earlier run of
        # the same server) is unknown here instead of naming some other hit.
        salt = _random_text(3)
        given = os.path.abspath(os.path.expanduser(path_text(root, "root")))
        self._engine = _core.Engine(
            given,
            gitignore=bool(gitignore),
            access_files=list(self.ignore_files),
            hidden=bool(hidden),
            follow_symlinks=bool(follow_symlinks),
            max_filesize=max_filesize,
            threads=threads,
            id_prefix=f"sr_{salt}",
            index=_index_mode(index),
            watch=bool(index_watch),
            strict=bool(strict),
            # How to start the host's index daemon when none answers (see docs/daemon.md).
            daemon=_daemon_argv() if _index_mode(index) != "off" else None,
        )
        self.sandbox = Sandbox(self._engine.root, given)
        self._cache_size = cache_size
        # `cache` and `live` are made on first use, once (under this lock): a search that
        # keeps no hits (the CLI's) never imports them. `threading.Lock` itself, without
        # importing `threading` (a start-up cost).
        self._cache_lock = allocate_lock()
        # `history` and `editor` are made on first use, once (under this lock): a workspace
        # that only searches never imports the edit machinery.
        self._edit_lock = allocate_lock()

    # What the parts below are made by, on first use (`_made_once`): each doc is the part's.

    def _new_cache(self) -> ResultCache:
        """The hits of this workspace's searches, by id, for `edit_result` (bounded: the
        `cache_size` most recently used)."""
        from .results.cache import ResultCache

        return ResultCache(self._engine.id_prefix, capacity=self._cache_size)

    def _new_live(self) -> LiveSearches:
        """The searches `grep_page` keeps running between pages."""
        from .results.cache import LiveSearches

        return LiveSearches()

    def _new_history(self) -> EditHistory:
        """What codesift wrote through this Workspace, for `undo_edit` (bounded; see
        `codesift.edits.history`)."""
        from .edits.history import EditHistory

        return EditHistory()

    def _new_editor(self, history: EditHistory, cache: ResultCache) -> Editor:
        """Every write goes through the editor (lock, plan, commit, shift cached hits, record
        for undo); the methods below validate their arguments and call it."""
        from .edits import Editor

        return Editor(self._engine, self.sandbox, cache, history)

    cache: ResultCache = _made_once("cache", "_cache_lock", _new_cache)
    live: LiveSearches = _made_once("live", "_cache_lock", _new_live)
    history: EditHistory = _made_once("history", "_edit_lock", _new_history)
    # The editor's parts are read first: `history` takes the same lock.
    editor: Editor = _made_once("editor", "_edit_lock", _new_editor, "history", "cache")

    @property
    def _engine(self) -> _core.Engine:
        return self._core_engine

    @_engine.setter
    def _engine(self, engine: _core.Engine) -> None:
        # The editor writes through the same engine (tests put a failing one in its place).
        self._core_engine = engine
        if "_editor" in vars(self):
            self.editor.engine = engine

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
        cancel: _core.CancelToken | None = None,
        **options: Unpack[GlobOptions],
    ) -> GlobResult:
        """Files matching `pattern` under `path`, files only (see README for the rules; the
        options and their defaults: `codesift.arguments.GlobOptions`).

        `type`/`type_not` keep files of (or not of) ripgrep file types (`py`, `rust`, ...);
        `no_ignore` and `hidden` override the workspace's options for this call (a call that
        overrides them scans: the index holds the workspace's view).

        `cancel`: a `CancelToken` whose `cancel()` (from another thread) stops the walk; the
        call then raises `CancelledError`. Default: the token of the current `CallControl`
        (see `codesift.control.call`), if any."""
        check_names("Workspace.glob", options, GLOB_OPTIONS)
        request = self._glob_request(pattern, path, options)
        outcome = self._engine.glob(request, cancel=_cancel_token(cancel))
        return self._glob_result(pattern, request, outcome, outcome.files)

    def glob_iter(
        self,
        pattern: str,
        path: PathArg = ".",
        *,
        limit: int | None = None,
        cancel: _core.CancelToken | None = None,
        **options: Unpack[GlobFilters],
    ) -> GlobIter:
        """The files `glob` returns sorted by path, in that order, yielded as a sorted walk
        reaches them: the first comes at once and memory stays bounded whatever the number of
        files (the walk pauses while the consumer does not ask for more). `limit` None is no
        limit; with one, the walk stops at the first file past it (`result.truncated`, and
        `result.total` counts the files given). Only path order streams: an mtime order needs
        every file's time before the first (use `glob`).

        Closing the iterator (`close()`, leaving a `with` block, or dropping it) stops the
        walk. After the last file, `.result` holds the walk's figures (a `GlobResult` without
        files). A bad pattern or path raises here, before the walk."""
        check_names("Workspace.glob_iter", options, GLOB_FILTERS)
        whole = {**options, "limit": MAX_COUNT if limit is None else limit, "sort": "path"}
        request = self._glob_request(pattern, path, whole)
        files = self._engine.glob_iter(request, cancel=_cancel_token(cancel))
        return GlobIter(files, lambda outcome: self._glob_result(pattern, request, outcome, []))

    def _glob_request(
        self, pattern: str, path: PathArg, options: Mapping[str, object]
    ) -> _core.GlobRequest:
        return glob_request(pattern, self.sandbox.relative(path), root=str(self.root), **options)

    def _glob_result(
        self,
        pattern: str,
        request: _core.GlobRequest,
        outcome: _core.GlobOutcome,
        files: Sequence[_core.GlobMatch],
    ) -> GlobResult:
        """The result of `request`: `files`, and the figures of its walk."""
        from .results.matches import GlobResult
        from .results.skipped import Skipped

        return GlobResult(
            files=files,
            total=outcome.total,
            truncated=outcome.truncated,
            ignored=outcome.ignored,
            pattern=pattern,
            path=self.sandbox.display(outcome.search_path),
            sort=request.options["sort"],
            limit=request.options["limit"],
            unreadable=outcome.errors,
            skipped=Skipped.from_engine(outcome.skipped),
        )

    if TYPE_CHECKING:  # the overloads are for type checkers alone (`typing` costs start-up)

        @overload
        def grep(
            self,
            pattern: str,
            path: PathArg = ".",
            *,
            cancel: _core.CancelToken | None = None,
            stream: Literal[False] = False,
            remember: bool = True,
            **options: Unpack[GrepOptions],
        ) -> GrepResult: ...
        @overload
        def grep(
            self,
            pattern: str,
            path: PathArg = ".",
            *,
            cancel: _core.CancelToken | None = None,
            stream: Literal[True],
            remember: bool = True,
            **options: Unpack[GrepOptions],
        ) -> GrepIter: ...

    def grep(
        self,
        pattern: str,
        path: PathArg = ".",
        *,
        cancel: _core.CancelToken | None = None,
        stream: bool = False,
        remember: bool = True,
        **options: Unpack[GrepOptions],
    ) -> GrepResult | GrepIter:
        """Every match of `pattern` under `path`, one hit per match, ordered by path, line
        and column; each hit's `id` can be passed to `edit_result`. The options and their
        defaults: `codesift.arguments.GrepOptions`.

        `stream=True` returns the same hits as an iterator (see `grep_iter`, which is this
        with `max_matches` None by default); then `count_total` and `offset` are refused.

        `mode="files"` returns one hit per file with matches (the scan of a file stops at its
        first match), `mode="count"` one hit per file with its number of matches in
        `result.counts`; in both, `max_matches`, `offset` and `total` count files. `offset`
        skips that many results of the deterministic order (paging: `offset=k` returns
        exactly the results `k, k+1, ...` of the same search without it). `type`,
        `type_not`, `no_ignore` and `hidden` as for `glob`. `one_hit_per_line=True` keeps
        each matching line's first match only (for a printer of lines; see
        `codesift.arguments.options.GrepStreamOptions`).

        `cancel`: a `CancelToken` whose `cancel()` (from another thread) stops the walk and
        the search within milliseconds; the call then raises `CancelledError` (nothing
        partial is returned). Default: the token of the current `CallControl` (see
        `codesift.control.call`), if any."""
        check_names("Workspace.grep", options, GREP_OPTIONS)
        if options.get("budget_tokens") is not None:
            # The budget is the limit: no flat cap besides it unless one is asked for.
            options.setdefault("max_matches", None)
        request = grep_request(pattern, self.sandbox.relative(path), stream=stream, **options)
        cancel = _cancel_token(cancel)
        if stream:
            hits = self._engine.grep_iter(request, cancel=cancel)
            cache = self.cache if remember else None
            return GrepIter(hits, cache, lambda o, files: self._grep_result(request, o, files))
        outcome = self._engine.grep(request, cancel=cancel)
        self.cache.add_batch(outcome.first_id, outcome.matches)
        return self._grep_result(request, outcome)

    def grep_iter(
        self,
        pattern: str,
        path: PathArg = ".",
        *,
        cancel: _core.CancelToken | None = None,
        remember: bool = True,
        **options: Unpack[GrepStreamOptions],
    ) -> GrepIter:
        """The hits `grep` returns, in the same order, yielded as they are found: a file's
        hits come out once every file before it in path order is searched. Memory stays
        bounded by the search threads' buffers whatever the number of hits (the search
        pauses while the consumer does not ask for more); `max_matches` None (the default
        here) is no limit.

        Closing the iterator (`close()`, leaving a `with` block, or dropping it) stops the
        search. After the last hit, `.result` holds the search's figures (a `GrepResult`
        without matches). `remember=False`: the hits' ids are not kept for `edit_result`.
        No `count_total` nor `offset`: they need the whole answer (use `grep`)."""
        check_names("Workspace.grep_iter", options, GREP_STREAM_OPTIONS)
        options.setdefault("max_matches", None)
        return self.grep(pattern, path, cancel=cancel, stream=True, remember=remember, **options)

    def search(
        self,
        question: str,
        path: PathArg = ".",
        *,
        max_results: int = 10,
        include: str | Sequence[str] | None = None,
        exclude: str | Sequence[str] | None = None,
        type: str | Sequence[str] | None = None,  # noqa: A002 (grep's name for it)
        cancel: _core.CancelToken | None = None,
    ) -> SearchResult:
        """The files under `path` that best answer `question`, a question or description in
        words ("how are routes registered"), by keywords alone: no embeddings, no model.

        The question becomes terms: its words and the parts of its identifiers
        (`HTTPServerError`: `httpservererror`, `http`, `server`, `error`), lowercased, stop
        words and terms of 1-2 characters dropped, plural and `-ing`/`-ed` endings stripped.
        One case-insensitive search of the terms (through the index or the daemon where there
        is one) finds the files holding any; a term matches inside identifiers (`skip` finds
        `skipUnknown`). Each file is scored by BM25F over its path, the definitions on its
        matching lines whose names hold a term, and its matching lines; times the share of
        the terms it holds; test, vendored and generated files lower. At most `max_results`
        files, best first (equal scores by path). `include`, `exclude` and `type` as for
        `grep`. A question of stop words only is an `InvalidArgumentError`."""
        from .arguments import check_int, check_text, glob_list, type_list
        from .results.ranked import SearchHit, SearchResult

        check_text("question", question)
        check_int("max_results", max_results, minimum=1, required=True)
        relative = self.sandbox.relative(path)
        answers, files_searched, terms, indexed = self._engine.search(
            question,
            relative,
            max_results=max_results,
            include=glob_list("include", include),
            exclude=glob_list("exclude", exclude),
            types=type_list("type", type),
            cancel=_cancel_token(cancel),
        )
        return SearchResult(
            results=tuple(
                SearchHit(
                    file=file,
                    score=score,
                    why=why,
                    lines=tuple(lines),
                    symbols=tuple(symbols),
                )
                for file, score, why, lines, symbols in answers
            ),
            files_searched=files_searched,
            terms=tuple(terms),
            indexed=indexed,
            question=question,
            path=self.sandbox.display(relative),
        )

    def _grep_result(
        self, request: _core.GrepRequest, outcome: _core.GrepOutcome, files: int | None = None
    ) -> GrepResult:
        """The result of `request`: its hits, or with `files` (the files a stream gave) the
        figures of a stream that ended."""
        from .results.matches import BudgetSpent, GrepResult
        from .results.skipped import Skipped

        options = request.options
        return GrepResult(
            matches=outcome.matches if files is None else [],
            total=outcome.total,
            truncated=outcome.truncated,
            pattern=options["pattern"],
            path=self.sandbox.display(outcome.search_path),
            literal=options["literal"],
            include=options["include"],
            exclude=options["exclude"],
            max_matches=options["max_matches"],
            files_searched=outcome.files_searched,
            files_with_matches=outcome.files_with_matches if files is None else files,
            binary_files=outcome.binary_files,
            unreadable=outcome.unreadable,
            ignored=outcome.ignored,
            timed_out=outcome.timed_out,
            timeout=options["timeout"],
            indexed=outcome.indexed,
            mode=options["mode"],
            offset=options["offset"],
            counts=outcome.counts if files is None else [],
            skipped=Skipped.from_engine(outcome.skipped),
            ranked=bool(options["rank"] or options["budget_tokens"]),
            budget=None if outcome.spent is None else BudgetSpent.from_engine(outcome.spent),
        )

    def grep_page(
        self,
        pattern: str,
        path: PathArg = ".",
        *,
        offset: int = 0,
        max_matches: int = 500,
        **options: Any,
    ) -> GrepResult:
        """`grep(pattern, path, offset=offset, max_matches=max_matches, **options)` for a
        caller that pages (the tools, over MCP and HTTP): the first page (`offset` 0) starts
        a stream that is kept (`self.live`), and a later page of the same search (the same
        pattern, path and options) reads it on from where the pages before stopped instead
        of searching again, so every page is of one search, at one moment. The hits are
        those of `grep`, page by page; `total` counts the hits found so far until the last
        page (then all of them). A page whose search is no longer kept (evicted, expired
        after `self.live.ttl` seconds, or never started) runs `grep` with `offset` (a new
        search). `timeout` (which counts from a search's start) and `count_total` always
        run `grep`."""
        if options.get("timeout") is not None or options.get("count_total"):
            return self.grep(pattern, path, offset=offset, max_matches=max_matches, **options)
        check_int("offset", offset, minimum=0)
        check_int("max_matches", max_matches, minimum=1)
        key = (pattern, str(path), repr(sorted(options.items())))
        from .results.cache import LiveSearch

        live = self.live.get(key) if offset else None
        if live is None or offset > len(live.hits):
            if offset:
                return self.grep(pattern, path, offset=offset, max_matches=max_matches, **options)
            stream = self.grep(pattern, path, max_matches=None, stream=True, **options)
            live = LiveSearch(stream)
            self.live.put(key, live)
        end = offset + max_matches
        with live.lock:
            try:
                live.pull(end + 1)  # one more proves that results follow the page
            except BaseException:
                self.live.drop(key, live)
                raise
            page = live.hits[offset:end]
            counts = live.counts[offset:end]
            truncated = len(live.hits) > end
            found = live.stream.result if live.done else None
            held = len(live.hits)
        if live.done and not truncated:
            self.live.drop(key, live)
        per_file: dict[str, int] = {}
        for hit, count in zip(page, counts, strict=True):
            per_file[hit.file] = per_file.get(hit.file, 0) + count
        import dataclasses

        from .results.matches import GrepResult

        if found is None:  # the figures of a search not ended yet: its options
            given = grep_request(pattern, **options)
            settings = given.options
            found = GrepResult(
                matches=[],
                total=0,
                truncated=True,
                pattern=settings["pattern"],
                path=self.sandbox.display(self.sandbox.relative(path)),
                literal=settings["literal"],
                include=settings["include"],
                exclude=settings["exclude"],
                max_matches=max_matches,
                mode=settings["mode"],
            )
        return dataclasses.replace(
            found,
            matches=page,
            total=end if truncated else held,
            truncated=truncated,
            max_matches=max_matches,
            offset=offset,
            files_with_matches=len(per_file),
            counts=list(per_file.values()),
        )

    @staticmethod
    def file_types() -> dict[str, list[str]]:
        """The file types `type=` accepts, with their globs (ripgrep's `--type-list`)."""
        return dict(_core.file_types())

    # -- index ------------------------------------------------------------------------------

    def index_build(
        self,
        progress: Callable[[int, int], object] | None = None,
        cancel: _core.CancelToken | None = None,
    ) -> dict[str, int]:
        """Builds (or rebuilds) the persistent index of this workspace under the user cache
        directory; `progress(done, total)` is called as files are indexed. `cancel` (default:
        the current `CallControl`'s token) stops it with `CancelledError`: the previous index
        stays as it was and no temporary file is left."""
        if progress is not None and not callable(progress):
            raise InvalidArgumentError("progress must be a function (done, total) or None")
        return dict(self._engine.index_build(progress, _cancel_token(cancel)))

    def index_status(self) -> dict[str, object]:
        """The index's mode, path, whether it exists, its counts and size, and a problem (a
        damaged or foreign index file, which is never used) if any; `daemon` says whether this
        process passes the host's index daemon over (it did not take a request in time:
        searches scan until it answers a ping), None when it does not."""
        return dict(self._engine.index_status())

    def index_drop(self) -> bool:
        """Removes the index; returns whether there was one."""
        return bool(self._engine.index_drop())

    # -- read, list, write ----------------------------------------------------------------

    def read(
        self,
        path: PathArg,
        *,
        offset: int = 1,
        limit: int = 2000,
        start_line: int | None = None,
        end_line: int | None = None,
    ) -> ReadResult:
        """Numbered lines `offset .. offset+limit-1` of a text file (`cat -n` style). The path
        may end in `:START-END` (or `:LINE`) to pick lines. Large files are streamed.

        `start_line`/`end_line` (1-based, inclusive) pick lines instead of `offset`/`limit`:
        `end_line` alone reads from line 1, `start_line` alone reads `limit` lines; an
        `end_line` past the end reads to the end, a `start_line` past it is an error."""
        from .results.files import MAX_LINE_CHARS, ReadResult
        from .results.matches import plural
        from .text.line_reader import TextLines

        by_lines = start_line is not None or end_line is not None
        if by_lines:
            offset, limit = _start_end(start_line, end_line, offset, limit)
            if isinstance(path, str) and self._line_range(path, 1, 1)[0] != path:
                raise InvalidArgumentError(
                    "give the lines once: either a path:START-END suffix or start_line/end_line"
                )
        path, offset, limit = self._line_range(path, offset, limit)
        check_int("offset", offset, minimum=1, required=True)
        check_int("limit", limit, minimum=1, required=True)
        fd, shown, _ = self._engine.open_read(self.sandbox.relative(path))
        with os.fdopen(fd, "rb") as f:
            text = TextLines(f, shown)
            numbered: list[str] = []
            long_lines = 0
            for number, line, length in text.numbered(offset):
                if length > MAX_LINE_CHARS:
                    long_lines += 1
                    line += f"... [line truncated: {length} characters]"
                numbered.append(f"{number:6}\t{line}")
                if len(numbered) == limit:
                    break
            more = len(numbered) == limit and text.has_more()
        seen = text.seen
        last = offset + len(numbered) - 1
        total = None if more else seen
        if by_lines and not numbered and seen:
            raise InvalidArgumentError(
                f"start_line {offset} is past the end of {shown} ({plural(seen, 'line')}); "
                f"pass a start_line from 1 to {seen}"
            )
        return ReadResult(
            path=shown,
            content="\n".join(numbered),
            start_line=offset,
            end_line=last,
            truncated=more,
            total_lines=total,
            long_lines=long_lines,
            encoding=text.encoding,
        )

    def lines(self, path: PathArg, start: int = 1, end: int | None = None) -> FileLines:
        """Lines `start .. end` (1-based, inclusive; `end` None or past the end: to the end)
        of a text file as `read` shows them, typed: each line's number, its text (cut at 2000
        characters) and the length it was cut from; with the file's line count and whether it
        ends with a newline. The path may end in `:START-END` as for `read`. Large files are
        streamed (the lines after `end` are counted, not kept)."""
        from .results.files import MAX_LINE_CHARS, FileLine, FileLines
        from .text.line_reader import TextLines

        check_int("start", start, minimum=1, required=True)
        check_int("end", end, minimum=1)
        ranged, first, count = self._line_range(path, start, 1)
        if ranged is not path:
            # A `path:START-END` suffix picks the lines, as for `read`.
            path, start, end = ranged, first, first + count - 1
        fd, shown, _ = self._engine.open_read(self.sandbox.relative(path))
        with os.fdopen(fd, "rb") as f:
            text = TextLines(f, shown)
            kept: list[FileLine] = []
            for number, line, length in text.numbered(start):
                kept.append(FileLine(number, line, length if length > MAX_LINE_CHARS else None))
                if number == end:
                    break
            seen = text.count_rest()
            ends_with_newline = text.ends_with_newline
        return FileLines(shown, tuple(kept), seen, ends_with_newline, start)

    def list_dir(
        self,
        path: PathArg = ".",
        *,
        limit: int = 1000,
        recursive: bool = False,
        depth: int | None = None,
        no_ignore: bool | None = None,
        hidden: bool | None = None,
    ) -> ListResult:
        """One directory's entries, directories first with a trailing `/`, each group
        sorted, honouring the ignore rules.

        With `recursive` (the whole tree) or `depth` (that many levels; 1 is the directory
        alone), a tree in pre-order: each directory followed by its own entries, paths
        relative to `path`; symlinks are listed as what they point to but never entered.
        `limit` caps the entries of the whole tree. `no_ignore` and `hidden` as for `glob`."""
        from .results.files import ListResult
        from .results.skipped import Skipped

        check_int("limit", limit, minimum=1, required=True)
        check_int("depth", depth, minimum=1)
        if not isinstance(recursive, bool):
            raise InvalidArgumentError(f"recursive must be true or false, not {recursive!r:.60}")
        levels = depth if depth is not None else (None if recursive else 1)
        listing = self._engine.list_tree(
            self.sandbox.relative(path),
            depth=levels,
            limit=limit,
            hidden=check_flag("hidden", hidden),
            no_ignore=check_flag("no_ignore", no_ignore),
        )
        entries = [name + "/" if is_dir else name for name, is_dir, _ in listing.entries]
        return ListResult(
            path=self.sandbox.display(listing.path),
            entries=entries,
            total=listing.total,
            truncated=listing.truncated,
            ignored=listing.ignored,
            depth=levels,
            skipped=Skipped.from_engine(listing.skipped),
            links=frozenset(name for name, _, is_link in listing.entries if is_link),
        )

    def write(self, path: PathArg, content: str | bytes, *, dry_run: bool = False) -> WriteResult:
        """Creates or overwrites a file atomically, creating missing parent directories. With
        `dry_run`, nothing is written: the result says whether the file would be created, and
        its diff is the change from the current content."""
        if not isinstance(content, str | bytes):
            raise InvalidArgumentError(f"content must be a string, not {type(content).__name__}")
        rel = self.sandbox.relative(path)
        try:
            data = (
                content.encode("utf-8", "surrogateescape") if isinstance(content, str) else content
            )
        except UnicodeEncodeError:
            raise InvalidArgumentError(
                "content holds characters that cannot be encoded (a lone surrogate); send "
                "valid text"
            ) from None
        return self.editor.write(rel, data, dry_run=bool(dry_run))

    # -- edit -------------------------------------------------------------------------------

    def edit(
        self,
        path: PathArg,
        old: str,
        new: str,
        *,
        replace_all: bool = False,
        fuzzy: bool = True,
        dry_run: bool = False,
    ) -> EditResult:
        """Replaces `old` by `new` in a file (compatibility mode; prefer `edit_result`).

        `old` must match exactly one place (all with `replace_all`), tried exactly, then with
        line endings normalised, then (with `fuzzy`) line by line ignoring whitespace and
        blank lines, then unescaped; see the README for the strategies. `fuzzy=False` is the
        text-editor tool's `str_replace` (exact, once). With `dry_run`, nothing is written:
        the result's diff shows what the edit would do.
        """
        return self.editor.edit(
            path, old, new, replace_all=bool(replace_all), fuzzy=bool(fuzzy), dry_run=bool(dry_run)
        )

    def edit_result(
        self,
        search_result_id: str,
        new: str,
        *,
        path: PathArg | None = None,
        dry_run: bool = False,
    ) -> EditResult:
        """Replaces exactly the text a grep hit found (linked mode). Never fuzzy: if the
        text moved and was unique, the edit follows it; otherwise `StaleResultError`. With
        `dry_run`, nothing is written (and the id stays usable): the diff shows the edit."""
        if not isinstance(new, str):
            raise InvalidArgumentError("new_string must be a string")
        match, state = self.editor.lookup(search_result_id)
        if path is not None and self._real(path) != self._real(match.file):
            raise InvalidArgumentError(
                f"search_result_id {search_result_id} is a hit in {match.file}, not in {path}; "
                "leave path out or search again"
            )
        return self.editor.edit_hit(match, state, new, search_result_id, dry_run=bool(dry_run))

    def apply_hit(
        self,
        file: str,
        byte_offset: int,
        byte_length: int,
        content: str,
        new: str,
        *,
        unique: bool = False,
        line: int = 0,
    ) -> EditResult:
        """The linked edit of a hit described by its fields rather than its id: used when the
        search ran elsewhere (a remote host's workspace applies its hits this way)."""
        check_int("byte_offset", byte_offset, minimum=0, maximum=MAX_COUNT, required=True)
        check_int("byte_length", byte_length, minimum=0, maximum=MAX_COUNT, required=True)
        check_int("line", line, minimum=0, maximum=MAX_COUNT, required=True)
        check_unicode("content", content, hint="send the hit's text as grep found it")
        if not isinstance(file, str):
            raise InvalidArgumentError("file must be a workspace-relative path string")
        match = _core.GrepMatch(
            "",
            file,
            line,
            1,
            line,
            byte_offset,
            content,
            "",
            byte_length=byte_length,
            unique=unique,
        )
        from .results.cache import HitState

        state = HitState(byte_offset, line, line)
        return self.editor.edit_hit(match, state, new, None)

    def edit_many(
        self,
        path: PathArg,
        edits: Sequence[tuple[str, str] | Mapping[str, Any]],
        *,
        sequential: bool = False,
        dry_run: bool = False,
    ) -> EditResult:
        """Several edits to one file, all or nothing: `(old, new)` pairs, `{"old_string",
        "new_string", "replace_all"}` (also `old`/`new`, or mcp-filesystem's `oldText`/
        `newText`) or `{"search_result_id", "new"}` mappings. Nothing is written unless all
        apply.

        By default each edit is matched against the original text and overlapping edits are
        rejected. With `sequential` (Claude Code's MultiEdit, mcp-filesystem's edit_file) each
        edit applies to the text the previous ones left; search_result_id edits are not
        allowed then. With `dry_run`, nothing is written: the diff shows what would change.
        """
        if isinstance(edits, str | bytes) or not isinstance(edits, Sequence) or not edits:
            raise InvalidArgumentError("edits must be a non-empty list of edits")
        return self.editor.edit_many(
            path, edits, sequential=bool(sequential), dry_run=bool(dry_run)
        )

    def insert(self, path: PathArg, line: int, text: str, *, dry_run: bool = False) -> EditResult:
        """Inserts `text` as whole lines after line `line` (0: at the top), as the
        text-editor tool's `insert` does. The text gets the file's line endings; a final
        newline in `text` ends its last line (it adds no blank line). The file's final newline
        (or its absence) is kept."""
        check_int("line", line, minimum=0, maximum=MAX_COUNT, required=True)
        check_unicode("text", text, hint="send the lines to insert as text")
        if text == "":
            raise InvalidArgumentError("text is empty; give the lines to insert")
        return self.editor.insert(path, line, text, dry_run=bool(dry_run))

    def undo_edit(self, path: PathArg) -> UndoResult:
        """Undoes the last write codesift made to `path` through this Workspace (an edit, an
        insert, a patch, a write): the file gets its previous content back, a file codesift
        created is deleted, a file it deleted is created again. Refused (`ConflictError`) when
        the file changed since codesift wrote it: nothing is ever overwritten that codesift did
        not write. Earlier versions can be undone in turn (see `codesift.edits.history` for the
        bounds)."""
        return self.editor.undo(path)

    def apply_patch(
        self,
        text: str,
        *,
        format: str = "auto",
        dry_run: bool = False,
        path: PathArg | None = None,
    ) -> PatchResult:
        """Applies a patch to one or several files, all or nothing.

        `format`: "apply_patch" (Codex/opencode `*** Begin Patch` envelopes, with Add, Delete,
        Update and Move), "unified" (unified diffs, several files, /dev/null for added and
        deleted files), "search_replace" (Cline/Aider SEARCH/REPLACE blocks for the file
        `path`), or "auto" to detect it. Every hunk must match one place (with the same
        strategies as `edit_many`); every file is planned before any is written, and a
        failure while writing rolls back what was written. With `dry_run`, nothing is
        written: the result has the diff. See the README, "Edit formats".
        """
        from .patches import parse_patch

        given = None if path is None else self.sandbox.relative(path)
        parsed = parse_patch(text, format=format, path=given)
        return self.editor.apply_patch(parsed, dry_run=bool(dry_run))

    # -- for the CLI and the web UI --------------------------------------------------------

    def read_bytes(self, path: PathArg) -> bytes:
        """The bytes of the regular file `path`, opened beneath the root as `read` opens it
        (a path outside the root, an ignored file or a missing one is a `CodesiftError`)."""
        fd, _, _ = self._engine.open_read(self.sandbox.relative(path))
        with os.fdopen(fd, "rb") as f:
            return f.read()

    def exists(self, path: PathArg) -> bool:
        """Whether something exists at `path` under the root (a symlink counts when it resolves
        inside the root); a path outside the root is a `SandboxError`."""
        return self._engine.exists(self.sandbox.relative(path))

    def cached_hit(self, search_result_id: str) -> tuple[_core.GrepMatch, HitState]:
        """The hit a search cached under `search_result_id` and where it is now, after the
        edits made since (an unknown, expired or used id is a `StaleResultError`)."""
        return self.editor.lookup(search_result_id)

    # -- helpers ------------------------------------------------------------------------

    def _real(self, path: PathArg) -> str:
        """Where `path` really is (workspace-relative), or the path itself if it is missing."""
        return self.editor.real(path)

    def _line_range(self, path: PathArg, offset: int, limit: int) -> tuple[PathArg, int, int]:
        if isinstance(path, str):
            import re

            m = re.match(LINE_RANGE, path)
            if m and not self.exists(path):
                start = int(m["start"])
                end = int(m["end"]) if m["end"] else start
                if start < 1:
                    # Said of the range the caller wrote, not of the `offset` it becomes.
                    written = f"{start}-{end}" if m["end"] else str(start)
                    raise InvalidArgumentError(
                        f"line range {written} starts at line 0; lines are numbered from 1"
                    )
                if end < start:
                    raise InvalidArgumentError(
                        f"line range {start}-{end} is backwards; write START-END with START <= END"
                    )
                if end > MAX_COUNT:
                    # Said of the range the caller wrote, not of the `limit` it becomes.
                    raise InvalidArgumentError(
                        f"line range {start}-{end} ends past line {MAX_COUNT}; write a smaller END"
                    )
                return m["path"], start, end - start + 1
        return path, offset, limit


def _random_text(length: int) -> str:
    """`length` characters drawn uniformly from `ID_SALT_ALPHABET` with the system's CSPRNG,
    as `secrets.choice` draws them (without importing `secrets`, which loads OpenSSL)."""
    size = len(ID_SALT_ALPHABET)
    # A byte at or above the last multiple of the alphabet's size would favour its first
    # characters: such bytes are drawn again.
    limit = 256 - 256 % size
    chars: list[str] = []
    while len(chars) < length:
        chars += [ID_SALT_ALPHABET[b % size] for b in os.urandom(length) if b < limit]
    return "".join(chars[:length])


def _daemon_argv() -> list[str] | None:
    """How this process would start the index daemon (imported here: only indexed
    workspaces need it)."""
    from .daemon import client_argv

    return client_argv()


def _cancel_token(cancel: object) -> _core.CancelToken | None:
    """The token a search checks: the one given, else the current call's (if any)."""
    if cancel is None:
        return current_token()
    if not isinstance(cancel, _core.CancelToken):
        raise InvalidArgumentError(
            f"cancel must be a codesift.CancelToken or None, not {type(cancel).__name__}"
        )
    return cancel


def _index_mode(index: object) -> str:
    """The engine's name for a Workspace `index` argument."""
    if index is True or index == "on":
        return "on"
    if index is False or index is None or index == "off":
        return "off"
    if index == "auto":
        return "auto"
    raise InvalidArgumentError(f'index must be True, False or "auto", not {index!r}'[:200])


def _start_end(
    start_line: int | None, end_line: int | None, offset: int, limit: int
) -> tuple[int, int]:
    """`offset` and `limit` for an inclusive `start_line`..`end_line` range (checked)."""
    if offset != 1:
        raise InvalidArgumentError(
            "give the lines once: either start_line/end_line or offset/limit, not both"
        )
    check_int("start_line", start_line, minimum=1, maximum=MAX_COUNT)
    check_int("end_line", end_line, minimum=1, maximum=MAX_COUNT)
    start = 1 if start_line is None else start_line
    if end_line is None:
        return start, limit
    if end_line < start:
        raise InvalidArgumentError(
            f"end_line {end_line} is before start_line {start}; the range is inclusive, so "
            f"pass end_line >= start_line (end_line={start} reads one line)"
        )
    return start, end_line - start + 1


__all__ = ["Workspace"]
