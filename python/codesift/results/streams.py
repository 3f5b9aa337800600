"""The streamed answers of `Workspace.grep_iter` and `Workspace.glob_iter`: iterators over
the engine's streams that stop its threads when closed, and hold the search's figures
(`result`) once the last item came."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from .. import _core

# Nothing of `typing` (nor the results' dataclasses) at run time: a piped `codesift grep`
# streams through here, and those imports would be most of its start-up.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeVar

    # `typing.Self` is Python 3.11's; annotations are not evaluated at run time
    from typing_extensions import Self

    from .cache import ResultCache
    from .matches import GlobResult, GrepResult

    T = TypeVar("T")


class _Streamed(Iterator["T"]):
    """What a streamed answer (`GrepIter`, `GlobIter`) does with its engine stream: closing
    it (or leaving its `with` block, or dropping it) stops the engine's threads."""

    _stream: _core.GrepStream | _core.GlobStream
    _batch: Iterator[T]

    def close(self) -> None:
        """Stops the search or walk (waiting for its threads); nothing more comes."""
        self._batch = iter(())
        self._stream.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        stream = getattr(self, "_stream", None)
        if stream is not None:
            stream.close()

    def __iter__(self) -> Self:
        return self

    def __next__(self) -> T:
        while True:
            item = next(self._batch, None)
            if item is not None:
                return item
            batch = self._next_batch()
            if batch is None:
                raise StopIteration
            self._batch = iter(batch)

    def _next_batch(self) -> Sequence[T] | None:
        """The stream's next items, or None at its end (when `result` is set)."""
        raise NotImplementedError


class GrepIter(_Streamed[_core.GrepMatch]):
    """The hits of `Workspace.grep_iter`, one at a time (a context manager: leaving the
    block stops the search)."""

    _stream: _core.GrepStream

    def __init__(
        self,
        stream: _core.GrepStream,
        cache: ResultCache | None,
        summary: Callable[[_core.GrepOutcome, int], GrepResult],
    ) -> None:
        self._stream = stream
        self._cache = cache
        self._summary = summary
        self._batch: Iterator[_core.GrepMatch] = iter(())
        self._files = 0
        # The engine's figures once the stream ended; `result` is made of them when first
        # asked for (the CLI's piped grep reads them as they are, through `outcome`).
        self._outcome: _core.GrepOutcome | None = None
        self._result: GrepResult | None = None

    @property
    def result(self) -> GrepResult | None:
        """The search's figures (a `GrepResult` without matches) once the last hit came,
        else None."""
        if self._result is None and self._outcome is not None:
            self._result = self._summary(self._outcome, self._files)
        return self._result

    @property
    def outcome(self) -> _core.GrepOutcome | None:
        """The engine's own figures once the last hit came, else None: what `result` is made
        of, for a caller that needs no `GrepResult` (the CLI's piped grep)."""
        return self._outcome

    def _next_batch(self) -> Sequence[_core.GrepMatch] | None:
        piece = self.next_piece()
        return None if piece is None else piece[0]

    def next_piece(self) -> tuple[Sequence[_core.GrepMatch], int, bool] | None:
        """The stream's next item: hits of one file in line order, the matches they stand
        for, and whether they continue the previous item's file (a file with many hits comes
        in pieces, each of whole lines). None at the end, when `result` is set."""
        try:
            first_id, hits = next(self._stream)
        except StopIteration:
            self._finish()
            return None
        continued = self._stream.continued
        if not continued:
            self._files += 1
        if self._cache is not None:
            self._cache.add_batch(first_id, hits)
        return hits, self._stream.matches, continued

    def _finish(self) -> None:
        if self._outcome is None:
            self._outcome = self._stream.outcome

    def files(self) -> Iterator[list[_core.GrepMatch]]:
        """The same hits a file at a time (each list in line order, the file whole)."""
        first = list(self._batch)
        self._batch = iter(())
        return by_file(self.pieces(), first)

    def pieces(self) -> Iterator[tuple[Sequence[_core.GrepMatch], int, bool]]:
        """What `next_piece` gives, until the end (for the CLI, which prints a file's
        pieces as they come)."""
        while (piece := self.next_piece()) is not None:
            yield piece

    def print_with(
        self, printer: _core.GrepPrinter, show: Callable[[str], str | None], fd: int
    ) -> Iterator[Sequence[_core.GrepMatch]]:
        """For the CLI: the stream printed by the engine's `printer` straight to `fd` (see
        `GrepStream.print_files`); a file it cannot print comes out as its hits, for the
        caller to print."""
        before = self._files
        while True:
            item = self._stream.print_files(printer, show, fd)
            self._files = before + self._stream.files_printed
            if item is None:
                self._finish()
                return
            first_id, hits = item
            if self._cache is not None:
                self._cache.add_batch(first_id, hits)
            yield hits


class GlobIter(_Streamed[_core.GlobMatch]):
    """The files of `Workspace.glob_iter`, one at a time (a context manager: leaving the
    block stops the walk)."""

    _stream: _core.GlobStream

    def __init__(
        self, stream: _core.GlobStream, summary: Callable[[_core.GlobOutcome], GlobResult]
    ) -> None:
        self._stream = stream
        self._summary = summary
        self._batch: Iterator[_core.GlobMatch] = iter(())
        self.result: GlobResult | None = None

    def _next_batch(self) -> Sequence[_core.GlobMatch] | None:
        try:
            return next(self._stream)
        except StopIteration:
            outcome = self._stream.outcome
            if outcome is not None and self.result is None:
                self.result = self._summary(outcome)
            return None


def by_file(
    pieces: Iterator[tuple[Sequence[T], int, bool]], first: list[T] | None = None
) -> Iterator[list[T]]:
    """Hits in pieces (`(hits, matches, continued)`, a piece continuing its file's last one
    when `continued`) joined a file at a time; `first`: hits of the first file already read."""
    group: list[T] = list(first or [])
    for hits, _matches, continued in pieces:
        if not continued and group:
            yield group
            group = []
        group.extend(hits)
    if group:
        yield group
