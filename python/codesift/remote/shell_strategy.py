"""Strategy "shell", for hosts without codesift: `find` lists files and the glob is matched
here with codesift's own rules; `grep -rnbHZ -E` searches contents.

It applies no ignore files (`.gitignore`, `.clineignore`, `.codesiftignore` are not read),
skips `.git`, does not follow symlinks (`grep -r`, not `-R`, so a link cannot lead out of
the root), treats the pattern as a POSIX ERE (GNU grep; `\\d`, `(?:...)`, lazy quantifiers
are translated) with ASCII-only case folding (`LC_ALL=C`), cannot search across lines, and
its hits cannot be edited by id (linked edits need codesift on the host)."""

from __future__ import annotations

import time

from ..errors import CodesiftError, NotFoundError, PatternError
from .ere import python_regex, to_ere
from .errors import RemoteError, stderr_tail
from .host_specs import HostSpec
from .paths import RemoteRoot
from .queries import GlobQuery, GrepQuery, HostGlob, HostGrep
from .scripts import EXIT_BAD_PATTERN, EXIT_NO_PATH, EXIT_NO_ROOT, EXIT_NO_TOOL, ShellScripts
from .shell_output import FindOutputError, GrepReader, fatal_errors, parse_find_output
from .ssh import SshClient


class ShellStrategy:
    """Searches one host with its `find` and `grep`."""

    name = "shell"

    def __init__(
        self, ssh: SshClient, spec: HostSpec, scripts: ShellScripts, root: RemoteRoot
    ) -> None:
        self.ssh = ssh
        self.spec = spec
        self.scripts = scripts
        self.root = root

    def glob(self, query: GlobQuery) -> HostGlob:
        done = self.ssh.run(self.spec, self.scripts.find(query))
        failure = self._failure(done.returncode, done.stderr, query.start, "find")
        if failure is not None:
            raise failure
        try:
            if done.returncode != 0 and fatal_errors(done.stderr):
                raise FindOutputError("find failed")
            return parse_find_output(done.stdout, done.stderr, query)
        except FindOutputError:
            raise RemoteError(
                f"find failed on {self.spec.label} (exit {done.returncode}): "
                f"{stderr_tail(done.stderr) or 'no output'}"
            ) from None

    def grep(self, query: GrepQuery) -> HostGrep:
        label = self.spec.label
        if (
            query.multiline
            or (query.multiline is None and "\n" in query.pattern)
            or (not query.literal and "\\n" in query.pattern)
        ):
            raise RemoteError(
                f"multiline search needs codesift on {label} (strategy shell runs grep, which "
                "matches single lines); search one line at a time or install codesift there"
            )
        if query.literal:
            ere, ignore_case = query.pattern, False
        else:
            ere, ignore_case = to_ere(query.pattern)
        matcher = python_regex(
            query.pattern, query.literal, query.case_sensitive and not ignore_case
        )
        reader = GrepReader(query, matcher)
        deadline = None if query.timeout is None else time.monotonic() + query.timeout
        streamed = self.ssh.stream(
            self.spec, self.scripts.grep(query, ere, ignore_case), reader.feed, deadline=deadline
        )
        code, stderr = streamed.returncode, streamed.stderr
        failure = self._failure(code, stderr, query.start, "grep")
        if failure is not None:
            raise failure
        if code not in (0, 1, -1) and not reader.hits_seen and fatal_errors(stderr):
            raise RemoteError(
                f"grep failed on {label} (exit {code}): {stderr_tail(stderr)}; strategy shell "
                "needs GNU grep (or install codesift there)"
            )
        return reader.outcome(stderr, timed_out=streamed.timed_out)

    def _failure(self, code: int, stderr: bytes, start: str, tool: str) -> CodesiftError | None:
        """The error a script's exit code (`scripts.EXIT_*`) stands for, if any."""
        label = self.spec.label
        if code == EXIT_NO_ROOT:
            return NotFoundError(
                f"the root {self.root} does not exist on {label} (or is not a directory "
                "it can enter); check root"
            )
        if code == EXIT_NO_PATH:
            return NotFoundError(
                f"{self.root.display(start)} does not exist on {label}; check the path with glob"
            )
        if code == EXIT_NO_TOOL:
            return RemoteError(
                f"{tool} is not installed on {label}; install it (or codesift) there"
            )
        if code == EXIT_BAD_PATTERN:
            return PatternError(
                f"the host's grep rejected the pattern: {stderr_tail(stderr)}; fix the regex "
                "(grep -E syntax in strategy shell) or pass literal=true"
            )
        return None
