"""Skill ratings: a Weng-Lin rating per player, with its uncertainty, from the games won and
lost (the ``openskill`` package's Plackett-Luce model; docs/stats.md, "Ratings").

Each won game is one match between its two sides: one player a side in two-player, two
partners a side in four-player (the model shares a side's result between its players by
their uncertainty). Games are rated one after another in :data:`ORDER`: the format holds no
start time (``meta`` is free text), so the order is the corpus order, the games' numbers.
An unfinished game (no winner) is not rated.

A rating is the model's ``mu`` (the skill believed) and ``sigma`` (how unsure it is); the
``rating`` shown and ranked by is the conservative ``mu - 3 sigma``, which a player raises by
winning and by playing more.

>>> import spades_replay
>>> from spades_replay.stats.tables import tables_of
>>> game = spades_replay.replay(spades_replay.load("fixtures/two-player/mercy.json"))
>>> rated = ratings(tables_of([game]))
>>> rated.select("player", "games", "wins").rows()
[('Drew', 1, 1), ('Megan', 1, 0)]
>>> rated["mu"][0] > 25.0 > rated["mu"][1]
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl
from openskill.models import PlackettLuce

from spades_replay.engine.seats import Variant
from spades_replay.stats.tables import Tables

ORDER = "corpus order"
"""The order games are rated in: the input's (a store's, the order of its files), by the
``game`` column."""

MU = 25.0
SIGMA = MU / 3
"""The model's prior: every player starts at ``mu`` 25 with ``sigma`` 25/3 (rating 0)."""

RATING_SCHEMA: dict[str, Any] = {
    "rank": pl.Int64,
    "player_key": pl.String,
    "player": pl.String,
    "games": pl.Int64,
    "wins": pl.Int64,
    "mu": pl.Float64,
    "sigma": pl.Float64,
    "rating": pl.Float64,
}
"""The columns of :func:`ratings`: one row per player rated, best first."""

HISTORY_SCHEMA: dict[str, Any] = {
    "game": pl.Int64,
    "game_id": pl.String,
    "player_key": pl.String,
    "player": pl.String,
    "won": pl.Boolean,
    "mu": pl.Float64,
    "sigma": pl.Float64,
    "rating": pl.Float64,
}
"""The columns of :func:`rating_history`: one row per player per game rated, after it."""


def conservative(mu: float, sigma: float) -> float:
    """The rating shown: ``mu - 3 sigma``."""
    return mu - 3 * sigma


@dataclass(frozen=True)
class RatedGame:
    """One game to rate: its number and id, and each side's players (key, name), the winner
    first."""

    game: int
    game_id: str
    winners: tuple[tuple[str, str], ...]
    losers: tuple[tuple[str, str], ...]


def rated_games(tables: Tables) -> list[RatedGame]:
    """The won games of ``tables`` in :data:`ORDER`, each with its sides' players (from the
    seat table: a won game has complete hands)."""
    games = tables.games.filter(pl.col("winner").is_not_null()).select(
        "game", "game_id", "variant", "winner"
    )
    if games.height == 0:
        return []
    seats = (
        tables.seat_hands.filter(pl.col("game").is_in(games["game"].implode()))
        .group_by("game", "seat", maintain_order=True)
        .agg(pl.col("player_key").first(), pl.col("player").first())
        .sort("game", "seat")
    )
    players: dict[int, list[tuple[str, str]]] = {}
    for game, key, name in seats.select("game", "player_key", "player").iter_rows():
        players.setdefault(game, []).append((key, name))
    found = []
    for game, game_id, variant, winner in games.sort("game").iter_rows():
        seated = players[game]
        sides = [
            tuple(seated[seat] for seat in seats_of) for seats_of in Variant(variant).sides_seats
        ]
        found.append(RatedGame(game, game_id, sides[winner], sides[1 - winner]))
    return found


def _rate(games: list[RatedGame]) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    """Every player's rating after ``games`` (with her name, games and wins), and the history
    rows."""
    model = PlackettLuce(mu=MU, sigma=SIGMA)
    state: dict[str, Any] = {}
    history: list[tuple[Any, ...]] = []
    for game in games:
        teams = []
        for side in (game.winners, game.losers):
            team = []
            for key, name in side:
                # named as at her first game, as the per-player metrics name her
                entry = state.setdefault(key, {"name": name, "games": 0, "wins": 0})
                team.append(entry.get("rating") or model.rating())
            teams.append(team)
        after = model.rate(teams, ranks=[1.0, 2.0])
        for won, side, team in ((True, game.winners, after[0]), (False, game.losers, after[1])):
            for (key, name), rating in zip(side, team, strict=True):
                entry = state[key]
                entry["rating"] = rating
                entry["games"] += 1
                entry["wins"] += won
                history.append(
                    (
                        game.game,
                        game.game_id,
                        key,
                        name,
                        won,
                        rating.mu,
                        rating.sigma,
                        conservative(rating.mu, rating.sigma),
                    )
                )
    return state, history


def ratings(tables: Tables) -> pl.DataFrame:
    """Every player of a won game with her rating after all of them (:data:`RATING_SCHEMA`),
    best ``rating`` first (ties by key)."""
    state, _ = _rate(rated_games(tables))
    rows = [
        (
            key,
            entry["name"],
            entry["games"],
            entry["wins"],
            entry["rating"].mu,
            entry["rating"].sigma,
            conservative(entry["rating"].mu, entry["rating"].sigma),
        )
        for key, entry in state.items()
    ]
    rows.sort(key=lambda row: (-row[6], row[0]))
    return pl.DataFrame(
        [(rank, *row) for rank, row in enumerate(rows, 1)],
        schema=RATING_SCHEMA,
        orient="row",
    )


def rating_history(tables: Tables) -> pl.DataFrame:
    """Each player's rating after each game she played (:data:`HISTORY_SCHEMA`), in
    :data:`ORDER`."""
    _, history = _rate(rated_games(tables))
    return pl.DataFrame(history, schema=HISTORY_SCHEMA, orient="row")
