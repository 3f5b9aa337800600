"""A library search that wants its first few hits asks the daemon for the first files of
its selection only, and for the whole selection when those do not settle the answer (they
hold no more hits than the limit and files were left out): either way the answer is a
scan's, field by field."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from daemon_helpers import prime, root_status
from trees import write_tree

from codesift import Workspace, daemon

#: Dropped from both sides: whether the index answered, how many files were opened, hit ids.
DROPPED = ("indexed", "files_searched")


def settled_tree(root: Path, files: dict[str, str]) -> Path:
    """`files` written under `root`, old enough that the index trusts them (files changed
    just before a build are searched from disk, every one a candidate), then watched."""
    write_tree(root, files)
    time.sleep(2.5)
    prime(root)
    return root


def answer(root: Path, pattern: str, limit: int, *, index: bool) -> dict[str, Any]:
    result = Workspace(root, index=index, index_watch=False).grep(pattern, max_matches=limit)
    data = result.to_dict()
    for key in DROPPED:
        data.pop(key, None)
    data["matches"] = [{k: v for k, v in m.to_dict().items() if k != "id"} for m in result.matches]
    return data


def asked(root: Path) -> int:
    status = root_status(root)
    assert status is not None, "the daemon does not serve the root"
    return status["queries"]


def assert_answered_as_a_scan(root: Path, pattern: str, limit: int, selects: int) -> None:
    """The search through the daemon equals a scan, and the daemon was asked `selects`
    times for it."""
    scan = answer(root, pattern, limit, index=False)
    before = asked(root)
    through = answer(root, pattern, limit, index=True)
    assert through == scan, f"{pattern!r}, limit {limit}:\nscan  {scan}\nindex {through}"
    assert asked(root) - before == selects, (
        f"expected {selects} selections asked for {pattern!r} with a limit of {limit}, "
        f"got {asked(root) - before}"
    )


#: Every hit in the first files of the selection: a page holds the files of its first hits.
SETTLING = {f"d{i // 100}/f{i:03}.txt": f"line {i}\nPM_RESUME {i}\n" for i in range(700)}
#: The first 400 files hold both words on a line, in the other order: each may match for the
#: index, none does. The hits are in the last files, after the first page. Most of the tree
#: holds neither word, so that the index narrows the search.
UNSETTLING = (
    {f"a/f{i:03}.txt": "bar before foo\n" for i in range(400)}
    | {f"z/hit{i}.txt": f"foo and bar {i}\n" for i in range(4)}
    | {f"m/other{i}.txt": "nothing to see here at all\n" * 4 for i in range(300)}
)


@pytest.mark.parametrize(
    "files, searches",
    [
        pytest.param(
            SETTLING,
            # A page (of any size, or a narrow one) holds the files of the first hits: one
            # selection, of the first files only.
            [
                ("PM_RESUME", 5, 1),
                ("PM_RESUME", 300, 1),
                ("PM_RESUME", 650, 1),
                ("PM_RESUME 69[0-9]", 50, 1),
            ],
            id="the_first_files_settle_a_search_for_its_first_hits",
        ),
        pytest.param(
            UNSETTLING,
            # The first files do not settle the answer: the whole selection follows them.
            [("foo.*bar", 3, 2), ("foo.*bar", 10, 2)],
            id="files_that_do_not_settle_the_answer_are_followed_by_the_whole_selection",
        ),
    ],
)
def test_a_search_for_its_first_hits_selects_as_it_needs(
    served: subprocess.Popen[bytes],
    tmp_path: Path,
    files: dict[str, str],
    searches: list[tuple[str, int, int]],
) -> None:
    root = settled_tree(tmp_path / "tree", files)
    for pattern, limit, selects in searches:
        assert_answered_as_a_scan(root, pattern, limit, selects)


def test_a_selection_asked_for_its_first_files_says_it_left_some_out(
    served: subprocess.Popen[bytes], tmp_path: Path
) -> None:
    files = {f"f{i}.txt": "needle\n" for i in range(5)}
    files |= {f"other/{i}.txt": "hay and more hay\n" * 4 for i in range(20)}
    root = settled_tree(tmp_path / "tree", files)
    whole = daemon.select(str(root), {"pattern": "needle"})
    assert whole is not None and "files" in whole, whole
    assert whole["files"] == [f"f{i}.txt" for i in range(5)] and not whole.get("more"), whole
    page = daemon.select(str(root), {"pattern": "needle"}, first=2)
    assert page is not None and page["files"] == ["f0.txt", "f1.txt"] and page["more"], page
    every = daemon.select(str(root), {"pattern": "needle"}, first=5)
    assert every is not None and every["files"] == whole["files"], every
    assert not every.get("more"), every
    refused, _ = daemon.request(
        {"op": "select", "root": str(root), "path": "", "pattern": {"pattern": "x"}, "first": 0}
    )
    assert refused is not None and "first must be at least 1" in str(refused), refused
