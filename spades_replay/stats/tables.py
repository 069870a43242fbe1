"""Tidy tables of replayed games, as polars DataFrames: one row per seat per hand, one row
per side per hand, one row per game.

Only complete hands have rows in the hand tables (an unfinished last hand has no score yet);
every game has a row in ``games``. Rows keep the input order. Columns are documented in
docs/stats.md.

>>> import spades_replay
>>> r = spades_replay.replay(spades_replay.load("fixtures/two-player/mercy.json"))
>>> tables = tables_of([r])
>>> tables.games.select("complete", "reason").row(0)
(True, 'mercy')
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import polars as pl

from spades_replay.engine.rules import OPTIONS, PRESETS, Rules
from spades_replay.engine.scoring import BLIND_NIL, NIL, SCORE_COLUMNS, SideScore

if TYPE_CHECKING:
    from spades_replay.replayer.replay import Replay
    from spades_replay.replayer.verify import GameFigures

Frame = TypeVar("Frame", pl.DataFrame, pl.LazyFrame)
"""A table in memory or as a lazy frame, for a query written once for both."""

SEAT_HAND_SCHEMA: dict[str, Any] = {
    "game_id": pl.String,
    "game": pl.Int64,
    "hand": pl.Int64,
    "variant": pl.String,
    "rules": pl.String,
    "seat": pl.Int64,
    "player": pl.String,
    "player_key": pl.String,
    "side": pl.Int64,
    "bid_kind": pl.String,
    "bid": pl.Int64,
    "tricks": pl.Int64,
    "contract_made": pl.Boolean,
    "accuracy": pl.String,
    "nil_made": pl.Boolean,
    "nil_points": pl.Int64,
    "side_points": pl.Int64,
    "side_bags": pl.Int64,
    "side_bag_penalties": pl.Int64,
    "side_won_game": pl.Boolean,
}
"""The columns of the seat table, in order, with their types."""

POLARS_TYPES: dict[str, Any] = {"int": pl.Int64, "bool": pl.Boolean}
"""The polars type of each kind of score part."""

SIDE_HAND_SCHEMA: dict[str, Any] = {
    "game_id": pl.String,
    "game": pl.Int64,
    "hand": pl.Int64,
    "variant": pl.String,
    "rules": pl.String,
    "side": pl.Int64,
    "players": pl.String,
    **{part.column: POLARS_TYPES[part.kind] for part in SCORE_COLUMNS if part.field != "side"},
}
"""The columns of the side table, in order, with their types."""

GAME_SCHEMA: dict[str, Any] = {
    "game_id": pl.String,
    "game": pl.Int64,
    "variant": pl.String,
    "rules": pl.String,
    "players": pl.String,
    "player_keys": pl.String,
    "side_0": pl.String,
    "side_1": pl.String,
    "complete": pl.Boolean,
    "winner": pl.Int64,
    "winner_players": pl.String,
    "reason": pl.String,
    "score_0": pl.Int64,
    "score_1": pl.Int64,
    "hands": pl.Int64,
    "source": pl.String,
    "line": pl.Int64,
}
"""The columns of the game table, in order, with their types."""


@functools.lru_cache(maxsize=256)
def rules_label(rules: Rules) -> str:
    """A short, stable name for a rule set: ``standard``, or the options that differ from it
    (kept per rule set: a corpus has few, and every game asks).

    >>> rules_label(Rules()), rules_label(Rules(lose_score=-200, target_score=300))
    ('standard', 'target_score=300 lose_score=-200')
    """
    changed = [
        f"{name}={str(value).lower() if isinstance(value, bool) else value}"
        for name, value in rules.as_dict().items()
        if value != getattr(Rules(), name)
    ]
    return " ".join(changed) or "standard"


def short_rules_label(rules: Rules | str) -> str:
    """A rule set in a few characters, for tables and charts: the name of the preset it is
    (``standard``, ``mercy``...), else its changes from the standard, abbreviated. A
    :func:`rules_label` key is accepted too. :func:`rules_legend` spells the labels out.

    >>> short_rules_label(Rules()), short_rules_label(Rules(lose_score=-200))
    ('standard', 'mercy')
    >>> short_rules_label("target_score=300 lose_score=-200")
    'to300 lose-200'
    """
    if isinstance(rules, str):
        rules = rules_of_label(rules)
    for name, preset in PRESETS.items():
        if rules == preset:
            return name
    return " ".join(
        row.short_label(getattr(rules, row.name))
        for row in OPTIONS
        if getattr(rules, row.name) != row.default
    )


def rules_of_label(label: str) -> Rules:
    """The rule set a :func:`rules_label` key names (its inverse).

    >>> rules_of_label("target_score=300 first_lead=two_of_clubs")
    Rules(target_score=300, first_lead='two_of_clubs')
    """
    if label == "standard":
        return Rules()
    options: dict[str, Any] = {}
    for part in label.split():
        name, _, text = part.partition("=")
        value: Any = text
        if text in ("true", "false"):
            value = text == "true"
        elif text == "None":
            value = None
        elif text.lstrip("-").isdigit():
            value = int(text)
        options[name] = value
    return Rules(**options)


def rules_legend(labels: Iterable[str]) -> list[tuple[str, str]]:
    """Each distinct :func:`rules_label` key with its short label, sorted by short label:
    what a table's legend says.

    >>> rules_legend(["standard", "lose_score=-200", "standard"])
    [('mercy', 'lose_score=-200'), ('standard', 'standard')]
    """
    return sorted({(short_rules_label(label), label) for label in labels})


def rules_caption(label: str) -> str:
    """A :func:`rules_label` key as a caption: its short label, and the key when they
    differ.

    >>> rules_caption("lose_score=-200"), rules_caption("standard")
    ('mercy (lose_score=-200)', 'standard')
    """
    short = short_rules_label(label)
    return short if short == label else f"{short} ({label})"


class Player(Protocol):
    """A player as the rows need her: a record's player or a replay's
    :class:`~spades_replay.replayer.replay.PlayerInfo`."""

    @property
    def name(self) -> str:
        """The name shown."""

    @property
    def id(self) -> str | None:
        """The stable id, if any."""


_SIDE_COLUMNS: dict[str, str] = {part.column: part.field for part in SCORE_COLUMNS}
"""The side table's columns taken as they are from the side scores, each with the field of
:class:`~spades_replay.engine.scoring.SideScore` it holds."""

_SIDE_VALUES = operator.itemgetter(
    *(SideScore._fields.index(name) for name in _SIDE_COLUMNS.values())
)
"""The values of :data:`_SIDE_COLUMNS` in a side score, in their order."""


def _repeat_index(counts: pl.Series) -> pl.Series:
    """Each position of ``counts`` repeated its count times (none for a count of 0)."""
    positions = pl.int_range(0, counts.len(), dtype=pl.Int64, eager=True)
    return positions.repeat_by(counts).explode().drop_nulls()


def game_name(number: int) -> str:
    """The ``game_id`` the tables give a game whose record has none: ``game-N``, ``N`` its
    number among the valid games of its file, from 0 (so that a store that takes in more
    files renames none of the games it holds).

    >>> game_name(3)
    'game-3'
    """
    return f"game-{number}"


@dataclass
class TableRows:
    """Rows gathered as plain lists, cheap to append to and to send between processes.

    Only what varies from hand to hand is gathered per hand: the hand numbers, the side
    scores (flat, :data:`_SIDE_COLUMNS` after one another), every seat's bid and tricks, and
    the few Nil outcomes (seat row, made, points). What a whole game shares (its id, rules,
    result, and each seat's player and side) is gathered once per game; :meth:`tables`
    repeats it over the game's rows and derives the rest (bid kind, accuracy, the side's
    figures on its seats' rows) in polars.
    """

    games: dict[str, list[Any]] = field(default_factory=lambda: {name: [] for name in GAME_SCHEMA})
    seat_counts: list[int] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    seat_sides: list[int] = field(default_factory=list)
    hand_counts: list[int] = field(default_factory=list)
    hands: list[int] = field(default_factory=list)
    sides: list[Any] = field(default_factory=list)
    bids: list[int] = field(default_factory=list)
    tricks: list[int] = field(default_factory=list)
    nils: list[tuple[int, bool, int]] = field(default_factory=list)

    def add(
        self,
        figures: GameFigures,
        players: Sequence[Player],
        game_id: str | None,
        game: int,
        source: str | None = None,
        line: int | None = None,
    ) -> None:
        """Add the rows of one valid game from its figures (:mod:`spades_replay.replayer.verify`),
        players and id, numbered ``game`` in this run, read from ``source`` (at ``line`` of
        a corpus)."""
        names = [player.name for player in players]
        keys = [player.name if player.id is None else player.id for player in players]
        side_names = [
            " & ".join(names[seat] for seat in seats) for seats in figures.variant.sides_seats
        ]
        winner = figures.winner
        sides = self.sides
        bids = self.bids
        count = 0
        for number, hand in enumerate(figures.hands, start=1):
            scores = hand.scores
            if scores is None:
                continue
            count += 1
            self.hands.append(number)
            for side in scores:
                sides.extend(_SIDE_VALUES(side))
                for nil in side.nils:
                    self.nils.append((len(bids) + nil.seat, nil.made, nil.points))
            bids.extend(hand.bids)
            self.tricks.extend(hand.tricks)
        self.seat_counts.append(len(names))
        self.names.extend(names)
        self.keys.extend(keys)
        self.seat_sides.extend(map(figures.variant.side_of, figures.variant.seats))
        self.hand_counts.append(count)
        games = self.games
        # without an id, named by :meth:`renumber` or :meth:`tables`
        games["game_id"].append(game_id or None)
        games["game"].append(game)
        games["variant"].append(figures.variant.value)
        games["rules"].append(rules_label(figures.rules))
        games["players"].append(", ".join(names))
        games["player_keys"].append(", ".join(keys))
        games["side_0"].append(side_names[0])
        games["side_1"].append(side_names[1])
        games["complete"].append(figures.complete)
        games["winner"].append(winner)
        games["winner_players"].append(side_names[winner] if winner is not None else None)
        games["reason"].append(figures.reason)
        games["score_0"].append(figures.scores[0])
        games["score_1"].append(figures.scores[1])
        games["hands"].append(figures.complete_hands)
        games["source"].append(source)
        games["line"].append(line)

    def add_replay(
        self, replay: Replay, game: int, source: str | None = None, line: int | None = None
    ) -> None:
        """Add the rows of one replayed game (as :meth:`add`, from its figures)."""
        from spades_replay.replayer.replay import figures_of

        self.add(figures_of(replay), replay.players, replay.game_id, game, source, line)

    def extend(self, other: TableRows) -> None:
        """Append another set of rows (from another worker) after these."""
        seats_before = len(self.bids)
        for name, values in other.games.items():
            self.games[name].extend(values)
        self.seat_counts.extend(other.seat_counts)
        self.names.extend(other.names)
        self.keys.extend(other.keys)
        self.seat_sides.extend(other.seat_sides)
        self.hand_counts.extend(other.hand_counts)
        self.hands.extend(other.hands)
        self.sides.extend(other.sides)
        self.bids.extend(other.bids)
        self.tricks.extend(other.tricks)
        self.nils.extend((seat + seats_before, made, points) for seat, made, points in other.nils)

    def renumber(
        self, games_before: int, lines_before: int = 0, file_games_before: int | None = None
    ) -> None:
        """Shift the ``game`` numbers by ``games_before`` and the corpus ``line`` numbers by
        ``lines_before`` (a worker numbers both from the start of its part of the input, a
        part of one file), and name the games without an id (:func:`game_name`) after their
        number in the file, ``file_games_before`` (default ``games_before``) games of which
        come before these."""
        named = games_before if file_games_before is None else file_games_before
        self.games["game_id"] = [
            game_name(game + named) if game_id is None else game_id
            for game_id, game in zip(self.games["game_id"], self.games["game"], strict=True)
        ]
        self.games["game"] = [game + games_before for game in self.games["game"]]
        self.games["line"] = [
            None if line is None else line + lines_before for line in self.games["line"]
        ]

    def tables(self) -> Tables:
        """The rows as DataFrames. A game without an id that :meth:`renumber` did not name
        is named after its number (``game``)."""
        game_ids = [
            game_name(game) if game_id is None else game_id
            for game_id, game in zip(self.games["game_id"], self.games["game"], strict=True)
        ]
        games = pl.DataFrame({**self.games, "game_id": game_ids}, schema=GAME_SCHEMA)
        per_game = games.select("game_id", "game", "variant", "rules", "winner")
        game_of_hand = _repeat_index(pl.Series(self.hand_counts, dtype=pl.Int64))
        width = len(_SIDE_COLUMNS)
        scores = pl.DataFrame(
            {name: self.sides[at::width] for at, name in enumerate(_SIDE_COLUMNS)},
            schema={name: SIDE_HAND_SCHEMA[name] for name in _SIDE_COLUMNS},
        )
        # a complete hand has one row per side, side 0 first
        hand_of_side = pl.int_range(0, scores.height, dtype=pl.Int64, eager=True) // 2
        game_of_side = game_of_hand.gather(hand_of_side)
        side_0 = games["side_0"].gather(game_of_side)
        side_1 = games["side_1"].gather(game_of_side)
        side_hands = pl.concat(
            [
                per_game.gather(game_of_side).with_columns(
                    pl.Series("hand", self.hands, dtype=pl.Int64).gather(hand_of_side)
                ),
                scores,
            ],
            how="horizontal",
        ).select(
            "game_id",
            "game",
            "hand",
            "variant",
            "rules",
            "side",
            pl.when(pl.col("side") == 0).then(side_0).otherwise(side_1).alias("players"),
            *list(_SIDE_COLUMNS)[1:],
        )
        return Tables(self._seat_hands(per_game, game_of_hand, scores), side_hands, games)

    def _seat_hands(
        self, per_game: pl.DataFrame, game_of_hand: pl.Series, scores: pl.DataFrame
    ) -> pl.DataFrame:
        """The seat table, from the values of each game (``per_game``), the game of each
        hand, and the side scores (two rows per hand in ``scores``)."""
        seat_rows = len(self.bids)
        nil_made: list[bool | None] = [None] * seat_rows
        nil_points = [0] * seat_rows
        for at, made, points in self.nils:
            nil_made[at] = made
            nil_points[at] = points
        seat_counts = pl.Series(self.seat_counts, dtype=pl.Int64)
        first_player = seat_counts.cum_sum() - seat_counts
        # a hand has one row per seat, seat 0 first, and its side rows are 2 * hand (side 0)
        # and 2 * hand + 1
        hand_of_seat = _repeat_index(seat_counts.gather(game_of_hand))
        game_of_seat = game_of_hand.gather(hand_of_seat)
        first_seat = (
            pl.int_range(0, hand_of_seat.len(), dtype=pl.Int64, eager=True)
            .filter(hand_of_seat.is_first_distinct())
            .gather(hand_of_seat)
        )
        seat = pl.int_range(0, seat_rows, dtype=pl.Int64, eager=True) - first_seat
        player = first_player.gather(game_of_seat) + seat
        side = pl.Series("side", self.seat_sides, dtype=pl.Int64).gather(player)
        side_scores = scores.select("made", "overtricks", "points", "bag_points", "bag_penalties")
        seats = pl.concat(
            [
                per_game.gather(game_of_seat).with_columns(
                    pl.Series("hand", self.hands, dtype=pl.Int64).gather(hand_of_seat),
                    pl.Series("seat", seat),
                    pl.Series("player", self.names, dtype=pl.String).gather(player),
                    pl.Series("player_key", self.keys, dtype=pl.String).gather(player),
                    side,
                    pl.Series("raw_bid", self.bids, dtype=pl.Int64),
                    pl.Series("tricks", self.tricks, dtype=pl.Int64),
                    pl.Series("nil_made", nil_made, dtype=pl.Boolean),
                    pl.Series("nil_points", nil_points, dtype=pl.Int64),
                ),
                side_scores.gather(hand_of_seat * 2 + side),
            ],
            how="horizontal",
        )
        bid = pl.col("raw_bid")
        number = bid > 0
        return seats.select(
            "game_id",
            "game",
            "hand",
            "variant",
            "rules",
            "seat",
            "player",
            "player_key",
            "side",
            bid_kind=pl.when(bid == BLIND_NIL)
            .then(pl.lit("blind_nil"))
            .when(bid == NIL)
            .then(pl.lit("nil"))
            .otherwise(pl.lit("number")),
            bid=pl.max_horizontal(bid, 0),
            tricks="tricks",
            contract_made=pl.when(number).then(pl.col("made")),
            accuracy=pl.when(~number)
            .then(None)
            .when(~pl.col("made").fill_null(False))
            .then(pl.lit("set"))
            .when(pl.col("overtricks") != 0)
            .then(pl.lit("over"))
            .otherwise(pl.lit("exact")),
            nil_made="nil_made",
            nil_points="nil_points",
            side_points="points",
            side_bags="bag_points",
            side_bag_penalties="bag_penalties",
            side_won_game=pl.col("winner") == pl.col("side"),
        )


@dataclass(frozen=True)
class Tables:
    """The three tables of a set of games, and the double-dummy ``seat_analysis`` table
    when the hands were analysed (:mod:`spades_replay.stats.double_dummy`; else ``None``)."""

    seat_hands: pl.DataFrame
    side_hands: pl.DataFrame
    games: pl.DataFrame
    seat_analysis: pl.DataFrame | None = None

    def lazy(self) -> LazyTables:
        """The same tables as polars lazy frames."""
        analysis = self.seat_analysis
        return LazyTables(
            self.seat_hands.lazy(),
            self.side_hands.lazy(),
            self.games.lazy(),
            None if analysis is None else analysis.lazy(),
        )


@dataclass(frozen=True)
class LazyTables:
    """The tables of :class:`Tables` as polars lazy frames: a query over them reads only the
    columns it needs, and, collected with polars' streaming engine, holds its groups rather
    than every row (a store of a million games has 36 million seat rows)."""

    seat_hands: pl.LazyFrame
    side_hands: pl.LazyFrame
    games: pl.LazyFrame
    seat_analysis: pl.LazyFrame | None = None


def tables_of(replays: Iterable[Replay]) -> Tables:
    """The tables of some replayed games, numbered from 0 in the order given."""
    rows = TableRows()
    for game, replay in enumerate(replays):
        rows.add_replay(replay, game)
    return rows.tables()
