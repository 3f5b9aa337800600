"""One host of a remote workspace: which strategy searches it (probed once, remembered)
and the searches and edits run there through that strategy."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from .answers import check_glob, check_grep
from .codesift_strategy import CodesiftStrategy
from .errors import CodesiftVanishedError, RemoteError, stderr_tail
from .host_specs import HostSpec
from .paths import RemoteRoot
from .queries import GlobQuery, GrepQuery, HostGlob, HostGrep
from .scripts import LAUNCHERS, PROBE, ShellScripts
from .shell_strategy import ShellStrategy
from .ssh import SshClient

STRATEGIES = ("auto", "codesift", "shell")
PROBE_EXTRA_SECONDS = 30  # the probe's time limit beyond connect_timeout


class SearchStrategy(Protocol):
    name: str

    def glob(self, query: GlobQuery) -> HostGlob: ...

    def grep(self, query: GrepQuery) -> HostGrep: ...


class RemoteHost:
    """A host searched under `root`. `requested` is the workspace's strategy: "auto" and
    "codesift" probe the host once (and "codesift" insists on finding it), "shell" never
    probes."""

    def __init__(
        self,
        spec: HostSpec,
        *,
        ssh: SshClient,
        root: RemoteRoot,
        scripts: ShellScripts,
        requested: str,
    ) -> None:
        self.spec = spec
        self.requested = requested
        self._ssh = ssh
        self._shell = ShellStrategy(ssh, spec, scripts, root)
        self._scripts = scripts
        self._chosen: SearchStrategy | None = self._shell if requested == "shell" else None
        self._lock = threading.Lock()

    @property
    def label(self) -> str:
        return self.spec.label

    @property
    def known_strategy(self) -> str | None:
        """The strategy found so far ("codesift" or "shell"), None before the probe."""
        chosen = self._chosen
        return None if chosen is None else chosen.name

    def strategy(self) -> SearchStrategy:
        """The strategy for this host, probing it on first use."""
        with self._lock:
            if self._chosen is None:
                self._chosen = self._probe()
            return self._chosen

    def glob(self, query: GlobQuery) -> HostGlob:
        with self._reprobe_if_codesift_vanishes():
            return check_glob(self.strategy().glob(query), query, self.label)

    def grep(self, query: GrepQuery) -> HostGrep:
        with self._reprobe_if_codesift_vanishes():
            return check_grep(self.strategy().grep(query), query, self.label)

    def apply_hit(self, request: dict[str, Any], hit_id: str) -> dict[str, Any]:
        """A linked edit by the host's codesift (see `CodesiftStrategy.apply_hit`)."""
        with self._reprobe_if_codesift_vanishes():
            chosen = self.strategy()
            if not isinstance(chosen, CodesiftStrategy):
                raise RemoteError(
                    f"codesift is no longer runnable on {self.label}; install it there and "
                    "search again"
                )
            return chosen.apply_hit(request, hit_id)

    def _probe(self) -> SearchStrategy:
        done = self._ssh.run(
            self.spec, PROBE, timeout=self._ssh.connect_timeout + PROBE_EXTRA_SECONDS
        )
        found = re.findall(rb"codesift-strategy:(\w+)", done.stdout)
        if done.returncode != 0 or not found:
            raise RemoteError(
                f"could not probe {self.label} (exit {done.returncode}): "
                f"{stderr_tail(done.stderr) or 'no output'}"
            )
        kind = found[-1].decode()
        if kind in LAUNCHERS:
            return CodesiftStrategy(self._ssh, self.spec, self._scripts, LAUNCHERS[kind])
        if self.requested == "codesift":
            raise RemoteError(
                f"codesift is not installed on {self.label} (neither `codesift` nor "
                "`python3 -m codesift` with the apply-hit command runs there); install it "
                'there or use strategy "auto" or "shell"'
            )
        return self._shell

    @contextmanager
    def _reprobe_if_codesift_vanishes(self) -> Iterator[None]:
        try:
            yield
        except CodesiftVanishedError:
            with self._lock:
                self._chosen = None
            raise
