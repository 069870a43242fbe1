"""``ingest``: validate every record under some paths once and write the store.

Incremental: a file whose path, size and modification time are those the manifest holds is
not read again; one whose size or time differ is hashed, and read again only when its sha256
differs too. A file read again has all its old rows replaced. A file that cannot be read (not
even hashed) is remembered without a sha256, with the problem, so that the store's readers
report it as ``stats`` does; the next ingest that names it tries it again.

Crash-safe: the part files of every file read are written first (each atomically), then the
manifest is replaced atomically (the switch), then the part files it no longer names are
removed. A run killed at any moment leaves the old manifest (and some unnamed part files,
removed by the next ingest) or the new one. A run that fails before the switch (a full disk,
a failed rename, an interrupt) removes the part files it wrote, and the store's folder if it
made it: the store is left exactly as it was.

Reading goes through :func:`~spades_replay.replayer.validate.run_task` on
:func:`~spades_replay.plumbing.parallel.ordered_map` (one task per record file, per piece of
at most :data:`~spades_replay.plumbing.corpus.PIECE_LINES` lines and 8 MiB of a corpus, as
every command reads them): the rows are those of
:class:`~spades_replay.stats.collect.RowSink`, exactly as ``stats`` builds them, and the rows
of every :data:`PART_PIECES` pieces of a file (its ``problems`` too) are written as part
files as soon as they are done, so memory is bounded by the pieces in flight and held,
whatever the records hold.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import io
import os
import shutil
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from spades_replay.errors import Code, Problem
from spades_replay.plumbing.atomic import atomic_writer
from spades_replay.plumbing.corpus import (
    CHUNK_BYTES,
    PIECE_LINES,
    STDIN,
    Task,
    expand,
    pieces,
    plan,
    read_here,
)
from spades_replay.plumbing.limits import DEFAULT_LIMITS, Limits
from spades_replay.plumbing.parallel import Jobs, ProgressCallback, ordered_map, workers
from spades_replay.replayer.validate import RecordReport, TaskResult, run_task
from spades_replay.stats.collect import RowSink
from spades_replay.stats.double_dummy import analysis_table
from spades_replay.store.columns import PROBLEM_SCHEMA, RECORD_SCHEMA
from spades_replay.store.layout import (
    MANIFEST,
    PARTS,
    STORE_VERSION,
    Manifest,
    PartFile,
    SourceEntry,
    StoreError,
    StoreLock,
    clear_for_rebuild,
    read_manifest,
    remove_unreferenced,
    write_manifest,
)
from spades_replay.store.read import verify_parts, with_part_files

PART_PIECES = 4
"""How many pieces of a file one part file holds (its last part may hold fewer). Every query
opens every part and every command that opens a store looks at each part's size, so fewer,
larger parts make both faster, and writing them makes the ingest faster too; the rows held
until they are written cost memory (some 15 MB a piece of two-player games)."""


@dataclass(frozen=True)
class Settings:
    """What every file of a store is read with: the double-dummy analysis or not (and its
    time cap per hand), and the input limits."""

    analysis: bool = False
    limits: Limits = DEFAULT_LIMITS
    time_cap: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """The settings as manifest data."""
        data: dict[str, Any] = {
            "analysis": self.analysis,
            "limits": self.limits._asdict(),
        }
        if self.analysis:
            data["time_cap"] = self.time_cap
        return data


@dataclass(frozen=True, slots=True)
class _Worker:
    """What a worker process runs for each task (picklable)."""

    limits: Limits
    keep_hands: bool

    def __call__(self, task: Task) -> TaskResult:
        return run_task(task, False, self.limits, RowSink(self.keep_hands), offsets=True)


@dataclass(frozen=True)
class _File:
    """A file named by this run, as found on disk; ``unreadable`` is the problem that kept
    even its size and time from being read (then both are 0)."""

    path: str
    resolved: str
    size: int
    mtime_ns: int
    sha256: str | None = None
    unreadable: Problem | None = None

    @property
    def key(self) -> str:
        return hashlib.sha256(self.resolved.encode()).hexdigest()[:16]


@dataclass
class IngestReport:
    """What an ingest did: files named, read and unchanged, records read, the store's totals,
    the inputs that could not be read, and whether a store was written (``written``: not
    when there was none and no path named a file)."""

    files: int = 0
    read: int = 0
    unchanged: int = 0
    pruned: int = 0
    records_read: int = 0
    invalid_read: int = 0
    invalid_named: int = 0
    games: int = 0
    records: int = 0
    invalid: int = 0
    removed_parts: int = 0
    io_errors: list[Problem] = field(default_factory=list)
    codes: dict[str, int] = field(default_factory=dict)
    written: bool = True


@dataclass
class _Reading:
    """A file being read: its counts so far and its part files."""

    file: _File
    digest: str
    games: int = 0
    lines: int = 0
    records: int = 0
    invalid: int = 0
    next_part: int = 0
    parts: dict[str, list[str]] = field(default_factory=dict)
    part_files: dict[str, PartFile] = field(default_factory=dict)
    io_error: dict[str, Any] | None = None
    held: dict[str, list[pl.DataFrame]] = field(default_factory=dict)

    def entry(self) -> SourceEntry:
        assert self.file.sha256 is not None
        return SourceEntry(
            path=self.file.path,
            resolved=self.file.resolved,
            size=self.file.size,
            mtime_ns=self.file.mtime_ns,
            sha256=self.file.sha256,
            records=self.records,
            games=self.games,
            invalid=self.invalid,
            parts=self.parts,
            io_error=self.io_error,
            part_files=self.part_files,
        )


def _sha256(path: str) -> str:
    with open(path, "rb") as stream:
        return hashlib.file_digest(stream, "sha256").hexdigest()


def _io_error(path: str, error: OSError) -> Problem:
    return Problem(
        Code.IO_UNREADABLE, f"cannot read {path}: {error.strerror or error}", source=path
    )


def refuse_standard_input(paths: Iterable[str | os.PathLike[str]]) -> None:
    """Refuse ``-`` among the paths: a store knows a file again by its path, size, time and
    sha256, and standard input has none of them. Raises :class:`StoreError`."""
    if any(str(path) == STDIN for path in paths):
        raise StoreError(
            f"ingest cannot read standard input ({STDIN}): a store remembers every file it "
            "reads by its path, size, time and sha256, and standard input has none; write "
            "the records to a file first, then ingest that file"
        )


def _found(
    paths: Iterable[str | os.PathLike[str]], report: IngestReport, store: Path
) -> list[_File]:
    """The files the paths name, once each, with their size and time (a file whose size
    and time cannot be read comes with the problem); never the store's own files (its
    manifest is a ``.json`` file, and a store may sit inside the corpus)."""
    files: list[_File] = []
    # realpath, not Path.resolve: that raises RuntimeError for a loop of symbolic links
    own = Path(os.path.realpath(store))
    # expand names each file once, by its real path, as the store knows it
    for path in expand(paths, on_problem=report.io_errors.append):
        resolved = os.path.realpath(path)
        if Path(resolved).is_relative_to(own):
            continue
        try:
            stat = path.stat()
        except OSError as error:
            files.append(_File(str(path), resolved, 0, 0, unreadable=_io_error(str(path), error)))
            continue
        files.append(_File(str(path), resolved, stat.st_size, stat.st_mtime_ns))
    return files


def _unchanged(file: _File, old: SourceEntry | None) -> tuple[_File, bool]:
    """The file with its sha256 (the stored one when its size and time are those stored,
    else hashed; ``OSError`` when it cannot be), and whether its stored rows still hold.
    A stored file that could not be read (it has no sha256) is tried again whatever its size
    and time: making a file readable (``chmod``) changes neither."""
    if old is None or old.path != file.path or old.sha256 is None:
        return dataclasses.replace(file, sha256=_sha256(file.path)), False
    if old.size == file.size and old.mtime_ns == file.mtime_ns:
        return dataclasses.replace(file, sha256=old.sha256), True
    hashed = dataclasses.replace(file, sha256=_sha256(file.path))
    return hashed, hashed.sha256 == old.sha256


def _unread(file: _File, problem: Problem) -> SourceEntry:
    """The entry of a file that could not be read: its size and time as found, no sha256,
    no records, and the problem."""
    return SourceEntry(
        path=file.path,
        resolved=file.resolved,
        size=file.size,
        mtime_ns=file.mtime_ns,
        sha256=None,
        records=0,
        games=0,
        invalid=0,
        parts={},
        io_error=problem.to_dict(),
        part_files={},
    )


def _digest(file: _File, settings: Settings, chunk_bytes: int) -> str:
    """The content part of a file's part names: everything their bytes depend on (the
    file's bytes, the path its rows name, how it was read), so that a part file named in a
    manifest is never rewritten with other bytes."""
    text = (
        f"{STORE_VERSION}|{file.sha256}|{file.path}|{chunk_bytes}|{PIECE_LINES}|{PART_PIECES}|"
        f"{sorted(settings.to_dict().items())}"
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _records(
    result: TaskResult,
    source: str,
    lines_before: int,
    games: pl.DataFrame,
) -> pl.DataFrame:
    """The ``records`` rows of one task: every record, valid or not, where it starts."""
    invalid = {report.line: report for report in result.reports}
    rows: dict[str, list[Any]] = {name: [] for name in RECORD_SCHEMA}
    valid = games.select("game", "game_id", "variant", "hands", "complete").iter_rows()
    for line, offset in result.offsets:
        report = invalid.get(line)
        rows["source"].append(source)
        rows["line"].append(None if line is None else line + lines_before)
        rows["offset"].append(offset)
        if report is not None:
            values: tuple[Any, ...] = (
                None,
                report.game_id,
                report.variant,
                False,
                report.hands,
                report.complete,
                len(report.problems),
            )
        else:
            game, game_id, variant, hands, complete = next(valid)
            values = (game, game_id, variant, True, hands, complete, 0)
        for column, value in zip(
            ("game", "game_id", "variant", "valid", "hands", "complete", "problems"),
            values,
            strict=True,
        ):
            rows[column].append(value)
    return pl.DataFrame(rows, schema=RECORD_SCHEMA)


def _problems(
    reports: Iterable[RecordReport], lines_before: int, offsets: dict[int | None, int]
) -> pl.DataFrame:
    """The ``problems`` rows of some invalid records."""
    rows: dict[str, list[Any]] = {name: [] for name in PROBLEM_SCHEMA}
    for report in reports:
        line = None if report.line is None else report.line + lines_before
        for number, problem in enumerate(report.problems, 1):
            rows["source"].append(report.source)
            rows["line"].append(line)
            rows["offset"].append(offsets.get(report.line, 0))
            rows["game_id"].append(report.game_id)
            rows["variant"].append(report.variant)
            rows["problem"].append(number)
            rows["code"].append(problem.code.value)
            rows["family"].append(problem.family.value)
            rows["message"].append(problem.message)
            rows["pointer"].append(problem.pointer)
            rows["place"].append(problem.place)
            rows["rule"].append(problem.rule)
            rows["legal"].append(list(problem.legal))
            for name in ("hand", "trick", "card", "seat", "player"):
                rows[name].append(getattr(problem, name))
    return pl.DataFrame(rows, schema=PROBLEM_SCHEMA)


class _Writer:
    """Turns the results of the tasks of this run into part files, file by file."""

    def __init__(
        self,
        directory: Path,
        settings: Settings,
        jobs: Jobs,
        report: IngestReport,
        chunk_bytes: int,
    ) -> None:
        self.directory = directory
        self.chunk_bytes = chunk_bytes
        self.settings = settings
        self.jobs = jobs
        self.report = report
        self.done: dict[str, SourceEntry] = {}
        self.written: list[Path] = []
        self.folders: list[Path] = []
        self._current: _Reading | None = None

    def start(self, file: _File) -> None:
        assert file.sha256 is not None
        self.finish()
        self._current = _Reading(file, _digest(file, self.settings, self.chunk_bytes))

    def finish(self) -> None:
        if self._current is not None:
            self._flush(self._current)
            self.done[self._current.file.resolved] = self._current.entry()
            self._current = None

    def _flush(self, reading: _Reading) -> None:
        """Write the rows held of the file being read as one part file per table."""
        if not reading.held:
            return
        for table, frames in reading.held.items():
            self._write(reading, table, pl.concat(frames, rechunk=False))
        reading.held = {}
        reading.next_part += 1

    def _write(self, reading: _Reading, table: str, frame: pl.DataFrame) -> None:
        if frame.height == 0:
            return
        number = reading.next_part
        name = f"{PARTS}/{table}/{reading.file.key}-{reading.digest}-{number:05d}.parquet"
        path = self.directory / name
        self.folders.extend(
            folder for folder in (path.parent.parent, path.parent) if not folder.exists()
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        # encoded first, so that a failed write (a full disk) is an OSError of the writer
        encoded = io.BytesIO()
        frame.write_parquet(encoded, statistics=True)
        new = not path.exists()
        with atomic_writer(path) as stream:
            stream.write(encoded.getbuffer())
        if new:
            self.written.append(path)
        reading.parts.setdefault(table, []).append(name)
        reading.part_files[name] = PartFile(encoded.getbuffer().nbytes, frame.height)

    def discard(self) -> None:
        """Remove every part file (and folder) this run wrote: a run that failed before
        its switch leaves the store as it was."""
        for path in self.written:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        for folder in reversed(self.folders):
            with contextlib.suppress(OSError):
                folder.rmdir()

    def take(self, result: TaskResult) -> None:
        """Write the rows of one task's result as part files of the file being read."""
        reading = self._current
        assert reading is not None
        sink = result.sink
        assert isinstance(sink, RowSink)
        lines_before = reading.lines
        sink.rows.renumber(reading.games, lines_before)
        tables = sink.rows.tables()
        frames = {
            "games": tables.games,
            "side_hands": tables.side_hands,
            "seat_hands": tables.seat_hands,
        }
        if self.settings.analysis and sink.hands is not None:
            sink.hands.renumber(reading.games)
            frames["seat_analysis"] = analysis_table(
                sink.hands,
                tables.seat_hands,
                time_cap=self.settings.time_cap,
                jobs=self.jobs,
            )
        frames["records"] = _records(result, reading.file.path, lines_before, tables.games)
        frames["problems"] = _problems(result.reports, lines_before, dict(result.offsets))
        if result.lines:
            for table, frame in frames.items():
                reading.held.setdefault(table, []).append(frame)
            if len(reading.held["games"]) == PART_PIECES:
                self._flush(reading)
        summary = result.summary
        reading.games += sink.count
        reading.lines += result.lines
        reading.records += summary.records
        reading.invalid += summary.invalid
        if summary.io_errors and reading.io_error is None:
            reading.io_error = summary.io_errors[0].to_dict()
        self.report.records_read += summary.records
        self.report.invalid_read += summary.invalid
        for code, count in summary.codes.items():
            self.report.codes[code] = self.report.codes.get(code, 0) + count
        self.report.io_errors.extend(summary.io_errors)


def _results(
    tasks: list[Task],
    worker: _Worker,
    jobs: Jobs,
    progress: ProgressCallback | None,
    chunk_bytes: int,
) -> Iterator[TaskResult]:
    total = sum(task.size for task in tasks)
    done = 0
    cut = pieces(tasks, worker.limits, PIECE_LINES, chunk_bytes)
    # no more workers than tasks, unless one is read in pieces of unknown number
    jobs = jobs if any(map(read_here, tasks)) else workers(jobs, len(tasks))
    results = ordered_map(worker, cut, jobs, preload=["spades_replay.store.ingest"])
    try:
        for result in results:
            done += result.size
            yield result
            if progress is not None:
                progress(done, total)
    finally:
        results.close()


def ingest(
    paths: Iterable[str | os.PathLike[str]],
    store: str | os.PathLike[str],
    *,
    settings: Settings = Settings(),
    jobs: Jobs = 1,
    prune: bool = False,
    wait: bool = False,
    progress: ProgressCallback | None = None,
    chunk_bytes: int = CHUNK_BYTES,
    on_wait: Callable[[], None] | None = None,
    rebuild: bool = False,
) -> IngestReport:
    """Bring the store in ``store`` up to date with the files under ``paths``.

    ``jobs`` worker processes (0: one per core), or an executor (a Dask cluster), read the
    files and analyse the hands (one hand a unit of work); ``prune`` drops the files
    of the store that no longer exist; ``wait`` waits for another ingest of the same store
    to finish instead of refusing; ``rebuild`` reads every file anew, as into an empty
    store, whatever the old manifest holds (the way out of a damaged store: the part files
    of the old one are removed once the new manifest is in place). Raises
    :class:`StoreError` for a store that cannot be used (another version, other settings,
    locked, damaged), and for ``-`` among the paths (standard input cannot be stored),
    before anything is made.
    """
    paths = list(paths)
    refuse_standard_input(paths)
    jobs = workers(jobs)
    directory = Path(store)
    if not (directory / MANIFEST).exists():
        found = IngestReport(written=False)
        if not _found(paths, found, directory) and found.io_errors:
            # no path names a file: no store is made (not even in a folder that exists)
            return found
    created = not directory.exists()
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StoreError(f"cannot create the store {directory}: {error.strerror}") from None
    report = IngestReport()
    lock = StoreLock(directory, wait, on_wait)
    with lock:
        if rebuild:
            clear_for_rebuild(directory)
            old = Manifest(settings.to_dict())
        else:
            old = read_manifest(directory) or Manifest(settings.to_dict())
            verify_parts(directory, old)
            old = with_part_files(directory, old)
        writer = _Writer(directory, settings, jobs, report, chunk_bytes)
        try:
            manifest, named, sources = _update(paths, old, settings, writer, prune, progress)
        except BaseException:
            # (a failed write, an interrupt): the store is left as it was, or not made
            writer.discard()
            if created:
                shutil.rmtree(directory, ignore_errors=True)
            raise
        report.removed_parts = remove_unreferenced(directory, manifest)
    report.games = sum(source.games for source in manifest.sources)
    report.records = sum(source.records for source in manifest.sources)
    report.invalid = sum(source.invalid for source in manifest.sources)
    this_run = {item.resolved for item in named}
    report.invalid_named = sum(source.invalid for source in sources if source.resolved in this_run)
    return report


def _update(
    paths: list[str | os.PathLike[str]],
    old: Manifest,
    settings: Settings,
    writer: _Writer,
    prune: bool,
    progress: ProgressCallback | None,
) -> tuple[Manifest, list[SourceEntry | _File], list[SourceEntry]]:
    """Read what changed since the manifest ``old``, write its part files, then switch the
    manifest: the new manifest, the files named and the sources of the store."""
    report, jobs, chunk_bytes = writer.report, writer.jobs, writer.chunk_bytes
    directory = writer.directory
    _check_settings(directory, old, settings)
    previous = {source.resolved: source for source in old.sources}
    files = _found(paths, report, directory)
    report.files = len(files)
    named: list[SourceEntry | _File] = []
    to_read: list[_File] = []
    for file in files:
        problem = file.unreadable
        if problem is None:
            try:
                checked, same = _unchanged(file, previous.get(file.resolved))
            except OSError as error:
                problem = _io_error(file.path, error)
        if problem is not None:
            # remembered, so that the store's readers report it as stats does
            report.io_errors.append(problem)
            named.append(_unread(file, problem))
        elif same:
            entry = previous[file.resolved]
            named.append(dataclasses.replace(entry, mtime_ns=checked.mtime_ns))
            report.unchanged += 1
            stored = entry.problem()
            if stored is not None:
                report.io_errors.append(stored)
        else:
            named.append(checked)
            to_read.append(checked)
    tasks = plan([Path(file.path) for file in to_read], chunk_bytes)
    by_path = {file.path: file for file in to_read}
    current = None
    worker = _Worker(settings.limits, settings.analysis)
    for result in _results(tasks, worker, jobs, progress, chunk_bytes):
        path = result.path
        if path != current:
            writer.start(by_path[path])
            current = path
        writer.take(result)
    writer.finish()
    report.read = len(writer.done)
    sources = _ordered(old, named, writer.done, prune, report)
    manifest = Manifest(_merged_settings(old, settings), tuple(sources))
    write_manifest(directory, manifest)
    return manifest, named, sources


def _check_settings(directory: Path, old: Manifest, settings: Settings) -> None:
    """Refuse to mix files read with other settings into one store."""
    wanted = settings.to_dict()
    for name in ("analysis", "limits"):
        had = old.settings.get(name)
        if name == "limits" and isinstance(had, dict):
            # a store made before a limit existed was read under its default
            had = {**DEFAULT_LIMITS._asdict(), **had}
        if had != wanted[name] and old.sources:
            raise StoreError(
                f"the store {directory} was built with {name} = {had}, not {wanted[name]}: "
                f"ingest with the same options, or into another store"
            )


def _merged_settings(old: Manifest, settings: Settings) -> dict[str, Any]:
    return settings.to_dict() if not old.sources else {**old.settings, **settings.to_dict()}


def _ordered(
    old: Manifest,
    named: list[SourceEntry | _File],
    read: dict[str, SourceEntry],
    prune: bool,
    report: IngestReport,
) -> list[SourceEntry]:
    """The sources of the new store, in game order: the files this run did not name (those
    gone dropped with ``prune``), then the files it named, in its order. A file that could
    not be read holds nothing but its problem: a run that names its path again replaces it,
    even where the path now leads to another file (a symbolic link such as
    ``/proc/self/mem`` leads to another file in every process)."""
    this_run = {item.resolved for item in named}
    paths = {item.path for item in named}
    sources: list[SourceEntry] = []
    for source in old.sources:
        if source.resolved in this_run or (source.sha256 is None and source.path in paths):
            continue
        if prune and not os.path.isfile(source.resolved):
            report.pruned += 1
            continue
        sources.append(source)
    for item in named:
        if isinstance(item, SourceEntry):
            sources.append(item)
        elif item.resolved in read:
            sources.append(read[item.resolved])
    return sources
