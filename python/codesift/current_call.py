"""The call control current in this thread or task (see `codesift.control`), kept apart from
it so that a search, which only asks for the current cancel token, starts without defining
`control.Progress` (a dataclass: `dataclasses` and `inspect` are start-up costs) nor
importing `contextlib` (`control.controlling` sets `_current`)."""

from __future__ import annotations

from contextvars import ContextVar

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._core import CancelToken
    from .control import CallControl

_current: ContextVar[CallControl | None] = ContextVar("codesift_call_control", default=None)


def current() -> CallControl | None:
    """The control of the call running in this thread or task, if any."""
    return _current.get()


def current_token() -> CancelToken | None:
    control = _current.get()
    return control.token if control is not None else None
