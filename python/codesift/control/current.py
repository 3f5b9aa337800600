"""The call control current in this thread or task (see `codesift.control.call`), kept apart from
it so that a search, which only asks for the current cancel token, starts without defining
`control.Progress` (a dataclass: `dataclasses` and `inspect` are start-up costs) nor
importing `contextlib` (`control.controlling` calls `make_current` and `restore`)."""

from __future__ import annotations

from contextvars import ContextVar

TYPE_CHECKING = False
if TYPE_CHECKING:
    from contextvars import Token

    from .._core import CancelToken
    from .call import CallControl

_current: ContextVar[CallControl | None] = ContextVar("codesift_call_control", default=None)


def current() -> CallControl | None:
    """The control of the call running in this thread or task, if any."""
    return _current.get()


def make_current(control: CallControl | None) -> Token[CallControl | None]:
    """Makes `control` the current call's control in this thread or task; `restore` with the
    token returned makes the previous one current again."""
    return _current.set(control)


def restore(token: Token[CallControl | None]) -> None:
    """Makes current again the control that was current before `make_current` gave `token`."""
    _current.reset(token)


def current_token() -> CancelToken | None:
    control = _current.get()
    return control.token if control is not None else None
