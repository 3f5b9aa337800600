"""The exact command lines coding agents send to `rg`, run by codesift-rg and by the real
ripgrep on a realistic repository: the same output, exit status and messages, answered from a
warm index daemon (`auto`), through the index (`force`), and again at once after files are
written, changed, deleted, renamed, moved and a `.gitignore` edited behind its back.

Without `--sort` ripgrep's file order is unspecified, so those outputs are compared as the
multiset of their per-file blocks; every argv also runs with `--sort path` prepended, where the
bytes must be identical."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from rg_helpers import NEEDS_CODESIFT_RG, Env, real_rgs, without_timings

REAL = real_rgs()
REAL_RG, REAL_VERSION = REAL[0] if REAL else (None, "")

pytestmark = [
    NEEDS_CODESIFT_RG,
    pytest.mark.skipif(
        REAL_RG is None,
        reason="no real ripgrep: run scripts/rg_suite.sh (builds ripgrep 15.2.0), set "
        "CODESIFT_REAL_RG, or pip install ripgrep",
    ),
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
]

# The directories Claude Code's Grep tool leaves out (`--glob !NAME` each).
CLAUDE_VCS = [a for d in (".git", ".svn", ".hg", ".bzr", ".jj", ".sl") for a in ("--glob", f"!{d}")]
CLAUDE_GREP = ["--hidden", *CLAUDE_VCS, "--max-columns", "500"]
# gemini-cli's exclusions: FileExclusions.getGlobExcludes(COMMON_DIRECTORY_EXCLUDES, *.log, *.tmp).
GEMINI_EXCLUDES = [
    a
    for g in (
        "**/node_modules/**",
        "**/.git/**",
        "**/bower_components/**",
        "**/.svn/**",
        "**/.hg/**",
        "**/.vscode/**",
        "**/.idea/**",
        "**/dist/**",
        "**/build/**",
        "**/coverage/**",
        "**/__pycache__/**",
        "*.log",
        "*.tmp",
    )
    for a in ("--glob", f"!{g}")
]
GEMINI_IGNORE = ["--ignore-file", "{root}/.geminiignore"]
CODEX_GREP_FILES = ["--files-with-matches", "--sortr=modified", "--regexp"]
CONTINUE = ["-i", "--ignore-file", ".continueignore", "--ignore-file", ".gitignore"]

# (id, argv, stdin): `{root}` is the repository's absolute path; every run's cwd is the root.
# "verified": read in the agent's source (or a faithful copy of it) while writing this test;
# "from memory": not verified against its source.
AGENTS: list[tuple[str, list[str], bytes | None]] = [
    # Claude Code, Grep tool (verified: its cli.js builds --hidden, --glob !VCS..., --max-columns
    # 500, [-U --multiline-dotall] [-i], then -l | -c -H | -n [-o] [-C|-B -A], the pattern (-e
    # when it starts with '-'), [--type T], each glob (split on commas/spaces), the path).
    ("claude-grep-files", [*CLAUDE_GREP, "-l", "needle", "{root}"], None),
    ("claude-grep-content", [*CLAUDE_GREP, "-n", "needle", "{root}"], None),
    ("claude-grep-content-C", [*CLAUDE_GREP, "-n", "-C", "2", "needle", "{root}"], None),
    (
        "claude-grep-content-BA",
        [*CLAUDE_GREP, "-n", "-B", "1", "-A", "3", r"fn \w+", "{root}/src"],
        None,
    ),
    ("claude-grep-count", [*CLAUDE_GREP, "-c", "-H", "needle", "{root}"], None),
    (
        "claude-grep-i-glob",
        [*CLAUDE_GREP, "-i", "-l", "needle", "--glob", "*.{ts,tsx}", "{root}"],
        None,
    ),
    (
        "claude-grep-globs",
        [*CLAUDE_GREP, "-n", "config", "--glob", "*.py", "--glob", "*.rs", "{root}"],
        None,
    ),
    ("claude-grep-type", [*CLAUDE_GREP, "-n", "TODO", "--type", "rust", "{root}"], None),
    (
        "claude-grep-multiline",
        [*CLAUDE_GREP, "-U", "--multiline-dotall", "-n", r"struct Config \{.*?needle", "{root}"],
        None,
    ),
    ("claude-grep-dash-pattern", [*CLAUDE_GREP, "-n", "-e", "->name", "{root}"], None),
    ("claude-grep-only-matching", [*CLAUDE_GREP, "-n", "-o", r"needle\w*", "{root}/data"], None),
    ("claude-grep-no-match", [*CLAUDE_GREP, "-l", "zq_nothing_zq", "{root}"], None),
    ("claude-grep-file", [*CLAUDE_GREP, "-n", "needle", "{root}/src/main.rs"], None),
    ("claude-grep-hidden-dir", [*CLAUDE_GREP, "-l", "needle", "{root}/.github"], None),
    ("claude-grep-ignored-dir", [*CLAUDE_GREP, "-n", "needle", "{root}/node_modules"], None),
    ("claude-grep-nested-repo", [*CLAUDE_GREP, "-l", "needle", "{root}/vendor"], None),
    (
        "claude-grep-deep-glob",
        [*CLAUDE_GREP, "-c", "-H", "needle", "--glob", "**/*.rs", "--glob", "src/**", "{root}"],
        None,
    ),
    # Its permission deny rules become --glob !**/RULE (verified).
    ("claude-grep-deny", [*CLAUDE_GREP, "-l", "needle", "--glob", "!**/.env", "{root}"], None),
    # Claude Code, Glob tool (verified: --files --glob P --sort=modified, --no-ignore and
    # --hidden unless CLAUDE_CODE_GLOB_NO_IGNORE / _HIDDEN say otherwise, then the directory).
    (
        "claude-glob",
        ["--files", "--glob", "**/*.rs", "--sort=modified", "--no-ignore", "--hidden", "{root}"],
        None,
    ),
    (
        "claude-glob-all",
        ["--files", "--glob", "**/*", "--sort=modified", "--no-ignore", "--hidden", "{root}"],
        None,
    ),
    (
        "claude-glob-ignoring",
        ["--files", "--glob", "src/**", "--sort=modified", "--hidden", "{root}"],
        None,
    ),
    # Claude Code, the file list behind @-mentions outside a git work tree (verified).
    (
        "claude-file-index",
        ["--files", "--follow", "--hidden"]
        + [
            a
            for d in (".git/", ".svn/", ".hg/", ".bzr/", ".jj/", ".sl/")
            for a in ("--glob", f"!{d}")
        ],
        None,
    ),
    # gemini-cli, grep_search (verified: packages/core/src/tools/ripGrep.ts: --json --hidden,
    # --ignore-case unless case_sensitive, --fixed-strings, --regexp P, context flags,
    # --max-count, --no-ignore or the excludes and --ignore-file .geminiignore, --threads 4).
    (
        "gemini-grep",
        ["--json", "--hidden", "--ignore-case", "--regexp", "needle", *GEMINI_EXCLUDES]
        + [*GEMINI_IGNORE, "--threads", "4", "{root}"],
        None,
    ),
    (
        "gemini-grep-include-context",
        ["--json", "--hidden", "--ignore-case", "--regexp", r"class \w+", "--context", "2"]
        + ["--max-count", "5", "--glob", "*.py", *GEMINI_EXCLUDES, *GEMINI_IGNORE]
        + ["--threads", "4", "{root}"],
        None,
    ),
    (
        "gemini-grep-fixed-no-ignore",
        ["--json", "--hidden", "--fixed-strings", "--regexp", "needle(", "--no-ignore"]
        + ["--threads", "4", "{root}"],
        None,
    ),
    # Its second pass: the same search with context over the files the first one found.
    (
        "gemini-grep-auto-context",
        ["--json", "--hidden", "--ignore-case", "--regexp", "find_needle", "--context", "50"]
        + [*GEMINI_EXCLUDES, *GEMINI_IGNORE, "--threads", "4", "{root}/app/server.py"],
        None,
    ),
    # Its earlier text form (from memory: --line-number --no-heading --with-filename).
    (
        "gemini-grep-text",
        ["--line-number", "--no-heading", "--with-filename", "--ignore-case", "--regexp", "needle"]
        + ["--glob", "*.ts", *GEMINI_EXCLUDES, "--threads", "4", "{root}"],
        None,
    ),
    # opencode, grep tool (verified: -nH --hidden --follow [--no-messages]
    # --field-match-separator=| --regexp P [--glob G] PATH; early versions had neither
    # --hidden nor --follow) and its file list (verified from a copy: --files --follow
    # --hidden --glob=!.git/* --glob=G).
    (
        "opencode-grep",
        ["-nH", "--hidden", "--follow", "--no-messages", "--field-match-separator=|"]
        + ["--regexp", "needle", "{root}"],
        None,
    ),
    (
        "opencode-grep-glob",
        ["-nH", "--hidden", "--follow", "--field-match-separator=|", "--regexp", r"fn \w+"]
        + ["--glob", "*.rs", "{root}"],
        None,
    ),
    (
        "opencode-grep-early",
        [
            "-nH",
            "--field-match-separator=|",
            "--regexp",
            "needle",
            "--glob",
            "*.{ts,tsx}",
            "{root}",
        ],
        None,
    ),
    ("opencode-files", ["--files", "--follow", "--hidden", "--glob=!.git/*", "--glob=*.md"], None),
    # Cline (verified: src/services/ripgrep/index.ts) and Roo Code (verified: the same plus
    # --no-messages): --json -e P --glob G --context 1 PATH.
    ("cline-search", ["--json", "-e", "needle", "--glob", "*", "--context", "1", "{root}"], None),
    (
        "cline-search-rs",
        ["--json", "-e", "TODO", "--glob", "*.rs", "--context", "1", "{root}/src"],
        None,
    ),
    (
        "roo-search",
        ["--json", "-e", "needle", "--glob", "*.py", "--context", "1", "--no-messages", "{root}"],
        None,
    ),
    # Continue (verified: core's grep search and its file search in the VS Code extension).
    ("continue-grep", [*CONTINUE, "-C", "2", "--heading", "-m", "100", "-e", "needle", "."], None),
    ("continue-grep-config", [*CONTINUE, "-C", "2", "--heading", "-e", "config", "."], None),
    (
        "continue-files",
        # defaultIgnoresGlob from memory: one negated brace glob of its default ignores.
        ["--files", "--iglob", "*.MD", *CONTINUE[1:], "--glob", "!{**/node_modules/**,**/.git/**}"],
        None,
    ),
    # Codex (from memory: the model runs rg itself in its shell tool; its prompt says to
    # prefer `rg` and `rg --files`).
    ("codex-n", ["-n", "needle"], None),
    ("codex-files", ["--files"], None),
    ("codex-smart-case", ["-n", "-S", "Needle"], None),
    ("codex-hidden", ["-n", "--hidden", "needle", "-g", "!.git"], None),
    ("codex-glob", ["-n", "fn main", "-g", "*.rs"], None),
    ("codex-paths", ["-l", "TODO", "src", "app"], None),
    ("codex-files-glob", ["--files", "-g", "*.py"], None),
    ("codex-file", ["-n", "needle", "src/lib.rs"], None),
    ("codex-pipe", ["server"], b"app/server.py\nsrc/main.rs\nweb/server.ts\n"),
    # Codex, grep_files tool (verified in its source: the paths of matching files, newest
    # first, an optional glob, the path after `--`).
    (
        "codex-grep-files",
        [*CODEX_GREP_FILES, "needle", "--no-messages", "--", "{root}"],
        None,
    ),
    (
        "codex-grep-files-glob",
        [*CODEX_GREP_FILES, r"fn \w+", "--no-messages", "--glob", "*.rs", "--", "{root}/src"],
        None,
    ),
    # GitHub Copilot CLI, grep tool (from memory: a schema like Claude Code's; its issue
    # tracker shows the pattern passed positionally, so a leading '-' is a flag to rg).
    ("copilot-grep", ["-n", "-i", "needle", "--glob", "*.py", "."], None),
    ("copilot-grep-count", ["-c", "needle", "."], None),
    ("copilot-grep-dash", ["->name", "."], None),
]


def from_the_daemon(stderr: bytes) -> bool:
    """Whether a run was answered through the daemon: files from its index, or (`--files`)
    the list it kept for the same command line."""
    return b"files from the index" in stderr or b"from the daemon's list" in stderr


def expand(argv: list[str], root: Path) -> list[str]:
    return [a.replace("{root}", str(root)) for a in argv]


# ---------------------------------------------------------------------------------------------
# The repository.


def make_tree(root: Path) -> Path:
    """A git repository with what agents meet: nested .gitignore files, hidden files and
    directories, a populated .git, several languages, binary files, a line over 500 columns,
    CRLF lines, Latin-1 bytes, lines with several matches, the agents' own ignore files,
    symlinks, and distinct modification times (for --sort=modified)."""
    text = {
        ".gitignore": "*.log\n!keep.log\nbuild/\nnode_modules/\n*.pyc\n",
        ".continueignore": "docs/\n*.secret\n",
        ".geminiignore": "*.bak\n",
        ".env": "API_KEY=needle_secret\n",
        ".hidden_notes.md": "hidden needle notes\n",
        ".github/workflows/ci.yml": "name: ci\n# needle in a hidden directory\n",
        ".vscode/settings.json": '{"needle": true}\n',
        "keep.log": "needle kept by a negation\n",
        "logs/app.log": "needle in a log\n",
        "build/out.js": "const needle = 1;\n",
        "node_modules/left/index.js": "module.exports = 'needle';\n",
        "dist/bundle.js": "var needle=0;\n",
        "README.md": "# Project\n\nThe needle project.\nTODO: write the docs\n",
        "docs/guide.md": "Guide\nuse needle() to find it\nconfig lives here\n",
        "keys.secret": "needle secret key\n",
        "old.bak": "needle backup\n",
        "Makefile": "all:\n\techo needle\n",
        "src/main.rs": (
            "use std::fmt;\n\nstruct Config {\n    needle: u32,\n    name: String,\n}\n\n"
            "fn main() {\n    let c = Config { needle: 1, name: String::new() };\n"
            '    // TODO: needle needle\n    println!("{}", c.needle);\n}\n'
        ),
        "src/lib.rs": (
            "pub mod util;\n\npub fn needle_count(s: &str) -> usize {\n"
            '    s.matches("needle").count() // config\n}\n'
        ),
        "src/util/mod.rs": "// util\npub fn helper() {}\n",
        "app/__init__.py": "",
        "app/server.py": (
            "import os\nimport sys\n\n\ndef find_needle(haystack):\n"
            '    """Find the needle."""\n    return haystack.index("needle")\n\n\n'
            "class Config:\n    needle = None\n"
        ),
        "app/model.php": "<?php\n$user->name();\necho $user->needle;\n",
        "web/index.ts": "import { needle } from './needle';\nexport const config = { needle };\n",
        "web/App.tsx": "export function App() {\n  return <div>needle</div>;\n}\n",
        "web/server.ts": "// server: needle\n",
        "web/style.css": ".needle { color: red; }\n",
        "go/main.go": 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("needle")\n}\n',
        "scripts/run.sh": "#!/bin/sh\necho needle\n",
        "config.json": '{"needle": "value", "other": 1}\n',
        "data/long.txt": "start\nneedle " + "x" * 600 + " needle end\nshort needle line\n",
        "data/multi.txt": "needle needle needle\nno match\nneedle and NEEDLE and Needle\n",
        "data/empty.txt": "",
        "sub/.gitignore": "*.tmp\n!important.tmp\ngenerated/\n",
        "sub/x.tmp": "needle tmp\n",
        "sub/important.tmp": "needle important\n",
        "sub/generated/gen.rs": "// needle generated\n",
        "sub/deeper/.gitignore": "secret.txt\n",
        "sub/deeper/secret.txt": "needle secret\n",
        "sub/deeper/visible.rs": "fn needle() {} // TODO\n",
        "sub/.hidden/inner.py": "needle = 'hidden'\n",
        "docs/my notes.md": "needle in a name with a space\n",
        "src/ünïcode.rs": "// needle ünïcode\nfn tail() {} // no newline at the end",
        # A nested repository: its parent's .gitignore stops at its boundary.
        "vendor/lib/.git/HEAD": "ref: refs/heads/main\n",
        "vendor/lib/.gitignore": "local.txt\n",
        "vendor/lib/x.log": "needle log in a nested repository\n",
        "vendor/lib/local.txt": "needle local\n",
        "vendor/lib/src.rs": "fn vendored() {} // needle\n",
    }
    raw: dict[str | bytes, bytes] = {
        "data/crlf.txt": b"first needle\r\nsecond line\r\nthird Needle\r\n",
        "data/latin1.txt": b"caf\xe9 needle na\xefve\nplain needle\n",
        "assets/logo.png": b"\x89PNG\r\n\x1a\n\x00\x00needle\x00",
        "assets/blob.bin": b"needle first\n" * 3 + b"\x00 then binary\nneedle\n",
        "__pycache__/server.cpython-311.pyc": b"\x00\x00needle\x00",
        b"data/caf\xe9.txt": b"needle in a name that is not UTF-8\n",
    }
    # The bulk of a real tree: files none of the rare patterns match.
    for i in range(40):
        body = "".join(
            f"pub fn gen_{i}_{j}(x: u64) -> u64 {{\n    x.wrapping_mul({j})\n}}\n" for j in range(8)
        )
        text[f"src/gen/gen_{i}.rs"] = body
        body = "".join(
            f"def handler_{i}_{j}(request):\n    return request.get('k{j}')\n" for j in range(8)
        )
        text[f"app/handlers/h_{i}.py"] = body
        text[f"web/components/c_{i}.ts"] = "".join(
            f"export const value{i}_{j} = {j};\n" for j in range(8)
        )
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for rel, content in [*((r, t.encode()) for r, t in text.items()), *raw.items()]:
        path = root / (os.fsdecode(rel) if isinstance(rel, bytes) else rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    os.symlink("src", root / "link_src")
    os.symlink("src/lib.rs", root / "alias.rs")
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "initial needle commit"], check=True)
    # Distinct modification times in an order unrelated to the paths' order.
    files = sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink())
    base = 1_700_000_000
    for i, p in enumerate(sorted(files, key=lambda p: str(p)[::-1])):
        os.utime(p, (base + i, base + i))
    return root


# ---------------------------------------------------------------------------------------------
# Comparing outputs.


def display_forms(root: Path) -> list[bytes]:
    """Every way a file of the tree may be printed (relative, ./relative, absolute), longest
    first, links followed (opencode's --follow)."""
    forms: set[bytes] = set()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        for name in dirnames + filenames:
            rel = os.fsencode(os.path.relpath(os.path.join(dirpath, name), root))
            forms.update({rel, b"./" + rel, os.fsencode(root) + b"/" + rel})
    return sorted(forms, key=len, reverse=True)


# ripgrep 14's closing `--json` summary counts only the files with a match (15 counts every
# file searched): against 14 it is left out of the comparison.
JSON_SUMMARY = REAL_VERSION.startswith("15.")


def blocks(out: bytes, argv: list[str], forms: list[bytes]):
    """The output as a comparable value: without a sort, the multiset of its per-file blocks."""
    if "--json" in argv:
        groups: list[str] = []
        current: list[dict] = []
        other: list[str] = []
        for line in out.splitlines():
            message = without_timings(line)
            if message["type"] == "begin":
                current = [message]
            elif message["type"] == "end":
                groups.append(json.dumps([*current, message], sort_keys=True))
                current = []
            elif current:
                current.append(message)
            elif JSON_SUMMARY or message["type"] != "summary":
                other.append(json.dumps(message, sort_keys=True))
        return sorted(groups), other
    if any(a == "--files" for a in argv):
        return sorted(out.splitlines())
    if "--heading" in argv:
        body = out[:-1] if out.endswith(b"\n") else out
        return sorted(body.split(b"\n\n"))
    by_file: dict[bytes | None, list[bytes]] = {}
    for line in out.splitlines():
        key = next(
            (
                f
                for f in forms
                if line.startswith(f) and line[len(f) : len(f) + 1] in (b"", b":", b"-", b"|")
            ),
            None,
        )
        by_file.setdefault(key, []).append(line)
    if None in by_file:
        by_file[None].sort()
    return by_file


def by_mtime(out: bytes, cwd: Path) -> list[tuple[int, list[bytes]]]:
    """`--sort=modified` output as its runs of equal modification times (ties have no order)."""
    runs: list[tuple[int, list[bytes]]] = []
    for line in out.splitlines():
        mtime = (cwd / os.fsdecode(line)).stat().st_mtime_ns
        if runs and runs[-1][0] == mtime:
            runs[-1][1].append(line)
        else:
            runs.append((mtime, [line]))
    return [(m, sorted(lines)) for m, lines in runs]


def comparable(result: subprocess.CompletedProcess, argv: list[str], cwd: Path, forms):
    stderr = b"\n".join(
        line for line in result.stderr.splitlines() if not line.startswith(b"codesift-rg: index:")
    )
    if any(a.startswith("--sort") and "modified" in a for a in argv) or "modified" in argv:
        out = by_mtime(result.stdout, cwd)
    elif "--sort" in argv:
        out = (
            [
                m
                for m in map(without_timings, result.stdout.splitlines())
                if JSON_SUMMARY or m["type"] != "summary"
            ]
            if "--json" in argv
            else result.stdout
        )
    else:
        out = blocks(result.stdout, argv, forms)
    return result.returncode, out, stderr


# Always scanned (docs/rg.md): links followed, stdin, a file argument; and a usage error.
SCANNED = {
    "claude-file-index",
    "claude-grep-file",
    "gemini-grep-auto-context",
    "opencode-grep",
    "opencode-grep-glob",
    "opencode-files",
    "codex-file",
    "codex-pipe",
    "copilot-grep-dash",
}


# Patterns that only a few files hold: auto must answer them from the index.
NARROW = {
    "claude-grep-type",
    "claude-grep-dash-pattern",
    "claude-grep-no-match",
    "claude-grep-multiline",
    "codex-glob",
    "codex-paths",
}


def index_expected(name: str, argv: list[str]) -> tuple[bool, bool]:
    """(force answers from the index, auto does too): auto walks when every file is read
    anyway (--files, --json); force lists them from the index too."""
    if name.removesuffix("+sort") in SCANNED:
        return False, False
    return True, "--files" not in argv and "--json" not in argv


def cases() -> list[tuple[str, list[str], bytes | None]]:
    out = []
    for name, argv, stdin in AGENTS:
        out.append((name, argv, stdin))
        if not any(a.startswith("--sort") for a in argv):
            out.append((name + "+sort", ["--sort", "path", *argv], stdin))
    return out


CASES = cases()


def run_case(env: Env, root: Path, argv: list[str], stdin: bytes | None, forms, first: str):
    """Runs `argv` with codesift-rg (auto then force, or force then auto) and the real rg;
    returns the three results and the mismatch messages."""
    order = ["auto", "force"] if first == "auto" else ["force", "auto"]
    ours = {mode: env.rg(root, mode, *argv, stdin=stdin) for mode in order}
    real = env.rg(root, "never", *argv, binary=REAL_RG, stdin=stdin)
    want = comparable(real, argv, root, forms)
    problems = []
    for mode in order:
        got = comparable(ours[mode], argv, root, forms)
        if got != want:
            problems.append(
                f"{mode}: rg {argv}\n  real rg {REAL_VERSION}: exit {want[0]}\n"
                f"    stdout {real.stdout!r}\n    stderr {real.stderr!r}\n"
                f"  codesift-rg: exit {got[0]}\n    stdout {ours[mode].stdout!r}\n"
                f"    stderr {ours[mode].stderr!r}"
            )
    return ours, problems


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory):
    base = tmp_path_factory.mktemp("agents")
    with Env(base) as env:
        root = make_tree(base / "repo")
        yield env, root, display_forms(root)


@pytest.mark.parametrize(("name", "argv", "stdin"), CASES, ids=[c[0] for c in CASES])
def test_agent_argv_answers_as_the_real_rg(world, name, argv, stdin) -> None:
    env, root, forms = world
    argv = expand(argv, root)
    ours, problems = run_case(env, root, argv, stdin, forms, first="force")
    assert not problems, "\n".join(problems)
    force_indexed, auto_indexed = index_expected(name, argv)
    for mode, expected in (("force", force_indexed), ("auto", auto_indexed)):
        said = ours[mode].stderr
        indexed = b"files from the index" in said
        # auto walks, rightly, when the index would leave most of the tree to read.
        unnarrowed = (
            mode == "auto"
            and b"does not narrow" in said
            and name.removesuffix("+sort") not in NARROW
        )
        assert indexed == expected or (expected and unnarrowed), (
            f"{mode}: rg {argv}: expected the {'index' if expected else 'walk'} to answer, "
            f"stderr {said!r}"
        )


def test_edits_behind_its_back_are_answered_at_once(tmp_path: Path) -> None:
    """Every agent argv, indexed first, then rerun at once (no wait) after each batch of
    changes made by plain file system calls: the real rg's answers every time."""
    env = Env(tmp_path)
    env.start()
    try:
        root = make_tree(tmp_path / "repo")
        runs = [(name, expand(argv, root), stdin) for name, argv, stdin in AGENTS]
        forms = display_forms(root)
        for _, argv, stdin in runs:
            _, problems = run_case(env, root, argv, stdin, forms, first="force")
            assert not problems, "\n".join(problems)

        def edit_files() -> None:
            (root / "src" / "fresh.rs").write_text("fn fresh() {} // needle TODO config\n")
            with open(root / "app" / "server.py", "a") as f:
                f.write("\n\nclass Added:\n    needle_added = 'config'\n")
            # A file the rare patterns did not match before now does.
            with open(root / "src" / "gen" / "gen_3.rs", "a") as f:
                f.write("// TODO: zq_nothing_zq\nstruct Config {\n    needle: u8,\n}\n")
            (root / "web" / "style.css").unlink()
            os.rename(root / "go" / "main.go", root / "go" / "server.go")
            os.rename(root / "src" / "lib.rs", root / "src" / "lib.txt")
            (root / ".github" / "new.yml").write_text("# needle TODO hidden\n")
            (root / "src" / "main.rs").write_bytes(b"fn main() {} // needle TODO\x00 now binary\n")

        def move_directory() -> None:
            os.rename(root / "sub" / "deeper", root / "relocated")
            os.rename(root / "web", root / "src" / "web")
            shutil.rmtree(root / "app" / "handlers")
            os.rename(root / "vendor" / "lib", root / "lib")

        def edit_gitignore() -> None:
            with open(root / ".gitignore", "a") as f:
                f.write("data/\n!data/multi.txt\n")
            (root / "sub" / ".gitignore").write_text("important.tmp\n")
            # A new repository inside: the parent's rules stop at its boundary.
            subprocess.run(["git", "init", "-q", str(root / "app")], check=True)
            (root / "app" / ".gitignore").write_text("*.php\n")

        problems: list[str] = []
        for what, change in (
            ("files written, changed, deleted, renamed", edit_files),
            ("directories moved", move_directory),
            (".gitignore files changed, a repository created", edit_gitignore),
        ):
            change()
            forms = display_forms(root)
            auto_indexed = 0
            for name, argv, stdin in runs:
                ours, found = run_case(env, root, argv, stdin, forms, first="auto")
                problems += [f"after {what}: {p}" for p in found]
                auto_indexed += from_the_daemon(ours["auto"].stderr)
                if name not in SCANNED and not from_the_daemon(ours["force"].stderr):
                    problems.append(f"after {what}: force did not use the index: {argv}")
            print(f"after {what}: auto answered {auto_indexed} of {len(runs)} from the index")
        assert not problems, f"{len(problems)} differences:\n" + "\n".join(problems)
    finally:
        env.stop()
