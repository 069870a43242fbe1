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

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from spades_replay.engine.rules import PRESETS, Rules
from spades_replay.engine.scoring import BLIND_NIL, NIL
from spades_replay.replay import Replay

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


def rules_label(rules: Rules) -> str:
    """A short, stable name for a rule set: ``standard``, or the options that differ from it.

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
        self, replay: Replay, game: int, source: str | None = None, line: int | None = None
    ) -> None:
        """Add the rows of one replayed game, numbered ``game`` in this run, read from
        ``source`` (at ``line`` of a corpus)."""
        variant = replay.variant.value
        label = rules_label(replay.rules)
        game_id = replay.game_id or f"game-{game}"
        winner = replay.result.winner
        seat_rows = self.seat_hands
        side_rows = self.side_hands
        for hand in replay.hands:
            scores = hand.scores
            if scores is None:
                continue
            for side in scores:
                side_rows["game_id"].append(game_id)
                side_rows["game"].append(game)
                side_rows["hand"].append(hand.number)
                side_rows["variant"].append(variant)
                side_rows["rules"].append(label)
                side_rows["side"].append(side.side)
                side_rows["players"].append(replay.side_name(side.side))
                side_rows["contract"].append(side.contract)
                side_rows["tricks"].append(side.tricks)
                side_rows["tricks_toward_contract"].append(side.tricks_toward)
                side_rows["made"].append(side.made)
                side_rows["contract_points"].append(side.contract_points)
                side_rows["overtricks"].append(side.overtricks)
                side_rows["nil_bags"].append(side.nil_bags)
                side_rows["bag_points"].append(side.bag_points)
                side_rows["nil_points"].append(side.nil_points)
                side_rows["bag_penalties"].append(side.bag_penalties)
                side_rows["penalty_points"].append(side.penalty_points)
                side_rows["points"].append(side.points)
                side_rows["score"].append(side.score)
                side_rows["bags"].append(side.bags)
            for seat, bid in enumerate(hand.outcome.bids):
                side_number = replay.variant.side_of(seat)
                side = scores[side_number]
                kind = bid_kind(bid)
                nil = next((n for n in side.nils if n.seat == seat), None)
                player = replay.players[seat]
                seat_rows["game_id"].append(game_id)
                seat_rows["game"].append(game)
                seat_rows["hand"].append(hand.number)
                seat_rows["variant"].append(variant)
                seat_rows["rules"].append(label)
                seat_rows["seat"].append(seat)
                seat_rows["player"].append(player.name)
                seat_rows["player_key"].append(player.key)
                seat_rows["side"].append(side_number)
                seat_rows["bid_kind"].append(kind)
                seat_rows["bid"].append(max(bid, 0))
                seat_rows["tricks"].append(hand.tricks_won[seat])
                made = side.made if kind == "number" else None
                seat_rows["contract_made"].append(made)
                seat_rows["accuracy"].append(
                    None
                    if made is None
                    else "set"
                    if not made
                    else "over"
                    if side.overtricks
                    else "exact"
                )
                seat_rows["nil_made"].append(nil.made if nil is not None else None)
                seat_rows["nil_points"].append(nil.points if nil is not None else 0)
                seat_rows["side_points"].append(side.points)
                seat_rows["side_bags"].append(side.bag_points)
                seat_rows["side_bag_penalties"].append(side.bag_penalties)
                seat_rows["side_won_game"].append(None if winner is None else winner == side_number)
        games = self.games
        result = replay.result
        games["game_id"].append(game_id)
        games["game"].append(game)
        games["variant"].append(variant)
        games["rules"].append(label)
        games["players"].append(", ".join(player.name for player in replay.players))
        games["player_keys"].append(", ".join(player.key for player in replay.players))
        games["side_0"].append(replay.side_name(0))
        games["side_1"].append(replay.side_name(1))
        games["complete"].append(result.complete)
        games["winner"].append(winner)
        games["winner_players"].append(replay.side_name(winner) if winner is not None else None)
        games["reason"].append(result.reason)
        games["score_0"].append(result.scores[0])
        games["score_1"].append(result.scores[1])
        games["hands"].append(result.hands)
        games["source"].append(source)
        games["line"].append(line)

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
        rows.add(replay, game)
    return rows.tables()
