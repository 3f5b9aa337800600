"""Output parsing for strategy "shell": `find`'s NUL-separated records and `grep -rnbHZ`'s
streamed output, turned into the host answers a codesift search would give."""

from __future__ import annotations

import re

from . import ssh
from .errors import RemoteError
from .globs import PathPattern
from .queries import GlobQuery, GrepQuery, Hit, HostGlob, HostGrep

_GREP_RECORD = re.compile(rb"(\d+)([:-])(\d+)[:-](.*)", re.DOTALL)


class GrepReader:
    """Parses `grep -rnbHZ` output (`NAME\\0LINE:OFFSET:TEXT\\n`, context lines with `-`) as
    it streams in, finds each match's columns on the selected lines, and says when enough
    hits are in (one more than `max_matches`, and the current file finished)."""

    def __init__(self, query: GrepQuery, matcher: re.Pattern[str] | None) -> None:
        self.query = query
        self.matcher = matcher
        self.include = PathPattern(query.include) if query.include else None
        self.exclude = PathPattern(query.exclude) if query.exclude else None
        self._buffer = bytearray()
        self._nul, self._scanned = -1, 0
        self._fed = 0
        # file -> line number -> (byte offset, text, spans); spans None for context lines
        self.files: dict[str, dict[int, tuple[int, str, list[tuple[int, int]] | None]]] = {}
        self._accepted: dict[bytes, str | None] = {}
        self.hits_seen = 0
        self._full_in: str | None = None

    def feed(self, data: bytes) -> bool:
        """Takes more output; True when the command can be stopped. Past `ssh.MAX_REPLY_BYTES`
        of output (which all may be kept, as hits or a line not yet ended) the host is
        reported: a host that prints without end cannot exhaust memory."""
        self._fed += len(data)
        if self._fed > ssh.MAX_REPLY_BYTES:
            raise RemoteError(
                f"grep printed more than {ssh.MAX_REPLY_BYTES >> 20} MiB; narrow the search (a "
                "path, include or max_matches) or check the host"
            )
        buffer = self._buffer
        buffer += data
        # Where the search goes on: the pending record's NUL (or -1) and the first byte not
        # searched yet, so that a record that never ends is scanned once, not per chunk.
        pos, z, scanned = 0, self._nul, self._scanned
        while True:
            if z < 0:
                z = buffer.find(b"\0", max(pos, scanned))
                if z < 0:
                    scanned = len(buffer)
                    break
            nl = buffer.find(b"\n", max(z + 1, scanned))
            if nl < 0:
                scanned = len(buffer)
                break
            name, rest = bytes(buffer[pos:z]), bytes(buffer[z + 1 : nl])
            pos = scanned = nl + 1
            z = -1
            if self._take(name, rest):
                del buffer[:pos]
                self._nul, self._scanned = -1, 0
                return True
        del buffer[:pos]
        self._nul = z - pos if z >= 0 else -1
        self._scanned = scanned - pos
        return False

    def _take(self, name: bytes, rest: bytes) -> bool:
        file = self._accept(name)
        if file is None:
            return False
        if self._full_in is not None and file != self._full_in:
            return True  # enough hits, and the file that completed them is done
        m = _GREP_RECORD.fullmatch(rest)
        if m is None:
            return False
        number, is_match, offset = int(m[1]), m[2] == b":", int(m[3])
        raw = m[4].removesuffix(b"\r")
        text = raw.decode("utf-8", "surrogateescape")
        spans = self._spans(text) if is_match else None
        lines = self.files.setdefault(file, {})
        lines[number] = (offset, text, spans)
        if spans:
            self.hits_seen += len(spans)
            limit = self.query.max_matches
            if (
                limit is not None
                and not self.query.count_total
                and self.hits_seen > limit
                and self._full_in is None
            ):
                self._full_in = file
        return False

    def _accept(self, name: bytes) -> str | None:
        """The root-relative name of an output file, or None when include/exclude drop it."""
        if name in self._accepted:
            return self._accepted[name]
        rel_root, rel_search = relative_names(name, self.query.start)
        keep: str | None = rel_root
        if self.include is not None and not self.include.is_match(rel_search, rel_root):
            keep = None
        elif self.exclude is not None:
            parts = rel_search.split("/")
            prefix = rel_root[: len(rel_root) - len(rel_search)]
            for depth in range(1, len(parts) + 1):
                sub = "/".join(parts[:depth])
                if self.exclude.is_match(sub, prefix + sub):
                    keep = None
                    break
        self._accepted[name] = keep
        return keep

    def _spans(self, text: str) -> list[tuple[int, int]]:
        if self.matcher is not None:
            spans = [
                (m.start(), m.end()) for m in self.matcher.finditer(text) if m.end() > m.start()
            ]
            if spans:
                return spans
            empty = self.matcher.search(text)
            if empty is not None:
                return [(empty.start(), empty.start())]
        return [(0, len(text))]  # grep selected the line; `re` cannot place the match

    def outcome(self, stderr: bytes, *, timed_out: bool = False) -> HostGrep:
        """The hits read so far (`timed_out`: the command was stopped at the deadline)."""
        hits: list[Hit] = []
        before_n, after_n = self.query.before, self.query.after
        for file in sorted(self.files, key=lambda f: f.encode("utf-8", "surrogateescape")):
            lines = self.files[file]
            for number in sorted(lines):
                offset, text, spans = lines[number]
                if not spans:
                    continue
                before = [
                    clean(lines[k][1]) for k in range(number - before_n, number) if k in lines
                ]
                after = [
                    clean(lines[k][1])
                    for k in range(number + 1, number + after_n + 1)
                    if k in lines
                ]
                shown = clean(text)
                for start, end in spans:
                    prefix_bytes = len(text[:start].encode("utf-8", "surrogateescape"))
                    content = text[start:end]
                    hits.append(
                        Hit(
                            file=clean(file),
                            line=number,
                            column=len(clean(text[:start])) + 1,
                            end_line=number,
                            byte_offset=offset + prefix_bytes,
                            byte_length=len(content.encode("utf-8", "surrogateescape")),
                            content=clean(content),
                            text=shown,
                            before=before,
                            after=after,
                        )
                    )
        limit = self.query.max_matches
        truncated = limit is not None and len(hits) > limit
        total = len(hits)
        if truncated and limit is not None:
            hits = hits[:limit]
            total = total if self.query.count_total else limit
        return HostGrep(
            hits=hits,
            total=total,
            truncated=truncated or timed_out,
            timed_out=timed_out,
            counts={
                "files_with_matches": len({h.file for h in hits}),
                "unreadable": stderr.count(b"Permission denied"),
            },
        )


class FindOutputError(ValueError):
    """find's output does not start with the record that says its format."""


def parse_find_output(stdout: bytes, stderr: bytes, query: GlobQuery) -> HostGlob:
    """The files of the script `ShellScripts.find` printed that match the query's glob by
    codesift's rules, sorted as asked."""
    records = stdout.split(b"\0")
    if not records or records[0] not in (b"P", b"N"):
        raise FindOutputError("find printed no format record")
    with_stat = records[0] == b"P"
    pattern = PathPattern([query.pattern], case_sensitive=query.case_sensitive)
    found: list[tuple[str, int, int]] = []
    for record in records[1:]:
        if not record:
            continue
        mtime_ms = size = 0
        if with_stat:
            parts = record.split(b"\t", 2)
            if len(parts) != 3:
                continue
            try:
                mtime_ms, size = int(float(parts[0]) * 1000), int(parts[1])
            except (ValueError, OverflowError):  # not find's numbers (inf, nan, junk)
                continue
            record = parts[2]
        rel_root, rel_search = relative_names(record, query.start)
        if pattern.is_match(rel_search, rel_root):
            found.append((rel_root, mtime_ms, size))
    total = len(found)
    if query.sort == "path":
        found.sort(key=lambda f: f[0].encode("utf-8", "surrogateescape"))
    elif query.sort == "mtime":
        found.sort(key=lambda f: (-f[1], f[0].encode("utf-8", "surrogateescape")))
    return HostGlob(
        files=[(clean(p), m, s) for p, m, s in found[: query.limit]],
        total=total,
        truncated=total > query.limit,
        unreadable=stderr.count(b"Permission denied"),
    )


def relative_names(name: bytes, start: str) -> tuple[str, str]:
    """(path relative to the root, path relative to the search directory) of a name that
    find or grep printed for the search path `start` (they print `start/...`)."""
    rel = name.decode("utf-8", "surrogateescape")
    while rel.startswith("./"):
        rel = rel[2:]
    if start == ".":
        return rel, rel
    if rel.startswith(start + "/"):
        return rel, rel[len(start) + 1 :]
    return rel, rel.rsplit("/", 1)[-1]  # the search path was this file


def fatal_errors(stderr: bytes) -> bool:
    """Whether the messages of grep or find show that it failed (not merely that some files
    were unreadable or vanished)."""
    for line in stderr.decode("utf-8", "replace").splitlines():
        if line.strip() and not any(
            s in line for s in ("Permission denied", "No such file", "Input/output error")
        ):
            return True
    return False


def clean(text: str) -> str:
    """Text with undecodable bytes (kept as surrogates) shown as U+FFFD."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
