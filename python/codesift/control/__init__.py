"""Cancelling a running call and following its progress:

- `call`: `CallControl` (a cancel token and the progress a call reports) and `controlling`,
  which makes one current around a call;
- `current`: the control current in this thread or task, apart from `call` so that a search,
  which only asks for the current cancel token, starts without defining `call`'s dataclass.
"""
