"""`codesift serve`'s JSON API against a live server on 127.0.0.1 (port 0), with a real HTTP
client: every tool, linked edits across requests, the edit preview, the write token,
read-only mode, Host/Origin checks against DNS rebinding, bad JSON and oversized bodies."""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from serve_helpers import answer, auth, live_server, post_tool

from codesift import Workspace
from codesift.serve import Server
from codesift.tools import Toolbox

FILES = {
    "src/users.py": (
        "def getUser(id):\n"
        "    return db.getUser(id)\n"
        "\n"
        "def listUsers():\n"
        "    return [getUser(i) for i in range(3)]\n"
    ),
    "src/app/main.ts": "import { getUser } from './users';\nconsole.log(getUser(1));\n",
    "README.md": "# Demo\n\nOpen Questions\n",
    "docs/guide.md": "TODO: write the guide\n",
}


@pytest.fixture
def root(tree) -> Path:
    return tree(FILES)


@pytest.fixture
def client(server: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30) as http:
        yield http


def assert_writes(
    http: httpx.Client, root: Path, path: str, content: str, headers: dict[str, str]
) -> None:
    """write_file with `headers` succeeds and the file holds `content`."""
    done = answer(post_tool(http, "write_file", {"path": path, "content": content}, headers))
    assert done["is_error"] is False, done
    written = (root / path).read_text()
    assert written == content, f"expected {content!r} in {path}, got {written!r}"


def error_of(response: httpx.Response, status: int) -> dict[str, str]:
    body = answer(response, status)
    assert set(body) == {"error"}, body
    # A library error also has its problem and hints apart.
    assert set(body["error"]) in ({"type", "message"}, {"type", "message", "problem", "hints"})
    assert body["error"]["message"], body
    if "problem" in body["error"]:
        assert body["error"]["message"].startswith(body["error"]["problem"]), body
    return body["error"]


# -- the tools -----------------------------------------------------------------------------------


def test_tool_schemas(client: httpx.Client) -> None:
    body = answer(client.get("/api/tools"))
    names = [tool["name"] for tool in body["tools"]]
    assert set(names) >= {
        "grep_search",
        "glob_search",
        "read_file",
        "list_dir",
        "edit",
        "write_file",
    }
    grep = next(t for t in body["tools"] if t["name"] == "grep_search")
    assert grep["parameters"]["required"] == ["pattern"]
    assert body["read_only"] is False
    openai = answer(client.get("/api/tools", params={"format": "openai"}))
    assert {t["function"]["name"] for t in openai["tools"]} == set(names)
    error = error_of(client.get("/api/tools", params={"format": "yaml"}), 400)
    assert "format must be one of json, openai, anthropic" in error["message"]


def test_unknown_profile_is_a_clear_error(client: httpx.Client) -> None:
    error = error_of(client.get("/api/tools", params={"profile": "no-such-agent"}), 400)
    assert "profile" in error["message"]
    if "profile" not in inspect.signature(Toolbox).parameters:
        assert "not available" in error["message"]


def test_read_tools(client: httpx.Client) -> None:
    grep = answer(client.post("/api/tools/grep_search", json={"pattern": "getuser", "path": "src"}))
    assert grep["is_error"] is False
    assert grep["data"]["total"] == 5
    # The page's tool ranks: the same hits, the definition first.
    assert sorted((m["file"], m["line"]) for m in grep["data"]["matches"]) == [
        ("src/app/main.ts", 1),
        ("src/app/main.ts", 2),
        ("src/users.py", 1),
        ("src/users.py", 2),
        ("src/users.py", 5),
    ]
    assert grep["data"]["matches"][0]["role"] == "definition", grep["data"]["matches"][0]
    grep = answer(
        client.post(
            "/api/tools/grep_search", json={"pattern": "getuser", "path": "src", "rank": False}
        )
    )
    first = grep["data"]["matches"][0]
    assert f"src/app/main.ts:1:10 [{first['id']}]" in grep["text"]

    glob = answer(client.post("/api/tools/glob_search", json={"pattern": "*.md"}))
    assert [f["path"] for f in glob["data"]["files"]] == ["README.md", "docs/guide.md"]

    read = answer(client.post("/api/tools/read_file", json={"path": "src/users.py:4-5"}))
    assert (
        read["text"]
        == "     4\tdef listUsers():\n     5\t    return [getUser(i) for i in range(3)]"
    )

    listing = answer(client.post("/api/tools/list_dir", json={"path": "src"}))
    assert listing["data"]["entries"] == ["app/", "users.py"]

    # tool names are resolved as Toolbox.call resolves them (aliases, any case)
    alias = answer(client.post("/api/tools/GREP", json={"pattern": "TODO"}))
    assert alias["data"]["total"] == 1


def test_tool_failures_are_results_not_http_errors(client: httpx.Client) -> None:
    missing = answer(client.post("/api/tools/read_file", json={"path": "nope.txt"}))
    assert missing["is_error"] is True
    assert missing["data"]["error"]["type"] == "NotFoundError"
    outside = answer(client.post("/api/tools/read_file", json={"path": "../../etc/passwd"}))
    assert outside["is_error"] is True and outside["data"]["error"]["type"] == "SandboxError"
    regex = answer(client.post("/api/tools/grep_search", json={"pattern": "(unclosed"}))
    assert regex["is_error"] is True and regex["data"]["error"]["type"] == "PatternError"
    unknown = answer(client.post("/api/tools/rm_rf", json={}))
    assert unknown["is_error"] is True and "Available tools" in unknown["text"]
    bad_args = answer(client.post("/api/tools/glob_search", json={"pattern": 3}))
    assert bad_args["is_error"] is True and "invalid arguments" in bad_args["text"]
    not_an_object = answer(client.post("/api/tools/glob_search", json=["*.md"]))
    assert not_an_object["is_error"] is True


def test_write_tools_with_the_token(server: Server, client: httpx.Client, root: Path) -> None:
    assert_writes(client, root, "new/dir/file.txt", "hello\n", auth(server))
    edited = answer(
        post_tool(
            client,
            "edit",
            {"path": "README.md", "old_string": "Open Questions", "new_string": "Answers"},
            {"X-Codesift-Token": server.token},
        )
    )
    assert edited["is_error"] is False, edited
    assert (root / "README.md").read_text() == "# Demo\n\nAnswers\n"
    assert "+Answers" in edited["data"]["diff"]


# -- linked edits across requests ----------------------------------------------------------------


def test_search_result_ids_work_in_later_requests(
    server: Server, client: httpx.Client, root: Path
) -> None:
    found = answer(
        client.post("/api/tools/grep_search", json={"pattern": "getUser", "path": "src/users.py"})
    )
    ids = [m["id"] for m in found["data"]["matches"]]
    assert len(ids) == 3
    # edit the first and the last hit, each in its own request: the second still applies
    # although the first changed the file's length
    for hit_id, new in ((ids[0], "fetchUserById"), (ids[2], "fetchUserById")):
        done = answer(
            post_tool(client, "edit", {"search_result_id": hit_id, "new_string": new}, auth(server))
        )
        assert done["is_error"] is False, done
    assert (root / "src/users.py").read_text() == FILES["src/users.py"].replace(
        "def getUser(", "def fetchUserById("
    ).replace("[getUser(", "[fetchUserById(")
    # an id used up by its edit is refused, and nothing changes
    again = answer(
        post_tool(client, "edit", {"search_result_id": ids[0], "new_string": "x"}, auth(server))
    )
    assert again["is_error"] is True and again["data"]["error"]["type"] == "StaleResultError"


def test_agent_search_then_edit_by_id(server: Server, client: httpx.Client, root: Path) -> None:
    found = answer(client.post("/api/agent", json={"prompt": "Search 'TODO' in docs"}))
    hit = found["data"]["matches"][0]
    done = answer(
        post_tool(
            client, "edit", {"search_result_id": hit["id"], "new_string": "DONE"}, auth(server)
        )
    )
    assert done["is_error"] is False
    assert (root / "docs/guide.md").read_text() == "DONE: write the guide\n"


def test_preview_shows_the_diff_and_writes_nothing(
    server: Server, client: httpx.Client, root: Path
) -> None:
    found = answer(client.post("/api/tools/grep_search", json={"pattern": "listUsers"}))
    hit_id = found["data"]["matches"][0]["id"]
    before = (root / "src/users.py").read_bytes()
    preview = answer(
        client.post("/api/preview", json={"search_result_id": hit_id, "new_string": "all_users"})
    )
    assert preview["is_error"] is False, preview
    data = preview["data"]
    assert data["dry_run"] is True
    assert "-def listUsers():\n+def all_users():\n" in data["diff"]
    assert data["new_lines"] == [{"line": 4, "text": "def all_users():"}]
    assert (data["first_line"], data["last_line"]) == (4, 4)
    assert (root / "src/users.py").read_bytes() == before
    # the previewed id still applies, and the edit writes what the preview showed
    applied = answer(
        post_tool(
            client, "edit", {"search_result_id": hit_id, "new_string": "all_users"}, auth(server)
        )
    )
    assert applied["data"]["diff"] == data["diff"]
    assert b"def all_users():" in (root / "src/users.py").read_bytes()
    # old/new mode, and failures as results
    old_new = answer(
        client.post(
            "/api/preview",
            json={"path": "README.md", "old_string": "Demo", "new_string": "Example"},
        )
    )
    assert "+# Example" in old_new["data"]["diff"]
    assert (root / "README.md").read_text() == FILES["README.md"]
    stale = answer(
        client.post("/api/preview", json={"search_result_id": hit_id, "new_string": "x"})
    )
    assert stale["is_error"] is True and stale["data"]["error"]["type"] == "StaleResultError"
    same = answer(
        client.post(
            "/api/preview", json={"path": "README.md", "old_string": "x", "new_string": "x"}
        )
    )
    assert same["is_error"] is True
    error_of(client.post("/api/preview", json=["not", "an", "object"]), 400)


# -- the command language ------------------------------------------------------------------------


def test_agent_commands(server: Server, client: httpx.Client, root: Path) -> None:
    def agent(prompt: str, tool: str = "auto", **extra: Any) -> dict[str, Any]:
        return answer(client.post("/api/agent", json={"prompt": prompt, "tool": tool, **extra}))

    read = agent("Read src/users.py:1-2")
    assert read["tool"] == "read_file" and read["is_error"] is False
    assert read["text"].startswith("[tool=read_file]      1\tdef getUser(id):")

    listed = agent("List src")
    assert listed["tool"] == "list_dir" and listed["data"]["entries"] == ["app/", "users.py"]
    globbed = agent("List src/**/*.ts")
    assert globbed["tool"] == "glob_search"
    assert [f["path"] for f in globbed["data"]["files"]] == ["src/app/main.ts"]
    directory = agent("Read src/app")
    assert (
        directory["tool"] == "list_dir"
        and directory["note"] == "src/app is a directory, so it was listed"
    )
    assert directory["text"].startswith(
        "[tool=list_dir] (src/app is a directory, so it was listed)"
    )

    bare = agent("getuser(")
    assert bare["tool"] == "grep_search" and bare["data"]["total"] == 4
    assert bare["text"].startswith('[tool=grep_search] Found 4 matches for "getuser("')
    exact = agent("Search 'regex' 'case-sensitive' '^def \\w+' in src")
    assert exact["arguments"] == {
        "pattern": "^def \\w+",
        "literal": False,
        "case_sensitive": True,
        "path": "src",
    }
    assert [m["line"] for m in exact["data"]["matches"]] == [1, 4]
    paged = agent("getUser", options={"max_matches": 2, "context_lines": 1, "include": "*.py"})
    assert paged["data"]["truncated"] is True
    assert [m["file"] for m in paged["data"]["matches"]] == ["src/users.py", "src/users.py"]
    assert paged["data"]["matches"][0]["after"] == ["    return db.getUser(id)"]

    replaced = answer(
        client.post(
            "/api/agent",
            json={"prompt": "Replace 'Open Questions' with 'Unresolved Questions' in README.md"},
            headers=auth(server),
        )
    )
    assert replaced["tool"] == "edit" and replaced["is_error"] is False, replaced
    assert (root / "README.md").read_text() == "# Demo\n\nUnresolved Questions\n"
    twice = answer(
        client.post(
            "/api/agent",
            json={"prompt": "Replace getUser with fetchUser in src/users.py"},
            headers=auth(server),
        )
    )
    assert twice["is_error"] is True and "3" in twice["text"]  # old must occur once
    assert (root / "src/users.py").read_text() == FILES["src/users.py"]

    unparsed = agent("Replace 'a' with 'b'")
    assert unparsed["tool"] is None and unparsed["is_error"] is True
    assert unparsed["text"].startswith("[tool=none] Error: Replace needs the file")
    assert "Search ['regex'] ['case-sensitive'] 'PATTERN' [in PATH]" in unparsed["text"]
    assert unparsed["data"]["error"]["type"] == "CommandError"


def test_agent_replace_needs_the_token(client: httpx.Client, root: Path) -> None:
    error = error_of(
        client.post("/api/agent", json={"prompt": "Replace 'Demo' with 'X' in README.md"}), 401
    )
    assert "token" in error["message"]
    assert (root / "README.md").read_text() == FILES["README.md"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "prompt (a string) is required"),
        ({"prompt": 3}, "prompt (a string) is required"),
        ({"prompt": "x", "tool": "delete"}, "tool 'delete' is unknown"),
        ({"prompt": "x", "colour": 1}, "unknown field 'colour'"),
        ({"prompt": "x", "options": []}, "options must be a JSON object"),
        ({"prompt": "x", "options": {"regex": "yes"}}, "option regex has the wrong type"),
    ],
)
def test_agent_bad_requests(client: httpx.Client, body: Any, message: str) -> None:
    error = error_of(client.post("/api/agent", json=body), 400)
    assert message in error["message"]


# -- security ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer wrong"},
        {"Authorization": "Basic abc"},
        {"X-Codesift-Token": ""},
    ],
)
def test_writes_need_the_token(client: httpx.Client, root: Path, headers: dict[str, str]) -> None:
    for name, args in (
        ("write_file", {"path": "x.txt", "content": "x"}),
        ("edit", {"path": "README.md", "old_string": "Demo", "new_string": "X"}),
        ("Replace", {"path": "README.md", "old_string": "Demo", "new_string": "X"}),
        ("str_replace", {"path": "README.md", "old_str": "Demo", "new_str": "X"}),
    ):
        error = error_of(client.post(f"/api/tools/{name}", json=args, headers=headers), 401)
        assert error["type"] == "TokenRequired" and "Authorization: Bearer" in error["message"]
    assert not (root / "x.txt").exists()
    assert (root / "README.md").read_text() == FILES["README.md"]


def test_token_option_and_reads_without_token(root: Path) -> None:
    with live_server(root, token="s3cret") as server, httpx.Client(base_url=server.url) as http:
        assert server.token == "s3cret"
        assert server.page_url.endswith("/?token=s3cret")
        answer(http.post("/api/tools/read_file", json={"path": "README.md"}))
        error_of(
            post_tool(
                http, "write_file", {"path": "a", "content": ""}, {"Authorization": "Bearer other"}
            ),
            401,
        )
        assert_writes(http, root, "a", "z", {"Authorization": "bearer s3cret"})


def test_read_only_server(root: Path) -> None:
    with live_server(root, read_only=True) as server, httpx.Client(base_url=server.url) as http:
        names = {t["name"] for t in answer(http.get("/api/tools"))["tools"]}
        assert names == {"grep_search", "glob_search", "read_file", "list_dir", "search"}
        assert answer(http.get("/api/info"))["read_only"] is True
        for name in ("edit", "write_file", "replace"):
            error = error_of(
                http.post(
                    f"/api/tools/{name}",
                    json={"path": "README.md", "old_string": "Demo", "new_string": "X"},
                    headers=auth(server),
                ),
                403,
            )
            assert "read-only" in error["message"]
        error_of(
            http.post(
                "/api/agent",
                json={"prompt": "Replace 'Demo' with 'X' in README.md"},
                headers=auth(server),
            ),
            403,
        )
        error_of(http.post("/api/preview", json={"path": "README.md"}), 403)
        unknown = error_of(http.post("/api/tools/rm", json={}), 404)
        assert "grep_search" in unknown["message"]
        assert answer(http.post("/api/agent", json={"prompt": "TODO"}))["data"]["total"] == 1
    assert (root / "README.md").read_text() == FILES["README.md"]


@pytest.mark.parametrize(
    "host",
    ["evil.example:{port}", "evil.example", "127.0.0.1:1", "localhost.evil.example:{port}", ""],
)
def test_foreign_host_is_refused(server: Server, host: str) -> None:
    with httpx.Client(base_url=server.url) as http:
        for method, path in (("GET", "/"), ("GET", "/api/tools"), ("POST", "/api/agent")):
            response = http.request(
                method, path, headers={"Host": host.format(port=server.port)}, json={"prompt": "x"}
            )
            error = error_of(response, 421)
            assert error["type"] == "HostRejected" and "DNS rebinding" in error["message"]


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST:{port}"])
def test_own_host_names_are_accepted(server: Server, host: str) -> None:
    with httpx.Client(base_url=server.url) as http:
        response = http.get("/api/info", headers={"Host": host.format(port=server.port)})
        assert answer(response)["read_only"] is False


@pytest.mark.parametrize(
    "origin",
    [
        "http://evil.example",
        "http://evil.example:{port}",
        "https://127.0.0.1:{port}",
        "http://127.0.0.1:1",
        "http://10.1.2.3:{port}",
        "http://localhost:{port}",  # a different origin than the Host 127.0.0.1 used
        "null",
        "garbage",
    ],
)
def test_foreign_origin_is_refused(server: Server, origin: str, root: Path) -> None:
    with httpx.Client(base_url=server.url) as http:
        response = post_tool(
            http,
            "write_file",
            {"path": "pwned.txt", "content": "x"},
            {"Origin": origin.format(port=server.port), **auth(server)},
        )
        error = error_of(response, 403)
        assert error["type"] == "OriginRejected"
    assert not (root / "pwned.txt").exists()


def test_own_origin_is_accepted(server: Server) -> None:
    with httpx.Client(base_url=server.url) as http:
        response = post_tool(
            http, "glob_search", {"pattern": "*.md"}, {"Origin": f"http://127.0.0.1:{server.port}"}
        )
        assert answer(response)["data"]["total"] == 2


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{not json", "not valid JSON"),
        (b'{"pattern": "x",}', "not valid JSON"),
        (b"\xff\xfe\xfa", "not readable JSON"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b'{"pattern": 1' + b"0" * 5000 + b"}", "not readable JSON"),
    ],
)
def test_bad_json_is_a_400(client: httpx.Client, body: bytes, message: str) -> None:
    for path in ("/api/tools/grep_search", "/api/agent", "/api/preview"):
        response = client.post(path, content=body, headers={"Content-Type": "application/json"})
        error = error_of(response, 400)
        assert message in error["message"], f"{path}: {error}"


def test_empty_body_means_no_arguments(client: httpx.Client) -> None:
    listing = answer(client.post("/api/tools/list_dir", content=b""))
    assert listing["data"]["entries"] == ["docs/", "src/", "README.md"]


def test_huge_bodies_are_refused(root: Path) -> None:
    with (
        live_server(root, max_body_bytes=4096) as server,
        httpx.Client(base_url=server.url) as http,
    ):
        big = json.dumps({"path": "big.txt", "content": "x" * 10_000})
        error = error_of(http.post("/api/tools/write_file", content=big, headers=auth(server)), 413)
        assert "over 4096 bytes" in error["message"]

        def chunks() -> Iterator[bytes]:  # no Content-Length: the cap holds while streaming
            yield b'{"prompt": "'
            for _ in range(10):
                yield b"y" * 1000
            yield b'"}'

        error_of(http.post("/api/agent", content=chunks()), 413)
        small = answer(http.post("/api/agent", json={"prompt": "TODO"}))
        assert small["data"]["total"] == 1
    assert not (root / "big.txt").exists()


def test_default_body_cap_is_generous_but_finite(server: Server) -> None:
    assert server.service.max_body_bytes == 16 * 1024 * 1024
    # a declared length over the cap is refused before the body is read
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as conn:
        conn.sendall(
            b"POST /api/tools/grep_search HTTP/1.1\r\n"
            + f"Host: 127.0.0.1:{server.port}\r\n".encode()
            + b"Content-Type: application/json\r\n"
            + f"Content-Length: {64 * 1024 * 1024}\r\n\r\n".encode()
            + b"{}"
        )
        reply = b""
        while b"\r\n\r\n" not in reply:
            chunk = conn.recv(4096)
            if not chunk:
                break
            reply += chunk
    assert reply.startswith(b"HTTP/1.1 413 "), reply[:200]


def test_unknown_routes_and_methods_answer_json(client: httpx.Client) -> None:
    assert "no such endpoint" in error_of(client.get("/api/nothing"), 404)["message"]
    assert "GET is not allowed" in error_of(client.get("/api/agent"), 405)["message"]
    assert error_of(client.get("/static/../../etc/passwd"), 404)
    assert error_of(client.get("/static/secret.py"), 404)


def test_the_page_and_its_files(client: httpx.Client) -> None:
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["referrer-policy"] == "no-referrer"
    sources = re.findall(r'(?:src|href)="(/static/[^"]+)"', page.text)
    assert sorted(sources) == ["/static/app.js", "/static/style.css"]
    for source in sources:
        response = client.get(source)
        assert response.status_code == 200 and len(response.content) > 1000
    assert "http://" not in page.text and "https://" not in page.text  # nothing from elsewhere


def test_non_utf8_file_names_round_trip(server: Server, client: httpx.Client, root: Path) -> None:
    (root / os.fsdecode(b"caf\xe9.txt")).write_bytes(b"latte\n")
    found = answer(client.post("/api/tools/glob_search", json={"pattern": "caf*"}))
    name = found["data"]["files"][0]["path"]
    assert name == os.fsdecode(b"caf\xe9.txt")
    assert "caf\\xe9.txt" in found["text"]
    # JSON with the name as a \udce9 escape, as the server sent it, names the file again
    body = json.dumps({"path": name})
    assert "\\udce9" in body
    read = answer(client.post("/api/tools/read_file", content=body))
    assert read["text"] == "     1\tlatte"


def test_non_loopback_server_needs_the_token_for_everything(root: Path) -> None:
    with live_server(root, host="0.0.0.0") as server:
        with httpx.Client(base_url=f"http://127.0.0.1:{server.port}") as http:
            error = error_of(http.post("/api/tools/read_file", json={"path": "README.md"}), 401)
            assert "beyond this machine" in error["message"]
            read = answer(
                http.post("/api/tools/read_file", json={"path": "README.md"}, headers=auth(server))
            )
            assert read["is_error"] is False
            assert http.get("/").status_code == 200  # the page itself holds nothing


# -- the command line ----------------------------------------------------------------------------


def _codesift(*args: str, **kwargs: Any) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.Popen(
        [sys.executable, "-m", "codesift", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        # as from a terminal, whatever the test runner's own SIGINT disposition
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        **kwargs,
    )


@contextlib.contextmanager
def cli_server(root: Path, *args: str) -> Iterator[tuple[subprocess.Popen[str], httpx.Client]]:
    """`codesift serve --root ROOT --port 0 --token tok123 ARGS...`, and a client of the URL
    its banner prints."""
    process = _codesift("serve", "--root", str(root), "--port", "0", "--token", "tok123", *args)
    try:
        assert process.stdout is not None
        banner = [process.stdout.readline() for _ in range(3)]
        url = banner[2].strip()
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/\?token=tok123", url), banner
        with httpx.Client(base_url=url.split("?")[0], timeout=30) as http:
            yield process, http
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=30)


def test_cli_serve_prints_the_url_and_serves(root: Path) -> None:
    with cli_server(root) as (process, http):
        assert answer(http.post("/api/agent", json={"prompt": "TODO"}))["data"]["total"] == 1
        assert_writes(http, root, "cli.txt", "ok", {"Authorization": "Bearer tok123"})
        # Ctrl-C stops it quietly, with the CLI's exit code for an interruption
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
        assert process.returncode == 130, err
        assert "Traceback" not in err


def test_cli_serve_passes_read_only_and_the_profile_to_the_server(root: Path) -> None:
    with cli_server(root, "--read-only", "--profile", "claude-code") as (_, http):
        info = answer(http.get("/api/info"))
        names = {t["name"] for t in answer(http.get("/api/tools"))["tools"]}
        print("info:", info, "tools:", names)
        assert (info["read_only"], info["profile"]) == (True, "claude-code")
        assert {"Grep", "Glob", "Read"} <= names, names
        assert not names & {"Edit", "Write", "edit", "write_file"}, names
        write = {"file_path": "README.md", "old_string": "Demo", "new_string": "X"}
        bearer = {"Authorization": "Bearer tok123"}
        refused = error_of(http.post("/api/tools/Edit", json=write, headers=bearer), 403)
        assert "read-only" in refused["message"]


def test_the_banner_of_a_read_only_server_promises_no_edit(root: Path) -> None:
    """The token lets a read-write server's page edit; a read-only server's banner says that
    nothing can be edited, and names the token only for what it still guards."""
    writable = Server(Workspace(root), port=0, token="tok123")
    read_only = Server(Workspace(root), port=0, token="tok123", read_only=True)
    try:
        assert "lets it edit files" in writable.banner(), writable.banner()
        assert "need the header 'Authorization: Bearer tok123'" in writable.banner()
        banner = read_only.banner()
        assert "(read-only, profile codesift)" in banner, banner
        assert "edit files" not in banner and "nothing can be edited" in banner, banner
        assert "requests that write are refused" in banner, banner
        assert "Bearer" not in banner, banner
    finally:
        writable.socket.close()
        read_only.socket.close()


def serve_once(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`codesift serve --root ROOT ARGS...` run to its end (an error ends it at once)."""
    command = [sys.executable, "-m", "codesift", "serve", "--root", str(root), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


def test_cli_serve_errors_are_one_line(root: Path) -> None:
    with live_server(root) as server:
        busy = serve_once(root, "--port", str(server.port))
    assert busy.returncode == 2
    assert busy.stderr.startswith(f"codesift: cannot listen on 127.0.0.1:{server.port}")
    assert "--port" in busy.stderr and "Traceback" not in busy.stderr
    assert busy.stderr.count("\n") == 1
    profile = serve_once(root, "--port", "0", "--profile", "no-such-agent")
    assert profile.returncode == 2 and "no-such-agent" in profile.stderr
    assert "Traceback" not in profile.stderr
    # As codesift mcp says it: the profile named once, then the profiles there are.
    said = "codesift: --profile: unknown profile 'no-such-agent'; profiles: codesift, "
    assert profile.stderr.startswith(said), profile.stderr
