"""Atomic writes: all or nothing, and the permissions a plain open would give."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from spades_replay.plumbing.atomic import atomic_writer, write_bytes_atomic


def write_then_fail(target: Path, data: bytes, error: BaseException) -> None:
    with atomic_writer(target) as stream:
        stream.write(data)
        raise error


def test_interrupted_write_leaves_nothing(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    with pytest.raises(KeyboardInterrupt):
        write_then_fail(target, b"half a line", KeyboardInterrupt())
    assert list(tmp_path.iterdir()) == []


def test_interrupted_rewrite_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError):
        write_then_fail(target, b"new and partial", RuntimeError("disk full"))
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_new_files_get_the_umask_permissions(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    try:
        write_bytes_atomic(tmp_path / "new.json", b"{}")
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == 0o644


def test_replaced_files_keep_their_permissions(tmp_path: Path) -> None:
    target = tmp_path / "kept.json"
    target.write_bytes(b"old")
    target.chmod(0o640)
    write_bytes_atomic(target, b"new")
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
