"""Every command that writes survives a full disk and a failed rename: exit 2, a message
that names the target (and, for a full disk, the disk), and the target exactly as before.

Two ways to fail a write: a real full disk (a small tmpfs, mounted where the machine allows
it: root on Linux), and faults injected into the writers (``os.fsync`` failing with "No
space left on device", ``os.replace`` failing with "Invalid cross-device link"), which run
everywhere.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from spades_replay.cli import main

from .conftest import FIXTURES

FOUR = FIXTURES / "corpus" / "four-player.jsonl"
TWO = FIXTURES / "corpus" / "two-player.jsonl"

Fault = Callable[[pytest.MonkeyPatch], None]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    try:
        code = main([*args, "--no-progress"])
    except SystemExit as stop:
        code = int(stop.code or 0)
    return code, capsys.readouterr().err


def contents(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` and its bytes (hidden ones too)."""
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def fill(folder: Path) -> None:
    """Leave no room on the disk that holds ``folder``."""
    with open(folder / ".filler", "wb", buffering=0) as stream, contextlib.suppress(OSError):
        while True:
            stream.write(b"\0" * 4096)
    assert shutil.disk_usage(folder).free == 0


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MiB tmpfs, mounted for the test (skipped where the machine does not allow it)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here (needs root on Linux): {done.stderr}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


def _no_space(monkeypatch: pytest.MonkeyPatch) -> None:
    def fsync(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", fsync)


def _no_rename(monkeypatch: pytest.MonkeyPatch) -> None:
    def replace(source: object, target: object) -> None:
        raise OSError(errno.EXDEV, os.strerror(errno.EXDEV))

    monkeypatch.setattr(os, "replace", replace)


FAULTS = {"no-space": _no_space, "no-rename": _no_rename}


@pytest.fixture(scope="module")
def histories(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Games OpenSpiel can play (its own rules), as the histories ``export`` writes."""
    folder = tmp_path_factory.mktemp("openspiel")
    games, written = folder / "games.jsonl", folder / "histories.jsonl"
    rule = "failed_nil_tricks_help_partner=true"
    simulate = ["simulate", "--variant", "four-player", "--games", "8", "--rule", rule]
    assert main([*simulate, "-o", str(games), "--no-progress"]) == 0
    assert main(["export", "openspiel", str(games), "-o", str(written), "--no-progress"]) in (0, 1)
    assert written.stat().st_size > 0
    return written


def commands(histories: Path, target: Path) -> dict[str, list[str]]:
    """Each writing command, writing ``target`` (a file; for ingest, a store)."""
    games = histories.with_name("games.jsonl")
    jsonl = str(target.with_suffix(".jsonl"))
    return {
        "ingest": ["ingest", str(FOUR), "--store", str(target)],
        "stats": ["stats", str(FOUR), "-o", str(target.with_suffix(".csv"))],
        "migrate": ["migrate", str(FOUR), "--to", "1.1", "-o", jsonl],
        "simulate": ["simulate", "--variant", "two-player", "--games", "20", "-o", jsonl],
        "export": ["export", "openspiel", str(games), "-o", jsonl],
        "import": ["import", "openspiel", str(histories), "-o", jsonl],
    }


COMMANDS = ("ingest", "stats", "migrate", "simulate", "export", "import")


def prepare(command: str, folder: Path, target: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An old target to keep: a store of the two-player games, or a file of old bytes."""
    if command == "ingest":
        assert run(capsys, "ingest", str(TWO), "--store", str(target))[0] == 0
    else:
        suffix = ".csv" if command == "stats" else ".jsonl"
        target.with_suffix(suffix).write_bytes(b"the old contents\n")


@pytest.mark.parametrize("command", COMMANDS)
def test_a_full_disk_leaves_the_target_as_it_was(
    command: str, small_disk: Path, histories: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = small_disk / "out"
    argv = commands(histories, target)[command]
    prepare(command, small_disk, target, capsys)
    fill(small_disk)
    before = contents(small_disk)
    code, err = run(capsys, *argv)
    assert code == 2, err
    assert "No space left on device" in err
    assert f"the disk mounted at {small_disk}" in err
    assert str(target) in err
    assert "is left as it was" in err
    assert "Traceback" not in err
    assert contents(small_disk) == before


def test_ingest_into_a_new_store_on_a_full_disk_makes_none(
    small_disk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fill(small_disk)
    code, err = run(capsys, "ingest", str(FOUR), "--store", str(small_disk / "store"))
    assert code == 2, err
    assert "cannot write the store" in err
    assert sorted(path.name for path in small_disk.iterdir()) == [".filler"]


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("command", COMMANDS)
def test_a_failed_write_or_rename_leaves_the_target_as_it_was(
    command: str,
    fault: str,
    tmp_path: Path,
    histories: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    target = folder / "out"
    argv = commands(histories, target)[command]
    prepare(command, folder, target, capsys)
    before = contents(folder)
    FAULTS[fault](monkeypatch)
    code, err = run(capsys, *argv)
    monkeypatch.undo()
    assert code == 2, err
    reason = "No space left on device" if fault == "no-space" else "Invalid cross-device link"
    assert reason in err
    assert str(target) in err
    assert "is left as it was" in err
    assert "Traceback" not in err
    assert contents(folder) == before
