"""Metrics computed from the tables: per player, per variant, per game.

Every rate sits beside the counts it is made of (``nil_made`` / ``nil_attempts`` =
``nil_rate``), and is null when there is nothing to count. Players are grouped by their
``id`` when the record gives one, else by name; and by variant and rules, since a Nil under
one house rule is not a Nil under another.

When the tables carry the double-dummy ``seat_analysis`` table
(:mod:`spades_replay.stats.double_dummy`), each grouping gains :data:`ANALYSIS_COLUMNS`:
``analysed_hands``, ``capped_hands``, ``tricks_lost`` (over the analysed hands only: a capped
hand is counted apart, never in the rate) and ``tricks_lost_per_hand``.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from spades_replay.stats.tables import Frame, LazyTables, Tables

PLAYER_KEYS = ("player_key", "variant", "rules")

ANALYSIS_COLUMNS = ("analysed_hands", "capped_hands", "tricks_lost", "tricks_lost_per_hand")
"""The columns the double-dummy analysis adds to each grouping."""


def _rate(numerator: str, denominator: str, name: str) -> pl.Expr:
    return (
        pl.when(pl.col(denominator) > 0)
        .then(pl.col(numerator) / pl.col(denominator))
        .otherwise(None)
        .alias(name)
    )


def _count(condition: pl.Expr, name: str) -> pl.Expr:
    return condition.fill_null(False).sum().cast(pl.Int64).alias(name)


def _nil_counts() -> list[pl.Expr]:
    """Attempts and successes of Nil and Blind Nil, from the seat table."""
    kind = pl.col("bid_kind")
    made = pl.col("nil_made")
    return [
        _count(kind == "nil", "nil_attempts"),
        _count((kind == "nil") & made, "nil_made"),
        _count(kind == "blind_nil", "blind_nil_attempts"),
        _count((kind == "blind_nil") & made, "blind_nil_made"),
    ]


def _nil_columns() -> list[str | pl.Expr]:
    """The Nil and Blind Nil counts, each rate beside them."""
    return [
        "nil_attempts",
        "nil_made",
        _rate("nil_made", "nil_attempts", "nil_rate"),
        "blind_nil_attempts",
        "blind_nil_made",
        _rate("blind_nil_made", "blind_nil_attempts", "blind_nil_rate"),
    ]


def analysis_counts(seat_analysis: Frame, keys: Sequence[str], *, per_seat: bool = True) -> Frame:
    """The :data:`ANALYSIS_COLUMNS` of ``seat_analysis`` grouped by ``keys``.

    ``per_seat``: a hand counts once per seat, with that seat's tricks lost (per player);
    otherwise once, with the tricks lost by all its seats (per game, per variant). Capped
    hands are counted in ``capped_hands`` only: ``tricks_lost`` and the rate cover the
    hands analysed to the first card.
    """
    frame = seat_analysis
    if not per_seat:
        frame = frame.group_by(["game", "hand"], maintain_order=True).agg(
            *(pl.col(key).first() for key in keys if key not in ("game", "hand")),
            pl.col("capped").first(),
            pl.col("tricks_lost").sum(),
        )
    capped = pl.col("capped")
    counts = frame.group_by(list(keys), maintain_order=True).agg(
        _count(~capped, "analysed_hands"),
        _count(capped, "capped_hands"),
        pl.col("tricks_lost").filter(~capped).sum().cast(pl.Int64).alias("tricks_lost"),
    )
    return counts.with_columns(_rate("tricks_lost", "analysed_hands", "tricks_lost_per_hand"))


def _with_analysis(
    frame: pl.LazyFrame, tables: LazyTables, keys: Sequence[str], *, per_seat: bool
) -> pl.LazyFrame:
    """``frame`` with the analysis columns at its end, when the tables have them (0 hands
    for a row with no complete hand)."""
    if tables.seat_analysis is None:
        return frame
    counts = analysis_counts(tables.seat_analysis, keys, per_seat=per_seat).drop(
        "tricks_lost_per_hand"
    )
    joined = frame.join(counts, on=list(keys), how="left", maintain_order="left")
    return joined.with_columns(
        pl.col("analysed_hands", "capped_hands", "tricks_lost").fill_null(0)
    ).with_columns(_rate("tricks_lost", "analysed_hands", "tricks_lost_per_hand"))


def player_metrics(tables: Tables) -> pl.DataFrame:
    """One row per player (by id or name), variant and rules."""
    return player_plan(tables.lazy()).collect()


def player_plan(tables: LazyTables) -> pl.LazyFrame:
    """:func:`player_metrics` as a query of lazy frames."""
    seats = tables.seat_hands
    per_game = (
        seats.group_by([*PLAYER_KEYS, "game"], maintain_order=True)
        .agg(
            pl.col("side_won_game").first().alias("won"),
            pl.col("side_bag_penalties").sum().alias("penalties"),
        )
        .group_by(PLAYER_KEYS, maintain_order=True)
        .agg(
            pl.len().cast(pl.Int64).alias("games"),
            pl.col("won").is_not_null().sum().cast(pl.Int64).alias("complete_games"),
            _count(pl.col("won"), "wins"),
            pl.col("penalties").sum().cast(pl.Int64).alias("bag_penalties"),
        )
    )
    number = pl.col("bid_kind") == "number"
    per_hand = seats.group_by(PLAYER_KEYS, maintain_order=True).agg(
        pl.col("player").first(),
        pl.len().cast(pl.Int64).alias("hands"),
        pl.col("side_points").mean().alias("points_per_hand"),
        _count(number, "bids"),
        _count(pl.col("accuracy") == "exact", "exact"),
        _count(pl.col("accuracy") == "over", "over"),
        _count(pl.col("accuracy") == "set", "set"),
        pl.col("side_bags").mean().alias("bags_per_hand"),
        *_nil_counts(),
    )
    joined = per_hand.join(per_game, on=PLAYER_KEYS, how="left", maintain_order="left")
    metrics = joined.select(
        "player_key",
        "player",
        "variant",
        "rules",
        "games",
        "complete_games",
        "wins",
        _rate("wins", "complete_games", "win_rate"),
        "hands",
        "points_per_hand",
        "bids",
        "exact",
        "over",
        "set",
        _rate("exact", "bids", "exact_rate"),
        _rate("over", "bids", "over_rate"),
        _rate("set", "bids", "set_rate"),
        "bags_per_hand",
        "bag_penalties",
        (pl.col("bag_penalties") / pl.col("games")).alias("bag_penalties_per_game"),
        *_nil_columns(),
    )
    return _with_analysis(metrics, tables, PLAYER_KEYS, per_seat=True).sort(
        ["variant", "rules", "player_key"]
    )


def variant_metrics(tables: Tables) -> pl.DataFrame:
    """One row per variant and rules: games, hands, and how hands go on average."""
    return variant_plan(tables.lazy()).collect()


def variant_plan(tables: LazyTables) -> pl.LazyFrame:
    """:func:`variant_metrics` as a query of lazy frames."""
    games = tables.games.group_by(["variant", "rules"], maintain_order=True).agg(
        pl.len().cast(pl.Int64).alias("games"),
        _count(pl.col("complete"), "complete"),
        pl.col("hands").sum().cast(pl.Int64).alias("hands"),
        _count(pl.col("reason") == "mercy", "mercy_endings"),
    )
    sides = tables.side_hands.group_by(["variant", "rules"], maintain_order=True).agg(
        pl.col("points").mean().alias("points_per_side_hand"),
        _count(pl.col("made").is_not_null(), "contracts"),
        _count(pl.col("made") == False, "sets"),  # noqa: E712 (a polars expression)
        pl.col("bag_points").mean().alias("bags_per_side_hand"),
        pl.col("bag_penalties").sum().cast(pl.Int64).alias("bag_penalties"),
    )
    seats = tables.seat_hands.group_by(["variant", "rules"], maintain_order=True).agg(
        *_nil_counts()
    )
    joined = games.join(sides, on=["variant", "rules"], how="left", maintain_order="left").join(
        seats, on=["variant", "rules"], how="left", maintain_order="left"
    )
    metrics = joined.select(
        "variant",
        "rules",
        "games",
        "complete",
        "mercy_endings",
        "hands",
        (pl.col("hands") / pl.col("games")).alias("hands_per_game"),
        "points_per_side_hand",
        "contracts",
        "sets",
        _rate("sets", "contracts", "set_rate"),
        "bags_per_side_hand",
        "bag_penalties",
        (pl.col("bag_penalties") / pl.col("games")).alias("bag_penalties_per_game"),
        *_nil_columns(),
    )
    return _with_analysis(metrics, tables, ("variant", "rules"), per_seat=False).sort(
        ["variant", "rules"]
    )


def game_metrics(tables: Tables) -> pl.DataFrame:
    """One row per game: who played, who won, the final scores, how many hands."""
    return game_plan(tables.lazy()).collect()


def game_plan(tables: LazyTables) -> pl.LazyFrame:
    """:func:`game_metrics` as a query of lazy frames."""
    return _with_analysis(tables.games.drop("player_keys"), tables, ("game",), per_seat=False)
