"""`codesift grep --rank` prints the same lines as without it, the definition first; and
`--budget-tokens N` prints only the best ranked lines that fit, saying on stderr what it left
out; both refuse `-v`."""

from __future__ import annotations

import json

from cli_helpers import codesift_run


def tree(tmp_path):
    for i in range(1, 7):
        (tmp_path / f"a{i}.c").write_text(f"int caller_{i}(void) {{\n  return frob({i});\n}}\n")
    (tmp_path / "z.h").write_text("#define frob(x) ((x) + 1)\n")
    return tmp_path


def test_rank_prints_the_same_lines_definition_first(tmp_path):
    root = tree(tmp_path)
    plain = codesift_run(root, "grep", "frob")
    ranked = codesift_run(root, "grep", "--rank", "frob")
    assert plain.returncode == ranked.returncode == 0, (plain.stderr, ranked.stderr)
    print("plain:", plain.stdout, "ranked:", ranked.stdout, sep="\n")
    assert plain.stdout.splitlines()[0].startswith("a1.c:")
    assert ranked.stdout.splitlines()[0] == "z.h:1:#define frob(x) ((x) + 1)"
    assert sorted(ranked.stdout.splitlines()) == sorted(plain.stdout.splitlines())


def test_budget_tokens_prints_what_fits_and_says_what_was_left_out(tmp_path):
    root = tree(tmp_path)
    run = codesift_run(root, "grep", "--budget-tokens", "40", "frob")
    assert run.returncode == 0, run.stderr
    printed = run.stdout.splitlines()
    print("stdout:", run.stdout, "stderr:", run.stderr, sep="\n")
    # The definition and some of the calls fit in 40 tokens (4 bytes each), not all seven.
    assert printed[0] == "z.h:1:#define frob(x) ((x) + 1)"
    assert 1 < len(printed) < 7
    assert "token budget:" in run.stderr and "left out" in run.stderr


def test_budget_tokens_in_json_reports_the_budget(tmp_path):
    root = tree(tmp_path)
    run = codesift_run(root, "grep", "--budget-tokens", "20", "--json", "frob")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    print(data)
    assert data["ranked"] is True
    assert data["budget"]["budget_tokens"] == 20
    assert data["budget"]["tokens"] <= 20
    assert data["budget"]["left_out"] == 7 - len(data["matches"])
    assert data["matches"][0]["role"] == "definition"


def test_rank_and_budget_refuse_invert(tmp_path):
    root = tree(tmp_path)
    for flag in (["--rank"], ["--budget-tokens", "10"]):
        run = codesift_run(root, "grep", "-v", *flag, "frob")
        print(flag, run.stderr)
        assert run.returncode == 2
        assert f"drop {flag[0]} or -v" in run.stderr
        assert "Traceback" not in run.stderr
