"""Hosts strings: `"h1,deploy@h2:2222,[::1]:22"` as `HostSpec`s."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ..errors import InvalidArgumentError

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


def with_default_port(specs: list[HostSpec], port: int | None) -> list[HostSpec]:
    """The specs, those that name no port given `port`."""
    if port is None:
        return specs
    return [spec if spec.port is not None else replace(spec, port=port) for spec in specs]


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
