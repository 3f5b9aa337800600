"""Strategy "codesift": the search runs on the host with its own codesift (`--json-full`),
with the same semantics, ignore rules and speed as locally, and its JSON comes back.

The host's codesift runs with its defaults (gitignore, hidden files, no symlinks, index
"auto"), the options `codesift index build --root R` builds with: an index built on the host
for the root is used (never built by a search; the host's daemon builds one in the background,
see `codesift.cli._want_daemon_index`), and its `indexed` flag comes back."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from typing import Any

from .. import errors as _errors
from ..errors import CodesiftError
from .errors import CodesiftVanishedError, RemoteError, stderr_tail
from .host_specs import HostSpec
from .queries import GlobQuery, GrepQuery, Hit, HostGlob, HostGrep
from .scripts import ShellScripts
from .ssh import SshClient


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
        return HostGlob(
            files=[(str(f["path"]), int(f["mtime_ms"]), int(f["size"])) for f in data["files"]],
            total=int(data["total"]),
            truncated=bool(data["truncated"]),
            ignored=int(data.get("ignored", 0)),
            unreadable=int(data.get("unreadable", 0)),
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
        data = self._reply(self.ssh.run(self.spec, script))
        return HostGrep(
            hits=[_hit(m) for m in data["matches"]],
            total=int(data["total"]),
            truncated=bool(data["truncated"]),
            timed_out=bool(data.get("timed_out", False)),
            files_searched=int(data.get("files_searched", 0)),
            files_with_matches=int(data.get("files_with_matches", 0)),
            binary_files=int(data.get("binary_files", 0)),
            unreadable=int(data.get("unreadable", 0)),
            ignored=int(data.get("ignored", 0)),
            indexed=data.get("indexed") is True,
        )

    def apply_hit(self, request: dict[str, Any], hit_id: str) -> dict[str, Any]:
        """Runs `codesift apply-hit` for `request`: the edit result as JSON, with `span`
        (the bytes that changed)."""
        done = self.ssh.run(self.spec, self.scripts.apply_hit(self.launcher, request))
        return self._reply(done, hit_id)

    def _reply(self, done: subprocess.CompletedProcess[bytes], hit_id: str = "") -> dict[str, Any]:
        """The JSON a remote codesift printed; its errors raised as the same exception class."""
        label = self.spec.label
        try:
            data = json.loads(done.stdout.decode("utf-8", "replace"))
        except ValueError:
            data = None
        if not isinstance(data, dict):
            if done.returncode == 127:
                raise CodesiftVanishedError(
                    f"codesift is no longer runnable on {label} "
                    f"({stderr_tail(done.stderr)}); search again"
                )
            raise RemoteError(
                f"codesift on {label} failed (exit {done.returncode}): "
                f"{stderr_tail(done.stderr) or 'no output'}"
            )
        error = data.get("error")
        if isinstance(error, dict):
            kind = getattr(_errors, str(error.get("type")), None)
            if not (isinstance(kind, type) and issubclass(kind, CodesiftError)):
                kind = RemoteError
            message = str(error.get("message", "remote codesift failed"))
            if hit_id:
                message = message.replace("search result hit ", f"search result {hit_id} ")
            raise kind(message)
        return data


def _hit(match: dict[str, Any]) -> Hit:
    return Hit(
        file=str(match["file"]),
        line=int(match["line"]),
        column=int(match["column"]),
        end_line=int(match["end_line"]),
        byte_offset=int(match["byte_offset"]),
        byte_length=int(match.get("byte_length", len(str(match["content"]).encode()))),
        content=str(match["content"]),
        text=str(match["text"]),
        before=[str(x) for x in match.get("before", [])],
        after=[str(x) for x in match.get("after", [])],
        unique=bool(match.get("unique", False)),
        encoding=str(match.get("encoding", "utf-8")),
    )
