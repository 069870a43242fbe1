"""Finding and reading records: files, directories, ``.jsonl`` corpora, ``.gz`` compression.

A path is a record file (``.json``, one record), a corpus (``.jsonl`` or ``.ndjson``, one
record per line; blank lines are skipped), either of them gzip-compressed (``.gz``), or a
directory (every such file below it, hidden ones excepted, in sorted order).

Reading streams: a corpus is read line by line, never whole, so memory stays flat however
large it is. Large plain corpora are cut into byte ranges (:class:`Task`) that worker
processes read on their own; a line belongs to the range in which it starts.
"""

from __future__ import annotations

import gzip
import os
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from spades_replay.errors import Code, InputError, Problem
from spades_replay.limits import DEFAULT_LIMITS, Limits

RECORD_SUFFIXES = (".json",)
CORPUS_SUFFIXES = (".jsonl", ".ndjson")
CHUNK_BYTES = 8 * 1024 * 1024
"""The size of the byte ranges a plain corpus is cut into for worker processes."""


def is_corpus(path: Path) -> bool:
    """Whether ``path`` names a JSON Lines corpus (possibly ``.gz``)."""
    name = path.name.lower().removesuffix(".gz")
    return name.endswith(CORPUS_SUFFIXES)


def _is_record_file(path: Path) -> bool:
    name = path.name.lower().removesuffix(".gz")
    return name.endswith(RECORD_SUFFIXES) or name.endswith(CORPUS_SUFFIXES)


def _io_problem(code: Code, path: str, message: str) -> InputError:
    return InputError(Problem(code, message, source=path))


def expand(paths: Iterable[str | os.PathLike[str]]) -> Iterator[Path]:
    """Every record file named by ``paths``, directories walked in sorted order.

    Raises :class:`InputError` (``io.not-found``) for a path that does not exist.
    """
    for item in paths:
        path = Path(item)
        if path.is_dir():
            found: list[Path] = []
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(name for name in dirs if not name.startswith("."))
                found.extend(
                    Path(root) / name
                    for name in files
                    if not name.startswith(".") and _is_record_file(Path(name))
                )
            yield from sorted(found)
        elif path.is_file():
            yield path
        else:
            raise _io_problem(Code.IO_NOT_FOUND, str(path), f"no such file or directory: {path}")


@dataclass(frozen=True, slots=True)
class Task:
    """A unit of reading work: a whole file, or the byte range ``[start, end)`` of a plain
    corpus. ``index`` orders the tasks of one run. ``path`` is the name reports give the file
    (as the user gave it); ``location``, when set, is where to open it: an absolute path, so
    that a worker on a cluster, whatever its working directory, reads the same file."""

    index: int
    path: str
    corpus: bool
    start: int = 0
    end: int | None = None
    location: str | None = None

    @property
    def size(self) -> int:
        """How many bytes of the file this task covers (the whole file when unknown)."""
        if self.end is not None:
            return self.end - self.start
        try:
            return os.path.getsize(self.location or self.path)
        except OSError:
            return 0


def plan(files: Iterable[Path], chunk_bytes: int = CHUNK_BYTES) -> list[Task]:
    """Cut ``files`` into tasks: plain corpora larger than ``chunk_bytes`` into ranges. Each
    task is located by its absolute path."""
    tasks: list[Task] = []
    for path in files:
        corpus = is_corpus(path)
        size = path.stat().st_size if path.exists() else 0
        location = os.path.abspath(path)
        if corpus and path.suffix.lower() != ".gz" and size > chunk_bytes:
            for start in range(0, size, chunk_bytes):
                end = min(start + chunk_bytes, size)
                tasks.append(Task(len(tasks), str(path), True, start, end, location))
        else:
            tasks.append(Task(len(tasks), str(path), corpus, location=location))
    return tasks


@dataclass(frozen=True, slots=True)
class Source:
    """The bytes of one line or file and where they came from (``line`` is 1-based within the
    task's range, ``None`` for a record file). Blank lines of a corpus are sources too (so
    that a reader can count lines); they hold no record. A line or file over the size limit
    is ``oversize``: its bytes were skipped, never held in memory, and ``data`` is empty."""

    path: str
    line: int | None
    data: bytes
    oversize: bool = False

    @property
    def blank(self) -> bool:
        """Whether this is a blank line (no record)."""
        return not self.oversize and not self.data.strip()


def _open(path: str) -> BinaryIO:
    if path.lower().endswith(".gz"):
        return gzip.open(path, "rb")  # type: ignore[return-value]
    return open(path, "rb")


def read_task(task: Task, limits: Limits = DEFAULT_LIMITS) -> Iterator[Source]:
    """The lines (or the whole file) of a task, in order.

    Raises :class:`InputError` if the file cannot be read or decompressed.
    """
    try:
        yield from _read(task, limits.record_bytes)
    except (gzip.BadGzipFile, zlib.error, EOFError) as error:
        raise _io_problem(
            Code.IO_COMPRESSION, task.path, f"cannot decompress {task.path}: {error}"
        ) from None
    except OSError as error:
        raise _io_problem(
            Code.IO_UNREADABLE, task.path, f"cannot read {task.path}: {error.strerror or error}"
        ) from None


def _skip_line(stream: BinaryIO) -> int:
    """Read to the end of the current line in bounded pieces; return the bytes skipped."""
    skipped = 0
    while True:
        piece = stream.readline(1024 * 1024)
        skipped += len(piece)
        if not piece or piece.endswith(b"\n"):
            return skipped


def _read(task: Task, cap: int) -> Iterator[Source]:
    with _open(task.location or task.path) as stream:
        if not task.corpus:
            data = stream.read(cap + 1)
            yield (
                Source(task.path, None, b"", True)
                if len(data) > cap
                else Source(task.path, None, data)
            )
            return
        position = 0
        if task.start > 0:
            # the line that began in the previous range belongs to it: skip its rest
            stream.seek(task.start - 1)
            position = task.start - 1 + _skip_line(stream)
        line = 0
        while task.end is None or position < task.end:
            raw = stream.readline(cap + 2)
            if not raw:
                break
            line += 1
            position += len(raw)
            data = raw.rstrip(b"\r\n")
            if len(data) > cap:
                if not raw.endswith(b"\n"):
                    position += _skip_line(stream)
                yield Source(task.path, line, b"", True)
            else:
                yield Source(task.path, line, data)
