"""Reduced by the index differential test (scripts/index_differential.py, seed 5003): a
watched workspace reports no skipped symlinks and no denied (access-ignored) files, where a
scan of the same tree reports them (and the hint and summary built from them).

Run: python watched_skipped_symlinks_and_denied.py  (exit 1 while the answers differ)."""

import os
import sys
import tempfile
import time

base = tempfile.mkdtemp(prefix="codesift-repro-")
os.environ.setdefault("CODESIFT_CACHE_DIR", os.path.join(base, "cache"))
from codesift import Workspace  # noqa: E402

root = os.path.join(base, "ws")
os.makedirs(os.path.join(root, "docs"))
os.makedirs(os.path.join(base, "outside", "dir"))
os.symlink("../../outside/dir", os.path.join(root, "docs", "link"))
with open(os.path.join(root, ".codesiftignore"), "w") as f:
    f.write("secret*\n")
with open(os.path.join(root, "secret.txt"), "w") as f:
    f.write("value secret\n")
time.sleep(2.1)  # older than the build's racy margin: the index trusts the tree

watched = Workspace(root, index=True, index_watch=True)
watched.grep("warm-up", max_matches=1)
scan = Workspace(root).grep("Quokka")
indexed = watched.grep("Quokka")
differs = 0
for name in ("symlink", "denied"):
    want = getattr(scan.skipped, name).count
    got = getattr(indexed.skipped, name).count
    print(f"skipped.{name}: scan {want}, watched {got}")
    differs += want != got
print(f"summary: scan {scan.summary!r}\n         watched {indexed.summary!r}")
sys.exit(1 if differs or scan.summary != indexed.summary else 0)
