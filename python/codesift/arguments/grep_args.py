"""grep's checked arguments as a remote host is asked them (`GrepArgs`); re-exported by
`codesift.arguments`, which loads this module on first use."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import _core
from . import grep_request


@dataclass(frozen=True)
class GrepArgs:
    """grep's options as the engine normalised them (context split into before/after, filters
    as lists of globs): what a remote host is asked."""

    pattern: str
    include: list[str]
    exclude: list[str]
    literal: bool
    case_sensitive: bool
    multiline: bool | None
    before: int
    after: int
    max_matches: int | None
    count_total: bool
    timeout: float | None

    @classmethod
    def of(cls, request: _core.GrepRequest) -> GrepArgs:
        options = request.options
        names = cls.__dataclass_fields__
        values = {name: options[name] for name in names if name not in ("before", "after")}
        context = options["context_lines"]
        return cls(
            **values,
            before=context if options["before"] is None else options["before"],
            after=context if options["after"] is None else options["after"],
        )


def grep_arguments(pattern: str, **options: Any) -> GrepArgs:
    """`grep_request`'s values as a `GrepArgs`."""
    return GrepArgs.of(grep_request(pattern, **options))
