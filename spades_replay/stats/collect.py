"""Gather the stats tables of everything under some paths, validating as it goes.

Invalid records are reported (as ``validate`` reports them) and left out of the tables,
never silently counted. With ``keep_hands``, the complete hands are kept too, for the
double-dummy analysis (:meth:`StatsCollection.analysed`).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Iterator

from spades_replay.plumbing.corpus import CHUNK_BYTES
from spades_replay.plumbing.limits import DEFAULT_LIMITS, Limits
from spades_replay.plumbing.parallel import Jobs, ProgressCallback
from spades_replay.replayer.validate import (
    CorpusValidation,
    RecordReport,
    Sink,
    Summary,
    Verified,
)
from spades_replay.stats.double_dummy import HandList, with_analysis
from spades_replay.stats.tables import TableRows, Tables


class RowSink:
    """Turns the valid records of one task into table rows (from their figures), numbering
    its games from 0; with ``keep_hands``, replays them to keep their complete hands as
    well."""

    def __init__(self, keep_hands: bool = False) -> None:
        self.rows = TableRows()
        self.hands = HandList() if keep_hands else None
        self.count = 0

    def add(self, game: Verified, path: str, line: int | None) -> None:
        """Add one game's rows (and hands)."""
        self.rows.add(game.figures, game.players, game.game_id, self.count, path, line)
        if self.hands is not None:
            # the record models come with the replayer: only the analysis needs them
            from spades_replay.replayer.replay import check

            replayed, _ = check(game.record)
            assert replayed is not None, "a verified record replays"
            self.hands.add(replayed, self.count)
        self.count += 1


class StatsCollection:
    """Iterate for the reports of invalid records; then :meth:`tables` holds every valid game.

    Games are numbered in input order from 0, whatever ``jobs`` is. ``keep_hands`` keeps
    every complete hand (about a kilobyte each) for :meth:`analysed`.
    """

    def __init__(
        self,
        paths: Iterable[str | os.PathLike[str]],
        *,
        jobs: Jobs = 1,
        progress: ProgressCallback | None = None,
        limits: Limits = DEFAULT_LIMITS,
        chunk_bytes: int = CHUNK_BYTES,
        keep_hands: bool = False,
    ) -> None:
        self._rows = TableRows()
        self._hands = HandList() if keep_hands else None
        self._games = 0
        self._file_games: dict[str | None, int] = {}
        self._validation = CorpusValidation(
            paths,
            jobs=jobs,
            progress=progress,
            limits=limits,
            chunk_bytes=chunk_bytes,
            sink=functools.partial(RowSink, keep_hands),
            on_sink=self._take,
        )

    def _take(self, sink: Sink, lines_before: int) -> None:
        assert isinstance(sink, RowSink)
        # a task's records all come from one file
        source = sink.rows.games["source"][0] if sink.count else None
        file_games_before = self._file_games.get(source, 0)
        self._file_games[source] = file_games_before + sink.count
        sink.rows.renumber(self._games, lines_before, file_games_before)
        self._rows.extend(sink.rows)
        if self._hands is not None and sink.hands is not None:
            sink.hands.renumber(self._games)
            self._hands.extend(sink.hands)
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

    def analysed(
        self,
        *,
        time_cap: float | None = None,
        jobs: Jobs = 1,
        progress: ProgressCallback | None = None,
    ) -> Tables:
        """The tables of every valid game read so far, with the double-dummy analysis of
        their complete hands (:func:`~spades_replay.stats.double_dummy.with_analysis`:
        ``time_cap`` seconds per hand, ``jobs`` workers, ``progress`` per hand). Needs
        ``keep_hands``."""
        if self._hands is None:
            raise ValueError("the collection was made without keep_hands: no hand to analyse")
        return with_analysis(
            self.tables(), self._hands, time_cap=time_cap, jobs=jobs, progress=progress
        )
