"""Who may talk to `codesift serve`, and what needs the token.

- DNS rebinding: a web page on another site can make a browser send requests to
  127.0.0.1 under the attacker's own host name. Every request's `Host` must therefore name
  this server (a loopback name, the bound name, an IP literal, or on a wildcard bind the
  machine's own names) with its port (else 421), and an `Origin`, when a browser sends one,
  must be the request's own `http://` origin, that is its `Host` (else 403).
- Writes need the server's token (`Authorization: Bearer T` or `X-Codesift-Token: T`),
  compared in constant time. On a non-loopback bind every API request needs it.
- Bodies are capped (`MAX_BODY_BYTES`, else 413); a read-only tool's arguments at
  `MAX_READ_BODY_BYTES`, all a search can use.
"""

from __future__ import annotations

import ipaddress
import secrets
import socket
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

MAX_BODY_BYTES = 16 * 1024 * 1024
#: The body cap of a read-only tool's call: the engine takes a pattern of at most 64 KiB and
#: glob lists of at most 64 KiB each, so even with every byte escaped as `\uXXXX` (6 bytes)
#: a search's arguments fit in 2 MiB. A bigger body is refused while it is read, before any
#: of it is parsed (a 15 MiB list of globs cost half a minute of CPU to parse and check).
MAX_READ_BODY_BYTES = 2 * 1024 * 1024
TOKEN_HEADER = "x-codesift-token"
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARD_HOSTS = frozenset({"", "0.0.0.0", "::"})
#: Canonical tools that never change the workspace (used when a toolbox does not say).
CANONICAL_READ_ONLY = frozenset({"grep_search", "glob_search", "read_file", "list_dir"})


def new_token() -> str:
    """A fresh random token (48 hex digits), as Jupyter prints one at start."""
    return secrets.token_hex(24)


def is_loopback(host: str) -> bool:
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class Guard:
    """The checks for one server: its bound `host`, its `port` and its `token`."""

    host: str
    port: int
    token: str
    extra_names: frozenset[str] = field(default_factory=frozenset)

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)

    @property
    def names(self) -> frozenset[str]:
        """The DNS names (lower-case) a request may use for this server."""
        names = {"localhost", self.host.lower().strip("[]"), *self.extra_names}
        if self.host in WILDCARD_HOSTS:
            names |= _machine_names()
        return frozenset(n for n in names if n)

    def url(self, *, with_token: bool = False) -> str:
        host = "127.0.0.1" if self.host in WILDCARD_HOSTS else self.host
        if ":" in host:
            host = f"[{host}]"
        base = f"http://{host}:{self.port}/"
        return f"{base}?token={self.token}" if with_token else base

    def host_ok(self, header: str | None) -> bool:
        """Whether a `Host` header names this server (name and port)."""
        if not header:
            return False
        name, port = _split_host(header)
        if name is None or port != self.port:
            return False
        return self._name_ok(name)

    def origin_ok(self, origin: str | None, host: str | None) -> bool:
        """Whether an `Origin` header (absent for curl and same-origin GETs) is this server's
        own: `http://` and the very name and port of the request's (checked) `Host`. A page of
        any other site, even one at an IP address, has another origin."""
        if origin is None:
            return True
        try:
            parts = urlsplit(origin)
            port = parts.port or (80 if parts.scheme == "http" else None)
        except ValueError:
            return False
        if parts.scheme != "http" or parts.hostname is None or port != self.port or not host:
            return False
        name, _ = _split_host(host)
        return name is not None and _same_name(parts.hostname, name) and self._name_ok(name)

    def token_ok(self, headers: Mapping[str, str]) -> bool:
        given = headers.get(TOKEN_HEADER)
        if given is None:
            auth = headers.get("authorization", "")
            scheme, _, value = auth.partition(" ")
            given = value.strip() if scheme.lower() == "bearer" else None
        if not given:
            return False
        return secrets.compare_digest(given.encode("utf-8", "replace"), self.token.encode())

    def _name_ok(self, name: str) -> bool:
        name = name.lower().strip("[]").rstrip(".")
        try:
            ipaddress.ip_address(name)
            return True  # an IP literal involves no DNS, so no rebinding
        except ValueError:
            return name in self.names


def _split_host(header: str) -> tuple[str | None, int | None]:
    """`name[:port]` or `[v6][:port]` → (name, port); the port defaults to 80."""
    header = header.strip()
    if header.startswith("["):
        end = header.find("]")
        if end < 0:
            return None, None
        name, rest = header[1:end], header[end + 1 :]
        port_text = rest[1:] if rest.startswith(":") else ("" if not rest else None)
    else:
        name, _, port_text = header.partition(":")
    if port_text is None or (port_text and not port_text.isdigit()):
        return None, None
    return name, int(port_text) if port_text else 80


def _same_name(a: str, b: str) -> bool:
    return a.lower().strip("[]").rstrip(".") == b.lower().strip("[]").rstrip(".")


def _machine_names() -> set[str]:
    names: set[str] = set()
    for lookup in (socket.gethostname, socket.getfqdn):
        try:
            names.add(lookup().lower())
        except OSError:
            pass
    return names


def read_only_tools(toolbox: Any) -> frozenset[str]:
    """The names of a toolbox's tools that cannot change the workspace: what its profile says
    (`Tool.read_only`), else the canonical read-only tools among its names. A tool the toolbox
    says nothing about counts as writing."""
    profile = getattr(toolbox, "profile", None)
    tools = getattr(profile, "tools", None)
    if isinstance(tools, Iterable) and not isinstance(tools, str | bytes):
        return frozenset(
            t.name for t in tools if getattr(t, "read_only", False) is True and hasattr(t, "name")
        )
    return frozenset(n for n in toolbox.names if n in CANONICAL_READ_ONLY)


def resolve_tool(toolbox: Any, name: str) -> str | None:
    """The tool a requested name means in this toolbox (aliases and case included), or None
    when it names no tool."""
    resolve = getattr(toolbox, "resolve_name", None)
    if resolve is not None:
        try:
            found = resolve(name)
        except Exception:
            found = None
        if isinstance(found, str):
            return found
    return name if name in toolbox.names else None


__all__ = [
    "MAX_BODY_BYTES",
    "MAX_READ_BODY_BYTES",
    "TOKEN_HEADER",
    "Guard",
    "is_loopback",
    "new_token",
    "read_only_tools",
    "resolve_tool",
]
