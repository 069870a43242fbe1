"""The leaderboard: one row per player over some games, with how sure each figure is.

A win rate comes with its 95 % Wilson interval (:func:`wilson`), so that 3 wins in 4 games
(a rate of 75 %, an interval of 30 % to 95 %) does not top 600 in 1,000 (57 % to 63 %); the
rating (:mod:`spades_replay.stats.ratings`) tells skill from a good partner. Beside them:
bid accuracy, bags per hand, Nil and Blind Nil success with their counts, and with the
double-dummy analysis the tricks lost to misplays per hand.

>>> low, high = wilson(3, 4)
>>> round(low, 2), round(high, 2)
(0.3, 0.95)
>>> [round(value, 3) for value in wilson(600, 1000)]
[0.569, 0.63]
"""

from __future__ import annotations

import math
from typing import Any

import polars as pl

from spades_replay.stats.ratings import ratings
from spades_replay.stats.tables import Tables

Z = 1.959963984540054
"""The normal quantile of a two-sided 95 % interval."""

LEADERBOARD_SCHEMA: dict[str, Any] = {
    "rank": pl.Int64,
    "player_key": pl.String,
    "player": pl.String,
    "games": pl.Int64,
    "complete_games": pl.Int64,
    "wins": pl.Int64,
    "win_rate": pl.Float64,
    "win_low": pl.Float64,
    "win_high": pl.Float64,
    "rating": pl.Float64,
    "mu": pl.Float64,
    "sigma": pl.Float64,
    "hands": pl.Int64,
    "bids": pl.Int64,
    "exact_rate": pl.Float64,
    "set_rate": pl.Float64,
    "bags_per_hand": pl.Float64,
    "nil_attempts": pl.Int64,
    "nil_made": pl.Int64,
    "nil_rate": pl.Float64,
    "blind_nil_attempts": pl.Int64,
    "blind_nil_made": pl.Int64,
    "blind_nil_rate": pl.Float64,
}
"""The columns of :func:`leaderboard`, in order; with the analysis, ``analysed_hands`` and
``tricks_lost_per_hand`` follow."""


def wilson(successes: int, trials: int) -> tuple[float, float]:
    """The 95 % Wilson score interval of a rate (0 to 1 with no trial)."""
    if trials == 0:
        return (0.0, 1.0)
    rate = successes / trials
    spread = Z * Z / trials
    centre = (rate + spread / 2) / (1 + spread)
    half = Z * math.sqrt(rate * (1 - rate) / trials + spread / (4 * trials)) / (1 + spread)
    return (max(0.0, centre - half), min(1.0, centre + half))


def chance_above(mu: float, sigma: float, other_mu: float, other_sigma: float) -> float:
    """The chance that a skill believed to be ``mu`` (uncertainty ``sigma``) is above one
    believed to be ``other_mu`` (``other_sigma``): the ratings' beliefs are independent
    normal distributions, so their difference is normal too.

    >>> chance_above(25.0, 1.0, 25.0, 1.0)
    0.5
    >>> round(chance_above(30.0, 2.0, 25.0, 1.5), 3)
    0.977
    """
    spread = math.sqrt(sigma * sigma + other_sigma * other_sigma)
    return 0.5 * (1.0 + math.erf((mu - other_mu) / (spread * math.sqrt(2.0))))


def _rate(numerator: str, denominator: str) -> pl.Expr:
    return pl.when(pl.col(denominator) > 0).then(pl.col(numerator) / pl.col(denominator))


def _count(condition: pl.Expr) -> pl.Expr:
    return condition.fill_null(False).sum().cast(pl.Int64)


def leaderboard(tables: Tables, min_games: int = 1) -> pl.DataFrame:
    """One row per player (by key) over every game of ``tables`` with at least ``min_games``
    games, best rating first (:data:`LEADERBOARD_SCHEMA`), each named as at her first game,
    as the per-player metrics and the ratings name her. Players of games without a
    complete hand are not counted (they have no hand to measure)."""
    seats = tables.seat_hands
    per_game = (
        seats.group_by("player_key", "game", maintain_order=True)
        .agg(pl.col("side_won_game").first().alias("won"))
        .group_by("player_key", maintain_order=True)
        .agg(
            games=pl.len().cast(pl.Int64),
            complete_games=pl.col("won").is_not_null().sum().cast(pl.Int64),
            wins=_count(pl.col("won")),
        )
    )
    number = pl.col("bid_kind") == "number"
    per_hand = seats.group_by("player_key", maintain_order=True).agg(
        pl.col("player").first(),
        hands=pl.len().cast(pl.Int64),
        bids=_count(number),
        exact=_count(pl.col("accuracy") == "exact"),
        set=_count(pl.col("accuracy") == "set"),
        bags_per_hand=pl.col("side_bags").mean(),
        nil_attempts=_count(pl.col("bid_kind") == "nil"),
        nil_made=_count((pl.col("bid_kind") == "nil") & pl.col("nil_made")),
        blind_nil_attempts=_count(pl.col("bid_kind") == "blind_nil"),
        blind_nil_made=_count((pl.col("bid_kind") == "blind_nil") & pl.col("nil_made")),
    )
    rated = ratings(tables).select("player_key", "rating", "mu", "sigma")
    frame = (
        per_hand.join(per_game, on="player_key", how="left")
        .join(rated, on="player_key", how="left")
        .filter(pl.col("games") >= min_games)
    )
    bounds = [
        wilson(wins, complete)
        for wins, complete in frame.select("wins", "complete_games").iter_rows()
    ]
    frame = frame.with_columns(
        win_rate=_rate("wins", "complete_games"),
        win_low=pl.Series([low for low, _ in bounds], dtype=pl.Float64),
        win_high=pl.Series([high for _, high in bounds], dtype=pl.Float64),
        exact_rate=_rate("exact", "bids"),
        set_rate=_rate("set", "bids"),
        nil_rate=_rate("nil_made", "nil_attempts"),
        blind_nil_rate=_rate("blind_nil_made", "blind_nil_attempts"),
    ).sort(["rating", "player_key"], descending=[True, False], nulls_last=True)
    frame = frame.with_columns(rank=pl.int_range(1, frame.height + 1, dtype=pl.Int64))
    frame = frame.select(list(LEADERBOARD_SCHEMA)).cast(LEADERBOARD_SCHEMA)  # type: ignore[arg-type]
    if tables.seat_analysis is None:
        return frame
    analysed = tables.seat_analysis.filter(~pl.col("capped"))
    lost = analysed.group_by("player_key").agg(
        analysed_hands=pl.len().cast(pl.Int64), tricks_lost=pl.col("tricks_lost").sum()
    )
    return (
        frame.join(lost, on="player_key", how="left", maintain_order="left")
        .with_columns(pl.col("analysed_hands").fill_null(0))
        .with_columns(tricks_lost_per_hand=_rate("tricks_lost", "analysed_hands"))
        .drop("tricks_lost")
    )
