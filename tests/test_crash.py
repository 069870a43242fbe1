"""Crash safety by fault injection: every write, fsync and rename of the atomic writers and
of a store's ingest (its part files, then the manifest switch) failed or crashed in turn.
Whatever step fails, the old state survives whole and nothing partial sits under a final
name; after a crash, the next ingest completes the work and leaves no stray part."""

from __future__ import annotations

import errno
import inspect
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import polars as pl
import pytest

from spades_replay.errors import SpadesReplayError
from spades_replay.plumbing.atomic import atomic_writer, write_bytes_atomic
from spades_replay.store.ingest import ingest
from spades_replay.store.layout import MANIFEST
from spades_replay.store.read import Store

from .conftest import FIXTURES, ROOT
from .support.faults import CRASHED, Faults, Operation, partial_files

TABLES = ("games", "side_hands", "seat_hands", "records", "problems")


def _write_whole(target: Path, data: bytes) -> None:
    write_bytes_atomic(target, data)


def _write_in_pieces(target: Path, data: bytes) -> None:
    with atomic_writer(target) as stream:
        for start in range(0, len(data), 20):
            stream.write(data[start : start + 20])


WRITERS = {"write_bytes_atomic": _write_whole, "atomic_writer": _write_in_pieces}
OLD = b'{"old": "whole"}\n'
NEW = b'{"new": "' + b"n" * 40 + b'"}\n'


def _operations(writer: str, tmp_path: Path) -> list[Operation]:
    target = tmp_path / "count" / "out.json"
    target.parent.mkdir()
    with Faults(target.parent) as faults:
        WRITERS[writer](target, NEW)
    assert target.read_bytes() == NEW
    return faults.seen


@pytest.mark.parametrize("writer", sorted(WRITERS))
@pytest.mark.parametrize("existing", [True, False], ids=["replacing", "new"])
def test_an_atomic_writer_failed_at_any_step_leaves_the_old_file_whole(
    writer: str, existing: bool, tmp_path: Path
) -> None:
    operations = _operations(writer, tmp_path)
    kinds = [operation.kind for operation in operations]
    assert {"write", "fsync", "rename"} <= set(kinds)
    assert kinds[-2:] == ["fsync", "rename"]
    for index, operation in enumerate(operations):
        directory = tmp_path / f"fail-{index}"
        directory.mkdir()
        target = directory / "out.json"
        if existing:
            target.write_bytes(OLD)
        with (
            Faults(directory, fail_at=index),
            pytest.raises(OSError, match="injected fault") as raised,
        ):
            WRITERS[writer](target, NEW)
        assert raised.value.errno == errno.ENOSPC
        found = {path.name: path.read_bytes() for path in directory.iterdir()}
        assert found == ({"out.json": OLD} if existing else {}), (index, operation)


@pytest.mark.slow
@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_an_atomic_writer_crashed_at_any_step_leaves_the_old_file_or_the_new(
    writer: str, tmp_path: Path
) -> None:
    operations = _operations(writer, tmp_path)
    for index, operation in enumerate(operations):
        directory = tmp_path / f"crash-{index}"
        directory.mkdir()
        target = directory / "out.json"
        target.write_bytes(OLD)
        code = (
            "from pathlib import Path\n"
            "from spades_replay.plumbing.atomic import atomic_writer, write_bytes_atomic\n"
            f"{inspect.getsource(WRITERS[writer])}\n"
            f"{WRITERS[writer].__name__}(Path({str(target)!r}), {NEW!r})\n"
        )
        _crash(directory, index, code)
        # the crash came before the rename: the old file, whole; the new one only in a
        # temporary file (never under the final name)
        assert target.read_bytes() == OLD, (index, operation)
        assert {path.name for path in directory.iterdir()} - {"out.json"} == {
            path.name for path in partial_files(directory)
        }


def _crash(root: Path, index: int, code: str) -> None:
    process = subprocess.run(
        [sys.executable, "-m", "tests.support.faults", str(root), str(index), code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert process.returncode == CRASHED, process.stderr


# --- the store ------------------------------------------------------------------------------


def snapshot(directory: Path) -> tuple[bytes, dict[str, list[dict[str, Any]]]]:
    """What a reader of the store sees: its manifest and every table's rows."""
    store = Store.open(directory)
    tables = {table: store.table(table).to_dicts() for table in TABLES}
    return (directory / MANIFEST).read_bytes(), tables


def assert_nothing_partial(directory: Path) -> None:
    """Every file under a final name is whole: the manifest is JSON, each part a parquet
    file that reads; no temporary file is left."""
    orjson.loads((directory / MANIFEST).read_bytes())
    for part in (directory / "parts").rglob("*.parquet"):
        pl.read_parquet(part)
    assert partial_files(directory) == []


def assert_clean(directory: Path) -> None:
    """The part files on disk are exactly those the manifest names; no temporary file."""
    assert partial_files(directory) == []
    referenced = Store.open(directory).manifest.referenced()
    on_disk = {
        path.relative_to(directory).as_posix()
        for path in (directory / "parts").rglob("*")
        if path.is_file()
    }
    assert on_disk == referenced


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A store before and after an ingest that replaces a file's rows, adds a file and
    drops one: the operations of that ingest, in order."""
    root = tmp_path_factory.mktemp("crash")
    corpus = root / "corpus"
    corpus.mkdir()
    two = (FIXTURES / "corpus" / "two-player.jsonl").read_bytes().splitlines(keepends=True)
    four = (FIXTURES / "corpus" / "four-player.jsonl").read_bytes().splitlines(keepends=True)
    (corpus / "a.jsonl").write_bytes(b"".join(two[:3]))
    (corpus / "b.jsonl").write_bytes(b"".join(four[:3]))
    before = root / "before"
    ingest([corpus], before)
    (corpus / "b.jsonl").write_bytes(four[3])
    (corpus / "c.jsonl").write_bytes(b"".join(two[3:5]))
    (corpus / "a.jsonl").unlink()
    after = root / "after"
    shutil.copytree(before, after)
    with Faults(after) as faults:
        ingest([corpus], after, prune=True)
    return {
        "corpus": corpus,
        "before": before,
        "after": after,
        "operations": faults.seen,
    }


def test_the_ingest_writes_parts_then_switches_the_manifest(stores: dict[str, Any]) -> None:
    operations: list[Operation] = stores["operations"]
    manifest = str((stores["after"] / MANIFEST).resolve())
    last = [(operation.kind, operation.path == manifest) for operation in operations[-3:]]
    assert last == [("write", False), ("fsync", False), ("rename", True)]
    parts = [Path(op.path) for op in operations if op.kind == "rename"][:-1]
    assert all(part.suffix == ".parquet" for part in parts)
    # the two files read each have their games, hands and records parts (and no problem)
    tables = sorted(part.parent.name for part in parts)
    assert tables == sorted(2 * ["games", "side_hands", "seat_hands", "records"])
    assert snapshot(stores["after"]) != snapshot(stores["before"])
    assert_clean(stores["after"])


def test_an_ingest_failed_at_any_step_leaves_the_store_as_before(
    stores: dict[str, Any], tmp_path: Path
) -> None:
    before = snapshot(stores["before"])
    after = snapshot(stores["after"])
    for index, operation in enumerate(stores["operations"]):
        target = tmp_path / f"failed-{index}"
        shutil.copytree(stores["before"], target)
        # the error itself (polars wraps the failed write of a part) is the concern of the
        # full-disk tests; here, what it leaves
        failed = (OSError, SpadesReplayError, pl.exceptions.ComputeError)
        with Faults(target, fail_at=index), pytest.raises(failed):
            ingest([stores["corpus"]], target, prune=True)
        assert snapshot(target) == before, (index, operation)
        assert_nothing_partial(target)
        ingest([stores["corpus"]], target, prune=True)
        assert snapshot(target) == after, (index, operation)
        assert_clean(target)
        shutil.rmtree(target)


@pytest.mark.slow
def test_an_ingest_crashed_at_any_step_leaves_the_store_as_before(
    stores: dict[str, Any], tmp_path: Path
) -> None:
    before = snapshot(stores["before"])
    after = snapshot(stores["after"])
    operations: list[Operation] = stores["operations"]
    for index in _crash_points(operations):
        operation = operations[index]
        target = tmp_path / f"crashed-{index}"
        shutil.copytree(stores["before"], target)
        code = (
            "from spades_replay.store.ingest import ingest\n"
            f"ingest([{str(stores['corpus'])!r}], {str(target)!r}, prune=True)\n"
        )
        _crash(target, index, code)
        assert snapshot(target) == before, (index, operation)
        orjson.loads((target / MANIFEST).read_bytes())
        for part in Store.open(target).manifest.referenced():
            pl.read_parquet(target / part)
        # the next ingest completes the work and removes what the crashed one left
        ingest([stores["corpus"]], target, prune=True)
        assert snapshot(target) == after, (index, operation)
        assert_clean(target)
        shutil.rmtree(target)


def _crash_points(operations: list[Operation]) -> list[int]:
    """Where to crash an ingest (a process each, so not at every write): every step of the
    manifest switch, and the first write, the fsync and the rename of the first and the
    last part file."""
    names = [Path(op.path).name for op in operations]
    points = {i for i, name in enumerate(names) if MANIFEST in name}
    parts = [op.path for op in operations if op.kind == "write" and ".parquet" in op.path]
    for temporary in (parts[0], parts[-1]):
        steps = [i for i, op in enumerate(operations) if op.path == temporary]
        points |= {steps[0], steps[-1], steps[-1] + 1}  # first write, fsync, rename
    return sorted(points)
