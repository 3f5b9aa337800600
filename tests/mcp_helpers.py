"""Starting `codesift mcp` for the SDK's client: the server subprocess runs the codesift
package these tests import (the SDK's stdio client passes only a few environment variables
on, so without PYTHONPATH the child would import whichever codesift is installed)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mcp.client.stdio import StdioServerParameters

import codesift

#: A raw JSON-RPC `initialize` request, for tests that speak the protocol by hand.
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw-test", "version": "1"},
    },
}


PACKAGE_PARENT = str(Path(codesift.__file__).resolve().parents[1])


def server_env() -> dict[str, str]:
    """The environment for a `python -m codesift` child: this codesift first on its path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [PACKAGE_PARENT, env.get("PYTHONPATH")]))
    return env


#: What the test's environment says about the daemon (conftest): a server's searches use the
#: test's own socket directory, or no daemon, so that none is left running after the test.
DAEMON_SETTINGS = ("XDG_RUNTIME_DIR", "CODESIFT_DAEMON", "CODESIFT_DAEMON_IDLE")


def server_params(root: Path | str, *extra: str) -> StdioServerParameters:
    env = {"PYTHONPATH": server_env()["PYTHONPATH"], "CODESIFT_CACHE_DIR": _cache_dir()}
    env.update({name: os.environ[name] for name in DAEMON_SETTINGS if name in os.environ})
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "codesift", "mcp", "--root", str(root), *extra],
        env=env,
    )


def _cache_dir() -> str:
    # The test's own index cache (conftest sets it), not ~/.cache.
    return os.environ.get("CODESIFT_CACHE_DIR", "")
