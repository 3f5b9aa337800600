"""Writing several files all or nothing: the commit step of a multi-file patch.

Every file a patch reads is locked first, in sorted order of its real path (so that two
codesift writers with overlapping sets of files cannot deadlock), and stays locked until the
end. The patch is planned on the locked contents. Then the writes run: updates, then new files
(created with `Engine.create`, which never replaces an existing name and returns the new file
locked), then moves (the destination created, then the source deleted), then deletions.

If one write fails (no space, permissions, a file changed on disk by a writer that is not
codesift), the writes already made are rolled back in reverse order: an updated file gets its
old bytes back (its lock is held across the replacement, so no codesift writer came in
between, and a writer that is not codesift is caught by the "changed on disk" check), a created
file is deleted, a deleted file is created again with its old bytes and mode. What cannot be
undone that way is named in the error, with what the file holds now. Rolling back cannot make
it as if nothing happened in one respect: directories created for new files stay (empty).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from .. import _core
from ..errors import CodesiftError, problem_of, reworded

WriteAction = Literal["update", "add", "delete", "move"]
ORDER: dict[str, int] = {"update": 0, "add": 1, "move": 2, "delete": 3}


@dataclass
class FileWrite:
    """One file's planned write. `path` is where the file really is (workspace-relative);
    for a move, `new_path` is the destination."""

    action: WriteAction
    path: str
    before: bytes | None
    after: bytes | None
    lock: _core.FileLock | None = None
    mode: int | None = None
    new_path: str | None = None


def commit(engine: _core.Engine, writes: list[FileWrite]) -> None:
    """Runs `writes` (their source files already locked) all or nothing (see the module
    documentation). Raises the first failure, with the rollback's outcome added."""
    done: list[Callable[[], None]] = []
    undo_names: list[str] = []
    created: list[_core.FileLock] = []
    try:
        for write in sorted(writes, key=lambda w: ORDER[w.action]):
            _run(engine, write, done, undo_names, created)
    except CodesiftError as exc:
        failures = _rollback(done, undo_names)
        raise reworded(exc, _with_rollback(problem_of(exc), failures)) from None
    except OSError as exc:
        failures = _rollback(done, undo_names)
        raise CodesiftError(_with_rollback(f"writing failed: {exc}", failures)) from None
    finally:
        for handle in created:
            handle.release()


def _run(
    engine: _core.Engine,
    write: FileWrite,
    done: list[Callable[[], None]],
    undo_names: list[str],
    created: list[_core.FileLock],
) -> None:
    lock = write.lock
    if write.action == "update":
        assert lock is not None and write.after is not None and write.before is not None
        lock.replace(write.after)
        before = write.before
        done.append(lambda: lock.replace(before))
        undo_names.append(write.path)
    elif write.action == "add":
        assert write.after is not None
        handle = engine.create(write.path, write.after, write.mode)
        created.append(handle)
        done.append(handle.remove)
        undo_names.append(write.path)
    elif write.action == "move":
        assert lock is not None and write.after is not None and write.new_path is not None
        handle = engine.create(write.new_path, write.after, write.mode)
        created.append(handle)
        done.append(handle.remove)
        undo_names.append(write.new_path)
        lock.remove()
        done.append(_recreate(engine, write, created))
        undo_names.append(write.path)
    else:
        assert lock is not None
        lock.remove()
        done.append(_recreate(engine, write, created))
        undo_names.append(write.path)


def _recreate(
    engine: _core.Engine, write: FileWrite, created: list[_core.FileLock]
) -> Callable[[], None]:
    def undo() -> None:
        assert write.before is not None
        created.append(engine.create(write.path, write.before, write.mode))

    return undo


def _rollback(done: list[Callable[[], None]], names: list[str]) -> list[str]:
    failures = []
    for undo, name in zip(reversed(done), reversed(names), strict=True):
        try:
            undo()
        except (CodesiftError, OSError) as exc:
            failures.append(f"{name} ({exc})")
    return failures


def _with_rollback(message: str, failures: list[str]) -> str:
    if not failures:
        return f"{message} (nothing was changed: the files already written were restored)"
    return (
        f"{message}. The files already written were restored except: {'; '.join(failures)}. "
        "Read those files and repair them before retrying"
    )
