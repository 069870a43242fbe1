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
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from spades_replay.errors import Code, Problem, SpadesReplayError
from spades_replay.plumbing.atomic import write_bytes_atomic
from spades_replay.text import safe

STORE_VERSION = 1
"""The version of the layout and the tables this code reads and writes (docs/store.md)."""

MANIFEST = "manifest.json"
LOCK = ".lock"
PARTS = "parts"
KIND = "spades-replay store"

TABLES = ("games", "side_hands", "seat_hands", "seat_analysis", "records", "problems")
"""Every table a store can hold (``seat_analysis`` only when ingested with the analysis)."""


class StoreError(SpadesReplayError):
    """A store cannot be opened, locked or written (the commands exit 2 with the message).
    ``code`` is :attr:`~spades_replay.errors.Code.STORE_DAMAGED` for a damaged store."""

    def __init__(self, message: str, code: Code | None = None) -> None:
        self.code = code
        super().__init__(message if code is None else f"{message} [{code}]")


def damaged(directory: Path, what: str) -> StoreError:
    """The error of a damaged store: ``what`` is wrong, and how to rebuild it."""
    return StoreError(
        f"the store {safe(str(directory), 500)} is damaged: {what}; {rebuild_hint(directory)}",
        Code.STORE_DAMAGED,
    )


class PartFile(NamedTuple):
    """A part file as ingest wrote it: its ``size`` in bytes and its ``rows``."""

    size: int
    rows: int


@dataclass(frozen=True)
class SourceEntry:
    """One file in the store: where it is (``path`` as given to ingest, and ``resolved``),
    what it was when read (size, modification time, sha256: ``None`` for a file that could
    not be read at all), what it held, the problem that stopped its reading (``io_error``, a
    problem as JSON data), its part files, and each part file's size and rows as written
    (``part_files``; ``None`` in a manifest written before they were kept, whose parts'
    footers are read instead)."""

    path: str
    resolved: str
    size: int
    mtime_ns: int
    sha256: str | None
    records: int
    games: int
    invalid: int
    parts: dict[str, list[str]]
    io_error: dict[str, Any] | None = None
    part_files: dict[str, PartFile] | None = None

    def problem(self) -> Problem | None:
        """The problem that stopped the file's reading, as its readers report it."""
        if self.io_error is None:
            return None
        return Problem(
            Code(str(self.io_error["code"])), str(self.io_error["message"]), source=self.path
        )

    def to_dict(self) -> dict[str, Any]:
        """The entry as JSON data."""
        data: dict[str, Any] = {
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
        if self.part_files is not None:
            data["part_files"] = {name: part._asdict() for name, part in self.part_files.items()}
        return data

    @classmethod
    def of(cls, data: dict[str, Any]) -> SourceEntry:
        """The entry of its JSON data, as :func:`checked_source` left it."""
        return cls(
            path=data["path"],
            resolved=data["resolved"],
            size=data["size"],
            mtime_ns=data["mtime_ns"],
            sha256=data["sha256"],
            records=data["records"],
            games=data["games"],
            invalid=data["invalid"],
            parts={table: list(names) for table, names in data["parts"].items()},
            io_error=data.get("io_error"),
            part_files=None
            if data.get("part_files") is None
            else {name: PartFile(**part) for name, part in data["part_files"].items()},
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
    return f"rebuild it: spades-replay ingest PATH... --store {safe(str(directory), 500)} --rebuild"


MAX_COUNT = 2**63 - 1
"""The largest count or size a manifest may hold (a 64-bit integer, as every table stores)."""

_HEX = frozenset("0123456789abcdef")


def _shown(value: object) -> str:
    try:
        text = orjson.dumps(value, default=str).decode()
    except TypeError:  # an integer beyond 64 bits: JSON read by orjson never holds one
        text = str(value)
    return safe(text, 80)


def _integer(root: Path, where: str, value: object, low: int = 0) -> int:
    if type(value) is not int or not low <= value <= MAX_COUNT:
        lowest = "-2^63" if low < 0 else str(low)
        raise damaged(
            root, f"{where} is {_shown(value)}, not a whole number from {lowest} to 2^63-1"
        )
    return value


def _text(root: Path, where: str, value: object) -> str:
    if not isinstance(value, str) or not value:
        raise damaged(root, f"{where} is {_shown(value)}, not a name")
    return value


def part_name_problem(name: str, table: str) -> str | None:
    """What is wrong with ``name`` as a part file of ``table`` named by the manifest (it
    must be ``parts/<table>/<file>.parquet``, relative, inside the store), or ``None``."""
    pieces = name.split("/")
    if name.startswith("/") or os.path.isabs(name):
        return "is an absolute path, outside the store"
    if ".." in pieces or "." in pieces or "" in pieces or "\\" in name or "\0" in name:
        return "leaves the store (a '..', '.' or empty step)"
    if len(pieces) != 3 or pieces[:2] != [PARTS, table] or not pieces[2].endswith(".parquet"):
        return f"is not a part file of {table} ({PARTS}/{table}/NAME.parquet)"
    return None


def _settings(root: Path, data: object) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise damaged(root, f"settings is {_shown(data)}, not an object")
    if type(data.get("analysis")) is not bool:
        raise damaged(
            root, f"settings.analysis is {_shown(data.get('analysis'))}, not true or false"
        )
    limits = data.get("limits")
    if not isinstance(limits, dict):
        raise damaged(root, f"settings.limits is {_shown(limits)}, not an object")
    for name in ("record_bytes", "depth", "string_chars"):
        _integer(root, f"settings.limits.{name}", limits.get(name), 1)
    time_cap = data.get("time_cap")
    if time_cap is not None and (
        type(time_cap) not in (int, float) or not 0 <= time_cap <= MAX_COUNT
    ):
        raise damaged(root, f"settings.time_cap is {_shown(time_cap)}, not a number of seconds")
    return dict(data)


def checked_source(root: Path, number: int, data: object, analysis: bool) -> dict[str, Any]:
    """Source ``number`` of a manifest, every field checked: right types, possible counts,
    part names confined to the store. Raises the ``store.damaged`` :class:`StoreError`."""
    where = f"sources[{number}]"
    if not isinstance(data, dict):
        raise damaged(root, f"{where} is {_shown(data)}, not an object")
    _text(root, f"{where}.path", data.get("path"))
    _text(root, f"{where}.resolved", data.get("resolved"))
    _integer(root, f"{where}.size", data.get("size"))
    _integer(root, f"{where}.mtime_ns", data.get("mtime_ns"), -MAX_COUNT - 1)
    digest = data.get("sha256")
    unread = digest is None and data.get("io_error") is not None  # it could not be hashed
    if not unread and (not isinstance(digest, str) or len(digest) != 64 or not set(digest) <= _HEX):
        raise damaged(root, f"{where}.sha256 is {_shown(digest)}, not a sha256 digest")
    records = _integer(root, f"{where}.records", data.get("records"))
    games = _integer(root, f"{where}.games", data.get("games"))
    invalid = _integer(root, f"{where}.invalid", data.get("invalid"))
    if games + invalid != records:
        raise damaged(
            root,
            f"{where} counts {records} record(s) but {games} game(s) and {invalid} invalid "
            "record(s); each record is one or the other",
        )
    problem = data.get("io_error")
    if problem is not None and (
        not isinstance(problem, dict)
        or problem.get("code") not in {code.value for code in Code}
        or not isinstance(problem.get("message"), str)
    ):
        raise damaged(root, f"{where}.io_error is {_shown(problem)}, not a problem")
    parts = data.get("parts")
    if not isinstance(parts, dict):
        raise damaged(root, f"{where}.parts is {_shown(parts)}, not an object")
    for table, names in parts.items():
        if table not in TABLES or (table == "seat_analysis" and not analysis):
            raise damaged(root, f"{where}.parts names a table {_shown(table)} the store has not")
        if not isinstance(names, list):
            raise damaged(root, f"{where}.parts.{table} is {_shown(names)}, not a list")
        for name in names:
            if not isinstance(name, str):
                raise damaged(root, f"{where}.parts.{table} holds {_shown(name)}, not a name")
            wrong = part_name_problem(name, table)
            if wrong is not None:
                raise damaged(root, f"part {safe(name, 300)} {wrong}")
    _check_recorded_parts(root, where, data.get("part_files"))
    return data


def _check_recorded_parts(root: Path, where: str, files: object) -> None:
    """A source's ``part_files``, when it has them: each a size and a count of rows."""
    if files is None:
        return
    if not isinstance(files, dict):
        raise damaged(root, f"{where}.part_files is {_shown(files)}, not an object")
    for name, part in files.items():
        place = f"{where}.part_files[{_shown(name)}]"
        if not isinstance(part, dict) or set(part) != set(PartFile._fields):
            raise damaged(root, f"{place} is {_shown(part)}, not a size and rows")
        for key in PartFile._fields:
            _integer(root, f"{place}.{key}", part[key])


def check_part_files(root: Path, manifest: Manifest) -> None:
    """Every part file the manifest names is a regular file inside the store, reached
    through no symbolic link; a part is named once. Raises the ``store.damaged``
    :class:`StoreError` naming the first that is not."""
    seen: set[str] = set()
    base = os.path.realpath(root)
    real_folders: dict[str, bool] = {}
    for name in (
        name for source in manifest.sources for names in source.parts.values() for name in names
    ):
        if name in seen:
            raise damaged(root, f"part {safe(name, 300)} is named twice")
        seen.add(name)
        path = os.path.join(base, name)
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            raise damaged(root, f"part {safe(name, 300)} is missing") from None
        except OSError as error:
            raise damaged(
                root, f"part {safe(name, 300)} cannot be read: {error.strerror}"
            ) from None
        # each folder resolved once (a part's own path: 60 ms at 1,400 parts)
        folder = os.path.dirname(path)
        real = real_folders.get(folder)
        if real is None:
            real = real_folders[folder] = os.path.realpath(folder) == folder
        if stat.S_ISLNK(mode) or not real:
            raise damaged(root, f"part {safe(name, 300)} is reached through a symbolic link")
        if not stat.S_ISREG(mode):
            raise damaged(root, f"part {safe(name, 300)} is not a regular file")


def check_parts_directory(root: Path) -> None:
    """``DIR/parts`` and its table folders are real folders of the store (no symbolic link
    out, through which an ingest would write or clean elsewhere)."""
    for folder in (root / PARTS, *(root / PARTS / table for table in TABLES)):
        try:
            mode = os.lstat(folder).st_mode
        except FileNotFoundError:
            continue
        except OSError as error:
            raise damaged(
                root, f"{folder.relative_to(root)} cannot be read: {error.strerror}"
            ) from None
        if not stat.S_ISDIR(mode):
            raise damaged(
                root, f"{folder.relative_to(root).as_posix()} is not a folder of the store"
            )


def clear_for_rebuild(root: Path) -> None:
    """Make ``root`` ready for an ingest that rebuilds it: refuse a directory whose
    manifest is another program's, and remove the symbolic links that stand for ``parts``
    or its table folders (the links only: what they point to is never touched)."""
    raw = _manifest_bytes(root)
    if raw is not None:
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError:
            data = None
        if isinstance(data, dict) and data.get("kind") != KIND:
            raise StoreError(
                f"{safe(str(root), 500)} is not a spades-replay store ({MANIFEST} is not its "
                "manifest): it is not rebuilt"
            )
    for folder in (root / PARTS, *(root / PARTS / table for table in TABLES)):
        with contextlib.suppress(OSError):
            if not stat.S_ISDIR(os.lstat(folder).st_mode):
                folder.unlink()


def _parsed(root: Path, data: object) -> Manifest:
    path = root / MANIFEST
    if not isinstance(data, dict) or data.get("kind") != KIND:
        raise StoreError(
            f"{safe(str(root), 500)} is not a spades-replay store ({MANIFEST} is not its manifest)"
        )
    version = data.get("store_version")
    if version != STORE_VERSION or type(version) is not int:
        raise StoreError(
            f"{safe(str(root), 500)} is a store of version {_shown(version)}; this "
            f"spades-replay reads store version {STORE_VERSION}: {rebuild_hint(root)}"
        )
    settings = _settings(root, data.get("settings"))
    sources = data.get("sources")
    if not isinstance(sources, list):
        raise damaged(root, f"{MANIFEST}'s sources is {_shown(sources)}, not a list")
    entries = tuple(
        SourceEntry.of(checked_source(root, number, entry, settings["analysis"]))
        for number, entry in enumerate(sources)
    )
    for name in ("games", "records"):
        if sum(getattr(entry, name) for entry in entries) > MAX_COUNT:
            raise damaged(root, f"the sources of {path.name} count more than 2^63-1 {name}")
    if len({entry.resolved for entry in entries}) != len(entries):
        raise damaged(root, "a file is named by two sources")
    return Manifest(settings, entries)


def read_manifest(directory: str | os.PathLike[str]) -> Manifest | None:
    """The manifest of the store in ``directory``; ``None`` when there is no store yet.

    Raises :class:`StoreError` for a directory that is not a store or a store of another
    ``store_version``, and the ``store.damaged`` one for a manifest that is not what
    ``ingest`` writes (a field of the wrong type, impossible counts, a part path that leaves
    the store) or names a part file that is missing, not a regular file, or reached through
    a symbolic link.
    """
    root = Path(directory)
    attempts = 1
    while (raw := _manifest_bytes(root)) is not None:
        try:
            return _checked(root, raw)
        except StoreError as error:
            # an ingest may have replaced the manifest and removed the parts it no longer
            # names while this one was checked: then the new one is read
            if error.code is not Code.STORE_DAMAGED or attempts == READ_ATTEMPTS:
                raise
            if _manifest_bytes(root) == raw:
                raise
            attempts += 1
    return None


READ_ATTEMPTS = 3
"""How many times a reader reads a manifest that an ingest keeps replacing while it checks."""


def _manifest_bytes(root: Path) -> bytes | None:
    path = root / MANIFEST
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        raise StoreError(f"{safe(str(root), 500)} is not a directory") from None
    except OSError as error:
        raise StoreError(f"cannot read {safe(str(path), 500)}: {error.strerror}") from None


def _checked(root: Path, raw: bytes) -> Manifest:
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise damaged(root, f"{MANIFEST} is not JSON") from None
    manifest = _parsed(root, data)
    check_parts_directory(root)
    check_part_files(root, manifest)
    return manifest


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


PART_NAME = re.compile(r"[0-9a-f]{16}-[0-9a-f]{16}-[0-9]{5}\.parquet")
"""The name of a part file ``ingest`` writes (the file's key, the content digest, the chunk)."""
PARTIAL_NAME = re.compile(r"\.[0-9a-f]{16}-[0-9a-f]{16}-[0-9]{5}\.parquet\.[^/]*\.partial")
"""The name of a part file being written (removed when its writer is killed)."""
MANIFEST_PARTIAL_NAME = re.compile(r"\.manifest\.json\.[^/]*\.partial")
"""The name of a manifest being written (removed when its writer is killed)."""


def part_files(directory: Path) -> Iterator[Path]:
    """Every part file ``ingest`` made under ``DIR/parts`` (referenced or not), temporary
    ones included: regular files of its own names, in real folders of the store. Nothing is
    reached through a symbolic link, and no other file is listed."""
    parts = directory / PARTS
    if not _is_real_directory(parts):
        return
    for table in TABLES:
        folder = parts / table
        if not _is_real_directory(folder):
            continue
        for path in sorted(folder.iterdir()):
            named = PART_NAME.fullmatch(path.name) or PARTIAL_NAME.fullmatch(path.name)
            if named and _is_regular(path):
                yield path


def _is_real_directory(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def remove_unreferenced(directory: Path, manifest: Manifest) -> int:
    """Remove every part file of ``ingest``'s own making that the manifest does not name,
    and the temporary file of a manifest whose writer was killed; return how many part files
    were removed. Symbolic links and files of other names are left alone."""
    for stale in directory.glob(f".{MANIFEST}.*.partial"):
        if MANIFEST_PARTIAL_NAME.fullmatch(stale.name) and _is_regular(stale):
            with contextlib.suppress(FileNotFoundError):
                stale.unlink()
    keep = manifest.referenced()
    removed = 0
    for path in part_files(directory):
        name = path.relative_to(directory).as_posix()
        if name not in keep:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
                removed += 1
    return removed
