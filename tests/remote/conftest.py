"""Tests of remote search over real sshd instances on 127.0.0.1 (see `sshd.py`)."""

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sshd import SshLab

from codesift.remote import RemoteWorkspace


@pytest.fixture
def remote(lab: SshLab) -> Iterator[Callable[..., RemoteWorkspace]]:
    """`remote(hosts, root, **options)`: a RemoteWorkspace with the lab's ssh config, closed
    after the test."""
    made: list[RemoteWorkspace] = []

    def make(hosts: str, root: Path | str, **options: object) -> RemoteWorkspace:
        options.setdefault("ssh_config", str(lab.ssh_config))
        options.setdefault("connect_timeout", 5)
        rws = RemoteWorkspace(hosts, str(root), **options)  # type: ignore[arg-type]
        made.append(rws)
        return rws

    yield make
    for rws in made:
        rws.close()
