"""The ssh client: runs POSIX sh scripts on hosts with the system `ssh`, one shared master
connection per host, and turns ssh's own failures into clear `RemoteError`s.

Every script is fed to `exec sh -s` on stdin, so the user's login shell (bash, zsh, fish,
csh ...) never parses a user string. Options: `BatchMode=yes` (never a password prompt),
`ConnectTimeout`, and connection sharing (`ControlMaster=auto`, `ControlPersist`, and a
`ControlPath` in a private 0700 directory under the temp directory) so that a second
search on a host reuses the first one's connection; `close()` stops the masters with
`ssh -O exit`."""

from __future__ import annotations

import os
import selectors
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..control.call import current as current_control
from ..errors import CancelledError
from .errors import RemoteError
from .host_specs import HostSpec

#: Seconds between checks of a cancelled call while a host streams.
CANCEL_POLL = 0.05

CONTROL_PERSIST = 300  # seconds an idle master connection stays up
MAX_STDERR_BYTES = 65536  # of a streamed command, kept for its error message
#: The most a collected command may print (a host's JSON answer, find's list): past it the
#: command is stopped and the host reported, so a broken host cannot exhaust memory.
MAX_REPLY_BYTES = 256 << 20
SHELL_COMMAND = "exec sh -s"


@dataclass(frozen=True)
class Streamed:
    """How a streamed command ended: `returncode` is -1 when it was stopped early (its
    consumer had enough, or the deadline passed: then `timed_out`)."""

    returncode: int
    stderr: bytes
    timed_out: bool = False


class SshClient:
    """Builds `ssh` command lines, runs scripts with them, and owns the control sockets of
    the shared connections.

    Kept apart from `RemoteWorkspace` so that a finalizer can stop the master connections
    without keeping the workspace alive."""

    def __init__(
        self,
        *,
        ssh_config: str | None,
        ssh_options: Sequence[str],
        identity_file: str | None,
        connect_timeout: float,
        control_persist: int = CONTROL_PERSIST,
    ) -> None:
        self.ssh_config = ssh_config
        self.ssh_options = tuple(ssh_options)
        self.identity_file = identity_file
        self.connect_timeout = connect_timeout
        self.control_persist = control_persist
        self._dir: str | None = None
        self._used: dict[str, HostSpec] = {}
        self._lock = threading.Lock()

    def control_dir(self) -> str:
        """A private directory (0700) for the control sockets. Its path is kept short:
        sockets are `DIR/%C` (40 hex digits) and a Unix socket path has at most 107 bytes."""
        with self._lock:
            if self._dir is None or not os.path.isdir(self._dir):
                base = tempfile.gettempdir()
                if len(base) > 40 or not os.access(base, os.W_OK):
                    base = "/tmp"
                self._dir = tempfile.mkdtemp(prefix="codesift-ssh-", dir=base)
            return self._dir

    def argv(
        self,
        spec: HostSpec,
        command: str,
        *,
        control: str | None = None,
        directory: str | None = None,
    ) -> list[str]:
        ssh = shutil.which("ssh")
        if ssh is None:
            raise RemoteError(
                "the ssh client is not installed on this machine; install OpenSSH "
                "(apt-get install openssh-client) to search remote hosts"
            )
        argv = [ssh]
        if self.ssh_config is not None:
            argv += ["-F", self.ssh_config]
        # ssh keeps the first value it gets for an option: the caller's options come first.
        argv += self.ssh_options
        if self.identity_file is not None:
            argv += ["-i", self.identity_file]
        argv += [
            "-o",
            "BatchMode=yes",
            "-o",
            f"ConnectTimeout={max(1, round(self.connect_timeout))}",
            "-o",
            "ControlMaster=auto",
            "-o",
            f"ControlPath={directory or self.control_dir()}/%C",
            "-o",
            f"ControlPersist={self.control_persist}",
            "-o",
            "ServerAliveInterval=15",
            "-o",
            "ServerAliveCountMax=3",
            "-o",
            "LogLevel=ERROR",
            "-T",
        ]
        if control is not None:
            argv += ["-O", control]
        if spec.port is not None:
            argv += ["-p", str(spec.port)]
        if spec.user is not None:
            argv += ["-l", spec.user]
        argv += ["--", spec.host]
        if command:
            argv.append(command)
        return argv

    def run(
        self, spec: HostSpec, script: str, *, timeout: float | None = None
    ) -> subprocess.CompletedProcess[bytes]:
        """Runs a POSIX sh script on the host and collects its output. ssh's own failures
        (exit 255), a timeout and an output over `MAX_REPLY_BYTES` (whatever a host prints
        is untrusted: memory stays bounded) raise `RemoteError`."""
        stdout = bytearray()

        def collect(chunk: bytes) -> bool:
            stdout.extend(chunk)
            return len(stdout) > MAX_REPLY_BYTES

        deadline = None if timeout is None else time.monotonic() + timeout
        streamed = self.stream(spec, script, collect, deadline=deadline)
        if streamed.timed_out:
            raise RemoteError(
                f"{spec.label} did not answer within {timeout:g}s; check the host or "
                "raise connect_timeout"
            )
        if streamed.returncode == -1:
            raise RemoteError(
                f"{spec.label} printed more than {MAX_REPLY_BYTES >> 20} MiB; narrow the "
                "search (a path, include, max_matches or limit) or check the host"
            )
        return subprocess.CompletedProcess([], streamed.returncode, bytes(stdout), streamed.stderr)

    def stream(
        self,
        spec: HostSpec,
        script: str,
        consume: Callable[[bytes], bool],
        *,
        deadline: float | None = None,
    ) -> Streamed:
        """Runs the script, handing its output to `consume` as it arrives, and stops the
        command as soon as `consume` returns True (it has enough) or the `deadline`
        (`time.monotonic()`) passes."""
        argv = self._session(spec)
        try:
            proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
        except OSError as exc:
            raise RemoteError(f"could not run ssh: {exc}") from None
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        stderr = bytearray()
        stopped = timed_out = cancelled = finished = False
        control = current_control()
        script_bytes = memoryview(script.encode("utf-8", "surrogateescape"))
        try:
            with selectors.DefaultSelector() as selector:
                # The script is written as the host reads it, inside the loop: a host that
                # reads nothing cannot block the write past the deadline.
                if script_bytes:
                    os.set_blocking(proc.stdin.fileno(), False)
                    selector.register(proc.stdin, selectors.EVENT_WRITE)
                else:
                    proc.stdin.close()
                selector.register(proc.stdout, selectors.EVENT_READ)
                selector.register(proc.stderr, selectors.EVENT_READ)
                open_pipes = 2
                while open_pipes:
                    wait = None if deadline is None else max(0.0, deadline - time.monotonic())
                    if control is not None:
                        if control.cancelled:
                            cancelled = stopped = True
                            break
                        wait = CANCEL_POLL if wait is None else min(wait, CANCEL_POLL)
                    events = selector.select(wait)
                    if not events and deadline is not None and time.monotonic() >= deadline:
                        timed_out = stopped = True
                        break
                    for key, _ in events:
                        if key.fileobj is proc.stdin:
                            try:
                                written = os.write(key.fd, script_bytes[:65536])
                            except BlockingIOError:
                                continue
                            except BrokenPipeError:
                                written = len(script_bytes)
                            script_bytes = script_bytes[written:]
                            if not script_bytes:
                                selector.unregister(proc.stdin)
                                proc.stdin.close()
                            continue
                        chunk = os.read(key.fd, 65536)
                        if not chunk:
                            selector.unregister(key.fileobj)
                            open_pipes -= 1
                        elif key.fileobj is proc.stdout:
                            if consume(chunk):
                                stopped = True
                        elif len(stderr) < MAX_STDERR_BYTES:
                            stderr += chunk
                    if stopped:
                        break
            finished = True
        finally:
            # Stopped early, or the consumer failed (an answer it could not take): the
            # command is killed, never waited for, so that a host that goes on cannot hang.
            if stopped or not finished:
                proc.kill()
            proc.wait()
            if not proc.stdin.closed:
                try:
                    proc.stdin.close()
                except OSError:
                    pass
            proc.stdout.close()
            proc.stderr.close()
        if cancelled:
            raise CancelledError(
                f"the search on {spec.label} was cancelled; run it again to get a result"
            )
        if stopped:
            return Streamed(-1, bytes(stderr), timed_out)
        if proc.returncode == 255:
            raise ssh_failure(spec, bytes(stderr), self.connect_timeout)
        return Streamed(proc.returncode, bytes(stderr))

    def close(self) -> None:
        """Stops the master connections and removes the socket directory."""
        with self._lock:
            used, self._used = list(self._used.values()), {}
            directory, self._dir = self._dir, None
        if directory is None:
            return
        for spec in used:
            try:
                subprocess.run(
                    self.argv(spec, "", control="exit", directory=directory),
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    timeout=10,
                    check=False,
                )
            except (OSError, subprocess.SubprocessError):
                pass
        shutil.rmtree(directory, ignore_errors=True)

    def _session(self, spec: HostSpec) -> list[str]:
        """The argv of a session that reads a script on stdin; the host's master connection
        is remembered so that `close` stops it."""
        argv = self.argv(spec, SHELL_COMMAND)
        with self._lock:
            self._used[spec.label] = spec
        return argv


def ssh_failure(spec: HostSpec, stderr: bytes, timeout: float) -> RemoteError:
    """A clear message for ssh's own failure (exit status 255)."""
    text = stderr.decode("utf-8", "replace").strip()
    lines = [line for line in text.splitlines() if line.strip()]
    last = lines[-1] if lines else "ssh failed without a message"
    low = text.lower()
    if "connection refused" in low:
        why = (
            f"connection refused ({last}); check that sshd runs on the host and that the "
            "port is right"
        )
    elif "timed out" in low:
        why = f"connection timed out after {timeout:g}s ({last}); check that the host is reachable"
    elif "permission denied" in low or "too many authentication failures" in low:
        why = (
            f"authentication refused ({last}); no password is asked (BatchMode), so give a key "
            "the host accepts: identity_file, ssh_options or your ssh config"
        )
    elif "host key verification failed" in low or "host identification has changed" in low:
        why = (
            f"host key not trusted ({last}); connect once with ssh to check and accept it, or "
            "set StrictHostKeyChecking/UserKnownHostsFile in your ssh config"
        )
    elif "could not resolve" in low or "name or service not known" in low:
        why = f"unknown host ({last}); check the name or add it to your ssh config"
    else:
        why = f"ssh failed: {last}"
    return RemoteError(why)
