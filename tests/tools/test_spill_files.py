"""Spill files (the full text of a tool result cut to a preview) are hostile ground: they live
in a private directory (0700, the user's own, never a symlink, checked on every open), are
created exclusively under unpredictable names without following links, and `read_file` may
read them only while that directory is still private."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest

from codesift import Workspace
from codesift.tools import Toolbox

FILES = {f"f{i:03}.txt": "hit\n" * 30 for i in range(20)}


def _toolbox(tree, spill_dir: Path | None) -> Toolbox:
    return Toolbox(Workspace(tree(FILES)), spill_dir=spill_dir, max_output_lines=10)


def _spill(toolbox: Toolbox, pattern: str = "hit"):
    result = toolbox.call("grep_search", {"pattern": pattern, "max_matches": 3000})
    assert not result.is_error, result.text
    assert result.data["truncated"] is True, result.data
    return result


def _private_dir(path: Path) -> Path:
    path.mkdir(mode=0o700)
    os.chmod(path, 0o700)
    return path


def test_a_symlink_planted_at_a_spill_name_is_not_followed(tree, tmp_path):
    spill_dir = _private_dir(tmp_path / "spill")
    victims = []
    for n in range(1, 21):
        victim = tmp_path / f"victim{n}.txt"
        victim.write_text("precious\n")
        victims.append(victim)
        for name in (f"grep_search-{n}.txt", f"grep-{n}.txt"):
            os.symlink(victim, spill_dir / name)
    result = _spill(_toolbox(tree, spill_dir))
    changed = [v.name for v in victims if v.read_text() != "precious\n"]
    assert changed == [], f"expected no file outside the spill dir written, got {changed}"
    spill = Path(result.data["spill_file"])
    info = os.lstat(spill)
    assert stat.S_ISREG(info.st_mode), f"expected a regular spill file, got mode {info.st_mode:o}"
    assert spill.parent == spill_dir.resolve(), (spill, spill_dir)
    assert spill.read_text().startswith("Found"), spill.read_text()[:200]


def test_toolboxes_sharing_a_spill_dir_keep_each_others_files(tree, tmp_path):
    spill_dir = tmp_path / "shared-spill"
    first = _spill(_toolbox(tree, spill_dir), "hit")
    first_text = Path(first.data["spill_file"]).read_text()
    second = _spill(_toolbox(tree, spill_dir), "h.t")
    assert first.data["spill_file"] != second.data["spill_file"], (
        f"expected distinct spill names, both are {first.data['spill_file']}"
    )
    after = Path(first.data["spill_file"]).read_text()
    assert after == first_text, "expected the first spill file untouched by the second toolbox"


def test_spill_files_are_private(tree, tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    result = _spill(_toolbox(tree, None))
    spill = Path(result.data["spill_file"])
    dir_info, file_info = os.lstat(spill.parent), os.lstat(spill)
    assert stat.S_IMODE(dir_info.st_mode) == 0o700, f"dir mode {dir_info.st_mode:o}"
    assert stat.S_IMODE(file_info.st_mode) == 0o600, f"file mode {file_info.st_mode:o}"
    assert dir_info.st_uid == os.geteuid() and file_info.st_uid == os.geteuid()
    assert spill.parent.parent == tmp_path.resolve(), spill


@pytest.mark.parametrize("mode", [0o755, 0o770, 0o707, 0o1777])
def test_a_spill_dir_open_to_others_is_not_used(tree, tmp_path, mode):
    spill_dir = tmp_path / "open-spill"
    spill_dir.mkdir()
    os.chmod(spill_dir, mode)
    result = _spill(_toolbox(tree, spill_dir))
    assert result.data["spill_file"] is None, result.data["spill_file"]
    assert list(spill_dir.iterdir()) == [], list(spill_dir.iterdir())
    last = result.text.splitlines()[-1]
    assert str(spill_dir) in last and "not saved" in last and "chmod 700" in last, last


def test_a_spill_dir_that_is_a_symlink_is_not_used(tree, tmp_path):
    target = _private_dir(tmp_path / "real-spill")
    link = tmp_path / "spill-link"
    os.symlink(target, link)
    result = _spill(_toolbox(tree, link))
    assert result.data["spill_file"] is None, result.data["spill_file"]
    assert list(target.iterdir()) == [], list(target.iterdir())
    assert "symlink" in result.text.splitlines()[-1], result.text.splitlines()[-1]


def test_a_spill_dir_owned_by_someone_else_is_not_used(tree, tmp_path, monkeypatch):
    spill_dir = _private_dir(tmp_path / "their-spill")
    if os.geteuid() == 0:
        os.chown(spill_dir, 65534, 65534)
    else:  # cannot give a directory away: be someone else instead
        me = os.geteuid()
        monkeypatch.setattr(os, "geteuid", lambda: me + 1)
    result = _spill(_toolbox(tree, spill_dir))
    assert result.data["spill_file"] is None, result.data["spill_file"]
    assert list(spill_dir.iterdir()) == [], list(spill_dir.iterdir())
    assert "owned by" in result.text.splitlines()[-1], result.text.splitlines()[-1]


def test_a_spill_dir_opened_up_later_is_no_longer_used_nor_read(tree, tmp_path):
    spill_dir = tmp_path / "spill"
    toolbox = _toolbox(tree, spill_dir)
    first = _spill(toolbox)
    spill = first.data["spill_file"]
    assert spill is not None
    read = toolbox.call("read_file", {"path": spill, "offset": 1, "limit": 2})
    assert not read.is_error, read.text
    os.chmod(spill_dir, 0o777)
    second = _spill(toolbox)
    assert second.data["spill_file"] is None, second.data["spill_file"]
    again = toolbox.call("read_file", {"path": spill, "offset": 1, "limit": 2})
    assert again.is_error, f"expected the spill file refused once the dir is open, got {again.text}"


def test_read_file_reads_nothing_in_a_spill_dir_that_is_not_private(tree, tmp_path):
    spill_dir = tmp_path / "open-spill"
    spill_dir.mkdir()
    os.chmod(spill_dir, 0o755)
    planted = spill_dir / "notes.txt"
    planted.write_text("not a spill file\n")
    toolbox = _toolbox(tree, spill_dir)
    _spill(toolbox)
    read = toolbox.call("read_file", {"path": str(planted)})
    assert read.is_error, f"expected {planted} refused (outside the sandbox), got {read.text}"
