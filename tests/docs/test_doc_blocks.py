"""Every code block of the README and docs/ runs here (see doc_blocks.py for how), on a small
sample project, so that no example drifts from what codesift does."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from doc_blocks import NOT_RUN, ROOT, RUNNABLE, Block, all_blocks
from mcp import Client
from mcp.client.stdio import StdioServerParameters

FAKES = Path(__file__).parent / "fakes"
SAMPLE = {
    "src/api.ts": "export function getUser(id) {\n  const user = users.get(id);\n"
    "  return null;\n}\n",
    "src/app.ts": 'import { getUser } from "./api";\nconsole.log(getUser(1));\n',
    "README.md": "# Sample\n\n## Open Questions\n\nNone yet.\n",
    "app/settings.py": "DEBUG = True\n",
    "etc/app.conf": "port = 80\n",
    ".gitignore": "build/\n",
    "build/out.js": "getUser();\n",
}
# Placeholders the docs use for "your" paths, and what stands for them here.
ROOT_PLACEHOLDERS = ("/absolute/path/to/repo", "/path/to/repo", "/srv/app")
CODESIFT_PLACEHOLDER = "/absolute/path/to/codesift/.venv/bin/codesift"
TIMEOUT = 300
# Installing builds the Rust core in release mode: minutes on a 2-core machine.
INSTALL_TIMEOUT = 1200


def sample_project(where: Path) -> Path:
    for name, text in SAMPLE.items():
        path = where / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    subprocess.run(["git", "init", "-q", str(where)], check=True)
    return where


def environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    package_parent = str(Path(__import__("codesift").__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([package_parent, str(FAKES)])
    env["CODESIFT_CACHE_DIR"] = str(tmp_path / "cache")
    # `codesift shim` makes its directory here, not in the user's own data directory.
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    env["PATH"] = os.pathsep.join([str(tmp_path / "bin"), str(Path(sys.executable).parent)])
    env["PATH"] += os.pathsep + os.environ.get("PATH", "")
    env.update(extra)
    (tmp_path / "bin").mkdir(exist_ok=True)
    fake_claude(tmp_path / "bin" / "claude")
    return env


def fake_claude(path: Path) -> None:
    """`claude mcp add NAME -- COMMAND ARGS...`: starts the command as an MCP server and lists
    its tools, as Claude Code does when it connects."""
    path.write_text(
        f"#!{sys.executable}\n"
        "import sys, anyio\n"
        "from mcp import Client\n"
        "from mcp.client.stdio import StdioServerParameters\n"
        "args = sys.argv[1:]\n"
        "assert args[:2] == ['mcp', 'add'] and '--' in args, args\n"
        "command = args[args.index('--') + 1:]\n"
        "async def main():\n"
        "    params = StdioServerParameters(command=command[0], args=command[1:])\n"
        "    async with Client(params) as client:\n"
        "        tools = await client.list_tools()\n"
        "        assert tools.tools, 'no tools'\n"
        "        print(f'Added stdio MCP server {args[2]} ({len(tools.tools)} tools)')\n"
        "anyio.run(main)\n"
    )
    path.chmod(0o755)


def substituted(text: str, root: Path) -> str:
    for placeholder in ROOT_PLACEHOLDERS:
        text = text.replace(placeholder, str(root))
    return text.replace(CODESIFT_PLACEHOLDER, shutil.which("codesift") or "codesift")


def run(
    command: list[str], cwd: Path, env: dict[str, str], block: Block, timeout: float = TIMEOUT
) -> None:
    result = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert result.returncode == 0, (
        f"{block.name} failed (exit {result.returncode})\n--- block ---\n{block.body}"
        f"--- stdout ---\n{result.stdout[-4000:]}\n--- stderr ---\n{result.stderr[-4000:]}"
    )


def run_block(block: Block, cwd: Path, env: dict[str, str], root: Path) -> None:
    body = substituted(block.body, root)
    script = cwd.parent / "block"
    if block.language == "python":
        script.write_text(body)
        run([sys.executable, str(script)], cwd, env, block)
    elif block.language in ("bash", "sh"):
        script.write_text(body)
        run(["bash", "-eo", "pipefail", str(script)], cwd, env, block)
    elif block.language == "json":
        config = json.loads(body)
        for name, server in config.get("mcpServers", {}).items():
            list_tools(name, server, env)


def list_tools(name: str, server: dict, env: dict[str, str]) -> None:
    async def main() -> int:
        params = StdioServerParameters(
            command=server["command"], args=server.get("args", []), env=env
        )
        async with Client(params) as client:
            return len((await client.list_tools()).tools)

    assert anyio.run(main) > 0, f"MCP server {name} lists no tools"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    root = sample_project(tmp_path / "project")
    env = environment(tmp_path)
    token = "doc-test-token"
    process = subprocess.Popen(
        ["codesift", "serve", "--root", str(root), "--port", "0", "--token", token],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = ""
    deadline = time.monotonic() + 30
    assert process.stdout is not None
    while not url and time.monotonic() < deadline:
        line = process.stdout.readline()
        if "http://127.0.0.1:" in line:
            url = line.split("http://", 1)[1].split("/", 1)[0]
    try:
        assert url, "codesift serve printed no URL"
        yield root, {**env, "S": f"http://{url}", "T": token}
    finally:
        process.terminate()
        process.wait(10)


BLOCKS = all_blocks()


def test_every_block_declares_how_it_runs() -> None:
    unknown = [f"{b.name}: ```{b.language}" for b in BLOCKS if b.language not in RUNNABLE | NOT_RUN]
    assert not unknown, "give these blocks a language (python, bash, json or text):\n" + "\n".join(
        unknown
    )
    kinds = {b.kind for b in BLOCKS}
    assert kinds <= {"run", "ci", "install", "serve", "sshd"}, kinds


def test_the_test_command_is_what_ci_runs() -> None:
    (block,) = [b for b in BLOCKS if b.kind == "ci"]
    commands = [line for line in block.body.splitlines() if line and not line.startswith("#")]
    ci = (ROOT / ".ci" / "run").read_text()
    assert commands == ["bash scripts/test.sh"], commands
    assert "\nbash scripts/test.sh" in ci, ci


RUN = [b for b in BLOCKS if b.language in RUNNABLE and b.kind in ("run", "serve", "sshd")]


@pytest.mark.parametrize("block", [b for b in RUN if b.kind == "run"], ids=lambda b: b.name)
def test_block_runs(block: Block, tmp_path: Path) -> None:
    root = sample_project(tmp_path / "project")
    run_block(block, root, environment(tmp_path), root)


@pytest.mark.parametrize("block", [b for b in RUN if b.kind == "serve"], ids=lambda b: b.name)
def test_block_runs_against_a_live_server(block: Block, served) -> None:
    root, env = served
    run_block(block, root, env, root)


@pytest.mark.parametrize("block", [b for b in RUN if b.kind == "sshd"], ids=lambda b: b.name)
def test_block_runs_against_real_sshd(block: Block, tmp_path: Path) -> None:
    from sshd import SshLab

    root = sample_project(tmp_path / "project")
    lab = SshLab(tmp_path / "ssh")
    env = environment(tmp_path)
    try:
        for host in block.args:
            lab.start(host, env["PATH"], {"PYTHONPATH": env["PYTHONPATH"]})
        # ssh reads ~/.ssh/config from the password database's home, not $HOME: an `ssh`
        # first on PATH hands it the lab's configuration instead, as a user's own would be.
        wrapper = tmp_path / "bin" / "ssh"
        real_ssh = shutil.which("ssh")
        assert real_ssh, "ssh is not installed (apt-get install -y openssh-client)"
        wrapper.write_text(f'#!/bin/sh\nexec {real_ssh} -F {lab.ssh_config} "$@"\n')
        wrapper.chmod(0o755)
        run_block(block, root, env, root)
    finally:
        lab.stop()


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.kind == "install"], ids=lambda b: b.name)
def test_install_block_in_a_fresh_clone(block: Block, tmp_path: Path) -> None:
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    clone = tmp_path / "codesift"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["CODESIFT_CACHE_DIR"] = str(tmp_path / "cache")
    # A system Python, not the one running the tests, as a newcomer would have.
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if "venv" not in p
    )
    run(["bash", "-eo", "pipefail", "-c", block.body], clone, env, block, INSTALL_TIMEOUT)
    print(shlex.join(["ran in", str(clone)]))
