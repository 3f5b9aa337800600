"""The MCP server's protocol features, each driven by the MCP SDK's own client: tool
annotations and output schemas, progress notifications, cancellation that stops the engine,
spill files as resources, and the Streamable HTTP transport."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from mcp import Client
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from mcp_helpers import server_env, server_params
from sshd import SshLab, codesift_bin_dir

from codesift import CancelledError, CancelToken, Workspace
from codesift.control.call import CallControl, controlling
from codesift.mcp import CodesiftMCP
from codesift.mcp.annotations import describe
from codesift.mcp.http import check_bind, origin_allowed, parse_bind
from codesift.remote import RemoteSettings
from codesift.tools import Toolbox

CANONICAL = {
    "grep_search",
    "glob_search",
    "read_file",
    "list_dir",
    "edit",
    "edit_many",
    "apply_patch",
    "write_file",
    "search",
}


def run(fn: Any) -> Any:
    return anyio.run(fn)


def many_files(root: Path, dirs: int, per_dir: int, text: str = "nothing here\n") -> int:
    for d in range(dirs):
        sub = root / f"d{d:03}"
        sub.mkdir(parents=True)
        for f in range(per_dir):
            (sub / f"f{f:03}.txt").write_text(text)
    return dirs * per_dir


# -- annotations and output schemas ---------------------------------------------------------


def test_every_tool_has_annotations_and_its_results_match_its_output_schema(tree, tmp_path):
    root = tree(
        {
            "src/app.py": "def handler():\n    return compute()\n",
            "src/util.py": "def compute():\n    return 42\n",
            "notes.md": "TODO: write notes\n",
        }
    )
    many_files(root / "bulk", 3, 900)  # a glob of these is cut to a preview and spilled

    async def session():
        async with Client(server_params(root, "--spill-dir", str(tmp_path / "spill"))) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert set(tools) == CANONICAL
            for tool in tools.values():
                notes = tool.annotations
                assert notes is not None, tool.name
                hints = (
                    notes.read_only_hint,
                    notes.destructive_hint,
                    notes.idempotent_hint,
                    notes.open_world_hint,
                )
                assert None not in hints and notes.title and tool.title == notes.title, notes
                # No remote search configured: no tool reaches beyond the workspace.
                assert notes.open_world_hint is False, tool.name
                jsonschema.Draft202012Validator.check_schema(tool.output_schema)
            read_only = {n for n, t in tools.items() if t.annotations.read_only_hint}
            assert read_only == {"grep_search", "glob_search", "search", "read_file", "list_dir"}
            assert tools["edit"].annotations.destructive_hint is True
            assert tools["edit"].annotations.idempotent_hint is False
            assert tools["write_file"].annotations.idempotent_hint is True

            calls = [
                ("grep_search", {"pattern": "compute", "context_lines": 1}),
                ("grep_search", {"pattern": "absent", "include": ["*.py"], "exclude": "bulk"}),
                ("glob_search", {"pattern": "*.py", "sort": "mtime"}),
                ("glob_search", {"pattern": "bulk/**/*.txt"}),  # spilled
                ("read_file", {"path": "src/app.py"}),
                ("read_file", {"path": "notes.md", "offset": 5}),
                ("list_dir", {"path": "src"}),
                ("search", {"question": "how is compute handled", "max_results": 2}),
                ("edit", {"path": "notes.md", "old_string": "write", "new_string": "keep"}),
                ("write_file", {"path": "new/file.txt", "content": "hello\n"}),
                ("write_file", {"path": "notes.md", "content": "x\n", "dry_run": True}),
                ("grep_search", {"pattern": "return", "output_mode": "count", "offset": 1}),
                ("grep_search", {"pattern": "return", "output_mode": "files_with_matches"}),
                ("list_dir", {"path": "src", "recursive": True, "no_ignore": True}),
                ("read_file", {"path": "src/app.py", "start_line": 2, "end_line": 2}),
                (
                    "edit_many",
                    {
                        "path": "src/app.py",
                        "edits": [{"old_string": "handler", "new_string": "serve"}],
                        "dry_run": True,
                    },
                ),
                (
                    "apply_patch",
                    {
                        "patch": "*** Begin Patch\n*** Update File: src/app.py\n@@\n"
                        "-    return compute()\n+    return compute() + 1\n"
                        "*** Add File: added.txt\n+new\n*** End Patch"
                    },
                ),
            ]
            found = await client.call_tool("grep_search", {"pattern": "return 42"})
            calls.append(
                (
                    "edit",
                    {
                        "search_result_id": found.structured_content["matches"][0]["id"],
                        "new_string": "return 43",
                    },
                )
            )
            checked = set()
            for name, args in calls:
                result = await client.call_tool(name, args)
                assert not result.is_error, (name, args, result.content[0].text)
                errors = sorted(
                    jsonschema.Draft202012Validator(tools[name].output_schema).iter_errors(
                        result.structured_content
                    ),
                    key=str,
                )
                assert not errors, (name, args, [e.message for e in errors])
                schema_keys = set(tools[name].output_schema["properties"])
                unlisted = set(result.structured_content) - schema_keys
                assert not unlisted, f"{name} returned keys its schema does not list: {unlisted}"
                checked.add(name)
            assert checked == CANONICAL

    run(session)


def test_open_world_only_for_host_tools_when_remote_search_is_configured(tree):
    workspace = Workspace(tree({"a.txt": "x\n"}))
    remote = CodesiftMCP(Toolbox(workspace, remote=RemoteSettings()))
    local = CodesiftMCP(Toolbox(workspace))
    for name in CANONICAL:
        takes_host = "host" in Toolbox(workspace).input_schema(name)["properties"]
        assert remote.tool(name).annotations.open_world_hint is takes_host, name
        assert local.tool(name).annotations.open_world_hint is False, name
    assert {n for n in CANONICAL if remote.tool(n).annotations.open_world_hint} == {
        "grep_search",
        "glob_search",
    }


def test_unknown_tool_names_get_the_cautious_defaults_and_known_profile_names_their_own():
    title, unknown = describe("frobnicate_things")
    assert title == "Frobnicate things"
    assert (unknown.read_only, unknown.destructive, unknown.idempotent) == (False, True, False)
    assert describe("Grep")[1].read_only and describe("read_text_file")[1].read_only
    assert not describe("MultiEdit")[1].read_only and not describe("apply_patch")[1].read_only
    assert describe("create_directory")[1].destructive is False
    # `search` is codesift's question in words and simple-coder's content search: a title
    # true of both.
    assert describe("search")[0] == "Search the code"


# -- progress --------------------------------------------------------------------------------


def progress_log() -> tuple[list[tuple[float, float | None, str | None]], Any]:
    seen: list[tuple[float, float | None, str | None]] = []

    async def callback(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    return seen, callback


def assert_increasing(seen: list[tuple[float, float | None, str | None]]) -> None:
    values = [p for p, _, _ in seen]
    assert values == sorted(set(values)), f"progress must strictly increase: {seen}"


def test_progress_notifications_during_grep_and_glob(tmp_path):
    root = tmp_path / "ws"
    total = many_files(root, 30, 100)
    (root / "d007" / "f050.txt").write_text("the needle\n")

    async def session():
        async with Client(server_params(root)) as client:
            seen, callback = progress_log()
            found = await client.call_tool(
                "grep_search", {"pattern": "needle"}, progress_callback=callback
            )
            assert found.structured_content["total"] == 1
            assert len(seen) >= 2 and seen[0][2] == "starting", seen
            assert_increasing(seen)
            assert seen[-1][2] == f"{total} files searched", seen

            seen, callback = progress_log()
            await client.call_tool(
                "glob_search", {"pattern": "*.txt", "limit": 10}, progress_callback=callback
            )
            assert_increasing(seen)
            assert seen[-1][2] == f"{total} files walked", seen

            # Without a progress token, no notification is sent.
            seen, _ = progress_log()
            await client.call_tool("grep_search", {"pattern": "needle"})
            assert seen == []

    run(session)


def test_progress_notifications_during_the_index_build_of_the_first_search(tmp_path):
    root = tmp_path / "ws"
    total = many_files(root, 10, 50)
    (root / "d003" / "f007.txt").write_text("the needle\n")

    async def session():
        async with Client(server_params(root, "--index")) as client:
            seen, callback = progress_log()
            found = await client.call_tool(
                "grep_search", {"pattern": "needle"}, progress_callback=callback
            )
            assert found.structured_content["total"] == 1
            assert found.structured_content["indexed"] is True
            assert_increasing(seen)
            # The build reports done and total (often too fast for a notification of its own).
            assert seen[-1][2].startswith(f"{total} of {total} files indexed, "), seen

    run(session)


@pytest.fixture(scope="module")
def ssh_lab(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Two sshd hosts on 127.0.0.1: `cs` runs codesift, `sh` only a POSIX shell."""
    lab = SshLab(tmp_path_factory.mktemp("ssh"))
    try:
        lab.start("cs", f"{codesift_bin_dir()}:/usr/bin:/bin")
        lab.start("sh", "/usr/bin:/bin")
        yield lab
    finally:
        lab.stop()


def test_remote_search_reports_each_host_that_answered(ssh_lab, tree):
    remote_root = tree({"src/app.py": "def hello():\n    pass\n"})
    toolbox = Toolbox(
        Workspace(tree({"local.txt": "x\n"})),
        remote=RemoteSettings(ssh_config=str(ssh_lab.ssh_config), root=str(remote_root)),
    )

    async def session():
        # In-process: the SDK client dispatches straight to the server's handlers.
        async with Client(CodesiftMCP(toolbox).server()) as client:
            seen, callback = progress_log()
            found = await client.call_tool(
                "grep_search", {"pattern": "hello", "host": "cs,sh"}, progress_callback=callback
            )
            assert not found.is_error, found.content[0].text
            assert {m["host"] for m in found.structured_content["matches"]} == {"cs", "sh"}
            assert_increasing(seen)
            assert seen[-1][2] == "2 of 2 hosts answered", seen

    try:
        run(session)
    finally:
        toolbox.remote.close()


# -- cancellation ----------------------------------------------------------------------------


def test_cancelling_a_call_stops_the_engine_scan(tmp_path):
    root = tmp_path / "ws"
    total = many_files(root, 200, 100)  # 20,000 files, none of which matches
    errlog_path = tmp_path / "server.log"

    async def session():
        with errlog_path.open("w") as errlog:
            transport = stdio_client(server_params(root), errlog=errlog)
            async with Client(transport) as client:
                started = anyio.Event()

                async def on_progress(progress: float, total: float | None, message: Any) -> None:
                    started.set()

                finished = []

                async def call() -> None:
                    await client.call_tool(
                        "grep_search", {"pattern": "zzz-absent"}, progress_callback=on_progress
                    )
                    finished.append(True)

                with anyio.fail_after(60):
                    async with anyio.create_task_group() as tasks:
                        tasks.start_soon(call)
                        await started.wait()  # the scan has begun
                        tasks.cancel_scope.cancel()  # the client sends notifications/cancelled
                assert not finished
                with anyio.fail_after(60):
                    while "cancelled" not in errlog_path.read_text():
                        await anyio.sleep(0.05)
                # The server goes on serving.
                again = await client.call_tool("glob_search", {"pattern": "f001.txt"})
                assert again.structured_content["total"] == 200

    run(session)
    log = errlog_path.read_text()
    found = re.search(r"grep_search cancelled: the engine stopped after (\d+) files searched", log)
    assert found, log
    searched = int(found[1])
    assert searched < total // 2, f"the engine searched {searched} of {total} files: {log}"


def test_workspace_grep_and_glob_raise_cancelled_error_when_their_token_is_cancelled(tmp_path):
    root = tmp_path / "ws"
    total = many_files(root, 100, 100)
    ws = Workspace(root, threads=2)
    token = CancelToken()
    outcome: list[BaseException | object] = []

    def scan() -> None:
        try:
            outcome.append(ws.grep("zzz-absent", cancel=token, max_matches=None))
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=scan)
    worker.start()
    while token.files_searched == 0 and worker.is_alive():
        pass
    token.cancel()
    worker.join(60)
    assert not worker.is_alive()
    [error] = outcome
    if not isinstance(error, CancelledError):
        pytest.fail(f"the scan finished before the cancel: {error!r}")
    assert "cancelled" in str(error)
    assert token.files_searched < total, token
    # A cancelled token stays cancelled: a new search with it stops at once.
    with pytest.raises(CancelledError):
        ws.glob("*.txt", cancel=token)
    assert token.cancelled
    # The current CallControl's token is used when none is given.
    control = CallControl()
    control.cancel()
    with controlling(control), pytest.raises(CancelledError):
        ws.grep("zzz-absent")
    assert ws.grep("zzz-absent", max_matches=None).files_searched == total


def test_a_cancelled_tool_call_is_an_error_result(tree):
    toolbox = Toolbox(Workspace(tree({"a.txt": "alpha\n"})))
    control = CallControl()
    control.cancel()
    with controlling(control):
        result = toolbox.call("grep_search", {"pattern": "alpha"})
    assert result.is_error and result.data["error"]["type"] == "CancelledError", result
    assert not toolbox.call("grep_search", {"pattern": "alpha"}).is_error


# -- resources -------------------------------------------------------------------------------


def test_spill_files_are_resources_and_nothing_else_is(tmp_path):
    root = tmp_path / "ws"
    many_files(root, 3, 900)
    (root / "secret.txt").write_text("a workspace file\n")
    spill_dir = tmp_path / "spill"

    async def session():
        async with Client(server_params(root, "--spill-dir", str(spill_dir))) as client:
            assert (await client.list_resources()).resources == []
            small = await client.call_tool("glob_search", {"pattern": "secret.txt"})
            assert [c.type for c in small.content] == ["text"]

            big = await client.call_tool("glob_search", {"pattern": "*.txt"})
            assert [c.type for c in big.content] == ["text", "resource_link"]
            link = big.content[1]
            spill = Path(big.structured_content["spill_file"])
            assert link.uri == f"codesift://spill/{spill.name}" and link.mime_type == "text/plain"
            assert link.size == spill.stat().st_size

            listed = (await client.list_resources()).resources
            assert [r.uri for r in listed] == [link.uri]
            read = await client.read_resource(link.uri)
            [contents] = read.contents
            assert contents.text == spill.read_text()
            assert contents.text.startswith('Found 2701 files matching "*.txt"')

            for uri in (
                "codesift://spill/../ws/secret.txt",
                "codesift://spill/grep_search-1.txt",
                f"file://{root / 'secret.txt'}",
                f"file://{spill}",
                "codesift://spill/",
            ):
                with pytest.raises(MCPError) as refused:
                    await client.read_resource(uri)
                assert "Unknown resource" in str(refused.value), uri

    run(session)


# -- Streamable HTTP -------------------------------------------------------------------------


class HttpServer:
    """`codesift mcp --http 127.0.0.1:0` as a subprocess; `url` is read from its stderr."""

    def __init__(self, root: Path, *extra: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "codesift", "mcp", "--root", str(root), "--http", *extra],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=server_env(),
            text=True,
        )
        assert self.proc.stderr is not None
        lines: list[str] = []
        ready = threading.Event()

        def read() -> None:
            assert self.proc.stderr is not None
            for line in self.proc.stderr:
                lines.append(line)
                if "serving http" in line:
                    ready.set()
            ready.set()

        threading.Thread(target=read, daemon=True).start()
        if not ready.wait(60) or not any("serving http" in line for line in lines):
            self.close()
            pytest.fail(f"the HTTP server did not start: {''.join(lines)}")
        self.url = re.search(r"http://\S+", "".join(lines))[0]  # type: ignore[index]
        self.lines = lines

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def raw_post(url: str, headers: dict[str, str]) -> tuple[int, str]:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    request = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **headers,
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_streamable_http_transport_with_the_sdk_client(tree):
    root = tree({"src/app.py": "def handler():\n    return compute()\n"})
    server = HttpServer(root, "127.0.0.1:0")
    try:
        assert server.url.startswith("http://127.0.0.1:") and server.url.endswith("/mcp")

        async def session():
            async with Client(server.url) as client:
                assert client.protocol_version == "2026-07-28"
                tools = {t.name: t for t in (await client.list_tools()).tools}
                assert set(tools) == CANONICAL
                assert tools["grep_search"].annotations.read_only_hint is True
                seen, callback = progress_log()
                found = await client.call_tool(
                    "grep_search", {"pattern": r"compute\(\)"}, progress_callback=callback
                )
                assert not found.is_error, found.content[0].text
                hit = found.structured_content["matches"][0]
                assert hit["file"] == "src/app.py" and hit["line"] == 2
                assert seen and seen[-1][2] == "1 file searched", seen
                edited = await client.call_tool(
                    "edit", {"search_result_id": hit["id"], "new_string": "compute(1)"}
                )
                assert not edited.is_error, edited.content[0].text

        run(session)
        assert (root / "src/app.py").read_text() == "def handler():\n    return compute(1)\n"
    finally:
        server.close()


def test_http_refuses_foreign_origins_and_hosts(tree):
    server = HttpServer(tree({"a.txt": "x\n"}), "127.0.0.1:0", "--allow-origin", "https://ok.test")
    try:
        status, body = raw_post(server.url, {"Origin": "http://evil.example"})
        assert status == 403, body
        error = json.loads(body)["error"]
        assert "evil.example" in error["message"] and "--allow-origin" in error["message"]
        for origin in ("null", "http://127.0.0.1.evil.example:8000", "file://"):
            assert raw_post(server.url, {"Origin": origin})[0] == 403, origin
        # Loopback origins and the allowed one pass the Origin check.
        for origin in ("http://localhost:5173", "http://127.0.0.1:9", "https://ok.test"):
            status, body = raw_post(server.url, {"Origin": origin})
            assert status not in (403, 421), (origin, status, body)
        # A foreign Host (DNS rebinding) is refused too.
        assert raw_post(server.url, {"Host": "evil.example"})[0] == 421
    finally:
        server.close()


def test_http_binds_loopback_only_unless_allowed():
    result = subprocess.run(
        [sys.executable, "-m", "codesift", "mcp", "--http", "0.0.0.0:0"],
        capture_output=True,
        text=True,
        env=server_env(),
        timeout=60,
    )
    assert result.returncode == 2, result
    assert "loopback" in result.stderr and "--allow-non-loopback" in result.stderr
    assert "Traceback" not in result.stderr
    check_bind("0.0.0.0", allow_non_loopback=True)
    for host in ("127.0.0.1", "127.3.4.5", "::1", "localhost"):
        check_bind(host, allow_non_loopback=False)
    assert parse_bind("[::1]:8080") == ("::1", 8080)
    for bad in ("8080", "localhost:", "host:99999", ":80"):
        with pytest.raises(Exception, match="HOST:PORT"):
            parse_bind(bad)
    assert origin_allowed("http://[::1]:3000") and not origin_allowed("http://example.com")
