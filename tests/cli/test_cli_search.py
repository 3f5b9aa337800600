"""`codesift search QUESTION [PATH]`: one block per file (`path (score) why`, then its lines),
`--json`, `-n`, and a question of stop words only as one line on stderr, exit 2."""

from __future__ import annotations

import json

from cli_helpers import codesift_run


def tree(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "session.py").write_text(
        "def retry_session_backoff(delay):\n    return delay * 2\n"
    )
    (tmp_path / "src" / "noise.py").write_text("retry = 1\n")
    return tmp_path


def test_search_prints_a_block_per_file(tmp_path):
    root = tree(tmp_path)
    run = codesift_run(root, "search", "session backoff retry", "src", "--color", "never")
    assert run.returncode == 0, run.stderr
    blocks = run.stdout.strip().split("\n\n")
    head, line = blocks[0].splitlines()
    assert head.startswith("src/session.py (") and "all 3 terms" in head, run.stdout
    assert line == "  1: def retry_session_backoff(delay):", run.stdout
    assert blocks[1].splitlines()[0].startswith("src/noise.py ("), run.stdout


def test_search_json_and_max_results(tmp_path):
    root = tree(tmp_path)
    run = codesift_run(root, "search", "session backoff retry", "--json", "-n", "1")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert [r["file"] for r in data["results"]] == ["src/session.py"], data
    assert data["results"][0]["symbols"] == ["retry_session_backoff"], data
    assert sorted(data["terms"]) == ["backoff", "retry", "session"], data
    assert data["root"] == str(root)


def test_search_of_stop_words_only_says_what_to_do(tmp_path):
    root = tree(tmp_path)
    run = codesift_run(root, "search", "how is it")
    assert run.returncode == 2, (run.returncode, run.stdout, run.stderr)
    assert "no words to search for" in run.stderr and "Traceback" not in run.stderr, run.stderr
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr


def test_search_finds_nothing_exits_1(tmp_path):
    root = tree(tmp_path)
    run = codesift_run(root, "search", "frobnicator")
    assert run.returncode == 1, (run.returncode, run.stdout, run.stderr)
