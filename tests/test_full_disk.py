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
    quiet = [] if args[0] in ("query", "schema") else ["--no-progress"]
    try:
        code = main([*args, *quiet])
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
    """Games OpenSpiel can play (its own rules), as the histories ``export`` writes; beside
    them, a store of the four-player games for ``query``."""
    folder = tmp_path_factory.mktemp("openspiel")
    games, written = folder / "games.jsonl", folder / "histories.jsonl"
    rule = "failed_nil_tricks_help_partner=true"
    simulate = ["simulate", "--variant", "four-player", "--games", "8", "--rule", rule]
    assert main([*simulate, "-o", str(games), "--no-progress"]) == 0
    assert main(["export", "openspiel", str(games), "-o", str(written), "--no-progress"]) in (0, 1)
    assert written.stat().st_size > 0
    assert main(["ingest", str(FOUR), "--store", str(folder / "store"), "--no-progress"]) == 0
    return written


def commands(histories: Path, target: Path) -> dict[str, list[str]]:
    """Each writing command, writing ``target`` (a file; for ingest, a store)."""
    games = histories.with_name("games.jsonl")
    store = histories.with_name("store")
    jsonl = str(target.with_suffix(".jsonl"))
    csv = str(target.with_suffix(".csv"))
    return {
        "ingest": ["ingest", str(FOUR), "--store", str(target)],
        "stats": ["stats", str(FOUR), "-o", csv],
        "migrate": ["migrate", str(FOUR), "--to", "1.1", "-o", jsonl],
        "migrate --in-place": ["migrate", jsonl, "--to", "1.1", "--in-place"],
        "simulate": ["simulate", "--variant", "two-player", "--games", "20", "-o", jsonl],
        "simulate into a folder": [
            *("simulate", "--variant", "two-player", "--games", "3", "-o", str(target)),
        ],
        "export": ["export", "openspiel", str(games), "-o", jsonl],
        "import": ["import", "openspiel", str(histories), "-o", jsonl],
        "rescore": ["rescore", str(FOUR), "--rule", "target_score=300", "-o", csv],
        "ratings": ["ratings", str(FOUR), "-o", csv],
        "query": ["query", "--store", str(store), "SELECT * FROM games", "-o", csv],
        "schema": ["schema", "-o", str(target.with_suffix(".json"))],
    }


COMMANDS = (
    "ingest",
    "stats",
    "migrate",
    "migrate --in-place",
    "simulate",
    "simulate into a folder",
    "export",
    "import",
    "rescore",
    "ratings",
    "query",
    "schema",
)


def written(command: str, target: Path) -> str:
    """What the message of a failed ``command`` names: the store, the folder's file, or the
    file."""
    if command == "ingest":
        return str(target)
    if command == "simulate into a folder":
        return f"game 1 into the folder {target}"
    if command in ("stats", "rescore", "ratings", "query"):
        return str(target.with_suffix(".csv"))
    return str(target.with_suffix(".json" if command == "schema" else ".jsonl"))


def prepare(command: str, folder: Path, target: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An old target to keep: a store of the two-player games, the file ``migrate
    --in-place`` replaces (the four-player games), or a file of old bytes."""
    if command == "ingest":
        assert run(capsys, "ingest", str(TWO), "--store", str(target))[0] == 0
    elif command == "migrate --in-place":
        shutil.copyfile(FOUR, target.with_suffix(".jsonl"))
    elif command == "simulate into a folder":
        target.mkdir()
        (target / "old.json").write_bytes(b"the old contents\n")
    else:
        suffix = {"schema": ".json"}.get(command, ".jsonl")
        if command in ("stats", "rescore", "ratings", "query"):
            suffix = ".csv"
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
    assert written(command, target) in err
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
    assert written(command, target) in err
    assert "is left as it was" in err
    assert "Traceback" not in err
    assert contents(folder) == before


def test_simulate_into_a_folder_says_which_games_it_wrote_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder gets one file per game, each written atomically: a disk that fills up at
    the third game leaves the first two whole, says so, and changes nothing else."""
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "old.json").write_bytes(b"the old contents\n")
    synced = 0
    real = os.fsync

    def fsync(fd: int) -> None:
        nonlocal synced
        synced += 1
        if synced == 3:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    code, err = run(
        capsys, "simulate", "--variant", "two-player", "--games", "5", "-o", str(folder)
    )
    monkeypatch.undo()
    assert code == 2, err
    assert f"cannot write game 3 into the folder {folder}: No space left on device" in err
    assert f"the 2 game(s) before it were written whole; nothing else in {folder}" in err
    assert "Traceback" not in err
    files = sorted(path.name for path in folder.iterdir())
    assert files[0] == "old.json"
    assert len(files) == 3
    assert (folder / "old.json").read_bytes() == b"the old contents\n"
    for name in files[1:]:
        assert main(["validate", "--no-progress", str(folder / name)]) == 0
