"""A real OpenSSH server on 127.0.0.1 for the remote-search tests.

`SshLab(workdir)` generates a host key and a client key with `ssh-keygen`, writes an
`authorized_keys` file and a client `ssh_config` (aliases, identity, known-hosts file in the
temp directory), and starts `sshd` instances on free ports, each with its own `PATH` (sshd's
`SetEnv`, with any other variables a test gives) so that a test decides whether `codesift`
exists "on the host". `HOME` is set to a directory of the lab too, so the sessions read no
shell start-up files of the machine (and write no caches of the machine's user).

sshd needs its absolute path and the privilege-separation directory `/run/sshd`; the tests
run as root in CI, which is what sshd's privilege separation needs. When OpenSSH is not
installed the fixtures fail (never skip) with a message naming the packages.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import shutil
import socket
import subprocess
import sysconfig
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

SSHD = "/usr/sbin/sshd"
PACKAGES = "openssh-server and openssh-client (apt-get install -y openssh-server openssh-client)"
START_TIMEOUT = 10.0


def require_openssh() -> None:
    """Fails the test (not a skip) when sshd, ssh or ssh-keygen is missing."""
    missing = [
        name
        for name, found in (
            ("sshd", os.access(SSHD, os.X_OK)),
            ("ssh", shutil.which("ssh") is not None),
            ("ssh-keygen", shutil.which("ssh-keygen") is not None),
        )
        if not found
    ]
    if missing:
        pytest.fail(
            f"remote-search tests need OpenSSH ({', '.join(missing)} not found); "
            f"install {PACKAGES}",
            pytrace=False,
        )


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def closed_port() -> int:
    """A port on 127.0.0.1 where nothing listens (connections are refused)."""
    return free_port()


@dataclass
class SshServer:
    """One running sshd."""

    name: str
    port: int
    log: Path
    process: subprocess.Popen[bytes]

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def log_text(self) -> str:
        try:
            return self.log.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def logins(self) -> int:
        """Completed authentications so far (one per SSH handshake)."""
        return self.log_text().count("Accepted publickey")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)


@dataclass
class SshLab:
    """Keys, client config and the sshd instances of one test session."""

    workdir: Path
    servers: dict[str, SshServer] = field(default_factory=dict)

    def __post_init__(self) -> None:
        require_openssh()
        self.workdir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.workdir, 0o700)
        self.home = self.workdir / "home"
        self.home.mkdir(exist_ok=True)
        self.host_key = self.workdir / "ssh_host_ed25519_key"
        self.client_key = self.workdir / "id_ed25519"
        for key in (self.host_key, self.client_key):
            if not key.exists():
                subprocess.run(
                    ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "codesift-test", "-f"]
                    + [str(key)],
                    check=True,
                    capture_output=True,
                )
        self.authorized_keys = self.workdir / "authorized_keys"
        shutil.copyfile(self.client_key.with_suffix(".pub"), self.authorized_keys)
        os.chmod(self.authorized_keys, 0o600)
        self.known_hosts = self.workdir / "known_hosts"
        self.ssh_config = self.workdir / "ssh_config"
        self._write_client_config()

    def start(self, name: str, path_env: str, env: Mapping[str, str] | None = None) -> SshServer:
        """Starts an sshd whose sessions see `PATH=path_env` (and the variables of `env`);
        `name` becomes an alias in the client config."""
        with contextlib.suppress(OSError):  # sshd's privilege-separation directory
            Path("/run/sshd").mkdir(parents=True, exist_ok=True)
        port = free_port()
        config = self.workdir / f"sshd_config_{name}"
        log = self.workdir / f"sshd_{name}.log"
        config.write_text(
            "\n".join(
                [
                    "ListenAddress 127.0.0.1",
                    f"Port {port}",
                    f"HostKey {self.host_key}",
                    f"AuthorizedKeysFile {self.authorized_keys}",
                    f"PidFile {self.workdir / f'sshd_{name}.pid'}",
                    "UsePAM no",
                    "StrictModes no",
                    "PasswordAuthentication no",
                    "KbdInteractiveAuthentication no",
                    "PubkeyAuthentication yes",
                    "PermitRootLogin prohibit-password",
                    "AllowTcpForwarding no",
                    "X11Forwarding no",
                    "PrintMotd no",
                    "LogLevel VERBOSE",
                    "MaxStartups 100:30:200",
                    "MaxSessions 50",
                    " ".join(
                        ["SetEnv", f"PATH={path_env}", f"HOME={self.home}"]
                        # The hosts' codesift starts no index daemon (one would outlive
                        # the test): its sessions do not see the test's environment.
                        + [
                            f"{key}={value}"
                            for key, value in {"CODESIFT_DAEMON": "never", **(env or {})}.items()
                        ]
                    ),
                    "",
                ]
            )
        )
        process = subprocess.Popen(
            [SSHD, "-D", "-e", "-f", str(config), "-E", str(log)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        server = SshServer(name, port, log, process)
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if process.poll() is not None:
                err = process.stderr.read().decode(errors="replace") if process.stderr else ""
                pytest.fail(
                    f"sshd exited at start ({process.returncode}): {err}{server.log_text()}"
                )
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                break
            if time.monotonic() > deadline:
                server.stop()
                pytest.fail(f"sshd did not listen on port {port}: {server.log_text()}")
            time.sleep(0.05)
        self.servers[name] = server
        self._write_client_config()
        return server

    def _write_client_config(self) -> None:
        common = [
            "  HostName 127.0.0.1",
            f"  User {getpass.getuser()}",
            f"  IdentityFile {self.client_key}",
            "  IdentitiesOnly yes",
            f"  UserKnownHostsFile {self.known_hosts}",
            "  StrictHostKeyChecking accept-new",
            "  LogLevel ERROR",
        ]
        lines: list[str] = []
        for name, server in self.servers.items():
            lines += [f"Host {name}", f"  Port {server.port}", *common, ""]
        # Any other destination (127.0.0.1:PORT) uses the same key and known-hosts file.
        lines += ["Host *", *[c for c in common if "HostName" not in c], ""]
        self.ssh_config.write_text("\n".join(lines))

    def stop(self) -> None:
        for server in self.servers.values():
            server.stop()


def codesift_bin_dir() -> str:
    """The directory of the `codesift` console script of this Python (not a pyenv shim)."""
    for candidate in (Path(sysconfig.get_path("scripts")) / "codesift", shutil.which("codesift")):
        if candidate and Path(candidate).is_file():
            return str(Path(candidate).resolve().parent)
    pytest.fail("the codesift console script is not installed; pip install -e . first")
