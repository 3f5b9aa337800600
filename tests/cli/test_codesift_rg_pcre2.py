"""codesift-rg serving PCRE2 itself (`-P`, `--engine pcre2|auto`, `--pcre2-version`): the
output of ripgrep 15.2.0 built with PCRE2 for look-around, backreferences, `-o`, `-r` with
groups, `-w`/`-x`, `-i`/`-S`, `-U`, `--crlf`, `--json` submatches and the engine errors,
compared with a real ripgrep 15 with PCRE2 when one is found; and the index never narrowing a
search by a PCRE2 pattern (its planner reads Rust regex syntax)."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest
from rg_helpers import BIN, NEEDS_CODESIFT_RG, Env, json_without_timings, real_rgs, run_rg

pytestmark = NEEDS_CODESIFT_RG

FILES = {
    "a.txt": "say hello hello\nthe Sherlock Holmes\nthe Watson\nabab cdcd\n",
    "b.txt": "foobar\nfoo bar\nFOO baz\n",
    "crlf.txt": "end\r\nmiddle end\r\n",
}

BACKREF_HINT = (
    "rg: regex parse error:\n    (?:(\\w+) \\1)\n             ^^\n"
    "error: backreferences are not supported\n\n"
    "Consider enabling PCRE2 with the --pcre2 flag, which can handle backreferences\n"
    "and look-around.\n"
)
DIVIDER = "~" * 79
BOTH_FAIL = (
    "rg: regex could not be compiled with either the default regex engine or with PCRE2.\n\n"
    f"default regex engine error:\n{DIVIDER}\nregex parse error:\n    (?:(\\w+) \\1()\n"
    f"             ^^\nerror: backreferences are not supported\n{DIVIDER}\n\n"
    "PCRE2 regex engine error:\n"
    "PCRE2: error compiling pattern at offset 13: missing closing parenthesis\n"
)

#: (arguments after `--sort=path -n`, exit status, stdout, stderr) as ripgrep 15.2.0 built
#: with PCRE2 prints them on FILES.
CASES = [
    (["-P", r"(\w+) \1"], 0, "a.txt:1:say hello hello\ncrlf.txt:2:middle end\n", ""),
    (["-P", "-o", r"(?<=the )\w+"], 0, "a.txt:2:Sherlock\na.txt:3:Watson\n", ""),
    (["-P", "-o", "-r", "[$1]", r"(\w+)(?= Holmes)"], 0, "a.txt:2:[Sherlock]\n", ""),
    (["-P", "-r", "<$2$1>", r"(\w)(\w)\1\2"], 0, "a.txt:4:<ba> <dc>\n", ""),
    (["-P", "-w", "foo"], 0, "b.txt:2:foo bar\n", ""),
    (["-P", "-x", "foo bar"], 0, "b.txt:2:foo bar\n", ""),
    (["-P", "-i", "foo(?! bar)"], 0, "b.txt:1:foobar\nb.txt:3:FOO baz\n", ""),
    (["-P", "-S", "foo"], 0, "b.txt:1:foobar\nb.txt:2:foo bar\nb.txt:3:FOO baz\n", ""),
    (["-P", "-S", "Foo"], 1, "", ""),
    (["-P", "-U", r"Holmes\nthe"], 0, "a.txt:2:the Sherlock Holmes\na.txt:3:the Watson\n", ""),
    (["-P", "--crlf", "end$"], 0, "crlf.txt:1:end\ncrlf.txt:2:middle end\n", ""),
    (["-P", "-c", r"(?<!middle )end"], 0, "crlf.txt:1\n", ""),
    # `auto`: PCRE2 only for what Rust's regex does not compile.
    (["--engine", "auto", r"(\w+) \1"], 0, "a.txt:1:say hello hello\ncrlf.txt:2:middle end\n", ""),
    (["--engine", "auto", "-o", "fo+"], 0, "b.txt:1:foo\nb.txt:2:foo\n", ""),
    (
        ["--engine=pcre2", "--auto-hybrid-regex", r"(?<=the )\w+\b"],
        0,
        "a.txt:2:the Sherlock Holmes\na.txt:3:the Watson\n",
        "",
    ),
    (["-P", "--no-pcre2", r"(\w+) \1"], 2, "", BACKREF_HINT),
    ([r"(\w+) \1"], 2, "", BACKREF_HINT),
    (["--engine", "auto", r"(\w+) \1("], 2, "", BOTH_FAIL),
    (
        ["-P", r"(\w+"],
        2,
        "",
        "rg: PCRE2: error compiling pattern at offset 8: missing closing parenthesis\n",
    ),
]

#: Arguments whose output is compared with a real ripgrep's, when one with PCRE2 is found.
COMPARED = [case[0] for case in CASES] + [
    ["-P", "--json", r"(?<=the )(\w)\w+"],
    ["--engine=auto", "--json", r"(\w)\1"],
    ["-P", "-o", "-b", r"(?<=\s)\w+"],
    ["-P", "-v", r"^(?:\w+ ){1}\w+$"],
    ["--pcre2-version"],
]


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    root.mkdir()
    for name, text in FILES.items():
        (root / name).write_bytes(text.encode())
    return root


def ours(cwd: Path, args: list[str]) -> subprocess.CompletedProcess[str]:
    return run_rg(BIN, cwd, ["--sort=path", "-n", *args], text=True, CODESIFT_RG_FALLBACK="never")


def comparable(out: str) -> str:
    """`--json` output without its timings."""
    if not out.startswith("{"):
        return out
    return json_without_timings(out)


def real_pcre2_rg() -> Path | None:
    """A real ripgrep 15 built with PCRE2 (`--pcre2-version` exits 0), if there is one."""
    for path, version in real_rgs():
        if not version.startswith("15."):
            continue
        probe = subprocess.run([str(path), "--pcre2-version"], capture_output=True, check=False)
        if probe.returncode == 0:
            return path
    return None


@pytest.mark.parametrize(("args", "status", "stdout", "stderr"), CASES, ids=lambda v: repr(v))
def test_pcre2_searches_print_what_ripgrep_prints(
    tree: Path, args: list[str], status: int, stdout: str, stderr: str
) -> None:
    got = ours(tree, args)
    expected = (status, stdout, stderr)
    actual = (got.returncode, got.stdout, got.stderr)
    assert actual == expected, f"rg {args}:\nexpected {expected!r}\nactual   {actual!r}"


def test_json_reports_pcre2_submatches(tree: Path) -> None:
    got = ours(tree, ["-P", "--json", r"(?<=the )\w+"])
    assert got.returncode == 0, f"got {got}"
    matches = [json.loads(line)["data"] for line in got.stdout.splitlines()]
    matches = [m for m in matches if "submatches" in m]
    found = [
        (m["line_number"], s["match"]["text"], s["start"], s["end"])
        for m in matches
        for s in m["submatches"]
    ]
    expected = [(2, "Sherlock", 4, 12), (3, "Watson", 4, 10)]
    assert found == expected, f"expected {expected}, got {found}\n{got.stdout}"


def test_version_says_pcre2_is_built_in(tree: Path) -> None:
    version = run_rg(BIN, tree, ["--version"], text=True)
    pcre2 = run_rg(BIN, tree, ["--pcre2-version"], text=True)
    assert "features:+pcre2\n" in version.stdout, f"got {version}"
    assert pcre2.returncode == 0, f"got {pcre2}"
    assert pcre2.stdout.startswith("PCRE2 10.") and pcre2.stdout.endswith(" is available)\n"), (
        f"got {pcre2}"
    )
    assert pcre2.stdout in version.stdout, f"--version {version.stdout!r}, got {pcre2}"


def test_same_output_as_a_real_ripgrep_with_pcre2(tree: Path) -> None:
    real = real_pcre2_rg()
    if real is None:
        pytest.skip("no real ripgrep 15 with PCRE2 (scripts/rg_suite.sh builds one)")
    differ = []
    for args in COMPARED:
        full = ["--sort=path", "-n", *args]
        expected = run_rg(real, tree, full, text=True)
        got = ours(tree, args)
        want = (expected.returncode, comparable(expected.stdout), expected.stderr)
        have = (got.returncode, comparable(got.stdout), got.stderr)
        if want != have:
            differ.append(f"rg {args}:\nexpected {want!r}\nactual   {have!r}")
    assert not differ, "\n".join(differ)


def test_the_index_never_narrows_by_a_pcre2_pattern(tmp_path: Path) -> None:
    # PCRE2's `\v` is any vertical space (form feed here); Rust's is the vertical tab only.
    # Planned as Rust regex, the pattern would require trigrams with a vertical tab, which
    # the file lacks, and the index would leave out the one file that matches.
    root = tmp_path / "tree"
    root.mkdir()
    (root / "hit.txt").write_bytes(b"foo\x0cbar\n")
    # Files without the pattern, each of more than one of the index's units, so that a plan
    # requiring trigrams they lack narrows the search to a small share of the tree.
    for i in range(40):
        (root / f"hay{i}.txt").write_text("hay and straw\n" * 1500)
    # Files written within moments of the index's build are candidates whatever they hold
    # (their change time cannot tell a later write apart): let the clock move past that.
    time.sleep(2.1)
    # The path given (not implicit): an index answer with no candidates is trusted then.
    expected = "./hit.txt:1:foo\x0cbar\n"
    with Env(tmp_path) as env:
        # Built by the first query, narrowed (or not) from the second.
        env.rg(root, "force", "straw")
        for mode in ("force", "auto", "never"):
            for engine in (["-P"], ["--engine", "pcre2"]):
                got = env.rg(root, mode, *engine, "-n", r"foo\vbar", ".")
                actual = (got.returncode, got.stdout.decode())
                assert actual == (0, expected), (
                    f"CODESIFT_RG_INDEX={mode} rg {engine}: expected {(0, expected)!r}, "
                    f"got {actual!r} (stderr {got.stderr.decode()!r})"
                )
