"""What-if rescoring: the same actions scored under other scoring options (docs/rules.md,
"Rescoring under other rules").

A game's actions are legal under the rules it was played with and are never judged again; only
the options of :data:`~spades_replay.engine.rules.SCORING_OPTIONS` may change. Every complete
hand is scored again from its replayed bids and tricks by the engine itself
(:class:`~spades_replay.engine.game.Progress`), in order, until a side wins under the new
options: the game may end earlier, end with another winner, or not end within the hands that
were played. An unfinished last hand is never scored, and a Blind Nil declared under the
game's own running scores is never judged again under the new ones.

>>> import spades_replay
>>> game = spades_replay.load("fixtures/two-player/mercy.json")
>>> what_if = spades_replay.rescore(game, target_score=200)
>>> what_if.original.winner, what_if.original.end_hand, what_if.original.scores
(1, 14, (-258, 416))
>>> what_if.rescored.winner, what_if.rescored.end_hand, what_if.rescored.scores
(1, 4, (181, 208))
>>> spades_replay.rescore(game, lose_score=None).rescored.end_hand is None  # no mercy: no end
True
>>> spades_replay.rescore(game, nil_allowed=False)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
spades_replay.replayer.rescore.RescoreError: nil_allowed shaped what was legal and ...
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from spades_replay.engine.game import Progress
from spades_replay.engine.rules import (
    OPTION,
    SCORING_OPTIONS,
    Rules,
    RuleValue,
    lose_score_problem,
    not_an_option,
    options_problem,
)
from spades_replay.engine.scoring import POINTS_PARTS, SideScore
from spades_replay.engine.seats import Side, Variant
from spades_replay.record import models
from spades_replay.replayer.replay import PlayerInfo, Replay, replay

PARTS = tuple(part.column for part in POINTS_PARTS)
"""The parts of a side's points (:data:`~spades_replay.engine.scoring.POINTS_PARTS`), the
last one their total."""
PART_LABELS = {part.column: part.label for part in POINTS_PARTS}
"""What the points-by-part tables call each part."""


class RescoreError(ValueError):
    """A rescoring that cannot be asked: an option that is not a scoring option, or a value
    the format does not allow. The message says why."""


def check_option_names(options: Iterable[str]) -> None:
    """Raise :class:`RescoreError` for an unknown option or one that shaped what was legal."""
    scoring = ", ".join(SCORING_OPTIONS)
    for name in options:
        if name not in OPTION:
            raise RescoreError(not_an_option(name, SCORING_OPTIONS, "the scoring options"))
        if name not in SCORING_OPTIONS:
            raise RescoreError(
                f"{name} shaped what was legal and cannot be changed by rescoring; "
                f"the scoring options are {scoring}"
            )


LARGEST_TARGET = OPTION["target_score"].high
"""The largest ``target_score`` the format takes."""


def check_options(options: Mapping[str, RuleValue]) -> None:
    """Check ``options`` before any game: names (:func:`check_option_names`), and each value's
    type and range. Whether ``lose_score`` is below a game's ``target_score`` is checked game
    by game (unless ``target_score`` is among the options)."""
    check_option_names(options)
    for name, value in options.items():
        problem = OPTION[name].problem(value)
        if problem is not None:
            raise RescoreError(problem)
    if "lose_score" in options:
        target = options.get("target_score", LARGEST_TARGET)
        problem = lose_score_problem(target, options["lose_score"])
        if problem is not None:
            raise RescoreError(problem)


def scoring_changes(rules: Rules, options: Mapping[str, RuleValue]) -> Rules:
    """``rules`` with the scoring ``options`` changed; raises :class:`RescoreError` for an
    unknown option, one that shaped what was legal, or a value out of its range (with the
    other options of ``rules``: ``lose_score`` must stay below ``target_score``)."""
    check_options(options)
    problem = options_problem({**rules.as_dict(), **options})
    if problem is not None:
        raise RescoreError(problem)
    return rules.replace(**options)


@dataclass(frozen=True, slots=True)
class Outcome:
    """A game under one set of rules, as far as its complete hands go.

    ``end_hand`` is the 1-based hand after which a side has won (``None``: no side wins
    within the hands played), ``winner`` that side and ``reason`` why (``"target"`` or
    ``"mercy"``). ``hands`` holds each side's score for every hand scored, up to the end;
    ``hand_scores`` the running scores after each; ``scores`` the final ones.
    """

    rules: Rules
    hands: tuple[tuple[SideScore, SideScore], ...]
    winner: Side | None
    reason: str | None

    @property
    def end_hand(self) -> int | None:
        """The hand where the game ends (1-based), or ``None`` if it does not."""
        return len(self.hands) if self.winner is not None else None

    @property
    def hand_scores(self) -> tuple[tuple[int, int], ...]:
        """The running scores after each hand scored, up to the end."""
        return tuple((first.score, second.score) for first, second in self.hands)

    @property
    def scores(self) -> tuple[int, int]:
        """The final scores (0 to 0 when no hand was scored)."""
        return self.hand_scores[-1] if self.hands else (0, 0)

    def parts(self, side: Side) -> dict[str, int]:
        """Each part of ``side``'s points (:data:`PARTS`), added up over the hands scored."""
        return {part: sum(getattr(hand[side], part) for hand in self.hands) for part in PARTS}

    def to_dict(self) -> dict[str, Any]:
        """The outcome as JSON-ready data."""
        return {
            "scores": list(self.scores),
            "winner": self.winner,
            "reason": self.reason,
            "end_hand": self.end_hand,
            "hand_scores": [list(scores) for scores in self.hand_scores],
            "parts": [self.parts(0), self.parts(1)],
        }


def _scored(replayed: Replay) -> list[tuple[SideScore, SideScore]]:
    return [outcome.scores for outcome in replayed.outcomes if outcome.scores is not None]


def recorded_outcome(replayed: Replay) -> Outcome:
    """The game as it was played, under its own rules: the replay's scores."""
    result = replayed.result
    return Outcome(replayed.rules, tuple(_scored(replayed)), result.winner, result.reason)


def outcome_under(replayed: Replay, rules: Rules) -> Outcome:
    """The game's complete hands scored again under ``rules``, by the engine, until a side
    wins. (``rules`` are taken as given: :func:`rescore` checks them.)"""
    progress = Progress(replayed.variant, rules, replayed.first_dealer)
    hands: list[tuple[SideScore, SideScore]] = []
    for outcome in replayed.outcomes:
        if outcome.scores is None or progress.over:
            break
        progress, sides = progress.after_hand(outcome.bids, outcome.play.tricks_won)
        hands.append(sides)
    return Outcome(rules, tuple(hands), progress.winner, progress.end)


@dataclass(frozen=True)
class Rescore:
    """A game under its own rules (``original``) and under other scoring options
    (``rescored``), with who played and the options that changed."""

    game_id: str | None
    variant: Variant
    players: tuple[PlayerInfo, ...]
    side_names: tuple[str, str]
    changes: dict[str, RuleValue]
    hands_scored: int
    original: Outcome
    rescored: Outcome

    @property
    def winner_changed(self) -> bool:
        """Whether the game has another winner, or none, or now has one."""
        return self.original.winner != self.rescored.winner

    @property
    def score_change(self) -> tuple[int, int]:
        """Each side's final score rescored, minus as played."""
        before, after = self.original.scores, self.rescored.scores
        return (after[0] - before[0], after[1] - before[1])

    def winners(self, outcome: Outcome) -> tuple[str, ...]:
        """The player keys of the winning side of ``outcome`` (none when nobody won)."""
        if outcome.winner is None:
            return ()
        return tuple(self.players[seat].key for seat in self.variant.side_seats(outcome.winner))

    def to_dict(self) -> dict[str, Any]:
        """The figures as JSON-ready data, in a fixed key order."""
        return {
            "game_id": self.game_id,
            "variant": self.variant.value,
            "sides": list(self.side_names),
            "changes": dict(self.changes),
            "hands_scored": self.hands_scored,
            "original": self.original.to_dict(),
            "rescored": self.rescored.to_dict(),
            "winner_changed": self.winner_changed,
            "score_change": list(self.score_change),
        }


def rescore(record: models.AnyRecord | Replay, **options: RuleValue) -> Rescore:
    """Score a game again with some scoring options changed (none: under its own rules,
    which gives exactly its recorded scores).

    ``record`` is a loaded record (replayed first: a record that breaks a rule raises
    :class:`~spades_replay.errors.RulesError`) or a replay. Raises :class:`RescoreError` for an
    option that is not a scoring option, or a value out of range.
    """
    replayed = record if isinstance(record, Replay) else replay(record)
    rules = scoring_changes(replayed.rules, options)
    return Rescore(
        replayed.game_id,
        replayed.variant,
        replayed.players,
        (replayed.side_name(0), replayed.side_name(1)),
        {name: options[name] for name in SCORING_OPTIONS if name in options},
        replayed.result.hands,
        recorded_outcome(replayed),
        outcome_under(replayed, rules),
    )


@dataclass(frozen=True, slots=True)
class Spread:
    """The mean and standard deviation (population) of some numbers, with their range."""

    mean: float
    std: float
    low: int
    high: int

    @classmethod
    def of(cls, values: Sequence[int]) -> Spread:
        """The spread of ``values`` (all zero when there is none)."""
        if not values:
            return cls(0.0, 0.0, 0, 0)
        mean = math.fsum(values) / len(values)
        variance = math.fsum((value - mean) ** 2 for value in values) / len(values)
        return cls(mean, math.sqrt(variance), min(values), max(values))

    def to_dict(self) -> dict[str, float | int]:
        """The spread as JSON-ready data."""
        return {"mean": self.mean, "std": self.std, "min": self.low, "max": self.high}


@dataclass
class PlayerWins:
    """One player's games and wins, as played and rescored."""

    key: str
    name: str
    games: int = 0
    wins_before: int = 0
    wins_after: int = 0

    @property
    def rate_before(self) -> float:
        """Wins as played per game."""
        return self.wins_before / self.games if self.games else 0.0

    @property
    def rate_after(self) -> float:
        """Wins rescored per game."""
        return self.wins_after / self.games if self.games else 0.0

    def to_dict(self) -> dict[str, Any]:
        """The row as JSON-ready data."""
        return {
            "player_key": self.key,
            "player": self.name,
            "games": self.games,
            "wins_before": self.wins_before,
            "win_rate_before": self.rate_before,
            "wins_after": self.wins_after,
            "win_rate_after": self.rate_after,
        }


@dataclass
class CorpusRescore:
    """The figures of a corpus rescored: add each game's :class:`Rescore` in order."""

    games: int = 0
    winner_changed: int = 0
    ends_earlier: int = 0
    no_longer_ends: int = 0
    now_ends: int = 0
    changes: tuple[list[int], list[int]] = field(default_factory=lambda: ([], []))
    players: dict[str, PlayerWins] = field(default_factory=dict)

    def add(self, game: Rescore) -> None:
        """Count one game."""
        self.games += 1
        before, after = game.original.end_hand, game.rescored.end_hand
        self.winner_changed += game.winner_changed
        self.ends_earlier += before is not None and after is not None and after < before
        self.no_longer_ends += before is not None and after is None
        self.now_ends += before is None and after is not None
        for side, change in enumerate(game.score_change):
            self.changes[side].append(change)
        won_before = set(game.winners(game.original))
        won_after = set(game.winners(game.rescored))
        for info in game.players:
            row = self.players.setdefault(info.key, PlayerWins(info.key, info.name))
            row.games += 1
            row.wins_before += info.key in won_before
            row.wins_after += info.key in won_after

    def extend(self, games: Iterable[Rescore]) -> CorpusRescore:
        """Count every game of ``games``; the summary itself."""
        for game in games:
            self.add(game)
        return self

    def spread(self, side: Side) -> Spread:
        """How ``side``'s final score changed, over the games."""
        return Spread.of(self.changes[side])

    def player_rows(self) -> list[PlayerWins]:
        """Every player, by key."""
        return [self.players[key] for key in sorted(self.players)]

    def to_dict(self) -> dict[str, Any]:
        """The summary as JSON-ready data."""
        return {
            "games": self.games,
            "winner_changed": self.winner_changed,
            "ends_earlier": self.ends_earlier,
            "no_longer_ends": self.no_longer_ends,
            "now_ends": self.now_ends,
            "score_change": [self.spread(0).to_dict(), self.spread(1).to_dict()],
            "players": [row.to_dict() for row in self.player_rows()],
        }
