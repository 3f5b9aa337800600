"""The result types of remote search and edit: `Workspace`'s, with the hosts they name."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..results.files import EditResult
from ..results.matches import GlobResult, GrepResult, plural


class _OverHosts:
    """What a search over hosts adds to the local result it extends: the hosts, named in its
    summary (after the searched path, which ends `_head`) with the failed ones at the end,
    and listed in its dict."""

    hosts: tuple[str, ...]
    errors: dict[str, str]

    def _head(self) -> str:
        raise NotImplementedError

    @property
    def summary(self) -> str:
        summary: str = super().summary  # type: ignore[misc]
        head = self._head()
        if self.hosts:
            on = f" on {', '.join(self.hosts)}"
            if summary.startswith(head):
                summary = head + on + summary[len(head) :]
            else:
                summary += on
        if self.errors:
            summary += f" [{plural(len(self.errors), 'host')} failed: {', '.join(self.errors)}]"
        return summary

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = super().to_dict()  # type: ignore[misc]
        data["hosts"] = list(self.hosts)
        return data


@dataclass(frozen=True)
class RemoteGlobResult(_OverHosts, GlobResult):
    """A `GlobResult` over hosts; each file carries its `host`."""

    hosts: tuple[str, ...] = ()

    def _head(self) -> str:
        return f'Found {plural(self.total, "file")} matching "{self.pattern}" in {self.path}'


@dataclass(frozen=True)
class RemoteGrepResult(_OverHosts, GrepResult):
    """A `GrepResult` over hosts; each match carries its `host`. `indexed`: every host that
    answered searched through its own index (False when none answered)."""

    hosts: tuple[str, ...] = ()

    def _head(self) -> str:
        shown = f'"{self.pattern}"' if self.literal else f"/{self.pattern}/"
        return f"Found {plural(self.total, 'match', 'matches')} for {shown} in {self.path}"


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
