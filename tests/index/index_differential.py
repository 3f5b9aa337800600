"""Differential testing of the index: random small trees, random changes (behind the back and
through the API), random queries; every indexed answer must equal a scan's
(`Workspace(index=False)`) at that moment, field by field.

The kinds of indexed workspace compared (`KINDS`):
- `watched`: one long-lived `Workspace(index=True)` with its inotify watch;
- `strict`: one long-lived `Workspace(index=True, strict=True)`;
- `unwatched`: one long-lived `Workspace(index=True, index_watch=False)`;
- `auto`: a fresh `Workspace(index="auto")` per query (the index the others built);
- `process`: another Python process running the round's queries with the index;
- `cli`: `codesift grep|glob --json-full --index` against the same command with `--no-index`;
- `daemon`: the host's index daemon (a process of its own, started by the first client that
  wants it) watching the tree: a fresh short-lived `Workspace(index="auto",
  index_watch=False)` per query and, every few rounds, `codesift grep --index` ask it. Only
  this kind's calls may use the daemon (`CODESIFT_DAEMON=never` for the others); its queries
  are run once the daemon's watch is caught up, so that the daemon answers them (globs
  included: `Run.daemon_glob_answers` counts those the daemon answered itself).

Normalised away, because they legitimately differ: `indexed` (whether the index answered),
`files_searched` (the index opens only the candidate files), hit ids (`sr_...`, a random salt
per workspace). When the scan was cut short (`truncated`), the walk counters a search stopped
early may not have reached (`binary_files`, `unreadable`, `ignored`, `skipped`) are dropped
too (the public contract: "only a search stopped early may count fewer"). Everything else —
every hit field including `byte_length`, `unique`, `encoding`, the file fingerprint, order,
`total`, `truncated`, `files_with_matches`, `counts`, `hint`, `summary` — must be equal.

A difference is reduced (operations, files, query options dropped while it persists) and
written out as a directory holding `scenario.json`, `diff.txt` and a self-contained
`repro.py`. The replay helpers between the `REPLAY` markers are copied verbatim into each
`repro.py`, so they import only the standard library and `codesift`.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

KINDS = ("watched", "strict", "unwatched", "auto", "process", "cli", "daemon")

# ----------------------------------------------------------------------------- REPLAY start
import base64  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

#: Files changed less than 2 s before a build are searched from disk, never trusted to the
#: index: a tree is left this long before the index is built so that the index answers.
AGE_SECONDS = 2.1
LONG_LIVED = ("watched", "strict", "unwatched")
DROPPED = ("indexed", "files_searched")
DROPPED_WHEN_TRUNCATED = ("binary_files", "unreadable", "ignored", "skipped")


def _bytes(text):
    return base64.b64decode(text)


def build_tree(base, entries):
    """Creates `base/ws` (the workspace) and `base/outside` from `entries`."""
    for entry in entries:
        path = os.path.join(base, entry["path"])
        os.makedirs(os.path.dirname(path), exist_ok=True)
        kind = entry["kind"]
        if kind == "dir":
            os.makedirs(path, exist_ok=True)
        elif kind == "file":
            with open(path, "wb") as f:
                f.write(_bytes(entry["data"]))
        elif kind == "symlink":
            if not os.path.lexists(path):
                os.symlink(entry["target"], path)
        elif kind == "hardlink":
            if not os.path.lexists(path):
                os.link(os.path.join(base, entry["source"]), path)
        if "mode" in entry and not os.path.islink(path):
            os.chmod(path, entry["mode"])
    os.makedirs(os.path.join(base, "ws"), exist_ok=True)
    os.makedirs(os.path.join(base, "outside"), exist_ok=True)


def open_kind(root, kind):
    from codesift import Workspace

    if kind == "watched":
        return Workspace(root, index=True, index_watch=True)
    if kind == "strict":
        return Workspace(root, index=True, strict=True)
    if kind == "unwatched":
        return Workspace(root, index=True, index_watch=False)
    return Workspace(root)


def apply_op(base, op, workspaces):
    """Applies one change; an operation whose paths no longer exist (a reduction dropped
    what it needs) does nothing. Returns whether it applied."""
    root = os.path.join(base, "ws")

    def at(rel):
        return os.path.join(root, rel)

    name = op["op"]
    try:
        if name == "write":
            os.makedirs(os.path.dirname(at(op["path"])), exist_ok=True)
            with open(at(op["path"]), "wb") as f:
                f.write(_bytes(op["data"]))
        elif name == "append":
            with open(at(op["path"]), "ab") as f:
                f.write(_bytes(op["data"]))
        elif name == "truncate":
            os.truncate(at(op["path"]), op["size"])
        elif name == "delete":
            target = at(op["path"])
            if os.path.isdir(target) and not os.path.islink(target):
                shutil.rmtree(target)
            else:
                os.unlink(target)
        elif name == "rename":
            os.makedirs(os.path.dirname(at(op["to"])), exist_ok=True)
            os.rename(at(op["path"]), at(op["to"]))
        elif name == "move_in":
            outside = os.path.join(base, "outside", op["name"])
            for rel, data in op["files"].items():
                os.makedirs(os.path.dirname(os.path.join(outside, rel)), exist_ok=True)
                with open(os.path.join(outside, rel), "wb") as f:
                    f.write(_bytes(data))
            os.makedirs(os.path.dirname(at(op["to"])), exist_ok=True)
            os.rename(outside, at(op["to"]))
        elif name == "mkdir":
            for rel, data in op["files"].items():
                os.makedirs(os.path.dirname(at(os.path.join(op["path"], rel))), exist_ok=True)
                with open(at(os.path.join(op["path"], rel)), "wb") as f:
                    f.write(_bytes(data))
            os.makedirs(at(op["path"]), exist_ok=True)
        elif name == "chmod":
            os.chmod(at(op["path"]), op["mode"])
        elif name == "symlink":
            target = at(op["path"])
            if os.path.lexists(target):
                if os.path.isdir(target) and not os.path.islink(target):
                    shutil.rmtree(target)
                else:
                    os.unlink(target)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            os.symlink(op["target"], target)
        elif name == "rewrite_at":
            # A file outside the workspace or a rule file's other name (a link's target, a
            # hard link), rewritten in place (the same inode) or replaced by rename.
            target = os.path.join(base, op["path"])
            if op["rename"]:
                with open(target + ".new", "wb") as f:
                    f.write(_bytes(op["data"]))
                os.replace(target + ".new", target)
            else:
                with open(target, "r+b") as f:
                    f.truncate(0)
                    f.write(_bytes(op["data"]))
        elif name == "same_stat_rewrite":
            # Same size, same mtime, other bytes: only the ctime (and inotify) tell.
            target = at(op["path"])
            st = os.stat(target)
            with open(target, "r+b") as f:
                old = f.read()
                f.seek(0)
                f.write(bytes((b ^ 0x01) if 97 <= b <= 122 else b for b in old))
            os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
        elif name in ("api_write", "api_edit", "api_edit_result"):
            ws = workspaces.get(op["actor"]) or open_kind(root, "scan")
            if name == "api_write":
                ws.write(op["path"], _bytes(op["data"]).decode("utf-8", "surrogateescape"))
            elif name == "api_edit":
                ws.edit(op["path"], op["old"], op["new"], replace_all=True)
            else:
                hits = ws.grep(op["pattern"], literal=True, max_matches=5).matches
                if not hits:
                    return False
                ws.edit_result(hits[op["pick"] % len(hits)].id, op["new"])
        else:
            raise ValueError(f"unknown operation {name}")
    except (OSError, ValueError, LookupError) as exc:
        if isinstance(exc, ValueError) and str(exc).startswith("unknown operation"):
            raise
        return False
    except Exception as exc:  # codesift's own errors (a stale id, no match): nothing applied
        if type(exc).__module__.startswith("codesift"):
            return False
        raise
    return True


def _hit(match):
    row = match.to_dict()
    row.pop("id", None)
    for name in ("byte_length", "unique", "encoding", "file_size", "file_mtime_ns"):
        row[name] = getattr(match, name)
    return row


def normalise(data, kind_of_query):
    """The comparable form of a result's `to_dict()` (with `summary`), see the module doc."""
    if "error" in data:
        return data
    data = dict(data)
    for key in DROPPED:
        data.pop(key, None)
    data.pop("root", None)
    for hit in data.get("matches", []):
        hit.pop("id", None)
    if data.get("truncated"):
        for key in DROPPED_WHEN_TRUNCATED:
            data.pop(key, None)
    if kind_of_query == "glob" and data.get("sort") in ("mtime", "none"):
        # Walk order ("none") and mtime ties are not part of the contract: compare as sets,
        # ordered by path within equal mtimes.
        # Cut short, which files are in is walk order (or which of equal mtimes): only how
        # many, and their mtimes in order, are the contract.
        if data.get("truncated"):
            data["files"] = [f["mtime_ms"] if data["sort"] == "mtime" else 1 for f in data["files"]]
        elif data["sort"] == "none":
            data["files"] = sorted(data["files"], key=lambda f: f["path"])
        else:
            data["files"] = sorted(data["files"], key=lambda f: (-f["mtime_ms"], f["path"]))
    return data


def run_query(ws, query):
    """Runs a query (a dict) on a Workspace; returns its normalised result or its error."""
    args = dict(query["args"])
    try:
        if query["kind"] == "grep":
            pattern = args.pop("pattern")
            path = args.pop("path", ".")
            result = ws.grep(pattern, path, **args)
            data = result.to_dict()
            data["matches"] = [_hit(m) for m in result.matches]
        else:
            pattern = args.pop("pattern")
            path = args.pop("path", ".")
            result = ws.glob(pattern, path, **args)
            data = result.to_dict()
    except Exception as exc:
        if not type(exc).__module__.startswith("codesift"):
            raise
        return {"error": type(exc).__name__, "message": str(exc)}
    data["summary"] = result.summary
    return normalise(data, query["kind"])


PROCESS_SCRIPT = """
import json, sys
sys.path[:0] = json.loads(sys.argv[1])
from codesift import Workspace
request = json.load(sys.stdin)
exec(request["helpers"])
ws = Workspace(request["root"], index=True, index_watch=request["watch"])
print(json.dumps([run_query(ws, q) for q in request["queries"]]))
"""


def helpers_source():
    """The source the second process needs to answer queries as this one does (read once:
    the file may change under a long run)."""
    global _HELPERS
    if _HELPERS:
        return _HELPERS
    import inspect

    head = f"DROPPED = {DROPPED!r}\nDROPPED_WHEN_TRUNCATED = {DROPPED_WHEN_TRUNCATED!r}\n"
    _HELPERS = head + "\n".join(inspect.getsource(f) for f in (_hit, normalise, run_query))
    return _HELPERS


_HELPERS = ""


def _env():
    import codesift

    env = dict(os.environ)
    package = os.path.dirname(os.path.dirname(codesift.__file__))
    env["PYTHONPATH"] = os.pathsep.join([package, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env, package


def run_in_process(root, queries, watch):
    """The queries answered by another Python process with the index (the cache is shared
    through CODESIFT_CACHE_DIR)."""
    env, package = _env()
    request = {"root": root, "queries": queries, "watch": watch, "helpers": helpers_source()}
    done = subprocess.run(
        [sys.executable, "-c", PROCESS_SCRIPT, json.dumps([package])],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the second process failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout)


def cli_arguments(query):
    """`codesift` arguments for a query the CLI can express, else None."""
    a = query["args"]
    if query["kind"] == "glob":
        if a.get("type") or a.get("type_not") or a.get("hidden") is not None:
            return None
        if a.get("no_ignore") or a.get("sort") == "none":
            return None
        args = ["glob", a["pattern"], a.get("path", "."), "--limit", str(a.get("limit", 2000))]
        args += ["--sort", a.get("sort", "path")]
        if a.get("case_sensitive") is False:
            args.append("--ignore-case")
        return args
    unsupported = ("mode", "offset", "type", "type_not", "hidden", "no_ignore")
    if any(a.get(k) not in (None, 0, "content") for k in unsupported):
        return None
    if a.get("max_matches", 500) == 0:
        return None
    args = ["grep", a["pattern"], a.get("path", ".")]
    if a.get("literal"):
        args.append("-F")
    args.append("-s" if a.get("case_sensitive") else "-i")
    if a.get("multiline"):
        args.append("-U")
    for glob in _as_list(a.get("include")):
        args += ["-g", glob]
    for glob in _as_list(a.get("exclude")):
        args += ["-g", "!" + glob]
    if a.get("context_lines"):
        args += ["-C", str(a["context_lines"])]
    args += ["-m", str(a["max_matches"] or 0) if "max_matches" in a else "500"]
    if a.get("count_total"):
        args.append("--count-total")
    return args


def _as_list(value):
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def run_cli(root, args, index):
    env, _ = _env()
    command = [sys.executable, "-m", "codesift", *args[:1], "--json-full", "--root", root]
    command += ["--index" if index else "--no-index", "--color", "never", *args[3:]]
    # After `--` every word is a pattern or a path (ripgrep's rule), so options go before it.
    command += ["--", *args[1:3]]
    done = subprocess.run(
        command, capture_output=True, text=True, env=env, timeout=300, check=False, cwd=root
    )
    if done.returncode not in (0, 1, 2):
        raise RuntimeError(f"codesift exited {done.returncode}: {done.stderr[-2000:]}")
    data = json.loads(done.stdout) if done.stdout.strip() else {"error": done.stderr.strip()}
    return normalise(data, args[0])


def differing_fields(expected, actual):
    """Top-level fields (and hit positions) where two normalised results differ."""
    if expected == actual:
        return []
    keys = sorted(set(expected) | set(actual))
    return [k for k in keys if expected.get(k) != actual.get(k)]


def check_once(base, kind, entries, steps, query, age, watch=False):
    """Replays a scenario for one kind and returns (scan, indexed) for the final query."""
    if os.path.exists(base):
        shutil.rmtree(base)
    os.makedirs(base)
    build_tree(base, entries)
    root = os.path.join(base, "ws")
    if age:
        time.sleep(AGE_SECONDS)
    from codesift import Workspace

    workspaces = {}
    if kind in LONG_LIVED:
        workspaces[kind] = open_kind(root, kind)
        workspaces[kind].grep("codesift-differential-warm-up", max_matches=1)
    else:
        Workspace(root, index=True, index_watch=False).index_build()
    for step in steps:
        if "query" in step:
            if kind in workspaces:
                run_query(workspaces[kind], step["query"])
        else:
            apply_op(base, step, workspaces)
    return answer(root, kind, query, workspaces, watch)


def answer(root, kind, query, workspaces, watch=False):
    """(scan, indexed) for one query and one kind, at this moment."""
    from codesift import Workspace

    if kind == "cli":
        args = cli_arguments(query)
        return run_cli(root, args, False), run_cli(root, args, True)
    scan = run_query(Workspace(root), query)
    if kind in LONG_LIVED:
        return scan, run_query(workspaces[kind], query)
    if kind == "auto":
        return scan, run_query(Workspace(root, index="auto"), query)
    if kind == "process":
        return scan, run_in_process(root, [query], watch)[0]
    if kind == "daemon":
        return scan, daemon_answer(root, query)
    raise ValueError(f"unknown kind {kind}")


class through_daemon:
    """Within: this process's searches (and the CLI it runs) may ask the daemon."""

    def __enter__(self):
        self.previous = os.environ.get("CODESIFT_DAEMON")
        os.environ["CODESIFT_DAEMON"] = "auto"

    def __exit__(self, *exc):
        os.environ["CODESIFT_DAEMON"] = "never"
        if self.previous is not None:
            os.environ["CODESIFT_DAEMON"] = self.previous


def daemon_watching(root):
    """Whether the daemon serves `root` (default walk options) with a caught-up watch."""
    from codesift import daemon

    status = daemon.status()
    real = os.path.realpath(root)
    return status is not None and any(
        r["root"] == real and r["options"]["gitignore"] and r["watch"]["state"] == "caught up"
        for r in status["roots"]
    )


def daemon_prime(root, limit=90.0):
    """Until the daemon watches `root`: starts it if none serves, asks it (its first
    question about a root starts the catch-up) and waits. True when it had to."""
    from codesift import Workspace, daemon

    if daemon_watching(root):
        return False
    deadline = time.monotonic() + limit
    with through_daemon():
        while not daemon_watching(root):
            if time.monotonic() > deadline:
                raise RuntimeError(f"the daemon did not catch up with {root} in {limit} s")
            if daemon.ping(1.0) is None:
                daemon.start_background(600.0)
            else:
                ws = Workspace(root, index=True, index_watch=False)
                ws.grep("codesift-differential-warm-up", max_matches=1)
            time.sleep(0.05)
    return True


def daemon_answer(root, query):
    """`query` answered by a fresh short-lived workspace asking the daemon."""
    from codesift import Workspace

    daemon_prime(root)
    with through_daemon():
        return run_query(Workspace(root, index="auto", index_watch=False), query)


def daemon_cli(root, args):
    """`codesift ... --index` asking the daemon."""
    daemon_prime(root)
    with through_daemon():
        return run_cli(root, args, True)


# ----------------------------------------------------------------------------- REPLAY end

REPLAY_SOURCE = ""  # filled below from this module's own text


def daemon_glob_counts(root: str) -> tuple[int, int]:
    """(globs asked, globs answered) of the daemon about `root` (default walk options)."""
    from codesift import daemon

    status = daemon.status()
    real = os.path.realpath(root)
    rows = [
        r
        for r in (status or {}).get("roots", [])
        if r["root"] == real and r["options"]["gitignore"]
    ]
    return (
        sum(r.get("glob_queries", 0) for r in rows),
        sum(r.get("glob_answers", 0) for r in rows),
    )


def _replay_source() -> str:
    text = Path(__file__).read_text(encoding="utf-8")
    start = text.index("# " + "-" * 77 + " REPLAY start")
    end = text.index("# " + "-" * 77 + " REPLAY end")
    return text[start:end].replace("  # noqa: E402", "")


REPLAY_SOURCE = _replay_source()
helpers_source()  # cached now: a long run outlives edits of this file

# ------------------------------------------------------------------------ random generation

WORDS_COMMON = ["value", "import", "return", "self", "data", "print", "the"]
WORDS_RARE = ["zebra_unique", "Quokka", "needle42", "ÉCOLE", "naïve"]
WORDS_ABSENT = ["qqq_absent_zz", "nowhere_to_be_found"]
DIRS = ["src", "lib", "build", "gen", "docs", "sub", "node_modules", "vendor", ".config"]
NAMES = ["main", "util", "keep", "notes", "data", "a", "b", "x"]
EXTS = [".py", ".txt", ".log", ".md", ".rs", ".tmp", ""]
IGNORE_RULES = [
    "*.log",
    "build/",
    "!keep.log",
    "/notes.md",
    "*.tmp",
    "gen/",
    "**/vendor/**",
    "sub/*.txt",
    "!sub/keep.txt",
    "node_modules",
    "x*",
    "docs/",
]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _text(rng: random.Random, lines: int | None = None) -> str:
    rows = []
    for _ in range(lines if lines is not None else rng.randint(1, 12)):
        words = []
        for _ in range(rng.randint(0, 8)):
            pool = WORDS_RARE if rng.random() < 0.1 else WORDS_COMMON
            word = rng.choice(pool)
            if rng.random() < 0.3:
                word += f"_{rng.randint(0, 999)}"
            words.append(word)
        rows.append(("    " if rng.random() < 0.3 else "") + " ".join(words))
    return "\n".join(rows) + ("\n" if rng.random() < 0.8 else "")


def random_content(rng: random.Random) -> bytes:
    """File bytes of one of the shapes the engine must treat alike with and without index."""
    shape = rng.choices(
        [
            "text",
            "crlf",
            "bom",
            "utf16le",
            "utf16be",
            "latin1",
            "empty",
            "long_line",
            "nul_start",
            "nul_far",
            "one_line",
        ],
        weights=[10, 2, 1, 1, 1, 1, 1, 1, 1, 1, 2],
    )[0]
    text = _text(rng)
    if shape == "crlf":
        return text.replace("\n", "\r\n").encode()
    if shape == "bom":
        return b"\xef\xbb\xbf" + text.encode()
    if shape == "utf16le":
        return b"\xff\xfe" + text.encode("utf-16-le")
    if shape == "utf16be":
        return b"\xfe\xff" + text.encode("utf-16-be")
    if shape == "latin1":
        return text.encode() + b"caf\xe9 value \xff\xfe needle42\n"
    if shape == "empty":
        return b""
    if shape == "long_line":
        return (
            " ".join(rng.choice(WORDS_COMMON) for _ in range(3000)) + "\n"
        ).encode() + text.encode()
    if shape == "nul_start":
        return b"ab\x00" + text.encode()
    if shape == "nul_far":
        filler = (text or "value\n").encode()
        body = filler * (70_000 // max(1, len(filler)) + 1)
        return body[:70_000] + b"\x00" + text.encode()
    if shape == "one_line":
        return rng.choice(WORDS_COMMON + WORDS_RARE).encode()
    return text.encode()


def random_name(rng: random.Random) -> str:
    name = rng.choice(NAMES) + rng.choice(EXTS)
    return ("." + name) if rng.random() < 0.1 else name


def random_tree(rng: random.Random) -> list[dict[str, Any]]:
    """Entries (relative to the scenario's base: `ws/...` and `outside/...`)."""
    entries: list[dict[str, Any]] = []
    dirs = [""]
    for _ in range(rng.randint(2, 7)):
        parent = rng.choice(dirs)
        dirs.append(os.path.join(parent, rng.choice(DIRS)) if parent else rng.choice(DIRS))
    dirs = sorted(set(dirs))
    files: set[str] = set()
    for _ in range(rng.randint(8, 40)):
        rel = os.path.join(rng.choice(dirs), random_name(rng))
        files.add(rel)
    for rel in sorted(files):
        entries.append({"kind": "file", "path": "ws/" + rel, "data": _b64(random_content(rng))})
    for d in rng.sample(dirs, k=min(len(dirs), rng.randint(1, 3))):
        rules = rng.sample(IGNORE_RULES, k=rng.randint(1, 4))
        gi = os.path.join(d, ".gitignore") if d else ".gitignore"
        entries.append({"kind": "file", "path": "ws/" + gi, "data": _b64(_lines(rules))})
    if rng.random() < 0.8:
        entries.append({"kind": "file", "path": "ws/.git/HEAD", "data": _b64(b"ref: main\n")})
        entries.append({"kind": "file", "path": "ws/.git/config", "data": _b64(b"value\n")})
        if rng.random() < 0.5:
            rules = rng.sample(IGNORE_RULES, k=2)
            entries.append(
                {"kind": "file", "path": "ws/.git/info/exclude", "data": _b64(_lines(rules))}
            )
    nested = [d for d in dirs if d]
    if nested and rng.random() < 0.4:
        d = rng.choice(nested)
        if rng.random() < 0.5:
            entries.append({"kind": "file", "path": f"ws/{d}/.git/HEAD", "data": _b64(b"ref\n")})
        else:
            entries.append(
                {"kind": "file", "path": f"ws/{d}/.git", "data": _b64(b"gitdir: ../x\n")}
            )
    if rng.random() < 0.3:
        entries.append(
            {
                "kind": "file",
                "path": "ws/.codesiftignore",
                "data": _b64(_lines([rng.choice(["secret*", "*.md", "lib/"])])),
            }
        )
        entries.append({"kind": "file", "path": "ws/secret.txt", "data": _b64(b"value secret\n")})
    if rng.random() < 0.4:
        entries.extend(linked_rule_files(rng, dirs, entries))
    entries.append({"kind": "file", "path": "outside/far.txt", "data": _b64(b"value outside\n")})
    entries.append(
        {"kind": "file", "path": "outside/dir/in.txt", "data": _b64(b"value outside dir\n")}
    )
    file_list = sorted(files)
    for _ in range(rng.randint(0, 3)):
        place = os.path.join(rng.choice(dirs), "link" + str(rng.randint(0, 99)))
        depth = place.count("/")
        up = "../" * depth
        target = rng.choice(
            [
                up + rng.choice(file_list),
                up + (rng.choice(nested) if nested else "."),
                up + "../outside/far.txt",
                up + "../outside/dir",
                up + "missing",
            ]
        )
        entries.append({"kind": "symlink", "path": "ws/" + place, "target": target})
    for _ in range(rng.randint(0, 2)):
        entry = rng.choice([e for e in entries if e["kind"] == "file"])
        entry["mode"] = rng.choice([0o000, 0o200, 0o444, 0o755])
    return entries


#: Files (relative to the scenario's base) a rule file may be a link to, and a worktree's
#: main repository's excludes: `rewrite_at` changes them through that name.
LINK_TARGETS = ("ws/shared/rules", "outside/rules", "outside/main/.git/info/exclude")


def linked_rule_files(
    rng: random.Random, dirs: list[str], entries: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """A rule file that is a symlink or a hard link (to a file of the tree or outside it),
    and a directory that is a worktree of a repository outside (its `.git` a file); the
    entries already at those places are dropped from `entries`."""
    rules = [_b64(_lines(rng.sample(IGNORE_RULES, k=rng.randint(1, 3)))) for _ in range(3)]
    commondir = "outside/main/.git/worktrees/wt/commondir"
    added: list[dict[str, Any]] = [
        {"kind": "file", "path": LINK_TARGETS[0], "data": rules[0]},
        {"kind": "file", "path": LINK_TARGETS[1], "data": rules[1]},
        {"kind": "file", "path": LINK_TARGETS[2], "data": rules[2]},
        {"kind": "file", "path": commondir, "data": _b64(b"../..\n")},
    ]
    place = "ws/" + os.path.join(rng.choice(dirs), rng.choice([".gitignore", ".ignore"]))
    source = rng.choice(LINK_TARGETS[:2])
    entries[:] = [e for e in entries if e["path"] != place]
    if rng.random() < 0.5:
        target = "../" * place.count("/") + source
        added.append({"kind": "symlink", "path": place, "target": target})
    else:
        added.append({"kind": "hardlink", "path": place, "source": source})
    repos = [
        d for d in dirs if d and not any(e["path"].startswith(f"ws/{d}/.git") for e in entries)
    ]
    if repos:
        git_file = "ws/" + os.path.join(rng.choice(repos), ".git")
        gitdir = "../" * git_file.count("/") + "outside/main/.git/worktrees/wt"
        added.append(
            {"kind": "file", "path": git_file, "data": _b64(f"gitdir: {gitdir}\n".encode())}
        )
    return added


def _lines(rows: list[str]) -> bytes:
    return ("\n".join(rows) + "\n").encode()


def _listing(root: Path) -> tuple[list[str], list[str]]:
    files, dirs = [], []
    for current, subdirs, names in os.walk(root):
        rel = os.path.relpath(current, root)
        for name in subdirs:
            dirs.append(os.path.normpath(os.path.join(rel, name)))
        for name in names:
            files.append(os.path.normpath(os.path.join(rel, name)))
    return sorted(files), sorted(dirs)


def random_op(rng: random.Random, root: Path, actors: list[str]) -> dict[str, Any]:
    """One concrete change, chosen from the tree as it is now."""
    files, dirs = _listing(root)
    regular = [f for f in files if os.path.isfile(root / f) and not os.path.islink(root / f)]
    plain = [d for d in dirs if not d.startswith(".git")] or ["."]
    texts = [f for f in regular if not f.startswith(".git") and ".git/" not in f]
    name = rng.choices(
        [
            "write",
            "append",
            "truncate",
            "delete",
            "rename",
            "rename_dir",
            "move_in",
            "mkdir",
            "chmod",
            "symlink",
            "same_stat_rewrite",
            "ignore",
            "exclude",
            "nested_git",
            "api_write",
            "api_edit",
            "api_edit_result",
            "rewrite_at",
        ],
        weights=[8, 4, 2, 3, 3, 1, 1, 2, 1, 1, 2, 3, 1, 1, 3, 3, 3, 3],
    )[0]
    new_path = os.path.normpath(os.path.join(rng.choice(plain), random_name(rng)))
    if name == "write":
        path = rng.choice(texts) if texts and rng.random() < 0.6 else new_path
        return {"op": "write", "path": path, "data": _b64(random_content(rng))}
    if name == "append" and texts:
        return {"op": "append", "path": rng.choice(texts), "data": _b64(_text(rng, 2).encode())}
    if name == "truncate" and texts:
        path = rng.choice(texts)
        return {
            "op": "truncate",
            "path": path,
            "size": rng.randint(0, os.path.getsize(root / path)),
        }
    if name == "delete" and files:
        return {"op": "delete", "path": rng.choice(files + plain[:2])}
    if name == "rename" and texts:
        return {"op": "rename", "path": rng.choice(texts), "to": new_path}
    if name == "rename_dir" and plain != ["."]:
        source = rng.choice([d for d in plain if d != "."])
        to = os.path.normpath(os.path.join(rng.choice([".", *plain]), rng.choice(DIRS) + "2"))
        if not to.startswith(source + "/") and to != source:
            return {"op": "rename", "path": source, "to": to}
    if name == "move_in":
        data = {random_name(rng): _b64(random_content(rng)) for _ in range(rng.randint(1, 3))}
        to = os.path.normpath(os.path.join(rng.choice(plain), rng.choice(DIRS) + "_in"))
        return {"op": "move_in", "name": f"m{rng.randint(0, 10**6)}", "files": data, "to": to}
    if name == "mkdir":
        data = {random_name(rng): _b64(random_content(rng)) for _ in range(rng.randint(0, 3))}
        path = os.path.normpath(os.path.join(rng.choice(plain), rng.choice(DIRS)))
        return {"op": "mkdir", "path": path, "files": data}
    if name == "chmod" and regular:
        return {"op": "chmod", "path": rng.choice(regular), "mode": rng.choice([0, 0o200, 0o644])}
    if name == "symlink" and texts:
        path = rng.choice(texts)
        up = "../" * path.count("/")
        target = up + rng.choice(texts + ["../outside/far.txt", "../outside/dir"])
        return {"op": "symlink", "path": path, "target": target}
    if name == "same_stat_rewrite" and texts:
        return {"op": "same_stat_rewrite", "path": rng.choice(texts)}
    if name == "ignore":
        d = rng.choice(plain)
        rules = rng.sample(IGNORE_RULES, k=rng.randint(0, 3))
        path = os.path.normpath(
            os.path.join(d, rng.choice([".gitignore", ".gitignore", ".ignore"]))
        )
        return {"op": "write", "path": path, "data": _b64(_lines(rules))}
    if name == "exclude":
        rules = rng.sample(IGNORE_RULES, k=rng.randint(1, 2))
        return {"op": "write", "path": ".git/info/exclude", "data": _b64(_lines(rules))}
    if name == "nested_git":
        d = rng.choice(plain)
        path = os.path.normpath(os.path.join(d, ".git/HEAD" if rng.random() < 0.7 else ".git"))
        return {"op": "write", "path": path, "data": _b64(b"ref: x\n")}
    if name == "rewrite_at":
        present = [t for t in LINK_TARGETS if (root.parent / t).is_file()]
        if present:
            rules = rng.sample(IGNORE_RULES, k=rng.randint(0, 3))
            return {
                "op": "rewrite_at",
                "path": rng.choice(present),
                "data": _b64(_lines(rules)),
                "rename": rng.random() < 0.3,
            }
    utf8 = [f for f in texts if _is_text(root / f)]
    actor = rng.choice(actors)
    if name == "api_write":
        path = rng.choice(utf8) if utf8 and rng.random() < 0.5 else new_path
        return {"op": "api_write", "actor": actor, "path": path, "data": _b64(_text(rng).encode())}
    if name == "api_edit" and utf8:
        path = rng.choice(utf8)
        words = (root / path).read_text(encoding="utf-8").split()
        if words:
            old = rng.choice(words)
            return {
                "op": "api_edit",
                "actor": actor,
                "path": path,
                "old": old,
                "new": rng.choice(WORDS_RARE + WORDS_COMMON),
            }
    if name == "api_edit_result":
        return {
            "op": "api_edit_result",
            "actor": actor,
            "pattern": rng.choice(WORDS_COMMON + WORDS_RARE),
            "pick": rng.randint(0, 4),
            "new": rng.choice(WORDS_RARE + ["", "new text\nsecond line"]),
        }
    return {"op": "write", "path": new_path, "data": _b64(random_content(rng))}


def _is_text(path: Path) -> bool:
    try:
        data = path.read_bytes()
    except OSError:
        return False
    if b"\x00" in data or data.startswith((b"\xff\xfe", b"\xfe\xff", b"\xef\xbb\xbf")):
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return b"\r" not in data and len(data) < 20_000


GLOB_PATTERNS = [
    "*.py",
    "*.txt",
    "**/*.log",
    "*",
    "**",
    "src/**",
    "**/keep*",
    "{main,util}.*",
    "[a-m]*",
    "sub/*.txt",
    "*.tmp",
    "build/**",
    ".*",
    "**/.config/*",
    "x",
    "*.md",
]
INCLUDES = [
    "*.py",
    "*.txt",
    "*.log",
    "src/**",
    "build",
    "sub",
    "gen/**",
    "*.{md,rs}",
    "[ab]*",
    "docs",
]


def random_query(rng: random.Random, root: Path) -> dict[str, Any]:
    files, dirs = _listing(root)
    paths = ["."] * 6 + [d for d in dirs if not d.startswith(".git")] + files[:20] + ["missing_dir"]
    if rng.random() < 0.25:
        return {
            "kind": "glob",
            "args": {
                "pattern": rng.choice(GLOB_PATTERNS),
                "path": rng.choice(paths[:-1] + ["."] * 4),
                "limit": rng.choice([2000, 2000, 3]),
                "sort": rng.choice(["path", "path", "mtime", "none"]),
                "case_sensitive": rng.random() < 0.8,
            },
        }
    args: dict[str, Any] = {}
    shape = rng.random()
    if shape < 0.45:
        pool = rng.choice([WORDS_COMMON, WORDS_RARE, WORDS_ABSENT])
        args["pattern"] = rng.choice(pool)
        args["literal"] = True
    elif shape < 0.85:
        args["pattern"] = rng.choice(
            [
                r"val\w+",
                r"\d{3}",
                r"[a-z]+_[0-9]+",
                r"a.b",
                r"\w",
                "e",
                r"^\s+\w",
                r"(data|self)\.",
                r"needle\d+",
                r"re[a-z]urn",
                r"caf.",
                r"$",
                r"x?",
                r"Quokka|zebra",
                r"\bthe\b",
            ]
        )
    else:
        args["pattern"] = rng.choice(
            [r"value\nimport", r"\w+\n\s+\w+", "the\n", r"return_\d+\nprint"]
        )
        args["multiline"] = rng.choice([None, True])
    args["case_sensitive"] = rng.random() < 0.5
    args["max_matches"] = rng.choice([None, 500, 1, 2, 5])
    if rng.random() < 0.3:
        args["count_total"] = True
    if rng.random() < 0.3:
        args["context_lines"] = rng.choice([1, 2])
    if rng.random() < 0.35:
        args["mode"] = rng.choice(["files", "count"])
    if rng.random() < 0.2:
        args["offset"] = rng.choice([1, 3])
    if rng.random() < 0.3:
        args["include"] = rng.choice(INCLUDES) if rng.random() < 0.7 else rng.sample(INCLUDES, 2)
    if rng.random() < 0.3:
        args["exclude"] = rng.choice(INCLUDES) if rng.random() < 0.7 else rng.sample(INCLUDES, 2)
    if rng.random() < 0.05:
        args["type"] = "py"
    if rng.random() < 0.05:
        args["no_ignore"] = True
    if rng.random() < 0.05:
        args["hidden"] = False
    args["path"] = rng.choice(paths)
    return {"kind": "grep", "args": args}


# ------------------------------------------------------------------------------- the run


@dataclass
class Difference:
    seed: int
    kind: str
    query: dict[str, Any]
    fields: list[str]
    expected: dict[str, Any]
    actual: dict[str, Any]
    entries: list[dict[str, Any]]
    steps: list[dict[str, Any]]
    signature: str = ""
    directory: str = ""
    reduced: bool = False
    watch: bool = False
    age: bool = True

    def short(self) -> str:
        lines = [f"{self.kind}: {', '.join(self.fields)} differ for {json.dumps(self.query)}"]
        for key in self.fields[:4]:
            lines.append(f"  {key}: scan {_clip(self.expected.get(key))}")
            lines.append(f"  {' ' * len(key)}  {self.kind} {_clip(self.actual.get(key))}")
        if self.directory:
            lines.append(f"  reproduction: {self.directory}/repro.py")
        return "\n".join(lines)


def _clip(value: Any, width: int = 300) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[:width] + "..."


def signature(kind: str, query: dict[str, Any], fields: list[str]) -> str:
    """What distinguishes one cause of difference from another, roughly: the kind, the
    query's shape and the fields that differ."""
    a = query["args"]
    shape = [query["kind"], a.get("mode", "content")]
    if a.get("max_matches") not in (None, 500):
        shape.append("max")
    if a.get("exclude"):
        shape.append("exclude")
    if a.get("path", ".") != ".":
        shape.append("path")
    # Watch, strict and stat-checking kinds fail for different reasons; the in-process
    # long-lived kinds are kept apart, the one-shot ones merged.
    group = kind if kind in (*LONG_LIVED, "daemon") else "oneshot"
    return f"{group}|{'/'.join(shape)}|{','.join(fields)}"


@dataclass
class Run:
    out: Path
    kinds: tuple[str, ...] = KINDS
    rounds: int = 4
    ops_per_round: tuple[int, int] = (1, 4)
    queries_per_round: int = 6
    cli_every: int = 2
    reduce_budget: float = 120.0
    max_reductions: int = 20
    comparisons: int = 0
    #: Comparisons of the daemon kind (each answered while its watch was caught up).
    daemon_comparisons: int = 0
    #: Globs of the daemon kind the daemon was asked, and answered itself (not `scan`).
    daemon_glob_queries: int = 0
    daemon_glob_answers: int = 0
    differences: list[Difference] = field(default_factory=list)
    signatures: dict[str, int] = field(default_factory=dict)
    log: Callable[[str], None] = lambda _text: None
    _watch: bool = False
    _reduced: set[str] = field(default_factory=set)

    def seed(self, seed: int, work: Path) -> None:
        rng = random.Random(seed)
        base = work / f"seed{seed}"
        if base.exists():
            shutil.rmtree(base)
        base.mkdir(parents=True)
        entries = random_tree(rng)
        build_tree(str(base), entries)
        root = base / "ws"
        time.sleep(AGE_SECONDS)
        from codesift import Workspace

        workspaces = {k: open_kind(str(root), k) for k in self.kinds if k in LONG_LIVED}
        for ws in workspaces.values():
            ws.grep("codesift-differential-warm-up", max_matches=1)
        if not workspaces:
            Workspace(str(root), index=True, index_watch=False).index_build()
        watch = self._watch = rng.random() < 0.5
        actors = [*workspaces, "scan"]
        steps: list[dict[str, Any]] = []
        for round_number in range(self.rounds):
            for _ in range(rng.randint(*self.ops_per_round)):
                op = random_op(rng, root, actors)
                apply_op(str(base), op, workspaces)
                steps.append(op)
            queries = [random_query(rng, root) for _ in range(self.queries_per_round)]
            scans = []
            for query in queries:
                first = run_query(Workspace(str(root)), query)
                again = run_query(Workspace(str(root)), query)
                if first != again:
                    self._found(seed, "scan-twice", query, first, again, entries, steps)
                scans.append(first)
            for kind in self.kinds:
                if kind in LONG_LIVED:
                    answers = [run_query(workspaces[kind], q) for q in queries]
                elif kind == "auto":
                    answers = [run_query(Workspace(str(root), index="auto"), q) for q in queries]
                elif kind == "process":
                    answers = run_in_process(str(root), queries, watch)
                elif kind == "daemon":
                    asked, answered = daemon_glob_counts(str(root))
                    answers = [daemon_answer(str(root), q) for q in queries]
                    self.daemon_comparisons += len(queries)
                    asked_now, answered_now = daemon_glob_counts(str(root))
                    self.daemon_glob_queries += asked_now - asked
                    self.daemon_glob_answers += answered_now - answered
                else:
                    continue
                for query, scan, got in zip(queries, scans, answers, strict=True):
                    self.comparisons += 1
                    if scan != got:
                        self._found(seed, kind, query, scan, got, entries, steps)
            if "cli" in self.kinds and round_number % self.cli_every == 0:
                expressible = [q for q in queries if cli_arguments(q) is not None]
                for query in expressible[:1]:
                    args = cli_arguments(query)
                    scan, got = run_cli(str(root), args, False), run_cli(str(root), args, True)
                    self.comparisons += 1
                    if scan != got:
                        self._found(seed, "cli", query, scan, got, entries, steps)
            if "daemon" in self.kinds and round_number % self.cli_every == 0:
                expressible = [q for q in queries if cli_arguments(q) is not None]
                for query in expressible[-1:]:
                    args = cli_arguments(query)
                    scan, got = run_cli(str(root), args, False), daemon_cli(str(root), args)
                    self.comparisons += 1
                    self.daemon_comparisons += 1
                    if scan != got:
                        self._found(seed, "daemon", query, scan, got, entries, steps)
            steps.extend({"query": q} for q in queries)
        del workspaces
        shutil.rmtree(base, ignore_errors=True)

    def _found(self, seed, kind, query, expected, actual, entries, steps) -> None:
        fields = differing_fields(expected, actual)
        diff = Difference(
            seed,
            kind,
            query,
            fields,
            expected,
            actual,
            json.loads(json.dumps(entries)),
            list(steps),
        )
        diff.watch = self._watch
        diff.signature = signature(kind, query, fields)
        self.signatures[diff.signature] = self.signatures.get(diff.signature, 0) + 1
        self.log(f"difference [{diff.signature}] seed {seed}")
        if self.signatures[diff.signature] > 1:
            return
        # The same fields differing for the same shape of query in another kind is most
        # likely the same cause: written out, but reduced once.
        key = diff.signature.split("|", 1)[1]
        first = key not in self._reduced
        self._reduced.add(key)
        self.differences.append(diff)
        if kind != "scan-twice" and first and len(self._reduced) <= self.max_reductions:
            reduce(diff, self.reduce_budget, self.log)
        write_out(diff, self.out)
        self.log(diff.short())


# ------------------------------------------------------------------------------ reduction


def reduce(diff: Difference, budget: float, log: Callable[[str], None] = lambda _t: None) -> None:
    """Drops operations, intermediate queries, tree entries and query options while the
    difference persists (on a fresh tree each try), within `budget` seconds."""
    deadline = time.monotonic() + budget
    work = Path(tempfile.mkdtemp(prefix="codesift-reduce-"))
    # Each try gets a root of its own: an index built for an earlier try's root (in the
    # shared cache) would otherwise be reused, stale, and hide what the try should show.
    state = {"age": False, "tries": 0}

    def fresh_base() -> str:
        state["tries"] += 1
        shutil.rmtree(work / f"b{state['tries'] - 1}", ignore_errors=True)
        return str(work / f"b{state['tries']}")

    def still(entries, steps, query) -> bool:
        if time.monotonic() > deadline:
            return False
        if diff.kind == "cli" and cli_arguments(query) is None:
            return False
        try:
            scan, got = check_once(
                fresh_base(), diff.kind, entries, steps, query, state["age"], diff.watch
            )
        except Exception:  # a reduction that breaks the replay is not kept
            return False
        # The same fields must differ: a reduction that drifts to another difference would
        # describe another cause.
        return scan != got and differing_fields(scan, got) == wanted

    wanted = list(diff.fields)
    try:
        if not still(diff.entries, diff.steps, diff.query):
            state["age"] = True
            if not still(diff.entries, diff.steps, diff.query):
                log("  the difference did not reproduce on replay; kept unreduced")
                return
        entries, steps, query = diff.entries, diff.steps, diff.query
        steps = _shrink_list(steps, lambda s: still(entries, s, query))
        entries = _shrink_list(entries, lambda e: still(e, steps, query))
        for key in list(query["args"]):
            if key == "pattern":
                continue
            trial = {
                "kind": query["kind"],
                "args": {k: v for k, v in query["args"].items() if k != key},
            }
            if still(entries, steps, trial):
                query = trial
        scan, got = check_once(
            fresh_base(), diff.kind, entries, steps, query, state["age"], diff.watch
        )
        if scan != got:
            diff.entries, diff.steps, diff.query = entries, steps, query
            diff.expected, diff.actual = scan, got
            diff.fields = differing_fields(scan, got)
            diff.reduced = True
        diff.age = state["age"]
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _shrink_list(items: list, holds: Callable[[list], bool]) -> list:
    """ddmin-like: drop chunks (halves, quarters, ..., single items) while `holds`."""
    chunk = max(1, len(items) // 2)
    while items:
        i, changed = 0, False
        while i < len(items):
            trial = items[:i] + items[i + chunk :]
            if holds(trial):
                items, changed = trial, True
            else:
                i += chunk
        if chunk == 1 and not changed:
            break
        chunk = max(1, chunk // 2)
    return items


REPRO_TEMPLATE = '''"""Reproduction of a difference between an indexed answer and a scan ({kind}).
{short}

Run: python repro.py  (needs codesift importable; prints the differing fields, exit 1 while
the difference persists)."""

import json
import os
import shutil
import tempfile
import time

{helpers}

SCENARIO = json.loads({scenario!r})


def main():
    work = tempfile.mkdtemp(prefix="codesift-repro-")
    os.environ.setdefault("CODESIFT_CACHE_DIR", os.path.join(work, "cache"))
    try:
        s = SCENARIO
        scan, got = check_once(
            os.path.join(work, "b"), s["kind"], s["entries"], s["steps"], s["query"],
            s["age"], s["watch"],
        )
        fields = differing_fields(scan, got)
        for key in fields:
            print(key)
            print("  scan   ", json.dumps(scan.get(key), ensure_ascii=False)[:2000])
            print("  " + s["kind"].ljust(7), json.dumps(got.get(key), ensure_ascii=False)[:2000])
        print("differs" if fields else "same")
        return 1 if fields else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
'''


def write_out(diff: Difference, out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    n = len(list(out.glob("diff-*")))
    directory = out / f"diff-{n:03}-{diff.kind}-seed{diff.seed}"
    directory.mkdir()
    diff.directory = str(directory)
    scenario = {
        "kind": diff.kind,
        "seed": diff.seed,
        "signature": diff.signature,
        "reduced": diff.reduced,
        "age": diff.age,
        "watch": diff.watch,
        "entries": diff.entries,
        "steps": diff.steps,
        "query": diff.query,
        "fields": diff.fields,
    }
    (directory / "scenario.json").write_text(json.dumps(scenario, indent=1, ensure_ascii=False))
    (directory / "diff.txt").write_text(
        diff.short()
        + "\n\nscan:\n"
        + json.dumps(diff.expected, indent=1, ensure_ascii=False)
        + f"\n\n{diff.kind}:\n"
        + json.dumps(diff.actual, indent=1, ensure_ascii=False)
        + "\n"
    )
    if diff.kind != "scan-twice":
        short = "\n".join("    " + line for line in diff.short().splitlines())
        (directory / "repro.py").write_text(
            REPRO_TEMPLATE.format(
                kind=diff.kind,
                short=short.replace('"""', "'''"),
                helpers=REPLAY_SOURCE.replace("# noqa: E402", ""),
                scenario=json.dumps(scenario, ensure_ascii=False),
            )
        )
    return directory


def replay_source() -> str:
    """The replay helpers' source (what `repro.py` files and the second process run)."""
    return REPLAY_SOURCE


__all__ = ["KINDS", "Difference", "Run", "reduce", "write_out"]
