"""`RemoteWorkspace`: glob, grep and linked edits on one or many hosts, with `Workspace`'s
parameters and result types. A facade: the hosts (`host`), the ssh client (`ssh`), the
scripts (`scripts`), the id registry (`hit_ids`) and the fan-out (`fanout`) do the work."""

from __future__ import annotations

import os
import posixpath
import shlex
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .._core import GlobMatch
from ..arguments import (
    MAX_TIMEOUT_SECONDS,
    check_int,
    check_names,
    check_seconds,
    check_text,
    glob_request,
)
from ..arguments.grep_args import grep_arguments
from ..arguments.options import REMOTE_GREP_OPTIONS
from ..errors import InvalidArgumentError
from ..results.cache import ResultCache, check_result_id
from .answers import check_edit
from .fanout import each_host, fair_share
from .globs import PathPattern
from .hit_ids import HitRegistry
from .host import STRATEGIES, RemoteHost
from .host_specs import parse_hosts, with_default_port
from .paths import RemoteRoot
from .queries import GREP_COUNTS, GlobQuery, GrepQuery
from .results import RemoteEditResult, RemoteGlobResult, RemoteGrepResult
from .scripts import ShellScripts
from .ssh import CONTROL_PERSIST, SshClient

if TYPE_CHECKING:
    from typing import Unpack

    from ..arguments.options import RemoteGrepOptions


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
        check_int("port", port, minimum=1)
        specs = with_default_port(specs, port)
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
        self._root = RemoteRoot(root)
        self.strategy = strategy
        self.connect_timeout = float(connect_timeout)
        self._ssh = SshClient(
            ssh_config=None if ssh_config is None else os.path.expanduser(os.fspath(ssh_config)),
            ssh_options=options,
            identity_file=(
                None if identity_file is None else os.path.expanduser(os.fspath(identity_file))
            ),
            connect_timeout=self.connect_timeout,
            control_persist=control_persist,
        )
        # The finalizer holds the ssh client only, so the workspace itself can be collected.
        self._finalizer = weakref.finalize(self, self._ssh.close)
        scripts = ShellScripts(self._root)
        self._hosts = {
            spec.label: RemoteHost(
                spec, ssh=self._ssh, root=self._root, scripts=scripts, requested=strategy
            )
            for spec in specs
        }
        self._hit_ids = HitRegistry(cache_size)

    # -- the workspace --------------------------------------------------------------------

    @property
    def root(self) -> str:
        return self._root.path

    @property
    def hosts(self) -> list[str]:
        return list(self._hosts)

    @property
    def cache(self) -> ResultCache:
        """The hits of this workspace's searches, by id (for `edit_result`)."""
        return self._hit_ids.cache

    def __repr__(self) -> str:
        return f"RemoteWorkspace({','.join(self._hosts)!r}, root={self.root!r})"

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
        remote_host = self._hosts.get(host)
        if remote_host is None:
            raise InvalidArgumentError(f"{host!r} is not one of {', '.join(self._hosts)}")
        return remote_host.strategy().name

    # -- search ---------------------------------------------------------------------------

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
        glob_request(pattern, limit=limit, sort=sort)  # checked as a local glob is
        check_int("max_total", max_total, minimum=0)
        start = self._root.start(path)
        pattern_rel = self._root.relative_pattern(pattern)
        query = GlobQuery(pattern_rel, start, limit, sort, bool(case_sensitive))
        PathPattern([pattern_rel], case_sensitive=bool(case_sensitive))  # a bad glob raises here
        outcomes, failures = each_host(list(self._hosts.values()), lambda h: h.glob(query))
        per_host = {
            h: [GlobMatch(p, m, s, host=h) for p, m, s in o.files] for h, o in outcomes.items()
        }
        kept, cut = fair_share(per_host, max_total)
        return RemoteGlobResult(
            files=[f for h in self._hosts for f in kept.get(h, [])],
            total=sum(o.total for o in outcomes.values()),
            truncated=cut or any(o.truncated for o in outcomes.values()),
            ignored=sum(o.ignored for o in outcomes.values()),
            pattern=pattern,
            path=self._root.display(start),
            sort=sort,
            limit=limit,
            unreadable=sum(o.unreadable for o in outcomes.values()),
            errors=failures,
            hosts=tuple(self._hosts),
        )

    def grep(
        self,
        pattern: str,
        path: str = ".",
        *,
        max_total: int | None = None,
        **options: Unpack[RemoteGrepOptions],
    ) -> RemoteGrepResult:
        """Every match of `pattern` under `path` on every host, ordered by host (as given),
        then path, line and column (the options and their defaults:
        `codesift.arguments.RemoteGrepOptions`). `max_matches` applies per host, `max_total`
        to all. `indexed` is True when every host that answered searched through its own
        index (a host's codesift uses the index built there with `codesift index build`)."""
        check_names("RemoteWorkspace.grep", options, REMOTE_GREP_OPTIONS)
        check_int("max_total", max_total, minimum=1)
        # The options of the one grep request (checked by the engine), as a host is asked.
        a = grep_arguments(pattern, **options)
        PathPattern(a.include + a.exclude)  # a bad filter glob raises here
        query = GrepQuery(**vars(a), start=self._root.start(path))
        outcomes, failures = each_host(list(self._hosts.values()), lambda h: h.grep(query))
        kept, cut = fair_share({h: o.hits for h, o in outcomes.items()}, max_total)
        matches = self._hit_ids.register(
            kept,
            list(self._hosts),
            {label: h.known_strategy or "shell" for label, h in self._hosts.items()},
        )
        totals = {
            name: sum(o.counts.get(name, 0) for o in outcomes.values()) for name in GREP_COUNTS
        }
        return RemoteGrepResult(
            matches=matches,
            total=sum(o.total for o in outcomes.values()),
            truncated=cut or any(o.truncated for o in outcomes.values()),
            pattern=pattern,
            path=self._root.display(query.start),
            literal=a.literal,
            include=a.include,
            exclude=a.exclude,
            max_matches=a.max_matches,
            files_searched=totals["files_searched"],
            files_with_matches=totals["files_with_matches"],
            binary_files=totals["binary_files"],
            unreadable=totals["unreadable"],
            ignored=totals["ignored"],
            timed_out=any(o.timed_out for o in outcomes.values()),
            timeout=query.timeout,
            errors=failures,
            # Every host that answered searched through its own index (none answered: False).
            indexed=bool(outcomes) and all(o.indexed for o in outcomes.values()),
            hosts=tuple(self._hosts),
        )

    # -- linked edits ---------------------------------------------------------------------

    def owns(self, search_result_id: object) -> bool:
        """Whether `search_result_id` is a (still cached) hit of this workspace."""
        return self._hit_ids.owns(search_result_id)

    def edit_result(
        self, search_result_id: str, new: str, *, path: str | None = None
    ) -> RemoteEditResult:
        """Replaces exactly the text of a remote hit, on its host, with `Workspace.edit_result`'s
        rules (exact span, or relocated when unique; else `StaleResultError`). Only for hits
        found by strategy "codesift": linked edits need codesift on the host."""
        check_result_id(search_result_id)
        if not isinstance(new, str):
            raise InvalidArgumentError("new_string must be a string")
        match, state = self.cache.require(search_result_id)
        host, strategy = self._hit_ids.origin(search_result_id)
        if strategy != "codesift":
            raise InvalidArgumentError(
                f'search result {search_result_id} was found on {host} by strategy "shell" '
                "(codesift is not installed there); linked edits need codesift on the host: "
                "install it there (pip install . in a checkout of codesift) and search again"
            )
        if path is not None and posixpath.normpath(self._root.start(path)) != match.file:
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
        data = check_edit(self._hosts[host].apply_hit(request, search_result_id), match.file, host)
        span = data["span"]
        self.cache.after_edit(
            match.file,
            host,
            span.get("byte_offset", state.byte_offset),
            span.get("old_length", match.byte_length),
            span.get("new_length", 0),
            span.get("line_delta", 0),
            edited_id=search_result_id,
        )
        return RemoteEditResult(
            path=data["path"],
            replacements=data["replacements"],
            strategy=data["strategy"],
            first_line=data["first_line"],
            last_line=data["last_line"],
            diff=data["diff"],
            moved_from=data["moved_from"],
            host=host,
        )
