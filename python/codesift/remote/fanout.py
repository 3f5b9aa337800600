"""Work on every host at once: run it concurrently, keep the hosts that answered and the
messages of those that failed, and share a total limit fairly between hosts."""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from ..control.call import current as current_control
from ..errors import CodesiftError
from .errors import CALLER_ERRORS, RemoteError
from .host import RemoteHost

MAX_WORKERS = 32
T = TypeVar("T")


def each_host(
    hosts: Sequence[RemoteHost], work: Callable[[RemoteHost], T]
) -> tuple[dict[str, T], dict[str, str]]:
    """Runs `work` on every host concurrently: the outcomes of the hosts that succeeded
    and the messages of those that failed. When every host failed with the same error of
    the caller's (a bad pattern, a missing path), that error is raised."""
    outcomes: dict[str, T] = {}
    failures: dict[str, CodesiftError] = {}
    control = current_control()

    def guarded(host: RemoteHost) -> T:
        try:
            return work(host)
        except (KeyError, ValueError, TypeError, ArithmeticError, RecursionError) as exc:
            # a malformed answer that a check let through
            raise RemoteError(
                f"unexpected answer from {host.label} ({type(exc).__name__}: {exc}); "
                "check the codesift version there"
            ) from None
        finally:
            if control is not None:  # progress of a call served with a CallControl
                control.advance("hosts answered", total=len(hosts))

    if len(hosts) == 1:
        try:
            outcomes[hosts[0].label] = guarded(hosts[0])
        except CodesiftError as exc:
            failures[hosts[0].label] = exc
    else:
        with ThreadPoolExecutor(max_workers=min(len(hosts), MAX_WORKERS)) as pool:
            # Each host's thread runs in a copy of the caller's context, so that context
            # variables of the call (such as a cancellation control) reach it.
            futures = {
                host.label: pool.submit(contextvars.copy_context().run, guarded, host)
                for host in hosts
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


def fair_share(
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
