"""Choosing what to look at: the sidebar's filters (variant, rules, player) applied to the
stats tables, and the labels games and players are picked by. Pure polars, no Streamlit.

An empty selection means "all". A player filter keeps the games in which any of the chosen
players sat, and the hand rows of those games. Labels are plain text (for select boxes, which
show text as it is), with control characters made visible.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import polars as pl

from spades_replay.stats.tables import Frame, Tables
from spades_replay.text import score_line

from .markup import plain


@dataclass(frozen=True, slots=True)
class Filters:
    """What the sidebar selected: variants, rules labels, player keys (empty: all)."""

    variants: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    players: tuple[str, ...] = ()

    @property
    def active(self) -> bool:
        """Whether anything is filtered out at all."""
        return bool(self.variants or self.rules or self.players)


def chosen(games: Frame, seats: Frame, filters: Filters) -> Frame:
    """The rows of ``games`` that pass the filters, in input order: in memory or as a lazy
    frame (a store's). ``seats`` has a row (``game``, ``player_key``) for each seat a player
    is taken to have sat in."""
    if filters.variants:
        games = games.filter(pl.col("variant").is_in(filters.variants))
    if filters.rules:
        games = games.filter(pl.col("rules").is_in(filters.rules))
    if filters.players:
        theirs = seats.filter(pl.col("player_key").is_in(filters.players)).select("game")
        games = games.join(theirs, on="game", how="semi", maintain_order="left")
    return games


def game_numbers(tables: Tables, seats: pl.DataFrame, filters: Filters) -> pl.Series:
    """The ``game`` numbers that pass the filters, in input order.

    ``seats`` has one row per seat of every game (``game``, ``player_key``), unfinished games
    included, since a player sits in a game before any hand is complete.
    """
    return chosen(tables.games, seats, filters).get_column("game")


def apply(tables: Tables, seats: pl.DataFrame, filters: Filters) -> Tables:
    """The tables restricted to the games that pass the filters."""
    if not filters.active:
        return tables
    kept = game_numbers(tables, seats, filters).implode()
    return Tables(
        tables.seat_hands.filter(pl.col("game").is_in(kept)),
        tables.side_hands.filter(pl.col("game").is_in(kept)),
        tables.games.filter(pl.col("game").is_in(kept)),
    )


FILTER_NAMES = ("variant", "rules", "player")
"""The sidebar's filters, in the order they narrow each other."""


@dataclass(frozen=True, slots=True)
class Offered:
    """What each filter offers, each narrowed by the filters before it: every variant; the
    rule sets of the variants chosen; the players (key: name shown) of the games of the
    variants and rule sets chosen."""

    variants: list[str]
    rules: list[str]
    players: dict[str, str]


def offered(games: pl.DataFrame, players: pl.DataFrame, filters: Filters) -> Offered:
    """The options of each filter given the others chosen (:class:`Offered`). ``games`` has
    a row per game (``variant``, ``rules``); ``players`` a row per player and rule set she
    played (``player_key``, ``player``, ``variant``, ``rules``).

    >>> games = pl.DataFrame({"variant": ["two-player", "four-player"], "rules": ["a", "b"]})
    >>> players = pl.DataFrame({"player_key": ["Ann", "Bo"], "player": ["Ann", "Bo"],
    ...     "variant": ["two-player", "four-player"], "rules": ["a", "b"]})
    >>> offered(games, players, Filters(variants=("two-player",)))
    Offered(variants=['two-player', 'four-player'], rules=['a'], players={'Ann': 'Ann'})
    """
    variants = games.get_column("variant").unique(maintain_order=True).to_list()
    if filters.variants:
        games = games.filter(pl.col("variant").is_in(filters.variants))
        players = players.filter(pl.col("variant").is_in(filters.variants))
    rules = sorted(games.get_column("rules").unique().to_list())
    if filters.rules:
        players = players.filter(pl.col("rules").is_in(filters.rules))
    return Offered(variants, rules, player_options(players))


def excluding(count: Callable[[Filters], int], filters: Filters) -> str | None:
    """The first filter (in :data:`FILTER_NAMES` order) after which ``count`` finds no game,
    the others before it applied; ``None`` when some game passes them all, or when there is
    no game even before any filter."""
    if count(Filters()) == 0:
        return None
    steps = (
        Filters(filters.variants),
        Filters(filters.variants, filters.rules),
        filters,
    )
    for name, step in zip(FILTER_NAMES, steps, strict=True):
        if count(step) == 0:
            return name
    return None


def player_options(seats: pl.DataFrame) -> dict[str, str]:
    """Every player key, with the name to show for it (``name (key)`` when the record gave
    an id that differs from the name), sorted by what is shown."""
    pairs = seats.select("player_key", "player").unique(subset="player_key", keep="first")
    shown = {
        key: plain(name, 60) if key == name else f"{plain(name, 60)} ({plain(key, 60)})"
        for key, name in pairs.iter_rows()
    }
    return dict(sorted(shown.items(), key=lambda item: (item[1].casefold(), item[0])))


def game_labels(
    games: pl.DataFrame, *, spoilers: bool = True, names: list[str] | None = None
) -> list[str]:
    """A label for each row of the games table: id (or the name given for it:
    :func:`game_tokens`), variant, sides and how it ended (not without ``spoilers``)."""
    labels = []
    ids = names if names is not None else games.get_column("game_id").to_list()
    for name, row in zip(ids, games.iter_rows(named=True), strict=True):
        sides = f"{plain(row['side_0'], 60)} vs {plain(row['side_1'], 60)}"
        if not spoilers:
            labels.append(f"{plain(name, 60)} · {row['variant']} · {sides}")
            continue
        scores = score_line((row["score_0"], row["score_1"]), row["winner"])
        if row["complete"]:
            ended = f"won by {plain(row['winner_players'], 60)}, {scores}"
        else:
            ended = f"unfinished, {scores} after {row['hands']} hand(s)"
        labels.append(f"{plain(name, 60)} · {row['variant']} · {sides} · {ended}")
    return labels


SEARCHED = ("game_id", "players", "player_keys", "source")
"""The columns of ``games`` the game picker's search looks in."""


def search(games: pl.DataFrame, text: str) -> pl.DataFrame:
    """The games whose id, players or file contain ``text`` (case ignored; all for none)."""
    wanted = text.strip().lower()
    if not wanted:
        return games
    found = pl.lit(False)
    for column in SEARCHED:
        if column in games.columns:
            found = found | pl.col(column).str.to_lowercase().str.contains(wanted, literal=True)
    return games.filter(found.fill_null(False))


def game_tokens(games: pl.DataFrame, numbers: list[int]) -> list[str]:
    """How the address (and the game picker) names each game of ``numbers`` among
    ``games``: its id, followed by ``~N`` for the N-th game of the same id (a store may
    hold several), so that no two games are named alike.

    >>> games = pl.DataFrame({"game": [0, 1, 2], "game_id": ["a", "b", "a"]})
    >>> game_tokens(games, [2, 0, 1])
    ['a~2', 'a', 'b']
    """
    wanted = games.filter(pl.col("game").is_in(numbers)).get_column("game_id").unique()
    same = games.filter(pl.col("game_id").is_in(wanted.implode())).select(
        "game", "game_id", pl.col("game").rank("ordinal").over("game_id").alias("position")
    )
    tokens = {
        game: game_id if position == 1 else f"{game_id}~{position}"
        for game, game_id, position in same.iter_rows()
    }
    return [tokens[number] for number in numbers]


def game_of_token(games: pl.DataFrame, token: str) -> int | None:
    """The game number the address's ``token`` names in ``games`` (:func:`game_token`), or
    ``None`` when there is no such game. An id that itself ends in ``~N`` is taken as it is.

    >>> games = pl.DataFrame({"game": [0, 1, 2], "game_id": ["a", "b", "a"]})
    >>> [game_of_token(games, token) for token in ("a", "a~2", "a~3", "c", "a~\u00b2")]
    [0, 2, None, None, None]
    """
    exact = games.filter(pl.col("game_id") == token).get_column("game").sort()
    if exact.len():
        return int(exact[0])
    game_id, tilde, position = token.rpartition("~")
    if not tilde or not (position.isascii() and position.isdigit()) or int(position) < 2:
        return None
    same = games.filter(pl.col("game_id") == game_id).get_column("game").sort()
    return int(same[int(position) - 1]) if int(position) <= same.len() else None
