"""Gather the stats tables of everything under some paths, validating as it goes.

Invalid records are reported (as ``validate`` reports them) and left out of the tables,
never silently counted.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator

from spades_replay.corpus import CHUNK_BYTES
from spades_replay.limits import DEFAULT_LIMITS, Limits
from spades_replay.replay import Replay
from spades_replay.stats.tables import TableRows, Tables
from spades_replay.validate import CorpusValidation, Progress, RecordReport, Sink, Summary


class RowSink:
    """Turns the replays of one task into table rows, numbering its games from 0."""

    def __init__(self) -> None:
        self.rows = TableRows()
        self.count = 0

    def add(self, replay: Replay, path: str, line: int | None) -> None:
        """Add one game's rows."""
        self.rows.add(replay, self.count, path, line)
        self.count += 1


class StatsCollection:
    """Iterate for the reports of invalid records; then :meth:`tables` holds every valid game.

    Games are numbered in input order from 0, whatever ``jobs`` is.
    """

    def __init__(
        self,
        paths: Iterable[str | os.PathLike[str]],
        *,
        jobs: int = 1,
        progress: Progress | None = None,
        limits: Limits = DEFAULT_LIMITS,
        chunk_bytes: int = CHUNK_BYTES,
    ) -> None:
        self._rows = TableRows()
        self._games = 0
        self._validation = CorpusValidation(
            paths,
            jobs=jobs,
            progress=progress,
            limits=limits,
            chunk_bytes=chunk_bytes,
            sink=RowSink,
            on_sink=self._take,
        )

    def _take(self, sink: Sink, lines_before: int) -> None:
        assert isinstance(sink, RowSink)
        sink.rows.renumber(self._games, lines_before)
        self._rows.extend(sink.rows)
        self._games += sink.count

    def __iter__(self) -> Iterator[RecordReport]:
        return iter(self._validation)

    @property
    def summary(self) -> Summary:
        """What was read: records, valid, invalid by code, I/O errors."""
        return self._validation.summary

    def tables(self) -> Tables:
        """The tables of every valid game read so far."""
        return self._rows.tables()
