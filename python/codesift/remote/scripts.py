"""Shell command templating: every POSIX sh script that runs on a host (the probe, remote
codesift commands, and strategy "shell"'s `find` and `grep`), each argument quoted with
`shlex.quote`, relative paths written `./x` so that a name starting with `-` is never read
as an option."""

from __future__ import annotations

import json
import secrets
import shlex
from collections.abc import Sequence
from typing import Any

from .globs import expand_braces, normalize_glob
from .paths import RemoteRoot
from .queries import GlobQuery, GrepQuery

# Exit codes of the shell-strategy scripts (chosen away from those of find and grep).
EXIT_NO_ROOT, EXIT_NO_PATH, EXIT_NO_TOOL, EXIT_BAD_PATTERN = 97, 98, 96, 95
PSEUDO_FILESYSTEMS = ("proc", "sys", "dev")  # skipped when searching from `/`

# Prints which way codesift runs on the host, if it does (`apply-hit` proves it is recent
# enough for linked edits).
PROBE = """\
if codesift apply-hit --help >/dev/null 2>&1 </dev/null; then
  echo codesift-strategy:codesift
elif python3 -m codesift apply-hit --help >/dev/null 2>&1 </dev/null; then
  echo codesift-strategy:python3
else
  echo codesift-strategy:shell
fi
"""
LAUNCHERS = {"codesift": ("codesift",), "python3": ("python3", "-m", "codesift")}


def quote(value: str) -> str:
    return shlex.quote(value)


def remote_dir(root: str) -> str:
    """The root as a shell word: quoted, with a leading `~` or `~/` expanded by the shell."""
    if root == "~":
        return '"$HOME"'
    if root.startswith("~/"):
        return '"$HOME"/' + quote(root[2:])
    return quote(root)


def dot(start: str) -> str:
    """A relative search path as find and grep are given it: `./x`, so that a name starting
    with `-` cannot be read as an option."""
    return start if start == "." else "./" + start


class ShellScripts:
    """The scripts run under one root."""

    def __init__(self, root: RemoteRoot) -> None:
        self.root = root
        self.root_word = remote_dir(root.path)

    # -- remote codesift ------------------------------------------------------------------

    def codesift(
        self, launcher: Sequence[str], subcommand: str, options: Sequence[str], *operands: str
    ) -> str:
        """`codesift SUBCOMMAND --json-full` in the root, operands after `--`."""
        return (
            f"exec {self._command(launcher, subcommand)} --json-full --root={self.root_word} "
            + " ".join(quote(a) for a in [*options, "--", *operands])
            + " </dev/null\n"
        )

    def apply_hit(self, launcher: Sequence[str], request: dict[str, Any]) -> str:
        """`codesift apply-hit` with the request as JSON in a here-document (its delimiter
        random, so no content can end it early)."""
        delimiter = f"CODESIFT_JSON_{secrets.token_hex(8)}"
        return (
            f"exec {self._command(launcher, 'apply-hit')} --root={self.root_word} "
            f"<<'{delimiter}'\n{json.dumps(request, ensure_ascii=True)}\n{delimiter}\n"
        )

    # -- strategy "shell" -----------------------------------------------------------------

    def find(self, query: GlobQuery) -> str:
        """`find` listing the files under the search path as NUL-separated records: a first
        record `P` (GNU find: each record is `MTIME\\tSIZE\\tPATH`) or `N` (names only)."""
        start = query.start
        prune = ["-name", ".git"]
        if self.root.is_system_root(start):
            for pseudo in PSEUDO_FILESYSTEMS:
                prune += ["-o", "-path", f"./{pseudo}"]
        names: list[str] = []
        glob = normalize_glob(query.pattern)
        if "/" not in glob and "**" not in glob and "\\" not in glob:
            # A name-only glob pre-filters on the host; the exact match is made here.
            expanded = expand_braces(glob) or []
            test = "-name" if query.case_sensitive else "-iname"
            for i, name in enumerate(expanded):
                names += (["-o"] if i else []) + [test, name]
        select = ["(", *names, ")"] if names else []
        find = (
            f"find {quote(dot(start))} \\( {' '.join(quote(p) for p in prune)} \\) -prune -o "
            "-type f " + " ".join(quote(p) for p in select)
        )
        return self._preamble(start, "find") + (
            "if find . -maxdepth 0 -printf '' >/dev/null 2>&1; then\n"
            f"  printf 'P\\000'; exec {find} -printf '%T@\\t%s\\t%p\\000' </dev/null\n"
            "else\n"
            f"  printf 'N\\000'; exec {find} -print0 </dev/null\n"
            "fi\n"
        )

    def grep(self, query: GrepQuery, ere: str, ignore_case: bool) -> str:
        """`grep -rnbHZ` for `ere` (or the literal pattern), its output read by
        `GrepReader`. The pattern is tried alone first: grep's own complaint about it exits
        `EXIT_BAD_PATTERN`."""
        start = query.start
        grep = ["grep", "-r", "-n", "-b", "-H", "-Z", "--color=never", "--no-group-separator"]
        grep += ["--binary-files=without-match", "--exclude-dir=.git"]
        if self.root.is_system_root(start):
            grep += [f"--exclude-dir={pseudo}" for pseudo in PSEUDO_FILESYSTEMS]
        grep.append("-F" if query.literal else "-E")
        if ignore_case or not query.case_sensitive:
            grep.append("-i")
        if query.max_matches is not None and not query.count_total:
            grep += ["-m", str(query.max_matches + 1)]
        if query.before:
            grep += ["-B", str(query.before)]
        if query.after:
            grep += ["-A", str(query.after)]
        # Name-only filters pre-filter on the host; GrepReader applies every filter exactly.
        includes = [normalize_glob(g) for g in query.include]
        if includes and all("/" not in g and "**" not in g for g in includes):
            for glob in includes:
                for name in expand_braces(glob) or []:
                    grep.append(f"--include={name}")
        for glob in (normalize_glob(g) for g in query.exclude):
            if "/" not in glob and "**" not in glob:
                for name in expand_braces(glob) or []:
                    grep += [f"--exclude={name}", f"--exclude-dir={name}"]
        grep += ["-e", ere, "--", dot(start)]
        check = ""
        if not query.literal:
            check = (
                f"grep -E -e {quote(ere)} </dev/null >/dev/null || [ $? -eq 1 ] "
                f"|| exit {EXIT_BAD_PATTERN}\n"
            )
        return (
            self._preamble(start, "grep")
            + check
            + "exec "
            + " ".join(quote(a) for a in grep)
            + " </dev/null\n"
        )

    def _preamble(self, start: str, tool: str) -> str:
        """Script lines shared by the shell strategy: enter the root, check the path and the
        tool; failures exit with the `EXIT_*` codes."""
        return (
            f"cd -- {self.root_word} 2>/dev/null || exit {EXIT_NO_ROOT}\n"
            f"[ -e {quote(dot(start))} ] || [ -L {quote(dot(start))} ] || exit {EXIT_NO_PATH}\n"
            f"command -v {tool} >/dev/null 2>&1 || exit {EXIT_NO_TOOL}\n"
            "LC_ALL=C; export LC_ALL\n"
        )

    @staticmethod
    def _command(launcher: Sequence[str], subcommand: str) -> str:
        return " ".join(quote(part) for part in (*launcher, subcommand))
