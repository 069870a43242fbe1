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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import polars as pl

from spades_replay.engine.rules import PRESETS, Rules
from spades_replay.engine.scoring import BLIND_NIL, NIL
from spades_replay.replay import Replay, figures_of
from spades_replay.verify import GameFigures

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

SIDE_HAND_SCHEMA: dict[str, Any] = {
    "game_id": pl.String,
    "game": pl.Int64,
    "hand": pl.Int64,
    "variant": pl.String,
    "rules": pl.String,
    "side": pl.Int64,
    "players": pl.String,
    "contract": pl.Int64,
    "tricks": pl.Int64,
    "tricks_toward_contract": pl.Int64,
    "made": pl.Boolean,
    "contract_points": pl.Int64,
    "overtricks": pl.Int64,
    "nil_bags": pl.Int64,
    "bag_points": pl.Int64,
    "nil_points": pl.Int64,
    "bag_penalties": pl.Int64,
    "penalty_points": pl.Int64,
    "points": pl.Int64,
    "score": pl.Int64,
    "bags": pl.Int64,
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


_SHORT: dict[str, Any] = {
    "target_score": "to{}",
    "lose_score": lambda value: "no-lose" if value is None else f"lose{value}",
    "bag_limit": "bags{}",
    "bag_penalty": "bagpen{}",
    "nil_bonus": "nil{}",
    "blind_nil_bonus": "bnil{}",
    "blind_nil_exchange": "swap{}",
    "failed_nil_tricks_count_as_bags": lambda value: "nilbags" if value else "no-nilbags",
    "failed_nil_tricks_help_partner": lambda value: "pooled" if value else "unpooled",
    "nil_allowed": lambda value: "nil-ok" if value else "no-nil",
    "blind_nil_allowed": lambda value: "bnil-ok" if value else "no-bnil",
    "blind_nil_min_deficit": lambda value: "bnil-any" if value is None else f"bnil-down{value}",
    "min_team_bid": "min{}",
    "first_lead": lambda value: "2C-leads" if value == "two_of_clubs" else "left-leads",
    "spades_must_be_broken": lambda value: "break-spades" if value else "spades-any",
    "double_contract_from": lambda value: "no-double" if value is None else f"double{value}",
}
"""How :func:`short_rules_label` writes each option that differs from the standard."""


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
    parts = []
    default = Rules()
    for name, value in rules.as_dict().items():
        if value == getattr(default, name):
            continue
        form = _SHORT.get(name)
        if form is None:
            parts.append(f"{name}={value}")
        elif isinstance(form, str):
            parts.append(form.format(value))
        else:
            parts.append(form(value))
    return " ".join(parts)


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


def bid_kind(bid: int) -> str:
    """``number``, ``nil`` or ``blind_nil``."""
    if bid == BLIND_NIL:
        return "blind_nil"
    if bid == NIL:
        return "nil"
    return "number"


class Player(Protocol):
    """A player as the rows need her: a record's player or a replay's
    :class:`~spades_replay.replay.PlayerInfo`."""

    @property
    def name(self) -> str:
        """The name shown."""

    @property
    def id(self) -> str | None:
        """The stable id, if any."""


def _extend_columns(
    columns: dict[str, list[Any]], schema: dict[str, Any], rows: list[tuple[Any, ...]]
) -> None:
    """Append ``rows`` (tuples in the order of ``schema``) to the column lists."""
    if rows:
        for name, values in zip(schema, zip(*rows, strict=True), strict=True):
            columns[name].extend(values)


@dataclass
class TableRows:
    """Rows gathered column by column, cheap to append to and to send between processes."""

    seat_hands: dict[str, list[Any]] = field(
        default_factory=lambda: {name: [] for name in SEAT_HAND_SCHEMA}
    )
    side_hands: dict[str, list[Any]] = field(
        default_factory=lambda: {name: [] for name in SIDE_HAND_SCHEMA}
    )
    games: dict[str, list[Any]] = field(default_factory=lambda: {name: [] for name in GAME_SCHEMA})

    def add(
        self,
        figures: GameFigures,
        players: Sequence[Player],
        game_id: str | None,
        game: int,
        source: str | None = None,
        line: int | None = None,
    ) -> None:
        """Add the rows of one valid game from its figures (:mod:`spades_replay.verify`),
        players and id, numbered ``game`` in this run, read from ``source`` (at ``line`` of
        a corpus)."""
        variant = figures.variant.value
        side_of = figures.variant.side_of
        label = rules_label(figures.rules)
        game_id = game_id or f"game-{game}"
        winner = figures.winner
        names = [player.name for player in players]
        keys = [player.name if player.id is None else player.id for player in players]
        side_names = [
            " & ".join(names[seat] for seat in seats) for seats in figures.variant.sides_seats
        ]
        # each row is built as a tuple and the game's rows go into the columns at the end,
        # a few extends per column instead of an append per cell
        seat_rows: list[tuple[Any, ...]] = []
        side_rows: list[tuple[Any, ...]] = []
        for number, hand in enumerate(figures.hands, start=1):
            scores = hand.scores
            if scores is None:
                continue
            for side in scores:
                side_rows.append(
                    (
                        game_id,
                        game,
                        number,
                        variant,
                        label,
                        side.side,
                        side_names[side.side],
                        side.contract,
                        side.tricks,
                        side.tricks_toward,
                        side.made,
                        side.contract_points,
                        side.overtricks,
                        side.nil_bags,
                        side.bag_points,
                        side.nil_points,
                        side.bag_penalties,
                        side.penalty_points,
                        side.points,
                        side.score,
                        side.bags,
                    )
                )
            for seat, bid in enumerate(hand.bids):
                side_number = side_of(seat)
                side = scores[side_number]
                nil_made: bool | None = None
                nil_points = 0
                if bid > 0:
                    kind = "number"
                    made = side.made
                    accuracy = "set" if not made else "over" if side.overtricks else "exact"
                else:
                    kind = bid_kind(bid)
                    made = None
                    accuracy = None
                    for nil in side.nils:
                        if nil.seat == seat:
                            nil_made, nil_points = nil.made, nil.points
                seat_rows.append(
                    (
                        game_id,
                        game,
                        number,
                        variant,
                        label,
                        seat,
                        names[seat],
                        keys[seat],
                        side_number,
                        kind,
                        max(bid, 0),
                        hand.tricks[seat],
                        made,
                        accuracy,
                        nil_made,
                        nil_points,
                        side.points,
                        side.bag_points,
                        side.bag_penalties,
                        None if winner is None else winner == side_number,
                    )
                )
        _extend_columns(self.seat_hands, SEAT_HAND_SCHEMA, seat_rows)
        _extend_columns(self.side_hands, SIDE_HAND_SCHEMA, side_rows)
        games = self.games
        games["game_id"].append(game_id)
        games["game"].append(game)
        games["variant"].append(variant)
        games["rules"].append(label)
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
        self.add(figures_of(replay), replay.players, replay.game_id, game, source, line)

    def extend(self, other: TableRows) -> None:
        """Append another set of rows (from another worker) after these."""
        for mine, theirs in (
            (self.seat_hands, other.seat_hands),
            (self.side_hands, other.side_hands),
            (self.games, other.games),
        ):
            for name, values in theirs.items():
                mine[name].extend(values)

    def renumber(self, games_before: int, lines_before: int = 0) -> None:
        """Shift the ``game`` numbers by ``games_before`` and the corpus ``line`` numbers by
        ``lines_before`` (a worker numbers both from the start of its part of the input)."""
        for rows in (self.seat_hands, self.side_hands, self.games):
            rows["game"] = [game + games_before for game in rows["game"]]
        self.games["line"] = [
            None if line is None else line + lines_before for line in self.games["line"]
        ]

    def tables(self) -> Tables:
        """The rows as DataFrames."""
        return Tables(
            pl.DataFrame(self.seat_hands, schema=SEAT_HAND_SCHEMA),
            pl.DataFrame(self.side_hands, schema=SIDE_HAND_SCHEMA),
            pl.DataFrame(self.games, schema=GAME_SCHEMA),
        )


@dataclass(frozen=True)
class Tables:
    """The three tables of a set of games, and the double-dummy ``seat_analysis`` table
    when the hands were analysed (:mod:`spades_replay.stats.double_dummy`; else ``None``)."""

    seat_hands: pl.DataFrame
    side_hands: pl.DataFrame
    games: pl.DataFrame
    seat_analysis: pl.DataFrame | None = None


def tables_of(replays: Iterable[Replay]) -> Tables:
    """The tables of some replayed games, numbered from 0 in the order given."""
    rows = TableRows()
    for game, replay in enumerate(replays):
        rows.add_replay(replay, game)
    return rows.tables()
