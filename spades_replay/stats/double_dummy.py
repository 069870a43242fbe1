"""The double-dummy figures of the stats: tricks each player's misplays cost, hand by hand.

The complete hands of a set of games are analysed with :func:`~spades_replay.analysis.analyze_hands`
(docs/analysis.md): the table ``seat_analysis`` has one row per seat per complete hand, the
rows of ``seat_hands`` and ``seat_analysis`` matching one to one. Four-player whole hands
take seconds each, so the analysis runs on worker processes, under a per-hand time cap, and
reports progress. A hand the cap stopped is **capped**: its row says so, keeps the tricks
lost by the plays that were analysed (the later ones), and is left out of every rate
(:func:`spades_replay.stats.metrics.analysis_counts`), never silently counted.

>>> import spades_replay
>>> from spades_replay.stats.tables import tables_of
>>> r = spades_replay.replay(spades_replay.load("fixtures/two-player/tie-plays-on.json"))
>>> tables = with_analysis(tables_of([r]), hands_of([r]))
>>> tables.seat_analysis.height == tables.seat_hands.height
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import polars as pl

from spades_replay.plumbing.parallel import Jobs, ProgressCallback
from spades_replay.stats.tables import Frame, Tables

if TYPE_CHECKING:
    from spades_replay.analysis import HandAnalysis
    from spades_replay.replayer.replay import HandReplay, Replay

__all__ = [
    "ANALYSIS_SCHEMA",
    "IDENTITY",
    "HandList",
    "analysis_table",
    "capped_hands",
    "hands_of",
    "with_analysis",
]


IDENTITY = (
    "game_id",
    "game",
    "hand",
    "variant",
    "rules",
    "seat",
    "player",
    "player_key",
    "side",
    "bid_kind",
)
"""The columns ``seat_analysis`` takes from ``seat_hands``, first and in this order."""

ANALYSIS_SCHEMA: dict[str, Any] = {
    "game": pl.Int64,
    "hand": pl.Int64,
    "seat": pl.Int64,
    "plays": pl.Int64,
    "analysed_plays": pl.Int64,
    "costly_plays": pl.Int64,
    "tricks_lost": pl.Int64,
    "capped": pl.Boolean,
    "side_par": pl.Int64,
    "side_tricks": pl.Int64,
    "nil_makeable": pl.Boolean,
}
"""The analysis columns of ``seat_analysis``, with ``game``, ``hand`` and ``seat`` to join
them on (docs/stats.md)."""


@dataclass
class HandList:
    """Complete hands waiting to be analysed, each with its game number in the tables;
    cheap to append to and to send from a worker process."""

    games: list[int] = field(default_factory=list)
    hands: list[HandReplay] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.hands)

    def add(self, replay: Replay, game: int) -> None:
        """Add the complete hands of one game, numbered ``game`` (the hands that have rows in
        the hand tables)."""
        for hand in replay.hands:
            if hand.scores is not None:
                self.games.append(game)
                self.hands.append(hand)

    def extend(self, other: HandList) -> None:
        """Append the hands of another list (from another worker) after these."""
        self.games.extend(other.games)
        self.hands.extend(other.hands)

    def renumber(self, games_before: int) -> None:
        """Shift the game numbers by ``games_before`` (a worker numbers its games from 0)."""
        self.games = [game + games_before for game in self.games]


def hands_of(replays: Iterable[Replay]) -> HandList:
    """The complete hands of some games, numbered from 0 in the order given, as
    :func:`~spades_replay.stats.tables.tables_of` numbers them."""
    found = HandList()
    for game, replay in enumerate(replays):
        found.add(replay, game)
    return found


def _add_rows(rows: dict[str, list[Any]], game: int, analysis: HandAnalysis) -> None:
    variant = analysis.variant
    plays = [0] * variant.seat_count
    analysed = [0] * variant.seat_count
    costly = [0] * variant.seat_count
    for play in analysis.plays:
        plays[play.seat] += 1
        analysed[play.seat] += play.analysed
        costly[play.seat] += bool(play.cost)
    nils = {nil.seat: nil.makeable for nil in analysis.nils}
    lost = analysis.tricks_lost
    for seat in variant.seats:
        side = variant.side_of(seat)
        rows["game"].append(game)
        rows["hand"].append(analysis.number)
        rows["seat"].append(seat)
        rows["plays"].append(plays[seat])
        rows["analysed_plays"].append(analysed[seat])
        rows["costly_plays"].append(costly[seat])
        rows["tricks_lost"].append(lost[seat])
        rows["capped"].append(analysis.capped)
        rows["side_par"].append(None if analysis.par is None else analysis.par[side])
        rows["side_tricks"].append(analysis.made[side])
        rows["nil_makeable"].append(nils.get(seat))


def analysis_table(
    hands: HandList,
    seat_hands: pl.DataFrame,
    *,
    time_cap: float | None = None,
    jobs: Jobs = 1,
    progress: ProgressCallback | None = None,
) -> pl.DataFrame:
    """The ``seat_analysis`` table of ``hands``: each hand analysed (within ``time_cap``
    seconds, on ``jobs`` worker processes, 0 for one per core; ``progress`` hears of each
    hand done), one row per seat, with the :data:`IDENTITY` columns of its ``seat_hands``
    row. Rows follow ``seat_hands``."""
    # the solver is imported only when asked for: stats and ingest without the analysis
    # (the usual case) do not pay for its import
    from spades_replay.analysis import analyze_hands

    rows: dict[str, list[Any]] = {name: [] for name in ANALYSIS_SCHEMA}
    results = analyze_hands(hands.hands, time_cap=time_cap, jobs=jobs, progress=progress)
    for game, analysis in zip(hands.games, results, strict=True):
        _add_rows(rows, game, analysis)
    frame = pl.DataFrame(rows, schema=ANALYSIS_SCHEMA)
    return seat_hands.select(IDENTITY).join(
        frame, on=["game", "hand", "seat"], how="inner", maintain_order="left"
    )


def with_analysis(
    tables: Tables,
    hands: HandList,
    *,
    time_cap: float | None = None,
    jobs: Jobs = 1,
    progress: ProgressCallback | None = None,
) -> Tables:
    """``tables`` with their ``seat_analysis`` table: ``hands`` must be the complete hands
    of the same games, numbered alike (:func:`hands_of`, or a collection's)."""
    table = analysis_table(
        hands, tables.seat_hands, time_cap=time_cap, jobs=jobs, progress=progress
    )
    return dataclasses.replace(tables, seat_analysis=table)


def capped_hands(seat_analysis: Frame) -> Frame:
    """The hands the time cap stopped, one row each (``game_id``, ``game``, ``hand``,
    ``variant``, ``analysed_plays`` of ``plays``), in table order."""
    return (
        seat_analysis.filter(pl.col("capped"))
        .group_by(["game", "hand"], maintain_order=True)
        .agg(
            pl.col("game_id").first(),
            pl.col("variant").first(),
            pl.col("analysed_plays").sum(),
            pl.col("plays").sum(),
        )
        .select("game_id", "game", "hand", "variant", "analysed_plays", "plays")
    )
