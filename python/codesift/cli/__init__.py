"""The `codesift` command: glob, grep, read, ls, edit, the MCP server, the HTTP server
(`serve`), the index daemon (`daemon`, see `codesift.daemon`), and `apply-hit` (the linked
edit that remote search runs on a host). `commands` lists every command with its help line
and description, one module per command has its `add_arguments` and `run`; `app` builds each
command's parser from them, parses and dispatches, `rooting` holds the root rule, `lines` the
ripgrep-style line printer.

On a terminal output is rendered with `rich` (hits grouped by file, matches highlighted, a
spinner while a long scan runs); piped, grep prints ripgrep's lines (`path:line:text`, as
`rg -n --no-heading`; never capped); `--json` prints the result's `to_dict()` (with `root`;
one object per line when grep is given several paths). Without `--root`, a command's path
works from anywhere, as with `rg PATTERN PATH`: its enclosing repository (else the path
itself) is the root, and human output prints paths the way PATH was written (`roots`).
Exit codes follow grep: 0 something found (or done), 1 nothing found, 2 error (on stderr,
never a traceback: usage errors, bad values, and even a bug or an engine panic are reported
in a line; a library error keeps its line breaks, such as a regex error's caret, and names
the command's own flags in its advice), 130 interrupted.
File names that are not UTF-8 are printed as the bytes they are (as ls and ripgrep print
them); `--json` writes them as `\\udcff` escapes, which `json.loads` reads back exactly.

rich is imported only where output goes to a terminal, json only for --json: a piped grep
starts without either, and without the results' dataclasses (it reads the engine's figures
as they are), `typing`, `pathlib`, `threading` (a scan waited for on a thread, with a
spinner) or `contextlib` (see tests/cli/test_startup_imports.py).
"""

from .app import main

__all__ = ["main"]
