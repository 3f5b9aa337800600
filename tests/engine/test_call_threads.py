"""The threads the library's blocking calls run on (so that Ctrl-C is heard meanwhile) are
kept between calls rather than started for each, and a forked child, which has none of its
parent's threads, starts its own. Each case runs in a fresh process that reports what it
saw as JSON."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from processes import python_json

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")

_COMMON = r"""
import json, os, signal, sys
from codesift import Workspace
# A call that never comes back fails the case instead of hanging the suite.
signal.alarm(60)
ws = Workspace(sys.argv[1], index=False)

def call_threads():
    names = []
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/comm") as comm:
                names.append(comm.read().strip())
        except OSError:
            pass
    return names.count("codesift-call")

def hits():
    return len(ws.grep("needle", max_matches=None).matches)
"""

_KEPT = r"""
seen = {"before": call_threads(), "hits": hits(), "after_one": call_threads()}
for _ in range(30):
    hits()
seen["after_many"] = call_threads()
print(json.dumps(seen))
"""

_FORKED = r"""
parent_hits = hits()
child = os.fork()
if child == 0:
    # The parent's kept threads do not exist here: the call must start one of its own.
    os._exit(0 if hits() == parent_hits else 1)
_, status = os.waitpid(child, 0)
print(json.dumps({"hits": parent_hits, "child_status": status, "after": hits()}))
"""


def _run(script: str, tree: Path) -> dict:
    return python_json(_COMMON + script, str(tree), timeout=120)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for i in range(20):
        (tmp_path / f"f{i}.txt").write_text("a needle\nno\nneedle again\n")
    return tmp_path


def test_a_calls_thread_is_kept_for_the_next_call(tree: Path):
    seen = _run(_KEPT, tree)
    assert seen["hits"] == 40
    assert seen["before"] == 0
    # Kept after its call (with its walk's and search's helpers), and not one more per call:
    # at most twice the processors, at least 4, are kept idle.
    most_idle = min(64, max(4, 2 * (os.cpu_count() or 1)))
    assert 1 <= seen["after_one"] <= most_idle, seen
    assert 1 <= seen["after_many"] <= most_idle, seen


def test_a_forked_child_starts_its_own_call_thread(tree: Path):
    seen = _run(_FORKED, tree)
    assert seen == {"hits": 40, "child_status": 0, "after": 40}
