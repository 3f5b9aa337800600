"""One measured query in a fresh process (so that its peak RSS is its own).

Usage: python benches/_worker.py '<json spec>'  ->  prints {"seconds", "count", "maxrss_kb"}.
The clock covers the query only (not interpreter start-up or imports), and for codesift
includes turning every hit into a Python object and touching it.
"""

from __future__ import annotations

import fnmatch
import glob as globmod
import json
import os
import re
import resource
import sys
import time
from pathlib import Path


def codesift_query(spec: dict) -> int:
    from codesift import Workspace

    ws = Workspace(spec["root"], gitignore=False, threads=spec.get("threads"))
    if spec["kind"] == "glob":
        result = ws.glob(spec["pattern"], limit=10_000_000)
        return sum(1 for f in result.files if f.path)
    result = ws.grep(
        spec["pattern"],
        literal=spec.get("literal", False),
        case_sensitive=not spec.get("ignore_case", False),
        multiline=True if spec.get("multiline") else None,
        max_matches=spec.get("max_matches"),
    )
    # Every hit as a Python object, touched once.
    return sum(1 for m in result.matches if m.line)


def python_ripgrep_query(spec: dict) -> int:
    import python_ripgrep

    if spec["kind"] == "glob":
        return len(python_ripgrep.files(patterns=[], paths=[spec["root"]], globs=[spec["glob"]]))
    pattern = re.escape(spec["pattern"]) if spec.get("literal") else spec["pattern"]
    if spec.get("ignore_case"):
        pattern = "(?i)" + pattern
    chunks = python_ripgrep.search(
        patterns=[pattern],
        paths=[spec["root"]],
        line_number=True,
        multiline=bool(spec.get("multiline")),
    )
    # One string per file with its matching lines: it reports lines, not matches.
    return sum(chunk.count("\n") for chunk in chunks)


def ripgrepy_query(spec: dict) -> int:
    from ripgrepy import Ripgrepy

    rg = Ripgrepy(spec["pattern"], spec["root"]).no_ignore().hidden().json()
    if spec.get("literal"):
        rg = rg.fixed_strings()
    if spec.get("ignore_case"):
        rg = rg.ignore_case()
    if spec.get("multiline"):
        rg = rg.multiline()
    found = rg.run().as_dict
    return sum(len(item["data"]["submatches"]) for item in found)


def pure_python_query(spec: dict) -> int:
    flags = re.IGNORECASE if spec.get("ignore_case") else 0
    pattern = re.escape(spec["pattern"]) if spec.get("literal") else spec["pattern"]
    regex = re.compile(pattern.encode(), flags | (re.MULTILINE if spec.get("multiline") else 0))
    count = 0
    for dirpath, dirnames, filenames in os.walk(spec["root"]):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            path = os.path.join(dirpath, name)
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError:
                continue
            if b"\0" in data[:8192]:
                continue
            if spec.get("multiline"):
                count += sum(1 for _ in regex.finditer(data))
            else:
                for line in data.split(b"\n"):
                    count += sum(1 for _ in regex.finditer(line))
    return count


def glob_glob_query(spec: dict) -> int:
    return len(
        globmod.glob(
            os.path.join(spec["root"], "**", spec["glob"]), recursive=True, include_hidden=True
        )
    )


def pathlib_query(spec: dict) -> int:
    return sum(1 for p in Path(spec["root"]).rglob(spec["glob"]) if p.is_file())


def os_walk_glob_query(spec: dict) -> int:
    count = 0
    for _, _, files in os.walk(spec["root"]):
        count += len(fnmatch.filter(files, spec["glob"]))
    return count


TOOLS = {
    "codesift": codesift_query,
    "python-ripgrep": python_ripgrep_query,
    "ripgrepy": ripgrepy_query,
    "pure-python": pure_python_query,
    "glob.glob": glob_glob_query,
    "pathlib.rglob": pathlib_query,
    "os.walk+fnmatch": os_walk_glob_query,
}


IMPORTS = {"codesift": "codesift", "python-ripgrep": "python_ripgrep", "ripgrepy": "ripgrepy"}


def main() -> None:
    spec = json.loads(sys.argv[1])
    if spec["tool"] in IMPORTS:  # imported before the clock starts, as a resident agent would
        __import__(IMPORTS[spec["tool"]])
    start = time.perf_counter()
    count = TOOLS[spec["tool"]](spec)
    seconds = time.perf_counter() - start
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"seconds": seconds, "count": count, "maxrss_kb": maxrss}))


if __name__ == "__main__":
    main()
