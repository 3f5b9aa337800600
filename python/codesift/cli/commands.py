"""Every `codesift` command, in the order `codesift --help` lists them: the line `codesift
--help` shows for it and the description its own `--help` opens with. Each command's module
(its name with `_` for `-`) has its `add_arguments` and `run`."""

from __future__ import annotations


class Command:
    """One command's texts (a plain class: a piped grep imports neither typing nor
    dataclasses)."""

    __slots__ = ("description", "help")

    def __init__(self, help: str, description: str) -> None:
        self.help = help
        self.description = description


COMMANDS: dict[str, Command] = {
    "glob": Command(
        "find files by glob pattern",
        "List the files under PATH whose path matches PATTERN, sorted by path "
        "unless --sort says otherwise, one per line (as PATH was written).",
    ),
    "grep": Command(
        "search file contents by regex, with ripgrep's flags",
        "Search file contents with ripgrep's habits: options anywhere, several PATHs, rg's "
        "flags and meanings, case-sensitive unless -i or -S. Piped, it prints what "
        "`rg -n --no-heading` prints (one line per matching line, path:line:text; context lines "
        "as path-line-text with -- between groups), never capped; on a terminal hits are grouped "
        "by file, at most 500 unless -m (and it says so).",
    ),
    "search": Command(
        "find the files that answer a question in words",
        "List the files under PATH that best answer QUESTION, best first, each "
        "with its score, why, and its best lines. Keywords only (no model): the question's "
        "words and identifier parts, stop words dropped, ranked by BM25F over each file's "
        "path, definitions and matching lines.",
    ),
    "read": Command(
        "print a file with line numbers",
        "Print a text file's lines, numbered (as cat -n), from --offset for at most "
        "--limit lines, or the lines FILE:START-END names; stderr says when lines were left "
        "out and how to read on.",
    ),
    "ls": Command(
        "list a directory",
        "List a directory's entries, directories first with a trailing /, each "
        "group sorted, honouring the ignore rules.",
    ),
    "edit": Command(
        "replace OLD by NEW in a file",
        "Replace the one place in FILE that OLD matches by NEW, and print the "
        "diff. OLD is tried exactly, then with line endings normalised, then (unless "
        "--no-fuzzy) line by line ignoring whitespace and blank lines, then unescaped; it must "
        "match exactly one place unless --replace-all.",
    ),
    "apply-patch": Command(
        "apply a patch (apply_patch envelope, unified diff, SEARCH/REPLACE) from a file or stdin",
        "Apply a patch to one or several files, all or nothing: every hunk must "
        "match one place, every file is planned before any is written (docs/edits.md). The "
        "format is detected unless --format says it; --dry-run prints the diff it would make "
        "and writes nothing.",
    ),
    "index": Command(
        "build, inspect or remove the index",
        "Build, inspect or remove the persistent trigram index of a root "
        "(docs/index.md). It is built for the ignore and walk options given, and searches "
        "with the same options use it.",
    ),
    "daemon": Command(
        "start, inspect or stop this user's index daemon",
        "Start, inspect or stop this user's index daemon, which keeps the indexes "
        "of the roots searched and answers searches from them (docs/daemon.md).",
    ),
    "mcp": Command(
        "serve the tools over MCP (stdio, or Streamable HTTP)",
        "Serve codesift's tools to an agent over the Model Context Protocol: "
        "JSON-RPC on stdin and stdout (as an MCP client starts it), or Streamable HTTP with "
        "--http. The tools work inside the root and never outside it.",
    ),
    "serve": Command(
        "serve the tools and a web page over HTTP",
        "Serve codesift's tools as an HTTP API and a web page to search and edit "
        "the root from a browser (docs/serve.md); writes need the token.",
    ),
    "shim": Command(
        "make a directory whose `rg` is codesift-rg, to put first on PATH",
        "Creates (or refreshes) a private directory holding `rg`, a link to the installed "
        "codesift-rg, and prints it. Put it first on PATH: "
        'export PATH="$(codesift shim --print-path):$PATH"',
    ),
    "apply-hit": Command(
        "linked edit of a search hit given as JSON on stdin (used by remote search)",
        "Reads {file, byte_offset, byte_length, content, new, unique, line} as JSON on "
        "stdin, replaces that hit like edit_result does, and prints the edit result as "
        'JSON (with "span": the bytes that changed). Errors: {"error": {"type", '
        '"message"}} on stdout, exit 2.',
    ),
}
