"""A patch's dry run refuses what its real run refuses (adds and moves through a symlinked
directory that leads outside, a move onto a symlink to outside, a file inside .git), and a
symlink to outside named by an update is a sandbox refusal, not a missing file to add."""

from __future__ import annotations

import os

import pytest

from codesift import Workspace
from codesift.errors import ConflictError, NotFoundError, SandboxError


@pytest.fixture
def linked(tmp_path):
    root, outside = tmp_path / "ws", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    (root / "a.txt").write_text("x\n")
    (root / "inner").mkdir()
    (root / ".git").mkdir()
    os.symlink(outside, root / "out_dir")
    os.symlink(outside / "secret.txt", root / "out_file")
    os.symlink(root / "inner", root / "in_dir")
    return root, outside


def envelope(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"]) + "\n"


REFUSED = {
    "add through a directory link to outside": envelope("*** Add File: out_dir/new.txt", "+hi"),
    "add in a new directory under a link to outside": envelope(
        "*** Add File: out_dir/deep/er/new.txt", "+hi"
    ),
    "move into a directory link to outside": envelope(
        "*** Update File: a.txt", "*** Move to: out_dir/b.txt", "@@", "-x", "+y"
    ),
    "move onto a file link to outside": envelope(
        "*** Update File: a.txt", "*** Move to: out_file", "@@", "-x", "+y"
    ),
    "add inside .git": envelope("*** Add File: .git/hooks/post-commit", "+echo hi"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_dry_run_refuses_what_the_real_run_refuses(linked, name):
    root, outside = linked
    ws = Workspace(root)
    outcomes = []
    for dry_run in (True, False):
        with pytest.raises(SandboxError) as caught:
            ws.apply_patch(REFUSED[name], dry_run=dry_run)
        outcomes.append(str(caught.value))
    assert outcomes[0] == outcomes[1], f"dry run: {outcomes[0]!r}\nreal run: {outcomes[1]!r}"
    assert sorted(os.listdir(outside)) == ["secret.txt"]
    assert (root / "a.txt").read_text() == "x\n"


def test_dry_run_and_real_run_agree_on_a_directory_link_inside(linked):
    root, _ = linked
    ws = Workspace(root)
    patch = envelope("*** Add File: in_dir/new.txt", "+hi")
    checked = ws.apply_patch(patch, dry_run=True)
    assert checked.dry_run and not (root / "inner" / "new.txt").exists()
    ws.apply_patch(patch)
    assert (root / "inner" / "new.txt").read_text() == "hi\n"


def test_adding_a_file_twice_through_a_directory_link_is_refused(linked):
    root, _ = linked
    patch = envelope("*** Add File: inner/x.txt", "+1", "*** Add File: in_dir/x.txt", "+2")
    with pytest.raises(Exception, match="also changed by") as caught:
        Workspace(root).apply_patch(patch, dry_run=True)
    assert not isinstance(caught.value, ConflictError | NotFoundError), caught.value
    assert not (root / "inner" / "x.txt").exists()


@pytest.mark.parametrize("dry_run", [True, False])
def test_updating_a_symlink_to_outside_is_a_sandbox_error(linked, dry_run):
    root, outside = linked
    patch = envelope("*** Update File: out_file", "@@", "-secret", "+changed")
    with pytest.raises(SandboxError) as caught:
        Workspace(root).apply_patch(patch, dry_run=dry_run)
    message = str(caught.value)
    assert "outside the workspace" in message and "add the file" not in message, message
    assert (outside / "secret.txt").read_text() == "secret\n"


def test_deleting_a_symlink_to_outside_is_a_sandbox_error(linked):
    root, outside = linked
    with pytest.raises(SandboxError):
        Workspace(root).apply_patch(envelope("*** Delete File: out_file"))
    assert (outside / "secret.txt").exists() and os.path.islink(root / "out_file")


def test_updating_a_missing_file_still_says_it_does_not_exist(linked):
    root, _ = linked
    with pytest.raises(NotFoundError, match="does not exist"):
        Workspace(root).apply_patch(envelope("*** Update File: nope.txt", "@@", "-a", "+b"))
