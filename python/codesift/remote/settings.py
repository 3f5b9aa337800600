"""Remote settings of a `Toolbox`: how `host` (alias `ip`) on glob_search/grep_search
reaches hosts, and the workspaces kept per hosts string."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from .host_specs import parse_hosts
from .workspace import RemoteWorkspace


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
