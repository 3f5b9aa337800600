"""The sandbox: nothing outside the root is read, listed, searched or written, whatever the
route (`..`, absolute paths, symlinks anywhere along the path, NUL bytes)."""

from __future__ import annotations

import os

import pytest

from codesift import NotFoundError, SandboxError, Workspace


@pytest.fixture
def escape(tree, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "secret.txt").write_text("top secret\n")
    root = tree({"inside/a.txt": "hello\n", "inside/b.txt": "b\n"})
    (root / "link_dir").symlink_to(outside)
    (root / "link_file").symlink_to(outside / "secret.txt")
    (root / "inside" / "deeper").symlink_to(outside)
    return Workspace(root), outside


OUTSIDE_PATHS = [
    "../outside/secret.txt",
    "inside/../../outside/secret.txt",
    "link_dir/secret.txt",
    "link_file",
    "inside/deeper/secret.txt",
    "a\x00b",
]


@pytest.mark.parametrize("path", OUTSIDE_PATHS)
def test_reading_outside_is_refused(escape, path):
    ws, _ = escape
    with pytest.raises(SandboxError):
        ws.read(path)


@pytest.mark.parametrize("path", OUTSIDE_PATHS)
def test_editing_and_writing_outside_is_refused(escape, path):
    ws, outside = escape
    with pytest.raises(SandboxError):
        ws.edit(path, "top", "bottom")
    with pytest.raises(SandboxError):
        ws.write(path, "pwned")
    assert (outside / "secret.txt").read_text() == "top secret\n"


def test_absolute_paths(escape):
    ws, outside = escape
    assert ws.read(str(ws.root / "inside/a.txt")).content == "     1\thello"
    with pytest.raises(SandboxError):
        ws.read(str(outside / "secret.txt"))
    with pytest.raises(SandboxError):
        ws.write("/etc/codesift-test", "x")


@pytest.mark.parametrize("path", ["link_dir", "inside/deeper", "..", "/"])
def test_listing_and_searching_outside_is_refused(escape, path):
    ws, _ = escape
    with pytest.raises(SandboxError):
        ws.list_dir(path)
    with pytest.raises(SandboxError):
        ws.grep("secret", path=path)
    with pytest.raises(SandboxError):
        ws.glob("*", path=path)


def test_new_file_checked_through_deepest_existing_parent(escape):
    ws, outside = escape
    with pytest.raises(SandboxError):
        ws.write("link_dir/new/file.txt", "x")
    assert not (outside / "new").exists()
    assert ws.write("inside/new/file.txt", "x").created


def test_link_created_after_workspace_opened(tree, tmp_path):
    outside = tmp_path / "later"
    outside.mkdir()
    (outside / "s.txt").write_text("s")
    root = tree({"a.txt": "a"})
    ws = Workspace(root)
    (root / "sneaky").symlink_to(outside)
    (root / "sneaky_file").symlink_to(outside / "s.txt")
    with pytest.raises(SandboxError):
        ws.read("sneaky/s.txt")
    with pytest.raises(SandboxError):
        ws.read("sneaky_file")
    assert [m.file for m in ws.grep("s", path=".").matches] == []


def test_links_inside_the_root_are_fine(tree):
    root = tree({"real/a.txt": "hello\n"})
    (root / "alias").symlink_to(root / "real")
    ws = Workspace(root)
    assert ws.read("alias/a.txt").path == "real/a.txt"


def test_access_ignore_denies_read_edit_and_list(tree):
    root = tree(
        {
            ".clineignore": "secrets/\n*.pem\n",
            "secrets/k.txt": "key\n",
            "cert.pem": "pem\n",
            "ok.txt": "ok\n",
        }
    )
    ws = Workspace(root)
    for path in ("secrets/k.txt", "cert.pem"):
        with pytest.raises(SandboxError, match="access-ignore"):
            ws.read(path)
        with pytest.raises(SandboxError, match="access-ignore"):
            ws.edit(path, "k", "x")
        with pytest.raises(SandboxError, match="access-ignore"):
            ws.write(path, "x")
    with pytest.raises(SandboxError):
        ws.list_dir("secrets")
    assert ws.list_dir().entries == [".clineignore", "ok.txt"]
    assert (root / "secrets/k.txt").read_text() == "key\n"


def test_gitignore_hides_from_listing_but_allows_read(tree):
    root = tree({".gitignore": "build/\n", "build/out.txt": "out\n", "src.txt": "s\n"})
    ws = Workspace(root)
    assert ws.list_dir().entries == [".gitignore", "src.txt"]
    assert ws.read("build/out.txt").content == "     1\tout"


def test_git_directory_is_never_written(tree):
    ws = Workspace(tree({".git/config": "[core]\n", "a.txt": "a"}))
    with pytest.raises(SandboxError, match=".git"):
        ws.write(".git/hooks/pre-commit", "#!/bin/sh\n")
    with pytest.raises(SandboxError, match=".git"):
        ws.edit(".git/config", "core", "x")


def test_missing_root_and_paths(tree, tmp_path):
    with pytest.raises(NotFoundError):
        Workspace(tmp_path / "nope")
    ws = Workspace(tree({"a.txt": "a"}))
    with pytest.raises(NotFoundError):
        ws.read("missing.txt")
    with pytest.raises(NotFoundError):
        ws.edit("missing.txt", "a", "b")


def test_file_swapped_for_a_link_to_outside_is_refused(tree, tmp_path):
    """A file replaced by a link to outside between two calls: every access resolves the
    path beneath the root handle again, so the link is refused and nothing outside is read
    or written (the concurrent version of this is in test_sandbox_races)."""
    outside = tmp_path / "swap_target.txt"
    outside.write_text("outside\n")
    root = tree({"victim.txt": "inside\n"})
    ws = Workspace(root)
    assert ws.read("victim.txt").content == "     1\tinside"
    os.unlink(root / "victim.txt")
    os.symlink(outside, root / "victim.txt")
    with pytest.raises(SandboxError):
        ws.read("victim.txt")
    with pytest.raises(SandboxError):
        ws.edit("victim.txt", "outside", "pwned")
    with pytest.raises(SandboxError):
        ws.write("victim.txt", "pwned")
    assert outside.read_text() == "outside\n"
