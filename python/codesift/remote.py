"""Remote search: glob and grep on one or many hosts over SSH, with the result types of
`Workspace` and edits of remote hits by their `search_result_id`.

    from codesift.remote import RemoteWorkspace
    with RemoteWorkspace("web1,deploy@web2:2222", root="/srv/app") as rws:
        result = rws.grep(r"DEBUG\\s*=\\s*True", include="*.py")
        rws.edit_result(result.matches[0].id, "DEBUG = False")

How it works:

- The system `ssh` client runs every command (`ssh -F CONFIG` when `ssh_config` is given,
  else the user's `~/.ssh/config` applies as usual), with `BatchMode=yes` (never a password
  prompt), `ConnectTimeout`, and connection sharing: `ControlMaster=auto`, `ControlPersist`
  and a `ControlPath` in a private directory (mode 0700) under the temp directory, so a
  second search on a host reuses the first one's connection. `close()` (or leaving the
  `with` block, or interpreter exit) stops those master connections with `ssh -O exit`.
- Each command runs as a POSIX `sh` script fed to `exec sh -s` on stdin, so the user's
  login shell (bash, zsh, fish, csh ...) never parses a user string, and every argument in
  the script is quoted with `shlex.quote`.
- Strategy per host (`strategy="auto"` probes once and remembers): `"codesift"` when
  `codesift` or `python3 -m codesift` runs there: the search runs on the host with
  `--json-full` and the structured result comes back (same semantics, ignore rules and
  speed as locally). Otherwise `"shell"`: `find` lists files and the glob is matched here
  with codesift's own rules; `grep -rnbHZ -E` searches contents. Strategy "shell" applies
  no ignore files (`.gitignore`, `.clineignore`, `.codesiftignore` are not read), skips
  `.git`, does not follow symlinks (`grep -r`, not `-R`, so a link cannot lead out of the
  root), treats the pattern as a POSIX ERE (GNU grep; `\\d`, `(?:...)`, lazy quantifiers
  are translated) with ASCII-only case folding (`LC_ALL=C`), cannot search across lines,
  and its hits cannot be edited by id (linked edits need codesift on the host).
- Hits get ids from this workspace's own cache (`sr_` + a salt + a counter), remembered
  with their host, so `edit_result(id, new)` runs `codesift apply-hit` on that host.
"""

from __future__ import annotations

import bisect
import contextvars
import json
import os
import posixpath
import re
import secrets
import selectors
import shlex
import shutil
import subprocess
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from . import _core
from . import errors as _errors
from ._core import GlobMatch, GrepMatch
from .arguments import (
    MAX_TIMEOUT_SECONDS,
    GrepArgs,
    check_glob_arguments,
    check_int,
    check_seconds,
    check_text,
    grep_arguments,
)
from .cache import ResultCache
from .control import current as current_control
from .errors import (
    CodesiftError,
    InvalidArgumentError,
    NotFoundError,
    PatternError,
    SandboxError,
    StaleResultError,
)
from .results import EditResult, GlobResult, GrepResult, plural

STRATEGIES = ("auto", "codesift", "shell")
ID_SALT_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"
BASE36_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
CONTROL_PERSIST = 300  # seconds an idle master connection stays up
PROBE_EXTRA_SECONDS = 30  # the probe's time limit beyond connect_timeout
MAX_WORKERS = 32
CANCEL_POLL = 0.05  # seconds between checks of a cancelled call while a host streams
MAX_BRACE_EXPANSIONS = 64
# Exit codes of the shell-strategy scripts (chosen away from those of find and grep).
EXIT_NO_ROOT, EXIT_NO_PATH, EXIT_NO_TOOL, EXIT_BAD_PATTERN = 97, 98, 96, 95
# Errors that are the caller's, not a host's: when every host reports one, it is raised.
CALLER_ERRORS = (
    PatternError,
    InvalidArgumentError,
    SandboxError,
    NotFoundError,
    _errors.NotAFileError,
)


class RemoteError(CodesiftError):
    """A host could not be searched: unreachable, authentication refused, a timeout, or a
    command missing or failing there."""


# -- hosts -------------------------------------------------------------------------------------

_USER = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
_HOSTNAME = re.compile(r"[A-Za-z0-9_%:][A-Za-z0-9_.%:-]*")


@dataclass(frozen=True)
class HostSpec:
    """One host of a hosts string: `label` is how results name it (as the user wrote it)."""

    label: str
    host: str
    user: str | None = None
    port: int | None = None


def parse_hosts(hosts: str) -> list[HostSpec]:
    """`"h1,deploy@h2:2222,[::1]:22"` as host specs (each `[user@]host[:port]` or an ssh-config
    alias; an IPv6 address with a port goes in brackets). Duplicates are dropped."""
    if not isinstance(hosts, str) or not hosts.strip():
        raise InvalidArgumentError(
            'hosts must be a non-empty string such as "web1" or "web1,deploy@web2:2222"'
        )
    specs: dict[str, HostSpec] = {}
    for part in hosts.split(","):
        label = part.strip()
        if not label:
            raise InvalidArgumentError(
                f"hosts {hosts!r} has an empty entry; separate hosts with single commas"
            )
        specs.setdefault(label, _parse_host(label))
    return list(specs.values())


def _parse_host(label: str) -> HostSpec:
    def bad(why: str) -> InvalidArgumentError:
        return InvalidArgumentError(
            f"host {label!r} is not valid ({why}); write [user@]host[:port], [user@][ipv6]:port "
            "or an alias from your ssh config"
        )

    user, at, rest = label.rpartition("@")
    if at and not _USER.fullmatch(user):
        raise bad("bad user name")
    port_text = None
    if rest.startswith("["):
        m = re.fullmatch(r"\[([0-9A-Za-z:.%_-]+)\](?::(\d+))?", rest)
        if not m:
            raise bad("bad bracketed address")
        host, port_text = m[1], m[2]
    elif rest.count(":") == 1:
        host, port_text = rest.split(":")
    else:
        host = rest  # a name, an IPv4 address, or a bare IPv6 address (no port)
    if not host or not _HOSTNAME.fullmatch(host):
        raise bad("bad host name")
    port = None
    if port_text is not None:
        if not port_text.isdigit() or not 0 < int(port_text) < 65536:
            raise bad("the port must be a number from 1 to 65535")
        port = int(port_text)
    return HostSpec(label=label, host=host, user=user or None, port=port)


# -- results -----------------------------------------------------------------------------------


def _on_hosts(summary: str, head: str, hosts: Sequence[str], errors: dict[str, str]) -> str:
    """`summary` (which starts with `head`, up to the searched path) with " on h1, h2" after
    the path, and the failed hosts at the end."""
    if hosts:
        on = f" on {', '.join(hosts)}"
        if summary.startswith(head):
            summary = head + on + summary[len(head) :]
        else:
            summary += on
    if errors:
        summary += f" [{plural(len(errors), 'host')} failed: {', '.join(errors)}]"
    return summary


@dataclass(frozen=True)
class RemoteGlobResult(GlobResult):
    """A `GlobResult` over hosts; each file carries its `host`."""

    hosts: tuple[str, ...] = ()

    @property
    def summary(self) -> str:
        head = f'Found {plural(self.total, "file")} matching "{self.pattern}" in {self.path}'
        return _on_hosts(super().summary, head, self.hosts, self.errors)

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data["hosts"] = list(self.hosts)
        return data


@dataclass(frozen=True)
class RemoteGrepResult(GrepResult):
    """A `GrepResult` over hosts; each match carries its `host`."""

    hosts: tuple[str, ...] = ()

    @property
    def summary(self) -> str:
        shown = f'"{self.pattern}"' if self.literal else f"/{self.pattern}/"
        head = f"Found {plural(self.total, 'match', 'matches')} for {shown} in {self.path}"
        return _on_hosts(super().summary, head, self.hosts, self.errors)

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data["hosts"] = list(self.hosts)
        return data


@dataclass(frozen=True)
class RemoteEditResult(EditResult):
    """An `EditResult` of an edit made on `host`."""

    host: str = ""

    @property
    def summary(self) -> str:
        text = super().summary
        prefix = f"Edited {self.path}"
        return f"{prefix} on {self.host}{text[len(prefix) :]}" if text.startswith(prefix) else text

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data["host"] = self.host
        return data


# -- the ssh client ----------------------------------------------------------------------------


class _Connections:
    """Builds `ssh` command lines and owns the control sockets of shared connections.

    Kept apart from `RemoteWorkspace` so that a finalizer can stop the master connections
    without keeping the workspace alive."""

    def __init__(
        self,
        *,
        ssh_config: str | None,
        ssh_options: Sequence[str],
        identity_file: str | None,
        connect_timeout: float,
        control_persist: int,
    ) -> None:
        self.ssh_config = ssh_config
        self.ssh_options = tuple(ssh_options)
        self.identity_file = identity_file
        self.connect_timeout = connect_timeout
        self.control_persist = control_persist
        self._dir: str | None = None
        self._used: dict[str, HostSpec] = {}
        self._lock = threading.Lock()

    def control_dir(self) -> str:
        """A private directory (0700) for the control sockets. Its path is kept short:
        sockets are `DIR/%C` (40 hex digits) and a Unix socket path has at most 107 bytes."""
        with self._lock:
            if self._dir is None or not os.path.isdir(self._dir):
                base = tempfile.gettempdir()
                if len(base) > 40 or not os.access(base, os.W_OK):
                    base = "/tmp"
                self._dir = tempfile.mkdtemp(prefix="codesift-ssh-", dir=base)
            return self._dir

    def argv(
        self,
        spec: HostSpec,
        command: str,
        *,
        control: str | None = None,
        directory: str | None = None,
    ) -> list[str]:
        ssh = shutil.which("ssh")
        if ssh is None:
            raise RemoteError(
                "the ssh client is not installed on this machine; install OpenSSH "
                "(apt-get install openssh-client) to search remote hosts"
            )
        argv = [ssh]
        if self.ssh_config is not None:
            argv += ["-F", self.ssh_config]
        # ssh keeps the first value it gets for an option: the caller's options come first.
        argv += self.ssh_options
        if self.identity_file is not None:
            argv += ["-i", self.identity_file]
        argv += [
            "-o",
            "BatchMode=yes",
            "-o",
            f"ConnectTimeout={max(1, round(self.connect_timeout))}",
            "-o",
            "ControlMaster=auto",
            "-o",
            f"ControlPath={directory or self.control_dir()}/%C",
            "-o",
            f"ControlPersist={self.control_persist}",
            "-o",
            "ServerAliveInterval=15",
            "-o",
            "ServerAliveCountMax=3",
            "-o",
            "LogLevel=ERROR",
            "-T",
        ]
        if control is not None:
            argv += ["-O", control]
        if spec.port is not None:
            argv += ["-p", str(spec.port)]
        if spec.user is not None:
            argv += ["-l", spec.user]
        argv += ["--", spec.host]
        if command:
            argv.append(command)
        return argv

    def mark_used(self, spec: HostSpec) -> None:
        with self._lock:
            self._used[spec.label] = spec

    def close(self) -> None:
        """Stops the master connections and removes the socket directory."""
        with self._lock:
            used, self._used = list(self._used.values()), {}
            directory, self._dir = self._dir, None
        if directory is None:
            return
        for spec in used:
            try:
                subprocess.run(
                    self.argv(spec, "", control="exit", directory=directory),
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    timeout=10,
                    check=False,
                )
            except (OSError, subprocess.SubprocessError):
                pass
        shutil.rmtree(directory, ignore_errors=True)


def _ssh_failure(spec: HostSpec, stderr: bytes, timeout: float) -> RemoteError:
    """A clear message for ssh's own failure (exit status 255)."""
    text = stderr.decode("utf-8", "replace").strip()
    lines = [line for line in text.splitlines() if line.strip()]
    last = lines[-1] if lines else "ssh failed without a message"
    low = text.lower()
    if "connection refused" in low:
        why = (
            f"connection refused ({last}); check that sshd runs on the host and that the "
            "port is right"
        )
    elif "timed out" in low:
        why = f"connection timed out after {timeout:g}s ({last}); check that the host is reachable"
    elif "permission denied" in low or "too many authentication failures" in low:
        why = (
            f"authentication refused ({last}); no password is asked (BatchMode), so give a key "
            "the host accepts: identity_file, ssh_options or your ssh config"
        )
    elif "host key verification failed" in low or "host identification has changed" in low:
        why = (
            f"host key not trusted ({last}); connect once with ssh to check and accept it, or "
            "set StrictHostKeyChecking/UserKnownHostsFile in your ssh config"
        )
    elif "could not resolve" in low or "name or service not known" in low:
        why = f"unknown host ({last}); check the name or add it to your ssh config"
    else:
        why = f"ssh failed: {last}"
    return RemoteError(why)


def _q(value: str) -> str:
    return shlex.quote(value)


def _remote_dir(root: str) -> str:
    """The root as a shell word: quoted, with a leading `~` or `~/` expanded by the shell."""
    if root == "~":
        return '"$HOME"'
    if root.startswith("~/"):
        return '"$HOME"/' + _q(root[2:])
    return _q(root)


# -- glob rules (codesift's, for strategy "shell") ---------------------------------------------


def _normalize_glob(pattern: str) -> str:
    return _core.normalize_glob(pattern)


def PathPattern(patterns: Iterable[str], *, case_sensitive: bool = True) -> _core.GlobMatcher:  # noqa: N802
    """codesift's own glob matcher (the engine's), so strategy "shell" matches names exactly
    as a local search would."""
    return _core.GlobMatcher(list(patterns), case_sensitive)


def expand_braces(glob: str, limit: int = MAX_BRACE_EXPANSIONS) -> list[str] | None:
    """`a.{b,c}` as `["a.b", "a.c"]` (nested braces too); None past `limit` expansions or
    for unbalanced braces."""
    start = -1
    depth = 0
    i = 0
    while i < len(glob):
        c = glob[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            end = glob.find("]", i + 2)
            i = end + 1 if end > 0 else i + 1
            continue
        if c == "{":
            if depth == 0:
                start = i
            depth += 1
        elif c == "}" and depth:
            depth -= 1
            if depth == 0:
                body = glob[start + 1 : i]
                alternatives: list[str] = []
                current: list[str] = []
                level = 0
                for ch in body:
                    if ch == "{":
                        level += 1
                    elif ch == "}":
                        level -= 1
                    if ch == "," and level == 0:
                        alternatives.append("".join(current))
                        current = []
                    else:
                        current.append(ch)
                alternatives.append("".join(current))
                result: list[str] = []
                for alternative in alternatives:
                    expanded = expand_braces(glob[:start] + alternative + glob[i + 1 :], limit)
                    if expanded is None:
                        return None
                    result.extend(expanded)
                    if len(result) > limit:
                        return None
                return result
        i += 1
    return None if depth else [glob]


# -- regex translation (codesift's Rust syntax -> grep ERE and Python re) ----------------------

_PY_POSIX_CLASSES = {
    "alpha": "a-zA-Z",
    "digit": "0-9",
    "alnum": "a-zA-Z0-9",
    "upper": "A-Z",
    "lower": "a-z",
    "space": r"\s",
    "blank": r" \t",
    "xdigit": "0-9A-Fa-f",
    "word": r"\w",
    "punct": re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
    "cntrl": r"\x00-\x1f\x7f",
    "print": r"\x20-\x7e",
    "graph": r"\x21-\x7e",
}


_ERE_ESCAPES = {"d": "[0-9]", "D": "[^0-9]", "t": "\t", "A": "^", "z": "$"}


def to_ere(pattern: str) -> tuple[str, bool]:
    """The pattern (codesift's Rust regex syntax) as a GNU grep ERE, and whether it asked for
    case-insensitivity with a leading `(?i)`. The lines it selects are the same; Rust-only
    syntax without an ERE equivalent is a `PatternError`."""
    ignore_case = False
    if pattern.startswith("(?i)"):
        pattern, ignore_case = pattern[4:], True
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            d = pattern[i + 1]
            if d in _ERE_ESCAPES:
                out.append(_ERE_ESCAPES[d])
            elif not d.isalnum() and d not in ".[]()*+?{}|^$\\":
                out.append(d)  # `\-`, `\#`, `\ `: plain characters in an ERE
            else:
                out.append(c + d)
            i += 2
        elif c == "[":
            i = _ere_class(pattern, i, out)
        elif pattern.startswith("(?", i):
            m = re.match(r"\(\?(?::|P?<[A-Za-z_][A-Za-z0-9_]*>)", pattern[i:])
            if m is None:
                raise PatternError(
                    f"/{pattern}/ uses a (?...) group that the host's grep cannot run (strategy "
                    "shell); rewrite it with plain (...) groups or install codesift on the host"
                )
            out.append("(")
            i += m.end()
        elif c in "*+?}" and pattern.startswith("?", i + 1):
            out.append(c)  # a lazy quantifier selects the same lines as a greedy one
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out), ignore_case


def _ere_class(pattern: str, i: int, out: list[str]) -> int:
    """Translates the bracket expression at `pattern[i]`; returns the index after it."""
    n = len(pattern)
    j = i + 1
    negate = j < n and pattern[j] == "^"
    if negate:
        j += 1
    items: list[str] = []
    rbracket = dash = caret = False
    first = True
    while j < n:
        c = pattern[j]
        if c == "]" and not first:
            break
        first = False
        if pattern.startswith("[:", j) and (k := pattern.find(":]", j + 2)) > 0:
            items.append(pattern[j : k + 2])
            j = k + 2
        elif c == "\\" and j + 1 < n:
            d = pattern[j + 1]
            j += 2
            if d == "]":
                rbracket = True
            elif d == "-":
                dash = True
            elif d == "^":
                caret = True
            else:
                items.append({"d": "0-9", "w": "[:alnum:]_", "s": "[:space:]", "t": "\t"}.get(d, d))
        elif c == "]":
            rbracket = True
            j += 1
        else:
            items.append(c)
            j += 1
    if j >= n:
        out.append(pattern[i:])  # unclosed: let grep report it
        return n
    if not items and not rbracket and not dash and caret and not negate:
        out.append("\\^")
    else:
        out.append(
            "["
            + ("^" if negate else "")
            + ("]" if rbracket else "")
            + "".join(items)
            + ("^" if caret else "")
            + ("-" if dash else "")
            + "]"
        )
    return j + 1


def _python_regex(pattern: str, literal: bool, case_sensitive: bool) -> re.Pattern[str] | None:
    """The pattern for Python's `re`, to find each match's columns on a line grep selected;
    None when `re` cannot compile it (each selected line then counts as one hit)."""
    flags = 0 if case_sensitive else re.IGNORECASE
    if literal:
        return re.compile(re.escape(pattern), flags)
    translated = re.sub(
        r"\[:(\w+):\]", lambda m: _PY_POSIX_CLASSES.get(m[1], m[0]), pattern
    ).replace("(?<", "(?P<")
    translated = re.sub(r"\(\?P<([=!])", r"(?<\1", translated).replace("\\z", "\\Z")
    try:
        return re.compile(translated, flags)
    except (re.error, OverflowError, RecursionError):
        return None


# -- per-host outcomes -------------------------------------------------------------------------


@dataclass
class _Hit:
    """A hit as a host reported it, before it gets an id here."""

    file: str
    line: int
    column: int
    end_line: int
    byte_offset: int
    byte_length: int
    content: str
    text: str
    before: list[str]
    after: list[str]
    unique: bool = False
    encoding: str = "utf-8"


@dataclass
class _HostGrep:
    hits: list[_Hit]
    total: int
    truncated: bool
    timed_out: bool = False
    files_searched: int = 0
    files_with_matches: int = 0
    binary_files: int = 0
    unreadable: int = 0
    ignored: int = 0


@dataclass
class _HostGlob:
    files: list[tuple[str, int, int]]  # path, mtime_ms, size
    total: int
    truncated: bool
    ignored: int = 0
    unreadable: int = 0


@dataclass
class _HostState:
    spec: HostSpec
    strategy: str | None = None  # "codesift" or "shell" once known
    launcher: tuple[str, ...] = ()  # how codesift runs there
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass(frozen=True)
class _GrepQuery(GrepArgs):
    """The checked grep arguments, and where on the host to search."""

    start: str  # the search path relative to the root ("." for the root)


@dataclass(frozen=True)
class _GlobQuery:
    pattern: str
    start: str
    limit: int
    sort: str
    case_sensitive: bool


_PROBE = """\
if codesift apply-hit --help >/dev/null 2>&1 </dev/null; then
  echo codesift-strategy:codesift
elif python3 -m codesift apply-hit --help >/dev/null 2>&1 </dev/null; then
  echo codesift-strategy:python3
else
  echo codesift-strategy:shell
fi
"""
_LAUNCHERS = {"codesift": ("codesift",), "python3": ("python3", "-m", "codesift")}
_GREP_RECORD = re.compile(rb"(\d+)([:-])(\d+)[:-](.*)", re.DOTALL)


# -- the workspace -----------------------------------------------------------------------------


class RemoteWorkspace:
    """glob and grep on one or several hosts over SSH, with `Workspace`'s parameters and result
    types, and `edit_result` for hits found by strategy "codesift".

    Args:
        hosts: `"h1"` or `"h1,deploy@h2:2222"`: each `[user@]host[:port]` or an ssh-config
            alias (IPv6 with a port in brackets: `[2001:db8::1]:22`).
        root: the directory searched on every host (absolute, or `~/...`; a relative root
            is relative to the login directory).
        ssh_config: a file passed to `ssh -F` (default: ssh reads `~/.ssh/config`).
        ssh_options: extra `ssh` arguments, e.g. `("-o", "ProxyJump=bastion")`; they take
            precedence over codesift's own `-o` defaults.
        strategy: `"auto"` (probe each host once), `"codesift"` or `"shell"`.
        connect_timeout: seconds for ssh's `ConnectTimeout`.
        identity_file: a private key (`ssh -i`).
        port: the port for hosts that name none.
        control_persist: seconds an idle shared connection stays open.
        cache_size: search hits kept for `edit_result`.
    """

    def __init__(
        self,
        hosts: str,
        root: str = ".",
        *,
        ssh_config: str | os.PathLike[str] | None = None,
        ssh_options: Sequence[str] | str = (),
        strategy: str = "auto",
        connect_timeout: float = 10,
        identity_file: str | os.PathLike[str] | None = None,
        port: int | None = None,
        control_persist: int = CONTROL_PERSIST,
        cache_size: int = 100_000,
    ) -> None:
        specs = parse_hosts(hosts)
        if port is not None:
            check_int("port", port, minimum=1)
            specs = [
                s if s.port is not None else HostSpec(s.label, s.host, s.user, port) for s in specs
            ]
        root = os.fspath(root) if isinstance(root, os.PathLike) else root
        check_text("root", root)
        if strategy not in STRATEGIES:
            raise InvalidArgumentError(
                f'strategy must be "auto", "codesift" or "shell", not {strategy!r}'
            )
        check_seconds("connect_timeout", connect_timeout, maximum=MAX_TIMEOUT_SECONDS)
        check_int("control_persist", control_persist, minimum=1, required=True)
        options = shlex.split(ssh_options) if isinstance(ssh_options, str) else list(ssh_options)
        if not all(isinstance(o, str) and "\x00" not in o for o in options):
            raise InvalidArgumentError("ssh_options must be a list of strings (ssh arguments)")
        self.root = root.rstrip("/") or "/"
        self.strategy = strategy
        self.connect_timeout = float(connect_timeout)
        self._states = {s.label: _HostState(s) for s in specs}
        if strategy != "auto":
            for state in self._states.values():
                state.strategy = strategy if strategy == "shell" else None
        self._ssh = _Connections(
            ssh_config=None if ssh_config is None else os.path.expanduser(os.fspath(ssh_config)),
            ssh_options=options,
            identity_file=(
                None if identity_file is None else os.path.expanduser(os.fspath(identity_file))
            ),
            connect_timeout=self.connect_timeout,
            control_persist=control_persist,
        )
        self._finalizer = weakref.finalize(self, self._ssh.close)
        salt = "".join(secrets.choice(ID_SALT_ALPHABET) for _ in range(4))
        self.cache = ResultCache(f"sr_{salt}", capacity=cache_size)
        self._next_id = 0
        self._id_lock = threading.Lock()
        # Id ranges of each search per host: (first number, end number, host, strategy).
        self._ranges: list[tuple[int, int, str, str]] = []

    # -- public ---------------------------------------------------------------------------

    @property
    def hosts(self) -> list[str]:
        return list(self._states)

    def __repr__(self) -> str:
        return f"RemoteWorkspace({','.join(self._states)!r}, root={self.root!r})"

    def __enter__(self) -> RemoteWorkspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stops the shared SSH connections (`ssh -O exit`); a later search reconnects."""
        self._ssh.close()

    @property
    def control_dir(self) -> str:
        """The private directory of the control sockets of shared connections."""
        return self._ssh.control_dir()

    def strategy_of(self, host: str) -> str:
        """The strategy used for `host` ("codesift" or "shell"), probing it if needed."""
        state = self._states.get(host)
        if state is None:
            raise InvalidArgumentError(f"{host!r} is not one of {', '.join(self._states)}")
        return self._strategy(state)

    def glob(
        self,
        pattern: str,
        path: str = ".",
        *,
        limit: int = 2000,
        sort: str = "path",
        case_sensitive: bool = True,
        max_total: int | None = None,
    ) -> RemoteGlobResult:
        """Files matching `pattern` under `path` on every host: `limit` per host, and at most
        `max_total` in all (shared fairly between hosts)."""
        check_glob_arguments(pattern, limit, sort)
        check_int("max_total", max_total, minimum=0)
        start = self._start(path)
        if self.root.startswith("/") and pattern.startswith(self.root.rstrip("/") + "/"):
            pattern_rel = pattern[len(self.root.rstrip("/")) + 1 :]
        else:
            pattern_rel = pattern
        query = _GlobQuery(pattern_rel, start, limit, sort, bool(case_sensitive))
        PathPattern([pattern_rel], case_sensitive=bool(case_sensitive))  # a bad glob raises here
        outcomes, failures = self._each_host(lambda state: self._glob_host(state, query))
        per_host = {
            h: [GlobMatch(p, m, s, host=h) for p, m, s in o.files] for h, o in outcomes.items()
        }
        kept, cut = _fair_share(per_host, max_total)
        return RemoteGlobResult(
            files=[f for h in self._states for f in kept.get(h, [])],
            total=sum(o.total for o in outcomes.values()),
            truncated=cut or any(o.truncated for o in outcomes.values()),
            ignored=sum(o.ignored for o in outcomes.values()),
            pattern=pattern,
            path=self._display(start),
            sort=sort,
            limit=limit,
            unreadable=sum(o.unreadable for o in outcomes.values()),
            errors=failures,
            hosts=tuple(self._states),
        )

    def grep(
        self,
        pattern: str,
        path: str = ".",
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
        max_total: int | None = None,
    ) -> RemoteGrepResult:
        """Every match of `pattern` under `path` on every host, ordered by host (as given),
        then path, line and column. `max_matches` applies per host, `max_total` to all."""
        check_int("max_total", max_total, minimum=1)
        a = grep_arguments(
            pattern,
            include=include,
            exclude=exclude,
            literal=literal,
            case_sensitive=case_sensitive,
            multiline=multiline,
            context_lines=context_lines,
            before=before,
            after=after,
            max_matches=max_matches,
            count_total=count_total,
            timeout=timeout,
        )
        PathPattern(a.include + a.exclude)  # a bad filter glob raises here
        query = _GrepQuery(**vars(a), start=self._start(path))
        outcomes, failures = self._each_host(lambda state: self._grep_host(state, query))
        kept, cut = _fair_share({h: o.hits for h, o in outcomes.items()}, max_total)
        matches = self._register(kept)
        return RemoteGrepResult(
            matches=matches,
            total=sum(o.total for o in outcomes.values()),
            truncated=cut or any(o.truncated for o in outcomes.values()),
            pattern=pattern,
            path=self._display(query.start),
            literal=bool(literal),
            include=a.include,
            exclude=a.exclude,
            max_matches=max_matches,
            files_searched=sum(o.files_searched for o in outcomes.values()),
            files_with_matches=sum(o.files_with_matches for o in outcomes.values()),
            binary_files=sum(o.binary_files for o in outcomes.values()),
            unreadable=sum(o.unreadable for o in outcomes.values()),
            ignored=sum(o.ignored for o in outcomes.values()),
            timed_out=any(o.timed_out for o in outcomes.values()),
            timeout=query.timeout,
            errors=failures,
            hosts=tuple(self._states),
        )

    def owns(self, search_result_id: object) -> bool:
        """Whether `search_result_id` is a (still cached) hit of this workspace."""
        return isinstance(search_result_id, str) and self.cache.get(search_result_id) is not None

    def edit_result(
        self, search_result_id: str, new: str, *, path: str | None = None
    ) -> RemoteEditResult:
        """Replaces exactly the text of a remote hit, on its host, with `Workspace.edit_result`'s
        rules (exact span, or relocated when unique; else `StaleResultError`). Only for hits
        found by strategy "codesift": linked edits need codesift on the host."""
        if not isinstance(search_result_id, str) or not search_result_id:
            raise InvalidArgumentError("search_result_id must be a non-empty string")
        if not isinstance(new, str):
            raise InvalidArgumentError("new_string must be a string")
        found = self.cache.lookup(search_result_id)
        if found is None:
            raise StaleResultError(
                f"search_result_id {search_result_id!r} is unknown, expired or was used up by "
                "an earlier edit; run grep again and use an id from its result"
            )
        match, state = found
        host, strategy = self._origin(search_result_id)
        if strategy != "codesift":
            raise InvalidArgumentError(
                f'search result {search_result_id} was found on {host} by strategy "shell" '
                "(codesift is not installed there); linked edits need codesift on the host: "
                "install it there (pip install codesift) and search again"
            )
        if path is not None and posixpath.normpath(self._start(path)) != match.file:
            raise InvalidArgumentError(
                f"search_result_id {search_result_id} is a hit in {match.file}, not in {path}; "
                "leave path out or search again"
            )
        request = {
            "file": match.file,
            "byte_offset": state.byte_offset,
            "byte_length": match.byte_length,
            "content": match.content,
            "new": new,
            "unique": match.unique,
            "line": state.line,
        }
        host_state = self._states[host]
        delimiter = f"CODESIFT_JSON_{secrets.token_hex(8)}"
        script = (
            f"exec {self._command(host_state, 'apply-hit')} --root={_remote_dir(self.root)} "
            f"<<'{delimiter}'\n{json.dumps(request, ensure_ascii=True)}\n{delimiter}\n"
        )
        done = self._run(host_state, script)
        data = self._codesift_json(host_state, done, search_result_id)
        span = data.get("span") or {}
        self.cache.after_edit(
            match.file,
            host,
            int(span.get("byte_offset", state.byte_offset)),
            int(span.get("old_length", match.byte_length)),
            int(span.get("new_length", 0)),
            int(span.get("line_delta", 0)),
            edited_id=search_result_id,
        )
        return RemoteEditResult(
            path=str(data["path"]),
            replacements=int(data["replacements"]),
            strategy=str(data["strategy"]),
            first_line=int(data["first_line"]),
            last_line=int(data["last_line"]),
            diff=str(data["diff"]),
            moved_from=data.get("moved_from"),
            host=host,
        )

    # -- hosts ----------------------------------------------------------------------------

    def _each_host(
        self, work: Callable[[_HostState], Any]
    ) -> tuple[dict[str, Any], dict[str, str]]:
        """Runs `work` on every host concurrently: the outcomes of the hosts that succeeded
        and the messages of those that failed. When every host failed with the same error of
        the caller's (a bad pattern, a missing path), that error is raised."""
        states = list(self._states.values())
        outcomes: dict[str, Any] = {}
        failures: dict[str, CodesiftError] = {}
        control = current_control()

        def guarded(state: _HostState) -> Any:
            try:
                return work(state)
            except (KeyError, ValueError, TypeError) as exc:  # a malformed answer
                raise RemoteError(
                    f"unexpected answer from {state.spec.label} ({type(exc).__name__}: {exc}); "
                    "check the codesift version there"
                ) from None
            finally:
                if control is not None:  # progress of a call served with a CallControl
                    control.advance("hosts answered", total=len(states))

        if len(states) == 1:
            try:
                outcomes[states[0].spec.label] = guarded(states[0])
            except CodesiftError as exc:
                failures[states[0].spec.label] = exc
        else:
            with ThreadPoolExecutor(max_workers=min(len(states), MAX_WORKERS)) as pool:
                # Each host's thread sees the call's control (to stop when it is cancelled).
                futures = {
                    s.spec.label: pool.submit(contextvars.copy_context().run, guarded, s)
                    for s in states
                }
                for label, future in futures.items():
                    try:
                        outcomes[label] = future.result()
                    except CodesiftError as exc:
                        failures[label] = exc
        if failures and not outcomes:
            kinds = {type(e) for e in failures.values()}
            if len(kinds) == 1 and issubclass(next(iter(kinds)), CALLER_ERRORS):
                first_label, first = next(iter(failures.items()))
                where = f"on {first_label}" if len(failures) == 1 else "on every host"
                raise type(first)(f"{first} ({where})")
        return outcomes, {label: str(error) for label, error in failures.items()}

    def _strategy(self, state: _HostState) -> str:
        with state.lock:
            if state.strategy == "codesift" and state.launcher:
                return "codesift"
            if state.strategy == "shell":
                return "shell"
            done = self._run(state, _PROBE, timeout=self.connect_timeout + PROBE_EXTRA_SECONDS)
            found = re.findall(rb"codesift-strategy:(\w+)", done.stdout)
            if done.returncode != 0 or not found:
                raise RemoteError(
                    f"could not probe {state.spec.label} (exit {done.returncode}): "
                    f"{_tail(done.stderr) or 'no output'}"
                )
            kind = found[-1].decode()
            if kind in _LAUNCHERS:
                state.strategy, state.launcher = "codesift", _LAUNCHERS[kind]
            elif self.strategy == "codesift":
                raise RemoteError(
                    f"codesift is not installed on {state.spec.label} (neither `codesift` nor "
                    "`python3 -m codesift` with the apply-hit command runs there); install it "
                    'there or use strategy "auto" or "shell"'
                )
            else:
                state.strategy = "shell"
            return state.strategy

    def _run(
        self,
        state: _HostState,
        script: str,
        *,
        timeout: float | None = None,
    ) -> subprocess.CompletedProcess[bytes]:
        """Runs a POSIX sh script on the host (fed to `sh -s` on stdin, so the login shell
        never parses it). ssh's own failures (exit 255) raise `RemoteError`."""
        argv = self._ssh.argv(state.spec, "exec sh -s")
        self._ssh.mark_used(state.spec)
        try:
            done = subprocess.run(
                argv,
                input=script.encode("utf-8", "surrogateescape"),
                capture_output=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise RemoteError(
                f"{state.spec.label} did not answer within {timeout:g}s; check the host or "
                "raise connect_timeout"
            ) from None
        except OSError as exc:
            raise RemoteError(f"could not run ssh: {exc}") from None
        if done.returncode == 255:
            raise _ssh_failure(state.spec, done.stderr, self.connect_timeout)
        return done

    def _command(self, state: _HostState, subcommand: str) -> str:
        return " ".join(_q(part) for part in (*state.launcher, subcommand))

    def _codesift_json(
        self, state: _HostState, done: subprocess.CompletedProcess[bytes], hit_id: str = ""
    ) -> dict[str, Any]:
        """The JSON a remote codesift printed; its errors raised as the same exception class."""
        try:
            data = json.loads(done.stdout.decode("utf-8", "replace"))
        except ValueError:
            data = None
        if not isinstance(data, dict):
            if done.returncode == 127:
                with state.lock:  # probe again next time
                    state.launcher = ()
                    state.strategy = None if self.strategy == "auto" else state.strategy
                raise RemoteError(
                    f"codesift is no longer runnable on {state.spec.label} "
                    f"({_tail(done.stderr)}); search again"
                )
            raise RemoteError(
                f"codesift on {state.spec.label} failed (exit {done.returncode}): "
                f"{_tail(done.stderr) or 'no output'}"
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

    # -- strategy "codesift" --------------------------------------------------------------

    def _glob_host(self, state: _HostState, query: _GlobQuery) -> _HostGlob:
        if self._strategy(state) == "shell":
            return self._glob_shell(state, query)
        args = ["--limit", str(query.limit), "--sort", query.sort]
        if not query.case_sensitive:
            args.append("--ignore-case")
        script = (
            f"exec {self._command(state, 'glob')} --json-full --root={_remote_dir(self.root)} "
            + " ".join(_q(a) for a in [*args, "--", query.pattern, query.start])
            + " </dev/null\n"
        )
        data = self._codesift_json(state, self._run(state, script))
        return _HostGlob(
            files=[(str(f["path"]), int(f["mtime_ms"]), int(f["size"])) for f in data["files"]],
            total=int(data["total"]),
            truncated=bool(data["truncated"]),
            ignored=int(data.get("ignored", 0)),
            unreadable=int(data.get("unreadable", 0)),
        )

    def _grep_host(self, state: _HostState, query: _GrepQuery) -> _HostGrep:
        if self._strategy(state) == "shell":
            return self._grep_shell(state, query)
        args = ["-m", str(query.max_matches or 0), "-B", str(query.before), "-A", str(query.after)]
        if query.literal:
            args.append("-F")
        if query.case_sensitive:
            args.append("-s")
        if query.multiline:
            args.append("-U")
        if query.count_total:
            args.append("--count-total")
        if query.timeout is not None:
            args += ["--timeout", repr(query.timeout)]
        # `--glob=VALUE`, so that a glob starting with "-" cannot be read as an option.
        args += [f"--glob={glob}" for glob in query.include]
        args += [f"--glob=!{glob}" for glob in query.exclude]
        script = (
            f"exec {self._command(state, 'grep')} --json-full --root={_remote_dir(self.root)} "
            + " ".join(_q(a) for a in [*args, "--", query.pattern, query.start])
            + " </dev/null\n"
        )
        data = self._codesift_json(state, self._run(state, script))
        hits = [
            _Hit(
                file=str(m["file"]),
                line=int(m["line"]),
                column=int(m["column"]),
                end_line=int(m["end_line"]),
                byte_offset=int(m["byte_offset"]),
                byte_length=int(m.get("byte_length", len(str(m["content"]).encode()))),
                content=str(m["content"]),
                text=str(m["text"]),
                before=[str(x) for x in m.get("before", [])],
                after=[str(x) for x in m.get("after", [])],
                unique=bool(m.get("unique", False)),
                encoding=str(m.get("encoding", "utf-8")),
            )
            for m in data["matches"]
        ]
        return _HostGrep(
            hits=hits,
            total=int(data["total"]),
            truncated=bool(data["truncated"]),
            timed_out=bool(data.get("timed_out", False)),
            files_searched=int(data.get("files_searched", 0)),
            files_with_matches=int(data.get("files_with_matches", 0)),
            binary_files=int(data.get("binary_files", 0)),
            unreadable=int(data.get("unreadable", 0)),
            ignored=int(data.get("ignored", 0)),
        )

    # -- strategy "shell" -----------------------------------------------------------------

    def _preamble(self, start: str, tool: str) -> str:
        """Script lines shared by the shell strategy: enter the root, check the path and the
        tool; failures exit with codes `_shell_failure` explains."""
        return (
            f"cd -- {_remote_dir(self.root)} 2>/dev/null || exit {EXIT_NO_ROOT}\n"
            f"[ -e {_q(_dot(start))} ] || [ -L {_q(_dot(start))} ] || exit {EXIT_NO_PATH}\n"
            f"command -v {tool} >/dev/null 2>&1 || exit {EXIT_NO_TOOL}\n"
            "LC_ALL=C; export LC_ALL\n"
        )

    def _shell_failure(
        self, state: _HostState, code: int, stderr: bytes, start: str, tool: str
    ) -> CodesiftError | None:
        label = state.spec.label
        if code == EXIT_NO_ROOT:
            return NotFoundError(
                f"the root {self.root} does not exist on {label} (or is not a directory "
                "it can enter); check root"
            )
        if code == EXIT_NO_PATH:
            return NotFoundError(
                f"{self._display(start)} does not exist on {label}; check the path with glob"
            )
        if code == EXIT_NO_TOOL:
            return RemoteError(
                f"{tool} is not installed on {label}; install it (or codesift) there"
            )
        if code == EXIT_BAD_PATTERN:
            return PatternError(
                f"the host's grep rejected the pattern: {_tail(stderr)}; fix the regex (grep -E "
                "syntax in strategy shell) or pass literal=true"
            )
        return None

    def _glob_shell(self, state: _HostState, query: _GlobQuery) -> _HostGlob:
        start = query.start
        prune = ["-name", ".git"]
        if self._is_system_root(start):
            for pseudo in ("proc", "sys", "dev"):
                prune += ["-o", "-path", f"./{pseudo}"]
        names: list[str] = []
        glob = _normalize_glob(query.pattern)
        if "/" not in glob and "**" not in glob and "\\" not in glob:
            expanded = expand_braces(glob) or []
            test = "-name" if query.case_sensitive else "-iname"
            for i, name in enumerate(expanded):
                names += (["-o"] if i else []) + [test, name]
        select = ["(", *names, ")"] if names else []
        find = (
            f"find {_q(_dot(start))} \\( {' '.join(_q(p) for p in prune)} \\) -prune -o -type f "
            + " ".join(_q(p) for p in select)
        )
        script = self._preamble(start, "find") + (
            "if find . -maxdepth 0 -printf '' >/dev/null 2>&1; then\n"
            f"  printf 'P\\000'; exec {find} -printf '%T@\\t%s\\t%p\\000' </dev/null\n"
            "else\n"
            f"  printf 'N\\000'; exec {find} -print0 </dev/null\n"
            "fi\n"
        )
        done = self._run(state, script)
        failure = self._shell_failure(state, done.returncode, done.stderr, start, "find")
        if failure is not None:
            raise failure
        records = done.stdout.split(b"\0")
        if (
            not records
            or records[0] not in (b"P", b"N")
            or (done.returncode != 0 and _fatal_errors(done.stderr))
        ):
            raise RemoteError(
                f"find failed on {state.spec.label} (exit {done.returncode}): "
                f"{_tail(done.stderr) or 'no output'}"
            )
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
                except ValueError:
                    continue
                record = parts[2]
            rel_root, rel_search = _relative_names(record, start)
            if pattern.is_match(rel_search, rel_root):
                found.append((rel_root, mtime_ms, size))
        total = len(found)
        if query.sort == "path":
            found.sort(key=lambda f: f[0].encode("utf-8", "surrogateescape"))
        elif query.sort == "mtime":
            found.sort(key=lambda f: (-f[1], f[0].encode("utf-8", "surrogateescape")))
        unreadable = done.stderr.count(b"Permission denied")
        return _HostGlob(
            files=[(_clean(p), m, s) for p, m, s in found[: query.limit]],
            total=total,
            truncated=total > query.limit,
            unreadable=unreadable,
        )

    def _grep_shell(self, state: _HostState, query: _GrepQuery) -> _HostGrep:
        label = state.spec.label
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
        matcher = _python_regex(
            query.pattern, query.literal, query.case_sensitive and not ignore_case
        )
        start = query.start
        grep = ["grep", "-r", "-n", "-b", "-H", "-Z", "--color=never", "--no-group-separator"]
        grep += ["--binary-files=without-match", "--exclude-dir=.git"]
        if self._is_system_root(start):
            grep += ["--exclude-dir=proc", "--exclude-dir=sys", "--exclude-dir=dev"]
        grep.append("-F" if query.literal else "-E")
        if ignore_case or not query.case_sensitive:
            grep.append("-i")
        if query.max_matches is not None and not query.count_total:
            grep += ["-m", str(query.max_matches + 1)]
        if query.before:
            grep += ["-B", str(query.before)]
        if query.after:
            grep += ["-A", str(query.after)]
        includes = [_normalize_glob(g) for g in query.include]
        if includes and all("/" not in g and "**" not in g for g in includes):
            for glob in includes:
                for name in expand_braces(glob) or []:
                    grep.append(f"--include={name}")
        for glob in (_normalize_glob(g) for g in query.exclude):
            if "/" not in glob and "**" not in glob:
                for name in expand_braces(glob) or []:
                    grep += [f"--exclude={name}", f"--exclude-dir={name}"]
        grep += ["-e", ere, "--", _dot(start)]
        check = ""
        if not query.literal:
            check = (
                f"grep -E -e {_q(ere)} </dev/null >/dev/null || [ $? -eq 1 ] "
                f"|| exit {EXIT_BAD_PATTERN}\n"
            )
        script = (
            self._preamble(start, "grep")
            + check
            + "exec "
            + " ".join(_q(a) for a in grep)
            + " </dev/null\n"
        )
        reader = _GrepReader(query, matcher)
        code, stderr = self._stream(state, script, reader)
        failure = self._shell_failure(state, code, stderr, start, "grep")
        if failure is not None:
            raise failure
        if code not in (0, 1, -1) and not reader.hits_seen and _fatal_errors(stderr):
            raise RemoteError(
                f"grep failed on {label} (exit {code}): {_tail(stderr)}; strategy shell needs "
                "GNU grep (or install codesift there)"
            )
        return reader.outcome(stderr)

    def _stream(self, state: _HostState, script: str, reader: _GrepReader) -> tuple[int, bytes]:
        """Runs the script, feeding its output to `reader` as it arrives, and stops the
        command as soon as the reader has enough (or the query's timeout passes). Returns the
        exit status (-1 when stopped) and stderr."""
        argv = self._ssh.argv(state.spec, "exec sh -s")
        self._ssh.mark_used(state.spec)
        deadline = None if reader.query.timeout is None else time.monotonic() + reader.query.timeout
        try:
            proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
        except OSError as exc:
            raise RemoteError(f"could not run ssh: {exc}") from None
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        stderr = bytearray()
        stopped = cancelled = False
        control = current_control()
        try:
            try:
                proc.stdin.write(script.encode("utf-8", "surrogateescape"))
                proc.stdin.close()
            except BrokenPipeError:
                pass
            with selectors.DefaultSelector() as selector:
                selector.register(proc.stdout, selectors.EVENT_READ)
                selector.register(proc.stderr, selectors.EVENT_READ)
                open_pipes = 2
                while open_pipes:
                    wait = None if deadline is None else max(0.0, deadline - time.monotonic())
                    if control is not None:
                        if control.cancelled:
                            cancelled = stopped = True
                            break
                        wait = CANCEL_POLL if wait is None else min(wait, CANCEL_POLL)
                    events = selector.select(wait)
                    if not events and deadline is not None and time.monotonic() >= deadline:
                        reader.timed_out = stopped = True
                        break
                    for key, _ in events:
                        chunk = os.read(key.fd, 65536)
                        if not chunk:
                            selector.unregister(key.fileobj)
                            open_pipes -= 1
                        elif key.fileobj is proc.stdout:
                            if reader.feed(chunk):
                                stopped = True
                        elif len(stderr) < 65536:
                            stderr += chunk
                    if stopped:
                        break
        finally:
            if stopped:
                proc.kill()
            proc.wait()
            proc.stdout.close()
            proc.stderr.close()
        if cancelled:
            raise _errors.CancelledError(
                f"the search on {state.spec.label} was cancelled; run it again to get a result"
            )
        reader.finish()
        if stopped:
            return -1, bytes(stderr)
        if proc.returncode == 255:
            raise _ssh_failure(state.spec, bytes(stderr), self.connect_timeout)
        return proc.returncode, bytes(stderr)

    # -- helpers --------------------------------------------------------------------------

    def _start(self, path: object) -> str:
        """The search path relative to the root ("." for the root itself), checked lexically
        against the root: a path that leaves it is a `SandboxError`."""
        if isinstance(path, os.PathLike):
            path = os.fspath(path)
        if not isinstance(path, str):
            raise InvalidArgumentError(f"path must be a string, not {type(path).__name__}")
        if "\x00" in path:
            raise SandboxError("path must not contain a NUL byte")
        text = path.strip() or "."
        root = posixpath.normpath(self.root)
        if text.startswith("/"):
            if not root.startswith("/"):
                raise SandboxError(
                    f"{path} is absolute but the root {self.root} is not; give a path relative "
                    "to the root"
                )
            rel = posixpath.relpath(posixpath.normpath(text), root)
        else:
            rel = posixpath.normpath(text)
        if rel == ".." or rel.startswith("../"):
            raise SandboxError(
                f"{path} is outside the root {self.root}; search inside it (or use another root)"
            )
        return rel

    def _display(self, start: str) -> str:
        if start == ".":
            return self.root
        return posixpath.join(self.root, start)

    def _is_system_root(self, start: str) -> bool:
        return posixpath.normpath(posixpath.join(self.root, start)) == "/"

    def _register(self, kept: dict[str, list[_Hit]]) -> list[GrepMatch]:
        """Gives the hits ids of this workspace (in host order), caches them and remembers
        which host and strategy found them."""
        ordered = [(label, hit) for label in self._states for hit in kept.get(label, [])]
        with self._id_lock:  # ids and their ranges in one step, so the ranges stay sorted
            first = number = self._next_id
            self._next_id += len(ordered)
            for label in self._states:
                count = len(kept.get(label, []))
                if count:
                    strategy = self._states[label].strategy or "shell"
                    self._ranges.append((number, number + count, label, strategy))
                    number += count
            if len(self._ranges) > 100_000:
                del self._ranges[: len(self._ranges) // 2]
        prefix = self.cache.prefix
        matches = [
            GrepMatch(
                prefix + _base36(first + n),
                hit.file,
                hit.line,
                hit.column,
                hit.end_line,
                hit.byte_offset,
                hit.content,
                hit.text,
                hit.before,
                hit.after,
                host=label,
                byte_length=hit.byte_length,
                unique=hit.unique,
                encoding=hit.encoding,
            )
            for n, (label, hit) in enumerate(ordered)
        ]
        self.cache.add_batch(first, matches)
        return matches

    def _origin(self, search_result_id: str) -> tuple[str, str]:
        number = int(search_result_id[len(self.cache.prefix) :], 36)
        with self._id_lock:
            index = bisect.bisect_right(self._ranges, (number, float("inf"))) - 1
            if index >= 0:
                first, end, host, strategy = self._ranges[index]
                if first <= number < end:
                    return host, strategy
        raise StaleResultError(
            f"search_result_id {search_result_id!r} is unknown or expired; run grep again"
        )


# -- strategy "shell": reading grep's output ---------------------------------------------------


class _GrepReader:
    """Parses `grep -rnbHZ` output (`NAME\\0LINE:OFFSET:TEXT\\n`, context lines with `-`) as
    it streams in, finds each match's columns on the selected lines, and says when enough
    hits are in (one more than `max_matches`, and the current file finished)."""

    def __init__(self, query: _GrepQuery, matcher: re.Pattern[str] | None) -> None:
        self.query = query
        self.matcher = matcher
        self.include = PathPattern(query.include) if query.include else None
        self.exclude = PathPattern(query.exclude) if query.exclude else None
        self._buffer = bytearray()
        # file -> line number -> (byte offset, text, spans); spans None for context lines
        self.files: dict[str, dict[int, tuple[int, str, list[tuple[int, int]] | None]]] = {}
        self._accepted: dict[bytes, str | None] = {}
        self.hits_seen = 0
        self._full_in: str | None = None
        self.timed_out = False

    def feed(self, data: bytes) -> bool:
        """Takes more output; True when the command can be stopped."""
        self._buffer += data
        pos = 0
        buffer = self._buffer
        while True:
            z = buffer.find(b"\0", pos)
            if z < 0:
                break
            nl = buffer.find(b"\n", z + 1)
            if nl < 0:
                break
            name, rest = bytes(buffer[pos:z]), bytes(buffer[z + 1 : nl])
            pos = nl + 1
            if self._take(name, rest):
                del buffer[:pos]
                return True
        del buffer[:pos]
        return False

    def finish(self) -> None:
        self._buffer.clear()

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
        rel_root, rel_search = _relative_names(name, self.query.start)
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

    def outcome(self, stderr: bytes) -> _HostGrep:
        hits: list[_Hit] = []
        before_n, after_n = self.query.before, self.query.after
        for file in sorted(self.files, key=lambda f: f.encode("utf-8", "surrogateescape")):
            lines = self.files[file]
            for number in sorted(lines):
                offset, text, spans = lines[number]
                if not spans:
                    continue
                before = [
                    _clean(lines[k][1]) for k in range(number - before_n, number) if k in lines
                ]
                after = [
                    _clean(lines[k][1])
                    for k in range(number + 1, number + after_n + 1)
                    if k in lines
                ]
                shown = _clean(text)
                for start, end in spans:
                    prefix_bytes = len(text[:start].encode("utf-8", "surrogateescape"))
                    content = text[start:end]
                    hits.append(
                        _Hit(
                            file=_clean(file),
                            line=number,
                            column=len(_clean(text[:start])) + 1,
                            end_line=number,
                            byte_offset=offset + prefix_bytes,
                            byte_length=len(content.encode("utf-8", "surrogateescape")),
                            content=_clean(content),
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
        return _HostGrep(
            hits=hits,
            total=total,
            truncated=truncated or self.timed_out,
            timed_out=self.timed_out,
            files_with_matches=len({h.file for h in hits}),
            unreadable=stderr.count(b"Permission denied"),
        )


# -- small helpers -----------------------------------------------------------------------------


def _dot(start: str) -> str:
    """A relative search path as find and grep are given it: `./x`, so that a name starting
    with `-` cannot be read as an option."""
    return start if start == "." else "./" + start


def _relative_names(name: bytes, start: str) -> tuple[str, str]:
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


def _fair_share(
    per_host: dict[str, list[Any]], max_total: int | None
) -> tuple[dict[str, list[Any]], bool]:
    """At most `max_total` items in all, taken round-robin from the hosts (so that every host
    gets its share), each host's items kept in order; and whether anything was cut."""
    count = sum(len(items) for items in per_host.values())
    if max_total is None or count <= max_total:
        return per_host, False
    taken = dict.fromkeys(per_host, 0)
    remaining = max_total
    while remaining:
        progressed = False
        for host, items in per_host.items():
            if remaining and taken[host] < len(items):
                taken[host] += 1
                remaining -= 1
                progressed = True
        if not progressed:
            break
    return {host: items[: taken[host]] for host, items in per_host.items()}, True


def _fatal_errors(stderr: bytes) -> bool:
    """Whether the messages of grep or find show that it failed (not merely that some files
    were unreadable or vanished)."""
    for line in stderr.decode("utf-8", "replace").splitlines():
        if line.strip() and not any(
            s in line for s in ("Permission denied", "No such file", "Input/output error")
        ):
            return True
    return False


def _clean(text: str) -> str:
    """Text with undecodable bytes (kept as surrogates) shown as U+FFFD."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _tail(stderr: bytes, lines: int = 3) -> str:
    text = stderr.decode("utf-8", "replace").strip().splitlines()
    return " ".join(line.strip() for line in text[-lines:] if line.strip())


def _base36(number: int) -> str:
    digits = []
    while True:
        number, digit = divmod(number, 36)
        digits.append(BASE36_DIGITS[digit])
        if not number:
            return "".join(reversed(digits))


# -- settings for the tool layer ---------------------------------------------------------------


@dataclass
class RemoteSettings:
    """How a `Toolbox` reaches hosts named by `host` (alias `ip`) on glob_search/grep_search:
    one `RemoteWorkspace` per hosts string, kept so that its hits' ids stay valid for edit."""

    ssh_config: str | None = None
    ssh_options: Sequence[str] = ()
    strategy: str = "auto"
    connect_timeout: float = 10
    root: str = "."
    identity_file: str | None = None
    port: int | None = None
    _workspaces: dict[str, RemoteWorkspace] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def workspace(self, hosts: str) -> RemoteWorkspace:
        """The workspace for `hosts` (created on first use)."""
        key = ",".join(spec.label for spec in parse_hosts(hosts))
        with self._lock:
            rws = self._workspaces.get(key)
            if rws is None:
                rws = RemoteWorkspace(
                    key,
                    self.root,
                    ssh_config=self.ssh_config,
                    ssh_options=self.ssh_options,
                    strategy=self.strategy,
                    connect_timeout=self.connect_timeout,
                    identity_file=self.identity_file,
                    port=self.port,
                )
                self._workspaces[key] = rws
            return rws

    def owner(self, search_result_id: object) -> RemoteWorkspace | None:
        """The workspace whose search produced `search_result_id`, if any."""
        with self._lock:
            workspaces = list(self._workspaces.values())
        return next((w for w in workspaces if w.owns(search_result_id)), None)

    def close(self) -> None:
        with self._lock:
            workspaces, self._workspaces = list(self._workspaces.values()), {}
        for rws in workspaces:
            rws.close()


__all__ = [
    "HostSpec",
    "PathPattern",
    "RemoteEditResult",
    "RemoteError",
    "RemoteGlobResult",
    "RemoteGrepResult",
    "RemoteSettings",
    "RemoteWorkspace",
    "expand_braces",
    "parse_hosts",
    "to_ere",
]
