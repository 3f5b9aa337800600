"""Strategy "codesift": the search runs on the host with its own codesift (`--json-full`),
with the same semantics, ignore rules and speed as locally, and its JSON comes back.

The host's codesift runs with its defaults (gitignore, hidden files, no symlinks, index
"auto"), the options `codesift index build --root R` builds with: an index built on the host
for the root is used (never built by a search; the host's daemon builds one in the background,
see `codesift.cli.grep`), and its `indexed` flag comes back."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping, Sequence
from typing import Any

from .. import errors as _errors
from ..arguments import MAX_LINES
from ..errors import CodesiftError
from .answers import MIN_MTIME_MS, Answer
from .errors import CodesiftVanishedError, RemoteError, stderr_tail
from .host_specs import HostSpec
from .queries import GREP_COUNTS, GlobQuery, GrepQuery, Hit, HostGlob, HostGrep
from .scripts import ShellScripts
from .ssh import SshClient

#: Seconds a host may take beyond a search's `timeout` and `connect_timeout` to answer
#: (starting codesift, printing its JSON) before it is reported as not answering.
REPLY_GRACE_SECONDS = 30.0
#: Seconds an edit by id may take on the host (beyond `connect_timeout`): one file is
#: read and written, so a host that takes longer is reported rather than waited for.
EDIT_SECONDS = 120.0
#: The most of a host's error message kept (the rest is the host's, not worth a flood).
MAX_MESSAGE_CHARS = 2000


class CodesiftStrategy:
    """Runs codesift on one host through `launcher` (`codesift` or `python3 -m codesift`)."""

    name = "codesift"

    def __init__(
        self, ssh: SshClient, spec: HostSpec, scripts: ShellScripts, launcher: Sequence[str]
    ) -> None:
        self.ssh = ssh
        self.spec = spec
        self.scripts = scripts
        self.launcher = tuple(launcher)

    def glob(self, query: GlobQuery) -> HostGlob:
        options = ["--limit", str(query.limit), "--sort", query.sort]
        if not query.case_sensitive:
            options.append("--ignore-case")
        script = self.scripts.codesift(self.launcher, "glob", options, query.pattern, query.start)
        data = self._reply(self.ssh.run(self.spec, script))
        a = Answer(self.spec.label)
        files = []
        for item in a.items(data, "files"):
            f = a.object(item, "a file")
            files.append(
                (
                    a.text(f, "path"),
                    a.count(f, "mtime_ms", minimum=MIN_MTIME_MS),
                    a.count(f, "size"),
                )
            )
        return HostGlob(
            files=files,
            total=a.count(data, "total"),
            truncated=a.flag(data, "truncated"),
            ignored=a.count(data, "ignored", default=0),
            unreadable=a.count(data, "unreadable", default=0),
        )

    def grep(self, query: GrepQuery) -> HostGrep:
        options = [
            "-m",
            str(query.max_matches or 0),
            "-B",
            str(query.before),
            "-A",
            str(query.after),
        ]
        if query.literal:
            options.append("-F")
        # Always said: the command line is case-sensitive by default, the library is not.
        options.append("-s" if query.case_sensitive else "-i")
        if query.multiline:
            options.append("-U")
        if query.count_total:
            options.append("--count-total")
        if query.timeout is not None:
            options += ["--timeout", repr(query.timeout)]
        # `--glob=VALUE`, so that a glob starting with "-" cannot be read as an option.
        options += [f"--glob={glob}" for glob in query.include]
        options += [f"--glob=!{glob}" for glob in query.exclude]
        script = self.scripts.codesift(self.launcher, "grep", options, query.pattern, query.start)
        # The host's codesift stops at `timeout` itself; this side waits that long, plus
        # the connection and start-up, and no longer (a host that hangs is reported).
        limit = None
        if query.timeout is not None:
            limit = query.timeout + self.ssh.connect_timeout + REPLY_GRACE_SECONDS
        data = self._reply(self.ssh.run(self.spec, script, timeout=limit))
        a = Answer(self.spec.label)
        return HostGrep(
            hits=[_hit(a, a.object(m, "a match")) for m in a.items(data, "matches")],
            total=a.count(data, "total"),
            truncated=a.flag(data, "truncated"),
            timed_out=a.flag(data, "timed_out"),
            counts={name: a.count(data, name, default=0) for name in GREP_COUNTS},
            indexed=data.get("indexed") is True,
        )

    def apply_hit(self, request: dict[str, Any], hit_id: str) -> dict[str, Any]:
        """Runs `codesift apply-hit` for `request`: the edit result as JSON, with `span`
        (the bytes that changed)."""
        script = self.scripts.apply_hit(self.launcher, request)
        limit = self.ssh.connect_timeout + EDIT_SECONDS
        return self._reply(self.ssh.run(self.spec, script, timeout=limit), hit_id)

    def _reply(self, done: subprocess.CompletedProcess[bytes], hit_id: str = "") -> dict[str, Any]:
        """The JSON a remote codesift printed; its errors raised as the same exception class."""
        label = self.spec.label
        try:
            data = json.loads(done.stdout.decode("utf-8", "replace"))
        except (ValueError, RecursionError):  # not JSON, or nested past Python's stack
            data = None
        if not isinstance(data, dict):
            if done.returncode == 127:
                raise CodesiftVanishedError(
                    f"codesift is no longer runnable on {label} "
                    f"({stderr_tail(done.stderr)}); search again"
                )
            printed = "an answer that is not a JSON object" if done.stdout.strip() else "no output"
            raise RemoteError(
                f"codesift on {label} failed (exit {done.returncode}): "
                f"{stderr_tail(done.stderr) or printed}"
            )
        error = data.get("error")
        if isinstance(error, dict):
            kind = getattr(_errors, str(error.get("type")), None)
            if not (isinstance(kind, type) and issubclass(kind, CodesiftError)):
                kind = RemoteError
            message = str(error.get("message", "remote codesift failed"))
            if len(message) > MAX_MESSAGE_CHARS:
                message = message[:MAX_MESSAGE_CHARS] + " [cut]"
            if hit_id:
                message = message.replace("search result hit ", f"search result {hit_id} ")
            raise kind(message)
        return data


def _hit(a: Answer, match: Mapping[str, Any]) -> Hit:
    content = a.text(match, "content")
    return Hit(
        file=a.text(match, "file"),
        line=a.count(match, "line", maximum=MAX_LINES),
        column=a.count(match, "column"),
        end_line=a.count(match, "end_line", maximum=MAX_LINES),
        byte_offset=a.count(match, "byte_offset"),
        byte_length=a.count(match, "byte_length", default=len(content.encode("utf-8", "replace"))),
        content=content,
        text=a.text(match, "text"),
        before=a.texts(match, "before"),
        after=a.texts(match, "after"),
        unique=a.flag(match, "unique"),
        encoding=a.text(match, "encoding", default="utf-8"),
    )
