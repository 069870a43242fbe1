"""Finding and reading records: files, directories, ``.jsonl`` corpora, ``.gz`` compression.

A path is a record file (``.json``, one record), a corpus (``.jsonl`` or ``.ndjson``, one
record per line; blank lines are skipped), either of them gzip-compressed (``.gz``), a
directory (every such file below it, hidden ones excepted, in sorted order), or ``-``:
standard input, which holds one record or a corpus (a corpus when its first line is a whole
JSON value and is not the whole input; gzip-compressed input is recognised by its bytes). It
is named :data:`STDIN_NAME` in reports.

Reading streams: a corpus is read line by line, never whole, so memory stays flat however
large it is. Large plain corpora are cut into byte ranges (:class:`Task`) that worker
processes read on their own; a line belongs to the range in which it starts. :func:`pieces`
cuts the work further, so that no piece holds more than :data:`PIECE_LINES` lines: what a
piece finds (its reports) is held until it is done, so memory is bounded by the pieces in
flight, however short a corpus's lines are. A compressed corpus and standard input are read
by the main process, in pieces of lines handed to the workers, since neither can be cut into
ranges; a ``.gz`` input that expands more than ``Limits.expansion`` times its compressed size
is refused past that point (``io.expansion``).
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import io
import os
import stat
import sys
import zlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import BinaryIO, NamedTuple

import orjson

from spades_replay.errors import Code, InputError, Problem
from spades_replay.plumbing.limits import DEFAULT_LIMITS, EXPANSION_ALLOWANCE, Limits

STDIN = "-"
STDIN_NAME = "<stdin>"
"""The path that names standard input, and how reports name it."""
BOM = b"\xef\xbb\xbf"
"""The byte order mark some editors put before UTF-8 text; readers ignore it."""
GZIP_MAGIC = b"\x1f\x8b"
RECORD_SUFFIXES = (".json",)
CORPUS_SUFFIXES = (".jsonl", ".ndjson")
CHUNK_BYTES = 8 * 1024 * 1024
"""The size of the byte ranges a plain corpus is cut into for worker processes."""
PIECE_LINES = 1_000
"""The most lines one piece of work (:func:`pieces`) holds: few enough that the reports of the
pieces in flight (about half a kilobyte each) weigh less than a process's own start."""
SCAN_BYTES = 1024 * 1024
"""How much of a plain corpus :func:`pieces` reads at a time while counting its lines."""


def is_corpus(path: Path) -> bool:
    """Whether ``path`` names a JSON Lines corpus (possibly ``.gz``)."""
    name = path.name.lower().removesuffix(".gz")
    return name.endswith(CORPUS_SUFFIXES)


def _is_record_file(path: Path) -> bool:
    name = path.name.lower().removesuffix(".gz")
    return name.endswith(RECORD_SUFFIXES) or name.endswith(CORPUS_SUFFIXES)


SAMPLES_LEFT_OUT = ("invalid",)
"""The folders of a checkout's ``fixtures/`` that the dashboard does not open by default:
``invalid/`` holds one broken record per error code (and ``EXPECTED.json``, the verdicts they
must get, which is no record), for ``validate`` and the tests."""


def sample_paths(fixtures: Path) -> list[str]:
    """The bundled sample records to show when no path is given: every folder of
    ``fixtures`` but those of :data:`SAMPLES_LEFT_OUT`, in sorted order, so that the default
    dashboard opens on valid games only."""
    return [
        str(folder)
        for folder in sorted(fixtures.iterdir())
        if folder.is_dir() and folder.name not in SAMPLES_LEFT_OUT
    ]


def decompression_failure(error: Exception) -> str:
    """Why gzip data could not be decompressed, in words a person reads (never the
    library's ``Not a gzipped file (b'\\x9b$')``).

    >>> decompression_failure(gzip.BadGzipFile("Not a gzipped file (b'no')"))
    'it is not gzip-compressed data'
    >>> decompression_failure(EOFError("Compressed file ended before the end-of-stream marker"))
    'the compressed data stops early (the file is cut short)'
    """
    if isinstance(error, EOFError):
        return "the compressed data stops early (the file is cut short)"
    if isinstance(error, gzip.BadGzipFile) and str(error).startswith("Not a gzipped file"):
        return "it is not gzip-compressed data"
    return "the compressed data is corrupt"


def _io_problem(code: Code, path: str, message: str) -> InputError:
    return InputError(Problem(code, message, source=path))


def not_a_file(path: str | os.PathLike[str]) -> str | None:
    """What ``path`` is when it exists but is not a regular file or a directory (``"a
    FIFO"``, ``"a character device"``...), following symbolic links; else ``None``."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    kinds = (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((kind for test, kind in kinds if test(mode)), "not a regular file")


def _not_a_file_problem(path: Path, kind: str) -> Problem:
    return Problem(
        Code.IO_NOT_A_FILE, f"{path} is {kind}, not a regular file: skipped", source=str(path)
    )


def expand(
    paths: Iterable[str | os.PathLike[str]],
    on_problem: Callable[[Problem], None] | None = None,
) -> Iterator[Path]:
    """Every record file named by ``paths``, directories walked in sorted order, each once
    (a file named again, under any spelling or found again in a walk, is not read twice;
    nor is standard input).

    Only regular files are read (symbolic links to them too): a FIFO, device or socket,
    named or found in a walk, is an ``io.not-a-file`` problem, a directory that cannot be
    listed an ``io.unreadable`` one, a path that does not exist an ``io.not-found`` one.
    Each goes to ``on_problem``, and the rest goes on; without ``on_problem`` the first is
    raised as :class:`InputError`.
    """

    def report(problem: Problem) -> None:
        if on_problem is None:
            raise InputError(problem)
        on_problem(problem)

    def unlisted(error: OSError) -> None:
        where = error.filename or path
        report(
            Problem(
                Code.IO_UNREADABLE,
                f"cannot read the directory {where}: {error.strerror or error}",
                source=str(where),
            )
        )

    seen: set[str] = set()

    def first_time(path: Path) -> bool:
        key = STDIN if str(path) == STDIN else os.path.realpath(path)
        if key in seen:
            return False
        seen.add(key)
        return True

    for item in paths:
        path = Path(item)
        if str(item) == STDIN:
            if first_time(path):
                yield path
        elif path.is_dir():
            found: list[Path] = []
            for root, dirs, files in os.walk(path, onerror=unlisted):
                dirs[:] = sorted(name for name in dirs if not name.startswith("."))
                for name in sorted(files):
                    if name.startswith(".") or not _is_record_file(Path(name)):
                        continue
                    kind = not_a_file(Path(root) / name)
                    if kind is None:
                        found.append(Path(root) / name)
                    else:
                        report(_not_a_file_problem(Path(root) / name, kind))
            yield from filter(first_time, sorted(found))
        elif path.is_file():
            if first_time(path):
                yield path
        elif (kind := not_a_file(path)) is not None:
            report(_not_a_file_problem(path, kind))
        else:
            report(
                Problem(Code.IO_NOT_FOUND, f"no such file or directory: {path}", source=str(path))
            )


class Task(NamedTuple):
    """A unit of reading work: a whole file, or the byte range ``[start, end)`` of a plain
    corpus. ``path`` is the name reports give the file
    (as the user gave it); ``location``, when set, is where to open it: an absolute path, so
    that a worker on a cluster, whatever its working directory, reads the same file.

    A piece of a file the main process read (a ``.gz`` corpus, standard input) carries its
    lines in ``sources`` instead (``line`` counted from the piece's first, ``start`` the
    offset of that first line), then ``error``, what stopped the reading if anything did;
    ``weight`` is the bytes of the file it stands for, for progress."""

    path: str
    corpus: bool
    start: int = 0
    end: int | None = None
    location: str | None = None
    sources: tuple[Source, ...] | None = None
    error: Problem | None = None
    weight: int | None = None

    @property
    def stdin(self) -> bool:
        """Whether this task reads standard input (it can only run in the main process)."""
        return self.path == STDIN

    @property
    def size(self) -> int:
        """How many bytes of the file this task covers (the whole file when unknown; 0 for
        standard input)."""
        if self.weight is not None:
            return self.weight
        if self.stdin:
            return 0
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
        if str(path) == STDIN:
            tasks.append(Task(STDIN, False))
            continue
        corpus = is_corpus(path)
        size = path.stat().st_size if path.exists() else 0
        location = os.path.abspath(path)
        if corpus and not is_gzip_name(path.name) and size > chunk_bytes:
            for start in range(0, size, chunk_bytes):
                end = min(start + chunk_bytes, size)
                tasks.append(Task(str(path), True, start, end, location))
        else:
            tasks.append(Task(str(path), corpus, location=location))
    return tasks


class Source(NamedTuple):
    """The bytes of one line or file and where they came from (``line`` is 1-based within the
    task's range, ``None`` for a record file). Blank lines of a corpus are sources too (so
    that a reader can count lines); they hold no record. A line or file over the size limit
    is ``oversize``: its bytes were skipped, never held in memory, and ``data`` is empty.

    ``offset`` is where the line starts in its file (0 for a record file): a byte offset in
    the file, or for a ``.gz`` file in its decompressed stream. :func:`read_at` reads the
    line back from it."""

    path: str
    line: int | None
    data: bytes
    oversize: bool = False
    offset: int = 0

    @property
    def blank(self) -> bool:
        """Whether this is a blank line of a corpus (no record). A record file is never
        blank: an empty ``.json`` file is an invalid record, not an absent one."""
        return self.line is not None and not self.oversize and not self.data.strip()


def is_gzip_name(name: str) -> bool:
    """Whether a file name says gzip (``.gz``, in any case): the one test every reader uses."""
    return name.lower().endswith(".gz")


class _Counted:
    """A binary stream that counts the bytes read from it."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self.count = 0

    def read(self, size: int = -1, /) -> bytes:
        data = self._stream.read(size)
        self.count += len(data)
        return data

    def seek(self, offset: int, /) -> int:
        return self._stream.seek(offset)


INFLATE_STEP = 1024 * 1024
"""The most a bounded gzip stream decompresses between two checks of its expansion."""


class BoundedGzip(gzip.GzipFile):
    """A gzip stream read from ``stream`` that raises :class:`InputError`
    (``io.expansion``, naming ``name``) once it has given more than ``expansion`` times the
    compressed bytes it has read, past the first :data:`EXPANSION_ALLOWANCE` bytes.

    >>> bomb = gzip.compress(b"{}\\n" * 2_000_000)
    >>> try:
    ...     with BoundedGzip(io.BytesIO(bomb), "bomb.jsonl.gz", 100) as stream:
    ...         _ = stream.read()
    ... except InputError as error:
    ...     print(error.problem.code)
    io.expansion
    """

    def __init__(self, stream: BinaryIO, name: str, expansion: int, owned: bool = False) -> None:
        self._counted = _Counted(stream)
        self._name = name
        self._expansion = expansion
        self._given = 0
        self._owned = stream if owned else None
        super().__init__(fileobj=self._counted, mode="rb")

    def close(self) -> None:
        """Close the stream, and the file under it when it was opened for it (``owned``)."""
        try:
            super().close()
        finally:
            if self._owned is not None:
                self._owned.close()

    def _check(self, data: bytes) -> bytes:
        self._given += len(data)
        if self._given > EXPANSION_ALLOWANCE and self._given > (
            self._expansion * self._counted.count
        ):
            raise _io_problem(
                Code.IO_EXPANSION,
                self._name,
                f"{self._name} expands more than {self._expansion} times its compressed size "
                f"({self._counted.count:,} bytes held {self._given:,} and more); the rest was "
                "not read (--max-expansion)",
            )
        return data

    def read(self, size: int | None = -1) -> bytes:
        """Up to ``size`` bytes (all when negative), decompressed in bounded steps."""
        wanted = -1 if size is None or size < 0 else size
        parts: list[bytes] = []
        while wanted != 0:
            step = INFLATE_STEP if wanted < 0 else min(INFLATE_STEP, wanted)
            part = self._check(super().read(step))
            if not part:
                break
            parts.append(part)
            if wanted > 0:
                wanted -= len(part)
        return b"".join(parts)

    def readline(self, size: int | None = -1) -> bytes:
        """One line, at most ``size`` bytes of it (callers always bound it)."""
        return self._check(super().readline(size))


READ_BUFFER = 1024 * 1024
"""The buffer a file is read through. A corpus line is a whole game (8 to 10 KB), longer
than the default 8 KB buffer, so ``readline`` would take each line in several reads and
join them: a quarter of a megabyte's buffer or more reads 20,000 games' lines in a fourth
of the time."""


def _open(path: str, limits: Limits = DEFAULT_LIMITS) -> BinaryIO:
    """The file at ``path`` opened for reading, if it is a regular file: opened without
    waiting (a FIFO would block), then checked, so that a file swapped for a FIFO or a device
    after it was found is refused too (``io.not-a-file``). A ``.gz`` file is decompressed,
    within ``limits.expansion``."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    mode = os.fstat(fd).st_mode
    if stat.S_ISDIR(mode):
        os.close(fd)
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = not_a_file(path) or "not a regular file"
        raise _io_problem(Code.IO_NOT_A_FILE, path, f"{path} is {kind}, not a regular file")
    os.set_blocking(fd, True)
    stream = open(fd, "rb", buffering=READ_BUFFER)  # noqa: SIM115 (the caller closes it)
    if is_gzip_name(path):
        return BoundedGzip(stream, path, limits.expansion, owned=True)  # type: ignore[return-value]
    return stream


def _stdin(limits: Limits) -> BinaryIO:
    """Standard input as bytes, decompressed when it starts with gzip's magic bytes."""
    stream: BinaryIO = sys.stdin.buffer
    if isinstance(stream, io.BufferedReader) and stream.peek(2)[:2] == GZIP_MAGIC:
        return BoundedGzip(stream, STDIN_NAME, limits.expansion)  # type: ignore[return-value]
    return stream


def _read_stdin(limits: Limits) -> Iterator[Source]:
    """Standard input: a corpus when one of its first two lines that are not blank is a
    whole JSON value (so a corpus whose first record is broken is still read line by line),
    else one record; a leading BOM is ignored, as in a file. Input of blank lines only
    holds no record."""
    cap = limits.record_bytes
    stream = _stdin(limits)
    head: list[bytes] = []  # the lines read to decide, blank ones too, bounded by the cap
    filled: list[bytes] = []
    while len(filled) < 2 and sum(map(len, head)) <= cap:
        raw = stream.readline(cap + 2)
        if not raw:
            break
        head.append(raw)
        if raw.removeprefix(BOM).strip():
            filled.append(raw.removeprefix(BOM) if len(head) == 1 else raw)
        if not raw.endswith(b"\n"):
            break  # the end of the input, or a line over the cap (skipped when reached)
    if not filled and not raw:
        return
    if len(filled) < 2 or not any(map(whole_json, filled)):
        read = sum(map(len, head))
        remaining = cap + 1 - read  # read(-1) would read it all
        data = b"".join(head) + (stream.read(remaining) if remaining > 0 else b"")
        if len(data) > cap:
            yield Source(STDIN_NAME, None, b"", True)
        else:
            yield Source(STDIN_NAME, None, data)
        return
    for number, raw in enumerate(_lines(head, stream, cap), start=1):
        data = raw.rstrip(b"\r\n")
        if len(data) > cap:
            if not raw.endswith(b"\n"):
                _skip_line(stream)
            yield Source(STDIN_NAME, number, b"", True)
        else:
            yield Source(STDIN_NAME, number, data)


def _lines(head: list[bytes], stream: BinaryIO, cap: int) -> Iterator[bytes]:
    yield from head
    while raw := stream.readline(cap + 2):
        yield raw


def whole_json(line: bytes) -> bool:
    """Whether ``line`` is one whole JSON value."""
    try:
        orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return True


def read_task(task: Task, limits: Limits = DEFAULT_LIMITS) -> Iterator[Source]:
    """The lines (or the whole file) of a task, in order.

    Raises :class:`InputError` if the file cannot be read or decompressed, or expands past
    ``limits.expansion``.
    """
    if task.sources is not None:
        yield from task.sources
        if task.error is not None:
            raise InputError(task.error)
        return
    try:
        yield from _read(task, limits)
    except (gzip.BadGzipFile, zlib.error, EOFError) as error:
        raise _io_problem(
            Code.IO_COMPRESSION,
            task.path,
            f"cannot decompress {task.path}: {decompression_failure(error)}",
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


def _read(task: Task, limits: Limits) -> Iterator[Source]:
    if task.stdin:
        yield from _read_stdin(limits)
        return
    with _open(task.location or task.path, limits) as stream:
        yield from _read_stream(stream, task, limits.record_bytes)


def pieces(
    tasks: Iterable[Task],
    limits: Limits = DEFAULT_LIMITS,
    lines: int = PIECE_LINES,
    chunk_bytes: int = CHUNK_BYTES,
) -> Iterator[Task]:
    """The ``tasks`` (of :func:`plan`) cut so that none holds more than ``lines`` lines,
    numbered from 0 in order, made as they are asked for.

    A range of a plain corpus is cut at line starts (counted here, at the speed of reading
    the file). A ``.gz`` corpus and standard input are read here, by :func:`read_task`, and
    handed on as pieces of at most ``lines`` lines and about ``chunk_bytes`` bytes; what
    stops that reading (an unreadable or expanding file) ends the last piece, as
    :attr:`Task.error`. Record files are left whole (one record each).
    """
    for task in tasks:
        if read_here(task):
            yield from _read_pieces(task, limits, lines, chunk_bytes)
        elif task.corpus:
            yield from _ranges(task, lines)
        else:
            yield task


def read_here(task: Task) -> bool:
    """Whether :func:`pieces` reads ``task`` itself (standard input, a ``.gz`` corpus)
    rather than leaving it to a worker, since it cannot be cut into byte ranges."""
    return task.stdin or (task.corpus and is_gzip_name(task.path))


def _ranges(task: Task, lines: int) -> Iterator[Task]:
    """The range of ``task`` cut at line starts, at most ``lines`` starting in each."""
    start = task.start
    with contextlib.ExitStack() as stack:
        try:
            stream = stack.enter_context(_open(task.location or task.path))
        except (OSError, InputError):
            yield task  # its worker reports why it cannot be read
            return
        end = task.end if task.end is not None else os.fstat(stream.fileno()).st_size
        # a line starts at 0 and after every newline; one that starts at or after ``end``
        # belongs to the next range
        count = 1 if start == 0 else 0
        position = max(start - 1, 0)
        stream.seek(position)
        while position < end - 1:
            block = stream.read(min(SCAN_BYTES, end - 1 - position))
            if not block:
                break
            found = block.count(b"\n")
            if count + found <= lines:
                count += found
            else:
                newline = block.find(b"\n")
                while newline >= 0:
                    count += 1
                    if count > lines:
                        cut = position + newline + 1
                        yield task._replace(start=start, end=cut)
                        start, count = cut, 1
                    newline = block.find(b"\n", newline + 1)
            position += len(block)
    yield task if start == task.start else task._replace(start=start, end=end)


def _read_pieces(task: Task, limits: Limits, lines: int, chunk_bytes: int) -> Iterator[Task]:
    """A file read here, as pieces of its lines (or its one record, for standard input).
    Every piece but the last weighs nothing: the last one stands for the whole file."""

    def piece(batch: list[Source], error: Problem | None = None) -> Task:
        start = batch[0].offset if batch else 0
        return task._replace(start=start, end=None, sources=tuple(batch), error=error, weight=0)

    held: Task | None = None
    batch: list[Source] = []
    size = 0
    before = 0
    error: Problem | None = None
    try:
        for source in read_task(task, limits):
            line = None if source.line is None else source.line - before
            batch.append(source._replace(line=line))
            size += len(source.data)
            if len(batch) >= lines or size >= chunk_bytes:
                if held is not None:
                    yield held
                held = piece(batch)
                before += len(batch)
                batch, size = [], 0
    except InputError as stopped:
        error = stopped.problem
    if held is not None and (batch or error is not None):
        yield held
        held = None
    last = held if held is not None else piece(batch, error)
    yield last._replace(weight=task.size)


def _read_stream(stream: BinaryIO, task: Task, cap: int) -> Iterator[Source]:
    """The sources of an open file: the whole of it, or the lines of a corpus's range."""
    if not task.corpus:
        data = stream.read(cap + 1)
        yield (
            Source(task.path, None, b"", True) if len(data) > cap else Source(task.path, None, data)
        )
        return
    position = 0
    if task.start > 0:
        # the line that began in the previous range belongs to it: skip its rest
        stream.seek(task.start - 1)
        position = task.start - 1 + _skip_line(stream)
    line = 0
    while task.end is None or position < task.end:
        start = position
        raw = stream.readline(cap + 2)
        if not raw:
            break
        line += 1
        position += len(raw)
        data = raw.rstrip(b"\r\n")
        if len(data) > cap:
            if not raw.endswith(b"\n"):
                position += _skip_line(stream)
            yield Source(task.path, line, b"", True, start)
        else:
            yield Source(task.path, line, data, False, start)


def read_memory(
    name: str, data: bytes, limits: Limits = DEFAULT_LIMITS, max_bytes: int | None = None
) -> Iterator[Source]:
    """The records of a file held in memory (an upload) named ``name``, read as a file of
    that name is: decompressed when the name says ``.gz``, line by line when it names a
    corpus. ``max_bytes`` caps the bytes taken, after decompression.

    Raises :class:`InputError`: ``format.limit`` beyond ``max_bytes``, ``io.compression``
    for bytes that are not valid gzip, ``io.expansion`` for gzip that expands past
    ``limits.expansion``.
    """
    if max_bytes is not None and len(data) > max_bytes:
        raise _io_problem(
            Code.FORMAT_LIMIT, name, f"{name} is {len(data)} bytes; at most {max_bytes} are taken"
        )
    if is_gzip_name(name):
        try:
            with BoundedGzip(io.BytesIO(data), name, limits.expansion) as compressed:
                data = compressed.read(-1 if max_bytes is None else max_bytes + 1)
        except (gzip.BadGzipFile, zlib.error, EOFError) as error:
            raise _io_problem(
                Code.IO_COMPRESSION,
                name,
                f"cannot decompress {name}: {decompression_failure(error)}",
            ) from None
        if max_bytes is not None and len(data) > (cap := max_bytes):
            raise _io_problem(
                Code.FORMAT_LIMIT, name, f"{name} holds more than {cap} bytes once decompressed"
            )
    task = Task(name, is_corpus(Path(name)))
    yield from _read_stream(io.BytesIO(data), task, limits.record_bytes)


def read_at(
    path: str, offset: int, line: int | None = None, limits: Limits = DEFAULT_LIMITS
) -> Source:
    """The record that starts at byte ``offset`` of ``path`` (a whole record file when
    ``offset`` is 0 and ``path`` is not a corpus), as :func:`read_task` gave it, with
    ``line``.

    A plain file is read by seeking; a ``.gz`` file is decompressed up to ``offset`` (gzip
    cannot seek), so reading late in a large compressed corpus costs a pass over what comes
    before. Raises :class:`InputError` if the file cannot be read.
    """
    corpus = is_corpus(Path(path))
    try:
        with _open(path, limits) as stream:
            if corpus:
                stream.seek(offset)
                raw = stream.readline(limits.record_bytes + 2)
                data = raw.rstrip(b"\r\n")
            else:
                data = stream.read(limits.record_bytes + 1)
    except (gzip.BadGzipFile, zlib.error, EOFError) as error:
        raise _io_problem(
            Code.IO_COMPRESSION, path, f"cannot decompress {path}: {decompression_failure(error)}"
        ) from None
    except OSError as error:
        raise _io_problem(
            Code.IO_UNREADABLE, path, f"cannot read {path}: {error.strerror or error}"
        ) from None
    if len(data) > limits.record_bytes:
        return Source(path, line, b"", True, offset)
    return Source(path, line, data, False, offset)
