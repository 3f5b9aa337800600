"""The per-user index daemon, process side: `codesift daemon start|status|stop|run
--foreground`.

The daemon is its own native executable, `codesift-daemon`, shipped inside the package
beside `codesift-rg` (`codesift/bin/`): no Python runs in it. A build without it (no Rust
toolchain when the executables were built) hosts the same server in a Python process
(`_core.daemon_serve`). Its socket lives in a private directory of the user
(`$XDG_RUNTIME_DIR/codesift`, else `daemon` under the cache directory); both ends check it.
A client that wants the daemon and finds none starts it with `start_background()`, which
never waits for it: that search scans meanwhile. See docs/daemon.md.
"""

from __future__ import annotations

import os
import sys
import time

from . import _core

# Loaded by every search that may use the index (`client_argv`): no `typing` at run time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: The daemon exits after this many seconds without a request (and no build under way).
IDLE_SECONDS = 900.0
#: How long a client waits for a reply before it scans instead.
REQUEST_TIMEOUT = 5.0
#: How long a search waits for the daemon to take a root to index (never for the build).
WANT_TIMEOUT = 0.5
#: How long a detached starter waits for the daemon it started to serve.
START_LIMIT = 15.0


def request(body: dict[str, Any], timeout: float = REQUEST_TIMEOUT) -> tuple[dict | None, str]:
    """Sends one request to this user's daemon: `(reply, "")`, or `(None, why not)`."""
    reply, problem, _ = request_with_pid(body, timeout)
    return reply, problem


def request_with_pid(
    body: dict[str, Any], timeout: float = REQUEST_TIMEOUT
) -> tuple[dict | None, str, int | None]:
    """`request`, with the pid of the process serving the socket once connected (from the
    kernel, `SO_PEERCRED`): a daemon that is there but does not answer (stopped, stuck) has
    one, while no daemon has none."""
    import json

    reply, problem, pid = _core.daemon_request(json.dumps(body), timeout)
    if reply is None:
        return None, problem or "no reply", pid
    return json.loads(reply), "", pid


def ping(timeout: float = 1.0) -> dict | None:
    """The daemon's `{pid, version}` when one is serving, else `None`."""
    reply, _ = request({"op": "ping"}, timeout)
    return reply if reply is not None and reply.get("ok") else None


def executable() -> str | None:
    """The package's `codesift-daemon`, or None in a build without it."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "codesift-daemon")
    return path if os.access(path, os.X_OK) else None


def spawn_argv(idle: float = IDLE_SECONDS) -> list[str]:
    """The command that runs the daemon: this package's `codesift-daemon`; in a build without
    it, this interpreter with this very package (found where it was imported from, whatever
    the daemon's environment says)."""
    native = executable()
    if native is not None:
        return [native, "--idle", repr(float(idle))]
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = (
        f"import sys; sys.path.insert(0, {package_parent!r}); from codesift import daemon; "
        f"sys.exit(daemon.serve_in_python({float(idle)!r}))"
    )
    return [sys.executable, "-c", code]


def start_background(idle: float = IDLE_SECONDS) -> bool:
    """Starts a daemon detached from this process unless one answers; never waits for it.
    True when one was started. Two starters racing are fine: the daemon's lock lets one
    serve, the other exits at once."""
    if ping() is not None:
        return False
    _core.daemon_spawn(spawn_argv(idle))
    return True


def client_idle() -> float | None:
    """How long a daemon started by a client lingers idle (`CODESIFT_DAEMON_IDLE`), or None
    when `CODESIFT_DAEMON=never` turns the daemon off."""
    if os.environ.get("CODESIFT_DAEMON") == "never":
        return None
    try:
        idle = float(os.environ.get("CODESIFT_DAEMON_IDLE", IDLE_SECONDS))
    except ValueError:
        idle = IDLE_SECONDS
    return idle if idle > 0 else IDLE_SECONDS


def client_argv() -> list[str] | None:
    """How a searching workspace starts the daemon when none answers (see
    `Workspace(index=...)`), or None when `CODESIFT_DAEMON=never` turns the daemon off."""
    idle = client_idle()
    return None if idle is None else spawn_argv(idle)


def _index_request(root: str, walk: dict[str, Any]) -> dict[str, Any]:
    # A `select` of the empty pattern narrows nothing: the daemon answers `scan` at once,
    # and starts building (and watching) the root when it has no index of it yet.
    return {"op": "select", "root": root, "walk": walk, "pattern": {"pattern": ""}}


def want_index(root: str, walk: dict[str, Any]) -> None:
    """Has this user's daemon index `root` (searched with the walk options `walk`) in the
    background, for the searches that follow; when none serves, a detached process starts
    one and hands it the root. Never waits for either (at most `WANT_TIMEOUT` for a reply);
    nothing under `CODESIFT_DAEMON=never`. For processes that live for one search (the host
    side of a remote search): a workspace with `index="auto"` asks the daemon only about
    roots with an index, so without this no such process would ever get one built."""
    idle = client_idle()
    if idle is None:
        return
    reply, problem = request(_index_request(root, walk), WANT_TIMEOUT)
    # Started only when none runs (the engine's "not found"), as a `Workspace` does: a
    # refused socket directory, or a daemon too busy to reply in time, is left alone.
    if reply is not None or not problem.startswith("no daemon is running"):
        return
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = (
        f"import sys; sys.path.insert(0, {package_parent!r}); from codesift import daemon; "
        f"daemon.start_and_index({root!r}, {walk!r}, {idle!r})"
    )
    _core.daemon_spawn([sys.executable, "-c", code])


def start_and_index(root: str, walk: dict[str, Any], idle: float) -> None:
    """In a detached process (see `want_index`): starts the daemon and hands it `root` once
    it serves (giving up after `START_LIMIT`)."""
    start_background(idle)
    deadline = time.monotonic() + START_LIMIT
    while time.monotonic() < deadline:
        reply, _ = request(_index_request(root, walk), 1.0)
        if reply is not None:
            return
        time.sleep(0.05)


def select(
    root: str,
    pattern: dict[str, Any],
    *,
    path: str = "",
    walk: dict[str, Any] | None = None,
    include: list[str] | None = None,
    exclude: list[str] | None = None,
    first: int | None = None,
    timeout: float = REQUEST_TIMEOUT,
) -> dict | None:
    """The daemon's `select` reply for a search (its `first` files only, when given; `more`
    says some were left out), or None (no daemon, an error: scan)."""
    body: dict[str, Any] = {"op": "select", "root": root, "path": path, "pattern": pattern}
    if first is not None:
        body["first"] = first
    if walk is not None:
        body["walk"] = walk
    if include:
        body["include"] = include
    if exclude:
        body["exclude"] = exclude
    reply, _ = request(body, timeout)
    return reply if reply is not None and reply.get("ok") else None


def run_foreground(idle: float = IDLE_SECONDS) -> int:
    """Serves in this process until stopped, idle or signalled (SIGTERM, SIGINT): 0, or 1
    when another daemon of this user already serves. The process becomes `codesift-daemon`
    (same pid, same standard streams) where the package has it."""
    native = executable()
    if native is None:
        return serve_in_python(idle)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execv(native, [native, "--idle", repr(float(idle))])
    except OSError as e:
        print(f"codesift daemon: cannot run {native}: {e}", file=sys.stderr)
    return 2


def serve_in_python(idle: float) -> int:
    """The same server hosted by this interpreter (a build without `codesift-daemon`); the
    GIL is released while it serves and Python only relays signals."""
    import signal  # here: a search that only asks the daemon never handles signals

    def terminate(signum: int, frame: object) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, terminate)
    try:
        served = _core.daemon_serve(idle)
    except (SystemExit, KeyboardInterrupt):
        return 0
    if not served:
        print("codesift daemon: another daemon of this user is already serving", file=sys.stderr)
        return 1
    return 0


def stop(timeout: float = 5.0) -> dict | None:
    """Asks the daemon to stop and waits (up to `timeout`) until it no longer answers: its
    ping reply, or None when none was running."""
    running = ping()
    if running is None:
        return None
    request({"op": "stop"})
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and ping(0.5) is not None:
        time.sleep(0.05)
    return running


def status() -> dict | None:
    reply, _ = request({"op": "status"})
    return reply if reply is not None and reply.get("ok") else None


def status_or_silence(timeout: float = REQUEST_TIMEOUT) -> tuple[dict | None, dict | None]:
    """The daemon's status `(status, None)`; or, when a process holds its socket but does not
    answer within `timeout` (stopped with SIGSTOP, stuck), `(None, {pid, state, problem})`;
    or `(None, None)` when none is there."""
    reply, problem, pid = request_with_pid({"op": "status"}, timeout)
    if reply is not None and reply.get("ok"):
        return reply, None
    if reply is not None:  # answered with an error (too busy): there, but no status
        problem = str((reply.get("error") or {}).get("message") or "an error reply")
    # Connected (the kernel gave the pid) or refused for a full backlog: someone serves.
    if pid is None and "not accepting" not in problem:
        return None, None
    return None, {"pid": pid, "state": _process_state(pid), "problem": problem}


def _process_state(pid: int | None) -> str:
    """The kernel's word for process `pid`: `stopped`, `running`, ... (`unknown`)."""
    states = {
        "T": "stopped",
        "t": "stopped (traced)",
        "R": "running",
        "S": "sleeping",
        "D": "in an uninterruptible wait",
        "Z": "exited (a zombie)",
    }
    if pid is None:
        return "unknown"
    try:
        with open(f"/proc/{pid}/stat") as stat:
            code = stat.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "unknown"
    return states.get(code, "unknown")


def not_answering_text(stuck: dict) -> str:
    pid = stuck["pid"]
    who = f"pid {pid}" if pid is not None else "pid unknown"
    text = f"a daemon is running ({who}, {stuck['state']}) but not answering: {stuck['problem']}"
    if pid is None:
        return text + "; searches scan meanwhile"
    if stuck["state"] == "stopped":
        return text + f"; searches scan meanwhile; resume it with: kill -CONT {pid}"
    return text + f"; searches scan meanwhile; if it stays so, end it with: kill {pid}"


def _size(n: int | None) -> str:
    if n is None:
        return "?"
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


def status_text(data: dict) -> str:
    lines = [
        f"daemon pid {data['pid']} (codesift {data['version']}), up {data['uptime_seconds']} s, "
        f"{data['queries']} queries, RSS {_size(data['rss_bytes'])} "
        f"({_size(data.get('rss_index_copies_bytes') or 0)} of it the indexes' in-memory "
        f"copies), indexes {_size(data['index_bytes'])}, "
        f"exits after {data['idle_exit_seconds']:g} s idle",
        f"socket {data['socket']}",
    ]
    if not data["roots"]:
        lines.append("no roots served yet")
    for root in data["roots"]:
        index, watch = root["index"], root["watch"]
        if index["generation"]:
            shown = f"index generation {index['generation']} ({index['files']} files, "
            shown += f"{_size(index['bytes'])})"
        else:
            shown = "no index yet"
        state = watch["state"]
        if "dirty" in watch:
            state += f", {watch['dirty']} paths changed since the build"
        if watch.get("why"):
            state += f": {watch['why']}"
        line = f"{root['root']}: {shown}; watch {state}; {root['queries']} queries"
        if root["problem"] or index["problem"]:
            line += f"; problem: {root['problem'] or index['problem']}"
        lines.append(line)
    return "\n".join(lines)


def main(action: str, *, foreground: bool, idle: float | None, as_json: bool) -> int:
    """`codesift daemon ACTION`: exit 0 done, 1 nothing running (status, stop), 2 error (a
    daemon there but not answering, for status and stop)."""
    import json

    idle_seconds = IDLE_SECONDS if idle is None else idle
    if idle_seconds <= 0:
        print("codesift daemon: --idle must be a positive number of seconds", file=sys.stderr)
        return 2
    # An option the action does not act on is refused, never silently ignored.
    if foreground and action != "run":
        print(
            "codesift daemon: --foreground goes with run (codesift daemon run --foreground); "
            f"{action} does not take it",
            file=sys.stderr,
        )
        return 2
    if idle is not None and action not in ("start", "run"):
        print(
            f"codesift daemon: --idle goes with start or run; {action} does not take it",
            file=sys.stderr,
        )
        return 2
    if action == "run":
        if not foreground:
            print(
                "codesift daemon: `run` serves in this terminal only with --foreground; "
                "use `codesift daemon start` to start it in the background",
                file=sys.stderr,
            )
            return 2
        return run_foreground(idle_seconds)
    if action == "start":
        started = start_background(idle_seconds)
        data: dict[str, Any] = {"started": started}
        text = (
            "daemon starting in the background"
            if started
            else "a daemon is already running (see: codesift daemon status)"
        )
        code = 0
    elif action == "stop":
        stopped = stop()
        data = {"stopped": stopped is not None, "pid": stopped and stopped.get("pid")}
        text = f"daemon stopped (pid {stopped['pid']})" if stopped else "no daemon was running"
        code = 0 if stopped else 1
        stuck = None if stopped else status_or_silence(1.0)[1]
        if stuck is not None:
            data = {"stopped": False, "running": True, "answering": False, **stuck}
            text = not_answering_text(stuck)
            code = 2
    else:
        found, stuck = status_or_silence()
        if found:
            data = {**found, "running": True, "answering": True}
            text = status_text(found)
            code = 0
        elif stuck is not None:
            data = {"running": True, "answering": False, **stuck}
            text = not_answering_text(stuck)
            code = 2
        else:
            data = {"running": False}
            text = "no daemon is running (start one with: codesift daemon start)"
            code = 1
    if as_json:
        print(json.dumps(data, indent=2))
    else:
        print(text)
    return code
