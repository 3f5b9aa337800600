"""The result types of remote search and edit: `Workspace`'s, with the hosts they name."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..results import EditResult, GlobResult, GrepResult, plural


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
    """A `GrepResult` over hosts; each match carries its `host`. `indexed`: every host that
    answered searched through its own index (False when none answered)."""

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
