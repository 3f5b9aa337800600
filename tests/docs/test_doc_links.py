"""Every relative link and image of the README and docs/ names a file of the repository, as
it is written (a link in docs/ is relative to docs/, as a reader's viewer resolves it)."""

from __future__ import annotations

import re

from doc_blocks import ROOT, documents

#: `[text](target)` and `![alt](target)`; the target up to a space, a `#` or the `)`.
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)\s]*)?\)")


def test_every_relative_link_names_a_file_that_exists() -> None:
    broken = []
    for doc in documents():
        for target in LINK.findall(doc.read_text()):
            if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
                continue
            if not (doc.parent / target).exists():
                broken.append(f"{doc.relative_to(ROOT)}: {target}")
    print("documents:", [str(d.relative_to(ROOT)) for d in documents()])
    assert not broken, "expected links to existing files, got:\n" + "\n".join(broken)
