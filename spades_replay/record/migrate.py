"""Moving files of records between format versions: what ``spades-replay migrate`` does.

A file is a record (``.json``) or a corpus (``.jsonl``), either possibly ``.gz``. Each record
is read (its format checked, its rules not judged: migrating changes no verdict) and written
as the version asked for (:func:`spades_replay.record.versions.at_version`), canonically: a
record file readable and indented, a corpus one record per line, gzip without a timestamp, so
the same input always gives the same bytes.

A file is written whole or not at all: when one of its records cannot be migrated (it is not a
well-formed record, or a downgrade would lose an option) the file's target is left as it was,
and the problems say which record and why. Writing goes through
:func:`spades_replay.plumbing.atomic.atomic_writer`, so a file replaced in place is never
half-written.
"""

from __future__ import annotations

import contextlib
import gzip
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from spades_replay.errors import Code, FormatError, Problem
from spades_replay.plumbing.atomic import atomic_writer
from spades_replay.plumbing.corpus import Task, is_corpus, read_task
from spades_replay.plumbing.limits import DEFAULT_LIMITS, Limits
from spades_replay.record.io import dumps, loads
from spades_replay.record.models import AnyRecord
from spades_replay.record.versions import at_version


@dataclass(frozen=True, slots=True)
class FileMigration:
    """What migrating one file did: how many records it holds, how many of them changed
    version, and the problems that kept it from being written (then nothing was)."""

    source: str
    target: str | None
    records: int
    upgraded: int
    problems: tuple[Problem, ...]

    @property
    def migrated(self) -> int:
        """How many records were written: every one, or none when the target is a file and
        a record could not be migrated; on a stream, every one that could be."""
        if self.target is None:
            return self.records - len(self.problems)
        return 0 if self.problems else self.records


def migrate_record(data: bytes, version: str, limits: Limits = DEFAULT_LIMITS) -> bytes:
    """One record's bytes, written as ``version`` (compact canonical JSON).

    Raises :class:`~spades_replay.errors.FormatError` when the bytes are not a record this
    reader reads, or when ``version`` cannot say what the record means (``migrate.option-lost``).
    """
    return dumps(at_version(loads(data, limits), version))


class _AbandonError(Exception):
    """Raised inside an atomic write to leave the target as it was."""


def _records(
    path: Path, version: str, limits: Limits, progress: Callable[[int], None] | None
) -> Iterator[tuple[AnyRecord, bool] | Problem]:
    """Each record of ``path`` written as ``version`` with whether its version changed, or
    the problem that stops it."""
    corpus = is_corpus(path)
    for source in read_task(Task(str(path), corpus), limits):
        if progress is not None:
            progress(len(source.data) + (1 if corpus else 0))
        if source.blank:
            continue
        if source.oversize:
            yield Problem(
                Code.FORMAT_LIMIT,
                f"the record exceeds the size limit of {limits.record_bytes} bytes",
            ).located(str(path), source.line)
            continue
        try:
            record = loads(source.data, limits)
            yield at_version(record, version), record.version != version
        except FormatError as error:
            yield error.problem.located(str(path), source.line)


def migrate_file(
    path: str | os.PathLike[str],
    version: str,
    target: str | os.PathLike[str],
    *,
    limits: Limits = DEFAULT_LIMITS,
    progress: Callable[[int], None] | None = None,
) -> FileMigration:
    """Migrate every record of ``path`` to ``version`` and write them to ``target`` (which may
    be ``path`` itself: it is then replaced atomically). ``target`` is written in the style
    of ``path`` (an indented record file, or a corpus of one record per line),
    gzip-compressed when its name ends in ``.gz``; when any record cannot be migrated, or
    ``path`` holds no record, ``target`` is left untouched. Raises
    :class:`~spades_replay.errors.InputError` when ``path`` cannot be read, and
    :class:`OSError` when ``target`` cannot be written."""
    source = Path(path)
    corpus = is_corpus(source)
    problems: list[Problem] = []
    count = upgraded = 0
    try:
        with contextlib.ExitStack() as stack:
            stream: BinaryIO = stack.enter_context(atomic_writer(target))
            if str(target).lower().endswith(".gz"):
                stream = stack.enter_context(  # type: ignore[assignment]
                    gzip.GzipFile(fileobj=stream, mode="wb", mtime=0, filename="")
                )
            for outcome in _records(source, version, limits, progress):
                count += 1
                if isinstance(outcome, Problem):
                    problems.append(outcome)
                    continue
                record, changed = outcome
                upgraded += changed
                if not problems:
                    stream.write(dumps(record, indent=not corpus) + b"\n")
            if problems or not count:
                raise _AbandonError
    except _AbandonError:
        pass
    return FileMigration(str(source), str(target), count, upgraded, tuple(problems))


def migrate_to_stream(
    path: str | os.PathLike[str],
    version: str,
    stream: BinaryIO,
    *,
    limits: Limits = DEFAULT_LIMITS,
    progress: Callable[[int], None] | None = None,
) -> FileMigration:
    """Migrate every record of ``path`` and write each one that can be to ``stream``, one
    compact record per line (JSON Lines, whatever the file was); the problems say which
    could not."""
    source = Path(path)
    problems: list[Problem] = []
    count = upgraded = 0
    for outcome in _records(source, version, limits, progress):
        count += 1
        if isinstance(outcome, Problem):
            problems.append(outcome)
            continue
        record, changed = outcome
        upgraded += changed
        stream.write(dumps(record) + b"\n")
    return FileMigration(str(source), None, count, upgraded, tuple(problems))
