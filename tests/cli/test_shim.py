"""`codesift shim`: a private directory whose `rg` is the installed codesift-rg."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from codesift.cli import main, shim_dir

BINARY = shim_dir.installed_binary()
needs_binary = pytest.mark.skipif(
    not os.access(BINARY, os.X_OK),
    reason=f"codesift-rg not built ({BINARY}; pip install -e . builds it)",
)


@pytest.fixture()
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "data"
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home


def run_shim(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codesift", "shim", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


@needs_binary
def test_shim_makes_a_private_directory_whose_rg_is_codesift_rg(data_home: Path) -> None:
    got = run_shim("--print-path")
    directory = data_home / "codesift" / "shim"
    assert (got.returncode, got.stdout) == (0, f"{directory}\n"), f"got {got}"
    mode = stat.S_IMODE(directory.stat().st_mode)
    assert mode == 0o700, f"expected 0700, got {oct(mode)}"
    target = os.readlink(directory / "rg")
    assert target == str(BINARY), f"expected rg -> {BINARY}, got {target}"


@needs_binary
def test_shim_is_idempotent_and_repairs_a_wrong_link(data_home: Path) -> None:
    first = run_shim()
    directory = data_home / "codesift" / "shim"
    assert first.returncode == 0 and first.stdout.splitlines()[0] == str(directory), first
    assert f'export PATH="{directory}:$PATH"' in first.stdout, first.stdout
    (directory / "rg").unlink()
    (directory / "rg").symlink_to("/nonexistent/rg")
    again = run_shim("--print-path")
    assert again.returncode == 0, f"got {again}"
    assert os.readlink(directory / "rg") == str(BINARY), os.readlink(directory / "rg")
    leftovers = sorted(p.name for p in directory.iterdir() if p.name not in ("rg", ".real-rg"))
    assert leftovers == [], f"temporary links left behind: {leftovers}"


@needs_binary
def test_rg_on_path_through_the_shim_is_codesift_rg(data_home: Path, tmp_path: Path) -> None:
    directory = run_shim("--print-path").stdout.strip()
    env = {**os.environ, "PATH": f"{directory}:{os.environ['PATH']}"}
    got = subprocess.run(
        ["bash", "-c", "rg --version"], env=env, capture_output=True, text=True, timeout=60
    )
    lines = got.stdout.splitlines()
    assert got.returncode == 0 and lines[0] == "ripgrep 15.2.0", f"got {got}"
    assert lines[-1].startswith("codesift-rg "), f"expected codesift-rg named last: {lines}"
    (tmp_path / "t.txt").write_text("needle\n")
    found = subprocess.run(
        ["rg", "-n", "needle", "t.txt"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert (found.returncode, found.stdout) == (0, "1:needle\n"), f"got {found}"


@needs_binary
def test_a_planted_symlink_is_refused_not_followed(data_home: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (data_home / "codesift").mkdir(parents=True)
    (data_home / "codesift" / "shim").symlink_to(elsewhere)
    got = run_shim()
    assert got.returncode == 2, f"expected exit 2, got {got}"
    assert "is a symlink or not a directory" in got.stderr, got.stderr
    assert "Traceback" not in got.stderr, got.stderr
    assert list(elsewhere.iterdir()) == [], "something was written through the symlink"


@needs_binary
def test_a_loose_directory_of_ones_own_is_made_private(data_home: Path) -> None:
    directory = data_home / "codesift" / "shim"
    directory.mkdir(parents=True)
    directory.chmod(0o777)
    got = run_shim("--print-path")
    mode = stat.S_IMODE(directory.stat().st_mode)
    assert got.returncode == 0 and mode == 0o700, f"mode {oct(mode)}, got {got}"


@needs_binary
@pytest.mark.skipif(os.geteuid() != 0, reason="giving a directory to another user needs root")
def test_another_users_directory_is_refused(data_home: Path) -> None:
    directory = data_home / "codesift" / "shim"
    directory.mkdir(parents=True)
    os.chown(directory, 4242, 4242)
    got = run_shim()
    assert got.returncode == 2 and "belongs to another user" in got.stderr, f"got {got}"


def test_a_build_without_codesift_rg_says_how_to_get_it(
    data_home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(shim_dir, "installed_binary", lambda: tmp_path / "bin" / "codesift-rg")
    code = main(["shim"])
    err = capsys.readouterr().err
    assert code == 2, f"expected exit 2, got {code}: {err}"
    assert "codesift-rg is not installed" in err and "pip install" in err, err
    assert not (data_home / "codesift").exists(), "nothing should be made without the binary"


def test_the_environments_ripgrep_is_recorded_for_the_fallback(
    data_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_binary = tmp_path / "pkg" / "codesift-rg"
    fake_binary.parent.mkdir()
    fake_binary.write_text("#!/bin/sh\n")
    fake_binary.chmod(0o755)
    real = tmp_path / "venv" / "bin" / "rg"
    real.parent.mkdir(parents=True)
    real.write_text("#!/bin/sh\n")
    real.chmod(0o755)
    monkeypatch.setattr(shim_dir, "installed_binary", lambda: fake_binary)
    monkeypatch.setattr(shim_dir, "environment_rg", lambda: real)
    made = shim_dir.make_shim()
    assert os.readlink(made.path / shim_dir.RECORD) == str(real), "record should name the env's rg"
    monkeypatch.setattr(shim_dir, "environment_rg", lambda: None)
    shim_dir.make_shim()
    assert not os.path.lexists(made.path / shim_dir.RECORD), "a stale record should be removed"


@needs_binary
def test_re_pointing_rg_from_another_installation_says_so(data_home: Path, tmp_path: Path) -> None:
    """A shim whose `rg` links to another installation's codesift-rg is re-pointed to this
    one, and stderr says so (old target -> new target); a shim already right says nothing."""
    first = run_shim("--print-path")
    assert first.returncode == 0, first.stderr
    directory = Path(first.stdout.strip())
    other = tmp_path / "other-venv" / "codesift-rg"
    other.parent.mkdir()
    other.write_text("#!/bin/sh\n")
    other.chmod(0o755)
    (directory / "rg").unlink()
    (directory / "rg").symlink_to(other)
    again = run_shim("--print-path")
    assert again.returncode == 0, again.stderr
    assert again.stdout == first.stdout, again.stdout
    expected = f"codesift shim: rg re-pointed: {other} -> {BINARY}\n"
    assert again.stderr == expected, f"expected {expected!r}, got {again.stderr!r}"
    assert os.readlink(directory / "rg") == str(BINARY)
    quiet = run_shim()
    assert quiet.returncode == 0 and "re-pointed" not in quiet.stderr, quiet.stderr


@needs_binary
def test_what_codesift_rg_hands_on_goes_to_ripgrep_15(data_home: Path, tmp_path: Path) -> None:
    """The installed environment's real rg (the `rg` extra: ripgrep>=15.1) is what the shim
    records, so a command line codesift-rg does not serve runs on ripgrep 15, not 14."""
    made = run_shim()
    assert made.returncode == 0, made.stderr
    directory = data_home / "codesift" / "shim"
    env = {**os.environ, "PATH": f"{directory}{os.pathsep}/usr/bin{os.pathsep}/bin"}
    env.pop("CODESIFT_REAL_RG", None)
    # `--generate` is not served (ripgrep's man page): the real rg writes it.
    page = subprocess.run(
        ["rg", "--generate", "man"], capture_output=True, text=True, env=env, timeout=60
    )
    print(page.stderr, page.stdout[:300])
    assert page.returncode == 0, page.stderr
    version = next(line for line in page.stdout.splitlines() if line.startswith(".TH "))
    assert '"15.' in version or " 15." in version, version


@needs_binary
def test_the_real_rg_is_found_through_ripgreps_distribution_without_one_in_scripts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A virtual environment made with `--system-site-packages` that found `ripgrep` in the
    base interpreter has no `rg` among its own scripts: the real rg is then the one the
    installed `ripgrep` distribution lists (its files, where they are)."""
    from importlib import metadata

    listed = [
        Path(str(f.locate()))
        for f in metadata.distribution("ripgrep").files or []
        if f.name == "rg"
    ]
    assert listed, "the test extra installs ripgrep"
    empty_scripts = tmp_path / "bin"
    empty_scripts.mkdir()
    monkeypatch.setattr(shim_dir.sysconfig, "get_path", lambda name: str(empty_scripts))
    found = shim_dir.environment_rg()
    print("listed", listed, "found", found)
    assert found is not None and found.resolve() == listed[0].resolve()
    # A listed rg that is a codesift-rg (a shim link) is never taken for the real one.
    monkeypatch.setattr(shim_dir, "_distribution_rgs", lambda: [BINARY])
    assert shim_dir.environment_rg() is None
