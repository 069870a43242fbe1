"""One player's record over some games: her form in game order, her partners and opponents,
and her Nil and Blind Nil hands (the dashboard's player page; docs/stats.md, "One player").

Games are in corpus order (the ``game`` column), as the ratings take them. Only games with a
complete hand count: the seat table holds her seat there.

>>> from spades_replay.stats.collect import StatsCollection
>>> collection = StatsCollection(["fixtures/corpus/four-player.jsonl"])
>>> _ = list(collection)
>>> tables = collection.tables()
>>> partners(tables, "heuristic-alex").select("partner", "games").row(0)
('Charlie', 25)
"""

from __future__ import annotations

import polars as pl

from spades_replay.stats.ratings import rating_history
from spades_replay.stats.tables import Tables


def _seats(tables: Tables) -> pl.DataFrame:
    """Each player's seat in each game (from its first complete hand), with her side and
    whether her side won (null while unfinished)."""
    return (
        tables.seat_hands.filter(pl.col("hand") == 1)
        .select("game", "game_id", "variant", "rules", "seat", "side", "player_key", "player")
        .join(tables.games.select("game", "winner"), on="game", how="left")
        .with_columns(won=pl.col("side") == pl.col("winner"))
    )


def games_of(tables: Tables, key: str) -> pl.DataFrame:
    """Her games in order: game, game_id, variant, rules, seat, side, won (null while
    unfinished)."""
    return (
        _seats(tables)
        .filter(pl.col("player_key") == key)
        .select("game", "game_id", "variant", "rules", "seat", "side", "won")
        .sort("game")
    )


def _with_nils(tables: Tables, key: str) -> pl.DataFrame:
    """Her games in order (:func:`games_of`), with her Nil and Blind Nil bids in each
    (``nil_bids``) and those she made (``nil_made``)."""
    nils = (
        tables.seat_hands.filter((pl.col("player_key") == key) & (pl.col("bid_kind") != "number"))
        .group_by("game")
        .agg(nil_bids=pl.len().cast(pl.Int64), nil_made=pl.col("nil_made").sum().cast(pl.Int64))
    )
    return (
        games_of(tables, key)
        .join(nils, on="game", how="left", maintain_order="left")
        .with_columns(pl.col("nil_bids", "nil_made").fill_null(0))
    )


def nil_change(tables: Tables, key: str, last: int = 200) -> pl.DataFrame:
    """How her Nil and Blind Nil bids went over her last ``last`` games (all of them when
    she played fewer), and in their first and second halves (the first half the smaller
    when they are odd): one row each, ``span`` (``last``, ``first half``, ``second half``),
    ``games``, ``bids``, ``made`` and ``rate`` (null with no bid).

    >>> from spades_replay.stats.collect import StatsCollection
    >>> collection = StatsCollection(["fixtures/corpus/four-player.jsonl"])
    >>> _ = list(collection)
    >>> nil_change(collection.tables(), "heuristic-alex", 20).select("span", "games").rows()
    [('last', 20), ('first half', 10), ('second half', 10)]
    """
    games = _with_nils(tables, key).tail(last)
    half = games.height // 2
    parts = (("last", games), ("first half", games.head(half)), ("second half", games.slice(half)))
    rows = []
    for span, part in parts:
        bids, made = int(part.get_column("nil_bids").sum()), int(part.get_column("nil_made").sum())
        rate = made / bids if bids else None
        rows.append({"span": span, "games": part.height, "bids": bids, "made": made, "rate": rate})
    schema = {
        "span": pl.String,
        "games": pl.Int64,
        "bids": pl.Int64,
        "made": pl.Int64,
        "rate": pl.Float64,
    }
    return pl.DataFrame(rows, schema=schema)


def form(tables: Tables, key: str, window: int = 50) -> pl.DataFrame:
    """Her form, game by game in order: ``number`` (her n-th game), ``game``, ``won``, the
    win rate over her last ``window`` finished games (``rolling_win_rate``), the Nil success
    over her Nil and Blind Nil bids in those games (``rolling_nil_rate``, null before her
    first), and her ``rating`` after the game (null for an unfinished game)."""
    history = rating_history(tables).filter(pl.col("player_key") == key).select("game", "rating")
    finished = pl.col("won").is_not_null().cast(pl.Int64)
    frame = (
        _with_nils(tables, key)
        .join(history, on="game", how="left", maintain_order="left")
        .with_columns(
            number=pl.int_range(1, pl.len() + 1, dtype=pl.Int64),
            wins=pl.col("won").fill_null(False).cast(pl.Int64).rolling_sum(window, min_samples=1),
            finished=finished.rolling_sum(window, min_samples=1),
            bids=pl.col("nil_bids").rolling_sum(window, min_samples=1),
            made=pl.col("nil_made").rolling_sum(window, min_samples=1),
        )
    )
    return frame.select(
        "number",
        "game",
        "game_id",
        "won",
        rolling_win_rate=pl.when(pl.col("finished") > 0).then(pl.col("wins") / pl.col("finished")),
        rolling_nil_rate=pl.when(pl.col("bids") > 0).then(pl.col("made") / pl.col("bids")),
        rating="rating",
    )


def _record(frame: pl.DataFrame, by: str) -> pl.DataFrame:
    return (
        frame.group_by(by, maintain_order=True)
        .agg(
            pl.col("name").last(),
            games=pl.len().cast(pl.Int64),
            finished=pl.col("won").is_not_null().sum().cast(pl.Int64),
            wins=pl.col("won").fill_null(False).sum().cast(pl.Int64),
        )
        .with_columns(
            win_rate=pl.when(pl.col("finished") > 0).then(pl.col("wins") / pl.col("finished"))
        )
        .sort(["games", by], descending=[True, False])
    )


def partners(tables: Tables, key: str) -> pl.DataFrame:
    """Her partners (four-player): ``partner_key``, ``partner`` (name), games together,
    finished, her wins and win rate with each; most games first."""
    seats = _seats(tables)
    mine = seats.filter(pl.col("player_key") == key).select("game", "side", "won")
    others = seats.filter(pl.col("player_key") != key).select(
        "game", "side", partner_key="player_key", name="player"
    )
    together = mine.join(others, on=["game", "side"], how="inner")
    return _record(together, "partner_key").rename({"name": "partner"})


def opponents(tables: Tables, key: str) -> pl.DataFrame:
    """Her opponents: ``opponent_key``, ``opponent`` (name), games against each, finished,
    her wins and win rate against each; most games first."""
    seats = _seats(tables)
    mine = seats.filter(pl.col("player_key") == key).select("game", "side", "won")
    others = seats.select("game", opponent_side="side", opponent_key="player_key", name="player")
    against = mine.join(others, on="game", how="inner").filter(
        pl.col("opponent_side") != pl.col("side")
    )
    return _record(against, "opponent_key").rename({"name": "opponent"})


def nil_hands(tables: Tables, key: str) -> pl.DataFrame:
    """Her Nil and Blind Nil hands, in order: game, game_id, hand, ``kind`` (``Nil`` or
    ``Blind Nil``), tricks she took, made, points."""
    return (
        tables.seat_hands.filter((pl.col("player_key") == key) & (pl.col("bid_kind") != "number"))
        .select(
            "game",
            "game_id",
            "hand",
            kind=pl.when(pl.col("bid_kind") == "nil")
            .then(pl.lit("Nil"))
            .otherwise(pl.lit("Blind Nil")),
            tricks="tricks",
            made="nil_made",
            points="nil_points",
        )
        .sort("game", "hand")
    )
