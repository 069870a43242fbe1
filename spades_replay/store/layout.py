"""The store's layout on disk: ``manifest.json``, the part files, the lock.

::

    DIR/manifest.json                       store_version, settings, and every source file
    DIR/parts/<table>/<key>-<digest>-<n>.parquet
    DIR/.lock                               held (flock) by the ingest writing the store

The manifest is the store: a part file that it does not name is not part of the store (an
ingest killed before it replaced the manifest leaves such files; the next ingest removes
them). It is replaced atomically, so a reader sees the old store or the new one.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from spades_replay.errors import SpadesReplayError
from spades_replay.plumbing.atomic import write_bytes_atomic

STORE_VERSION = 1
"""The version of the layout and the tables this code reads and writes (docs/store.md)."""

MANIFEST = "manifest.json"
LOCK = ".lock"
PARTS = "parts"
KIND = "spades-replay store"

TABLES = ("games", "side_hands", "seat_hands", "seat_analysis", "records", "problems")
"""Every table a store can hold (``seat_analysis`` only when ingested with the analysis)."""


class StoreError(SpadesReplayError):
    """A store cannot be opened, locked or written (the commands exit 2 with the message)."""


@dataclass(frozen=True)
class SourceEntry:
    """One file in the store: where it is (``path`` as given to ingest, and ``resolved``),
    what it was when read (size, modification time, sha256), what it held, the problem that
    stopped its reading (``io_error``, a problem as JSON data), and its part files."""

    path: str
    resolved: str
    size: int
    mtime_ns: int
    sha256: str
    records: int
    games: int
    invalid: int
    parts: dict[str, list[str]]
    io_error: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The entry as JSON data."""
        return {
            "path": self.path,
            "resolved": self.resolved,
            "size": self.size,
            "mtime_ns": self.mtime_ns,
            "sha256": self.sha256,
            "records": self.records,
            "games": self.games,
            "invalid": self.invalid,
            "io_error": self.io_error,
            "parts": {table: list(files) for table, files in sorted(self.parts.items())},
        }

    @classmethod
    def of(cls, data: dict[str, Any]) -> SourceEntry:
        """The entry of its JSON data."""
        return cls(
            path=str(data["path"]),
            resolved=str(data["resolved"]),
            size=int(data["size"]),
            mtime_ns=int(data["mtime_ns"]),
            sha256=str(data["sha256"]),
            records=int(data["records"]),
            games=int(data["games"]),
            invalid=int(data["invalid"]),
            parts={
                str(table): [str(name) for name in names] for table, names in data["parts"].items()
            },
            io_error=data.get("io_error"),
        )


@dataclass(frozen=True)
class Manifest:
    """What the store holds: the settings every file was read with (``analysis``, the input
    limits) and the source files, in the order their games are numbered."""

    settings: dict[str, Any]
    sources: tuple[SourceEntry, ...] = ()
    store_version: int = STORE_VERSION

    def to_bytes(self) -> bytes:
        """The manifest as stable, indented JSON."""
        data = {
            "kind": KIND,
            "store_version": self.store_version,
            "settings": self.settings,
            "sources": [source.to_dict() for source in self.sources],
        }
        return orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"

    def referenced(self) -> set[str]:
        """Every part file the manifest names (relative to the store)."""
        return {
            name for source in self.sources for names in source.parts.values() for name in names
        }

    @property
    def analysis(self) -> bool:
        """Whether the store holds the double-dummy ``seat_analysis`` table."""
        return bool(self.settings.get("analysis"))


def rebuild_hint(directory: Path) -> str:
    """How to make a store anew."""
    return f"remove {directory} and ingest again: spades-replay ingest PATH... --store {directory}"


def read_manifest(directory: str | os.PathLike[str]) -> Manifest | None:
    """The manifest of the store in ``directory``; ``None`` when there is no store yet.

    Raises :class:`StoreError` for a directory that is not a store, a damaged manifest, or a
    store of another ``store_version``.
    """
    root = Path(directory)
    path = root / MANIFEST
    try:
        data = orjson.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        raise StoreError(f"{root} is not a directory") from None
    except OSError as error:
        raise StoreError(f"cannot read {path}: {error.strerror}") from None
    except orjson.JSONDecodeError:
        raise StoreError(f"{path} is damaged (not JSON); {rebuild_hint(root)}") from None
    if not isinstance(data, dict) or data.get("kind") != KIND:
        raise StoreError(f"{root} is not a spades-replay store ({MANIFEST} is not its manifest)")
    version = data.get("store_version")
    if version != STORE_VERSION:
        raise StoreError(
            f"{root} is a store of version {version}; this spades-replay reads store version "
            f"{STORE_VERSION}: {rebuild_hint(root)}"
        )
    try:
        sources = tuple(SourceEntry.of(entry) for entry in data["sources"])
        settings = dict(data["settings"])
    except (KeyError, TypeError, ValueError, AttributeError):
        raise StoreError(f"{path} is damaged (a field is missing); {rebuild_hint(root)}") from None
    return Manifest(settings, sources)


def open_manifest(directory: str | os.PathLike[str]) -> Manifest:
    """The manifest of an existing store; :class:`StoreError` when there is none."""
    manifest = read_manifest(directory)
    if manifest is None:
        root = Path(directory)
        if not root.exists():
            raise StoreError(f"no such store: {root}")
        raise StoreError(f"{root} is not a spades-replay store (no {MANIFEST})")
    return manifest


def write_manifest(directory: Path, manifest: Manifest) -> None:
    """Replace the manifest atomically: the switch from the old store to the new one."""
    write_bytes_atomic(directory / MANIFEST, manifest.to_bytes())


@dataclass
class StoreLock:
    """The exclusive lock of a store (``flock`` on ``DIR/.lock``), held while an ingest
    writes it; released when the process ends, however it ends."""

    directory: Path
    wait: bool = False
    on_wait: Callable[[], None] | None = None
    _fd: int | None = field(default=None, init=False)

    def __enter__(self) -> StoreLock:
        path = self.directory / LOCK
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            raise StoreError(f"cannot lock {path}: {error.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            if error.errno not in (errno.EWOULDBLOCK, errno.EAGAIN) or not self.wait:
                os.close(fd)
                if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                    raise StoreError(
                        f"another ingest is writing {self.directory}; run again when it is "
                        "done, or with --wait to wait for it"
                    ) from None
                raise StoreError(f"cannot lock {path}: {error.strerror}") from None
            if self.on_wait is not None:
                self.on_wait()
            fcntl.flock(fd, fcntl.LOCK_EX)
        self._fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


def part_files(directory: Path) -> Iterator[Path]:
    """Every file under ``DIR/parts`` (referenced or not), temporary ones included."""
    parts = directory / PARTS
    if not parts.is_dir():
        return
    for table in sorted(parts.iterdir()):
        if table.is_dir():
            yield from sorted(table.iterdir())


def remove_unreferenced(directory: Path, manifest: Manifest) -> int:
    """Remove every part file the manifest does not name; return how many were removed."""
    keep = manifest.referenced()
    removed = 0
    for path in part_files(directory):
        name = path.relative_to(directory).as_posix()
        if name not in keep:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
                removed += 1
    return removed
