"""Finds the fenced code blocks of the README and docs/ and says how each one runs.

A block's language decides: `python` runs as a script, `bash`/`sh` with `bash -eo pipefail`,
`json` is parsed (and an MCP client configuration in it is started and asked for its tools),
`text` is output, a grammar or a signature and is not run. Any other language (or none) is an
error, so that no example silently escapes the tests. An HTML comment right before a block,
`<!-- doc-test: KIND [ARGS] -->`, says what the block needs:

- `ci`: the test command itself (CI runs it; the suite does not run itself);
- `install`: run in a fresh clone of the repository (it installs the package for real);
- `serve`: a live `codesift serve` on the sample project, with `$S` (its URL) and `$T` (its
  token) in the environment;
- `sshd NAME...`: real sshd instances on 127.0.0.1 reachable under those host names, each with
  codesift on its PATH, through `~/.ssh/config`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNNABLE = {"python", "bash", "sh", "json"}
NOT_RUN = {"text"}
DIRECTIVE = re.compile(r"^<!-- doc-test: (?P<kind>[\w-]+)(?P<args>(?: [^ >]+)*) -->$")


@dataclass(frozen=True)
class Block:
    path: Path
    line: int
    language: str
    body: str
    kind: str
    args: tuple[str, ...]

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def blocks(path: Path) -> list[Block]:
    found: list[Block] = []
    lines = path.read_text(encoding="utf-8").split("\n")
    i = 0
    while i < len(lines):
        fence = re.match(r"^(`{3,})(.*)$", lines[i])
        if not fence:
            i += 1
            continue
        ticks, language = fence.group(1), fence.group(2).strip()
        start = i
        i += 1
        body: list[str] = []
        while i < len(lines) and lines[i] != ticks:
            body.append(lines[i])
            i += 1
        kind, args = "run", ()
        previous = lines[start - 1] if start > 0 else ""
        directive = DIRECTIVE.match(previous)
        if directive:
            kind = directive.group("kind")
            args = tuple(directive.group("args").split())
        found.append(Block(path, start + 1, language, "\n".join(body) + "\n", kind, args))
        i += 1
    return found


def all_blocks() -> list[Block]:
    return [block for path in documents() for block in blocks(path)]
