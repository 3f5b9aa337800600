"""`codesift serve` under slow and concurrent requests, against a live server: no request
stalls the others. A preview stuck on a file another process has locked does not hold up
reads, answers within its time bound and keeps its slot until its thread ends (so a flood of
them is refused, not queued); reads run side by side up to a bound and past it are refused
with a JSON answer; a read over its time bound, or whose client went away, is cancelled;
edits run one at a time without holding up reads."""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from serve_helpers import answer, auth, live_server, post_tool
from tool_helpers import edit_args

from codesift.control.call import current
from codesift.serve import Server
from codesift.serve.limits import Limits

FILES = {
    "src/users.py": "def getUser(id):\n    return db.getUser(id)\n",
    "src/other.py": "def other():\n    return 1\n",
    "README.md": "# Demo\n",
}
#: Generous bound on any wait in these tests: only a hang ever reaches it.
HANG = 30.0


@pytest.fixture
def root(tree) -> Path:
    return tree(FILES)


@contextmanager
def flock_held(path: Path) -> Iterator[int]:
    """Holds an exclusive flock on `path` (as another editor would); yields its inode."""
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield os.fstat(fd).st_ino
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def wait_for_flock_waiters(inode: int, count: int = 1) -> None:
    """Waits until `count` flock requests on `inode` are blocked (from /proc/locks)."""
    deadline = time.monotonic() + HANG
    while time.monotonic() < deadline:
        with open("/proc/locks") as locks:
            waiting = [
                line
                for line in locks
                if "->" in line and "FLOCK" in line and line.split()[-3].endswith(f":{inode}")
            ]
        if len(waiting) >= count:
            return
        time.sleep(0.01)
    raise AssertionError(f"expected {count} blocked flock request(s) on inode {inode}")


class Background:
    """Requests sent from threads; `results` holds each one's response or exception."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.threads: list[threading.Thread] = []
        self.results: list[httpx.Response | Exception] = []

    def post(self, path: str, body: Any, headers: dict[str, str] | None = None) -> None:
        def send() -> None:
            try:
                with httpx.Client(base_url=self.server.url, timeout=HANG * 2) as http:
                    self.results.append(http.post(path, json=body, headers=headers))
            except Exception as exc:
                self.results.append(exc)

        thread = threading.Thread(target=send, daemon=True)
        thread.start()
        self.threads.append(thread)

    def join(self) -> None:
        for thread in self.threads:
            thread.join(HANG * 2)


class SlowGrep:
    """Stands in for a slow search: a grep for SLOW blocks until `release` is set or the
    call's CancelToken is cancelled (which it records); other calls go through."""

    def __init__(self, toolbox: Any) -> None:
        self.real = toolbox.call
        self.started = threading.Semaphore(0)
        self.release = threading.Event()
        self.cancelled = threading.Event()

    def __call__(self, name: str, arguments: dict[str, Any]) -> Any:
        if arguments.get("pattern") == "SLOW":
            control = current()
            self.started.release()
            deadline = time.monotonic() + HANG
            while not self.release.wait(0.01) and time.monotonic() < deadline:
                if control is not None and control.cancelled:
                    self.cancelled.set()
                    break
        return self.real(name, arguments)

    def wait_started(self, count: int) -> None:
        for _ in range(count):
            assert self.started.acquire(timeout=HANG), "the slow search did not start"


def slow_grep(server: Server, monkeypatch: pytest.MonkeyPatch) -> SlowGrep:
    toolbox = server.service.toolbox
    slow = SlowGrep(toolbox)
    monkeypatch.setattr(toolbox, "call", slow)
    return slow


PREVIEW = {"path": "src/users.py", "old_string": "getUser(id):", "new_string": "get(id):"}
OTHER_PREVIEW = {"path": "src/other.py", "old_string": "other", "new_string": "another"}


def test_reads_do_not_wait_for_a_stuck_preview(root: Path) -> None:
    limits = Limits(anonymous_preview_seconds=HANG * 2)
    with live_server(root, limits=limits) as server:
        background = Background(server)
        with flock_held(root / "src/users.py") as inode:
            background.post("/api/preview", PREVIEW)  # no token
            wait_for_flock_waiters(inode)
            with httpx.Client(base_url=server.url, timeout=HANG) as http:
                read = answer(http.post("/api/tools/read_file", json={"path": "README.md"}), 200)
                assert "# Demo" in read["text"], read
                found = answer(http.post("/api/tools/grep_search", json={"pattern": "other"}), 200)
                assert found["data"]["matches"], found
                agent = answer(http.post("/api/agent", json={"prompt": "Read README.md"}), 200)
                assert agent["tool"] == "read_file" and not agent["is_error"], agent
        background.join()
    [done] = background.results
    assert isinstance(done, httpx.Response), done
    assert answer(done, 200)["is_error"] is False


def test_a_stuck_preview_answers_in_time_and_keeps_its_slot(root: Path) -> None:
    limits = Limits(anonymous_preview_seconds=0.2, preview_seconds=HANG * 2)
    with live_server(root, limits=limits) as server:
        with (
            flock_held(root / "src/users.py") as inode,
            httpx.Client(base_url=server.url, timeout=HANG) as http,
        ):
            timed_out = answer(http.post("/api/preview", json=PREVIEW), 503)["error"]
            assert timed_out["type"] == "Timeout", timed_out
            assert "nothing was written" in timed_out["message"], timed_out
            # Its thread still waits for the lock: the anonymous slot stays taken.
            wait_for_flock_waiters(inode)
            busy = answer(http.post("/api/preview", json=OTHER_PREVIEW), 429)["error"]
            assert busy["type"] == "TooManyPreviews", busy
            # A preview with the token has slots of its own.
            other = answer(http.post("/api/preview", json=OTHER_PREVIEW, headers=auth(server)), 200)
            assert other["is_error"] is False and "+def another():" in other["data"]["diff"]
        # The lock released, the stuck preview ends and frees its slot.
        with httpx.Client(base_url=server.url, timeout=HANG) as http:
            deadline = time.monotonic() + HANG
            while True:
                response = http.post("/api/preview", json=OTHER_PREVIEW)
                if response.status_code != 429 or time.monotonic() > deadline:
                    break
                time.sleep(0.02)
            assert answer(response, 200)["is_error"] is False
    assert (root / "src/users.py").read_text() == FILES["src/users.py"]


def test_anonymous_previews_run_one_at_a_time(root: Path) -> None:
    limits = Limits(anonymous_preview_seconds=HANG * 2)
    with live_server(root, limits=limits) as server:
        background = Background(server)
        with (
            flock_held(root / "src/users.py") as inode,
            httpx.Client(base_url=server.url, timeout=HANG) as http,
        ):
            background.post("/api/preview", PREVIEW)
            wait_for_flock_waiters(inode)
            busy = answer(http.post("/api/preview", json=OTHER_PREVIEW), 429)["error"]
            assert busy["type"] == "TooManyPreviews", busy
            assert "retry" in busy["message"], busy
        background.join()


def test_a_flood_of_slow_reads_is_refused_not_queued(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    limits = Limits(calls=2, wait_seconds=0.2)
    with live_server(root, limits=limits) as server:
        slow = slow_grep(server, monkeypatch)
        background = Background(server)
        for _ in range(2):
            background.post("/api/tools/grep_search", {"pattern": "SLOW"})
        slow.wait_started(2)
        with httpx.Client(base_url=server.url, timeout=HANG) as http:
            busy = answer(http.post("/api/tools/grep_search", json={"pattern": "x"}), 503)
            assert busy["error"]["type"] == "ServerBusy", busy
            answer(http.get("/api/info"), 200)
            # Edits and previews have slots of their own.
            edited = answer(
                post_tool(http, "edit", edit_args("README.md", "Demo", "Demo!"), auth(server)), 200
            )
            assert edited["is_error"] is False, edited
            answer(http.post("/api/preview", json=OTHER_PREVIEW), 200)
            slow.release.set()
            background.join()
            answer(http.post("/api/tools/grep_search", json={"pattern": "x"}), 200)
    statuses = [r.status_code if isinstance(r, httpx.Response) else r for r in background.results]
    assert statuses == [200, 200], statuses


def test_a_read_over_its_time_bound_is_cancelled(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with live_server(root, limits=Limits(call_seconds=0.2)) as server:
        slow = slow_grep(server, monkeypatch)
        with httpx.Client(base_url=server.url, timeout=HANG * 2) as http:
            error = answer(http.post("/api/tools/grep_search", json={"pattern": "SLOW"}), 503)
            assert error["error"]["type"] == "Timeout", error
            assert slow.cancelled.wait(HANG), "expected the search's CancelToken cancelled"
            answer(http.post("/api/tools/grep_search", json={"pattern": "x"}), 200)


def test_a_client_that_goes_away_cancels_its_search(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with live_server(root) as server:
        slow = slow_grep(server, monkeypatch)
        with httpx.Client(base_url=server.url, timeout=HANG) as http:
            with httpx.Client(base_url=server.url, timeout=0.5) as impatient:
                with pytest.raises(httpx.TimeoutException):
                    impatient.post("/api/tools/grep_search", json={"pattern": "SLOW"})
            assert slow.cancelled.wait(HANG), "expected the search cancelled once its client left"
            answer(http.post("/api/tools/grep_search", json={"pattern": "x"}), 200)


def test_edits_run_one_at_a_time_without_holding_up_reads(root: Path) -> None:
    limits = Limits(wait_seconds=0.2)
    with live_server(root, limits=limits) as server:
        background = Background(server)
        edit = {"path": "src/users.py", "old_string": "getUser(id):", "new_string": "get(id):"}
        with (
            flock_held(root / "src/users.py") as inode,
            httpx.Client(base_url=server.url, timeout=HANG) as http,
        ):
            background.post("/api/tools/edit", edit, headers=auth(server))
            wait_for_flock_waiters(inode)
            read = answer(http.post("/api/tools/read_file", json={"path": "src/other.py"}), 200)
            assert "def other" in read["text"], read
            busy = answer(
                post_tool(http, "edit", edit_args("README.md", "Demo", "D"), auth(server)), 503
            )["error"]
            assert busy["type"] == "ServerBusy" and "edit" in busy["message"], busy
        background.join()
    [done] = background.results
    assert isinstance(done, httpx.Response) and answer(done, 200)["is_error"] is False, done
    assert (root / "src/users.py").read_text().startswith("def get(id):")
    assert (root / "README.md").read_text() == FILES["README.md"]
