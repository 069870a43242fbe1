"""Replay a record: every hand re-applied under its rules, every score recomputed, every claim
checked. The result is plain data (frozen dataclasses of ints, strings and tuples).

:func:`replay` fails fast, raising :class:`~spades_replay.errors.RulesError` at the first
problem; :func:`check` collects the problems of one record for a validator.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from spades_replay.engine.actions import Action, IllegalActionError, PlayCard
from spades_replay.engine.cards import CARD_NAMES, cards_of, parse_card
from spades_replay.engine.game import HandActions, HandError, HandOutcome, iter_hands
from spades_replay.engine.rules import Rules
from spades_replay.engine.scoring import SCORE_PARTS, NilOutcome, SideScore
from spades_replay.engine.seats import Seat, Side, Variant
from spades_replay.engine.state import HandState, drive_hand, start_four_player, start_two_player
from spades_replay.errors import Code, Problem, RulesError
from spades_replay.record import models
from spades_replay.record.problems import json_pointer
from spades_replay.replayer.convert import bid_value, hand_actions_of, rules_of, variant_of
from spades_replay.replayer.verify import GameFigures, HandFigures


@dataclass(frozen=True, slots=True)
class PlayerInfo:
    """A player of the game: her name and optional stable id."""

    name: str
    id: str | None = None

    @property
    def key(self) -> str:
        """What stats group her by: the id when there is one, else the name."""
        return self.id if self.id is not None else self.name


class Card(int):
    """A card as the public API gives it: an ``int`` (its place in the deck, 0 for 2C to 51
    for AS, as the engine counts) that prints in the record's notation. ``Card("QH")`` and
    ``Card(36)`` are the same card.

    >>> card = Card.parse("QH")
    >>> card, str(card), int(card), card.rank, card.suit
    (Card('QH'), 'QH', 36, 'Q', 'H')
    >>> hand_cards(0b101)
    (Card('2C'), Card('4C'))
    """

    __slots__ = ()

    def __new__(cls, value: int | str) -> Card:
        if isinstance(value, str):
            value = parse_card(value)
        if not 0 <= value < len(CARD_NAMES):
            raise ValueError(f"a card is 0 to 51 or a name such as 'QH', not {value}")
        return super().__new__(cls, value)

    @classmethod
    def parse(cls, name: str) -> Card:
        """The card of a two-character name (``QH``); ``ValueError`` for any other text."""
        return cls(parse_card(name))

    @property
    def name(self) -> str:
        """The card's notation: rank (2-9, T, J, Q, K, A) then suit (C, D, H, S)."""
        return CARD_NAMES[self]

    @property
    def rank(self) -> str:
        """The rank letter: ``2`` to ``9``, ``T``, ``J``, ``Q``, ``K`` or ``A``."""
        return CARD_NAMES[self][0]

    @property
    def suit(self) -> str:
        """The suit letter: ``C``, ``D``, ``H`` or ``S``."""
        return CARD_NAMES[self][1]

    def __str__(self) -> str:
        return CARD_NAMES[self]

    def __repr__(self) -> str:
        return f"Card({CARD_NAMES[self]!r})"


_CARDS = tuple(Card(index) for index in range(len(CARD_NAMES)))


def hand_cards(holding: int) -> tuple[Card, ...]:
    """The cards of a holding (the engine keeps each seat's cards as a 52-bit mask), in deck
    order: clubs, diamonds, hearts, spades, each from 2 up to A."""
    return tuple(_CARDS[card] for card in cards_of(holding))


def next_mark(marks: tuple[int, ...], step: int, last: int) -> int:
    """The first trick mark after ``step`` (the last step when there is none).

    >>> next_mark((4, 8, 12), 4, 20), next_mark((4, 8, 12), 12, 20)
    (8, 20)
    """
    return next((mark for mark in marks if mark > step), last)


def previous_mark(marks: tuple[int, ...], step: int) -> int:
    """The last trick mark before ``step`` (the first step when there is none).

    >>> previous_mark((4, 8, 12), 9), previous_mark((4, 8, 12), 4)
    (8, 0)
    """
    return next((mark for mark in reversed(marks) if mark < step), 0)


@dataclass(frozen=True, slots=True)
class Step:
    """One point of the timeline: the state of hand ``hand`` after ``action`` (``None`` for
    the hand's starting state).

    ``state`` is the engine's state, which counts cards as ints and holdings as bitmasks;
    :attr:`card`, :attr:`trick`, :attr:`tricks` and :attr:`holdings` give the same in
    :class:`Card` values, which print as ``QH``.
    """

    hand: int
    index: int
    state: HandState
    action: Action | None

    @property
    def card(self) -> Card | None:
        """The card this step played, or ``None`` when the step is no card play."""
        return _CARDS[self.action.card] if isinstance(self.action, PlayCard) else None

    @property
    def trick(self) -> tuple[Card, ...]:
        """The cards of the trick in progress, in play order (empty between tricks)."""
        return tuple(_CARDS[card] for card in self.state.trick)

    @property
    def tricks(self) -> tuple[tuple[Card, ...], ...]:
        """The cards of each completed trick of the hand so far, in play order."""
        return tuple(tuple(_CARDS[card] for card in trick.cards) for trick in self.state.tricks)

    @property
    def holdings(self) -> tuple[tuple[Card, ...], ...]:
        """The cards each seat holds at this point, in deck order."""
        return tuple(hand_cards(holding) for holding in self.state.holdings)


@dataclass(frozen=True)
class HandReplay:
    """One hand of a replayed game (``number`` is 1-based).

    ``outcome`` is the engine's result (holdings, tricks, side scores); :attr:`timeline` is
    every state of the hand, built on first use.
    """

    number: int
    variant: Variant
    rules: Rules
    actions: HandActions
    outcome: HandOutcome

    @property
    def complete(self) -> bool:
        """Whether all 13 tricks were played."""
        return self.outcome.complete

    @property
    def scores(self) -> tuple[SideScore, SideScore] | None:
        """Each side's score for the hand, part by part (``None`` if unfinished)."""
        return self.outcome.scores

    @property
    def tricks_won(self) -> tuple[int, ...]:
        """Tricks won by each seat."""
        return self.outcome.play.tricks_won

    @functools.cached_property
    def timeline(self) -> tuple[Step, ...]:
        """Every state of the hand, from the deal (or the undrafted deck) to the last card."""
        outcome = self.outcome
        if self.variant is Variant.TWO_PLAYER:
            assert self.actions.deck is not None
            state = start_two_player(
                self.rules, outcome.dealer, self.actions.deck, outcome.scores_before
            )
        else:
            state = start_four_player(
                self.rules, outcome.dealer, outcome.dealt, outcome.scores_before
            )
        steps = [Step(self.number, 0, state, None)]
        for index, (action, after) in enumerate(drive_hand(state, self.actions), start=1):
            steps.append(Step(self.number, index, after, action))
        return tuple(steps)

    @functools.cached_property
    def trick_marks(self) -> tuple[int, ...]:
        """The steps where stepping trick by trick stops: the last step before the first
        card (the end of the draft, exchanges and bids), then the step that completes each
        trick."""
        timeline = self.timeline
        first_card = next(
            (step.index for step in timeline if isinstance(step.action, PlayCard)), len(timeline)
        )
        marks = [first_card - 1]
        for step in timeline[first_card:]:
            if len(step.state.tricks) > len(timeline[step.index - 1].state.tricks):
                marks.append(step.index)
        return tuple(marks)

    def to_dict(self) -> dict[str, Any]:
        """The hand as JSON-ready data: what docs/cli.md says ``replay`` shows of a hand."""
        outcome = self.outcome
        data: dict[str, Any] = {
            "number": self.number,
            "dealer": outcome.dealer,
            "leader": outcome.leader,
            "complete": outcome.complete,
            "bids": [bid_value(bid) for bid in outcome.bids],
            "tricks": list(outcome.play.tricks_won),
            "holdings": [_names(mask) for mask in outcome.holdings],
        }
        if self.variant is Variant.TWO_PLAYER:
            data["drafted"] = [_names(mask) for mask in outcome.dealt]
        if outcome.exchanges:
            data["exchanges"] = [
                {
                    "seat": exchange.seat,
                    "out": [CARD_NAMES[card] for card in exchange.out],
                    "in": [CARD_NAMES[card] for card in exchange.in_],
                }
                for exchange in outcome.exchanges
            ]
        data["trick_log"] = [
            {
                "number": trick.number,
                "leader": trick.leader,
                "cards": [CARD_NAMES[card] for card in trick.cards],
                "winner": trick.winner,
            }
            for trick in outcome.play.tricks
        ]
        data["sides"] = [_side_dict(side) for side in outcome.scores] if outcome.scores else None
        if outcome.end is not None:
            data["game_over"] = {"winner": outcome.winner, "reason": outcome.end}
        return data


def _names(mask: int) -> list[str]:
    return [CARD_NAMES[card] for card in cards_of(mask)]


def _side_dict(side: SideScore) -> dict[str, Any]:
    """A side's score as JSON: every part of :data:`SCORE_PARTS` by its column name."""
    return {
        part.column: _nils_list(side.nils) if part.kind == "nils" else getattr(side, part.field)
        for part in SCORE_PARTS
    }


def _nils_list(nils: tuple[NilOutcome, ...]) -> list[dict[str, Any]]:
    return [
        {
            "seat": nil.seat,
            "kind": "blind_nil" if nil.blind else "nil",
            "tricks": nil.tricks,
            "made": nil.made,
            "points": nil.points,
        }
        for nil in nils
    ]


@dataclass(frozen=True, slots=True)
class GameResult:
    """The outcome of a game as far as its record goes.

    ``complete`` is true when some hand decided the game; ``winner`` is then the winning side
    and ``reason`` ``"target"`` or ``"mercy"``. ``scores`` and ``bags`` are the running totals
    after the last complete hand; ``hands`` counts complete hands.
    """

    complete: bool
    winner: Side | None
    reason: str | None
    scores: tuple[int, int]
    bags: tuple[int, int]
    hands: int

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-ready data."""
        return {
            "complete": self.complete,
            "winner": self.winner,
            "reason": self.reason,
            "scores": list(self.scores),
            "bags": list(self.bags),
            "hands": self.hands,
        }


@dataclass(frozen=True)
class Replay:
    """A replayed game: who played, under which rules, every hand, and the result.

    ``outcomes`` and ``actions`` are the engine's values, hand by hand; :attr:`hands` (built
    on first use) pairs them up with their numbers.
    """

    variant: Variant
    rules: Rules
    players: tuple[PlayerInfo, ...]
    first_dealer: Seat
    game_id: str | None
    outcomes: tuple[HandOutcome, ...]
    actions: tuple[HandActions, ...]
    result: GameResult

    @functools.cached_property
    def hands(self) -> tuple[HandReplay, ...]:
        """Every hand of the record, in order."""
        return tuple(
            HandReplay(number, self.variant, self.rules, actions, outcome)
            for number, (actions, outcome) in enumerate(
                zip(self.actions, self.outcomes, strict=False), start=1
            )
        )

    def side_name(self, side: Side) -> str:
        """The players of a side, by name: ``"Megan"`` or ``"Alex & Charlie"``."""
        return " & ".join(self.players[seat].name for seat in self.variant.side_seats(side))

    @functools.cached_property
    def timeline(self) -> tuple[Step, ...]:
        """Every state of every hand, in order: scrub it with an index, both ways."""
        return tuple(step for hand in self.hands for step in hand.timeline)

    def to_dict(self) -> dict[str, Any]:
        """The whole replay as JSON-ready data, in a fixed key order."""
        return {
            "game_id": self.game_id,
            "variant": self.variant.value,
            "rules": self.rules.as_dict(),
            "players": [
                {"name": player.name, **({"id": player.id} if player.id is not None else {})}
                for player in self.players
            ],
            "first_dealer": self.first_dealer,
            "hands": [hand.to_dict() for hand in self.hands],
            "result": self.result.to_dict(),
        }

    def to_json(self, *, indent: bool = False, hand: int | None = None) -> bytes:
        """The replay as JSON bytes: the same record always gives the same bytes. With
        ``hand`` (1-based), ``hands`` holds that hand alone."""
        document = self.to_dict()
        if hand is not None:
            document["hands"] = [document["hands"][hand - 1]]
        return orjson.dumps(document, option=orjson.OPT_INDENT_2 if indent else 0)


def place_of(
    error: IllegalActionError, hand_index: int, players: Sequence[PlayerInfo]
) -> tuple[str, str]:
    """The JSON Pointer and the words for where an engine error happened."""
    at = error.at
    pointer = json_pointer(("hands", hand_index, *at))
    words = f"hand {hand_index + 1}"
    who = ""
    if error.seat is not None:
        who = f" (seat {error.seat}, {players[error.seat].name})"
    if at[:1] == ("plays",) and error.trick is not None:
        words += f", trick {error.trick}, card {error.position}{who}"
    elif at[:1] == ("exchanges",) and len(at) > 1:
        words += f", exchange {int(at[1]) + 1}{who}"
    elif at[:1] == ("bids",) and error.seat is not None:
        words += f", bid of seat {error.seat} ({players[error.seat].name})"
    elif at[:1] == ("deck",) and len(at) > 1:
        words += f", deck card {int(at[1]) + 1}"
    elif at[:1] == ("deal",) and len(at) > 2:
        words += f", deal card {int(at[2]) + 1}{who}"
    else:
        words += who
    return pointer, words


def problem_of(
    error: IllegalActionError, hand_index: int, players: Sequence[PlayerInfo]
) -> Problem:
    """An engine error as a located rules :class:`Problem`."""
    pointer, words = place_of(error, hand_index, players)
    seat = error.seat
    return Problem(
        error.code,
        error.message,
        pointer,
        words,
        error.rule,
        error.legal,
        hand=hand_index + 1,
        trick=error.trick,
        card=error.position,
        seat=seat,
        player=players[seat].name if seat is not None else None,
    )


def _claim_problems(
    claim: models.HandClaim2 | models.HandClaim4, index: int, replayed: HandOutcome
) -> Iterator[Problem]:
    words = f"hand {index + 1}, result"
    if replayed.scores is None:
        yield Problem(
            Code.CLAIM_UNFINISHED_HAND,
            "claims a result for a hand that stops before its 13th trick",
            json_pointer(("hands", index, "result")),
            words,
            "results are claimed only for finished hands",
            hand=index + 1,
        )
        return
    first, second = replayed.scores
    actual = (
        ("tricks", Code.CLAIM_TRICKS, claim.tricks, replayed.play.tricks_won),
        ("points", Code.CLAIM_POINTS, claim.points, (first.points, second.points)),
        ("scores", Code.CLAIM_SCORES, claim.scores, (first.score, second.score)),
        ("bags", Code.CLAIM_BAGS, claim.bags, (first.bags, second.bags)),
    )
    for key, code, claimed, expected in actual:
        if claimed is not None and claimed != expected:
            yield Problem(
                code,
                f"claims {key} {list(claimed)} but the rules give {list(expected)}",
                json_pointer(("hands", index, "result", key)),
                words,
                "every claim must match the replay",
                legal=tuple(str(value) for value in expected),
                hand=index + 1,
            )


def _game_claim_problems(record: models.AnyRecord, result: GameResult) -> Iterator[Problem]:
    claim = record.result
    if claim is None:
        return
    rule = "the game result is claimed only for a won game, and must match the replay"
    if not result.complete:
        yield Problem(
            Code.CLAIM_GAME_NOT_OVER,
            f"claims side {claim.winner} won, but after {result.hands} hand(s) no side has won "
            f"(scores {list(result.scores)})",
            "/result",
            "game result",
            rule,
        )
        return
    if claim.winner != result.winner:
        yield Problem(
            Code.CLAIM_WINNER,
            f"claims side {claim.winner} won but the rules give side {result.winner}",
            "/result/winner",
            "game result",
            rule,
            (str(result.winner),),
        )
    if tuple(claim.scores) != result.scores:
        yield Problem(
            Code.CLAIM_FINAL_SCORES,
            f"claims final scores {list(claim.scores)} but the rules give {list(result.scores)}",
            "/result/scores",
            "game result",
            rule,
            tuple(str(score) for score in result.scores),
        )


def _result_of(outcomes: Sequence[HandOutcome]) -> GameResult:
    scores: tuple[int, int] = (0, 0)
    bags: tuple[int, int] = (0, 0)
    complete_hands = 0
    winner: Side | None = None
    reason: str | None = None
    for outcome in outcomes:
        if outcome.scores is not None:
            complete_hands += 1
            first, second = outcome.scores
            scores = (first.score, second.score)
            bags = (first.bags, second.bags)
        if outcome.end is not None:
            winner, reason = outcome.winner, outcome.end
    return GameResult(winner is not None, winner, reason, scores, bags, complete_hands)


def check(record: models.AnyRecord) -> tuple[Replay | None, tuple[Problem, ...]]:
    """Replay ``record`` and collect its problems, for validators: ``(replay, problems)``,
    where ``replay`` is ``None`` when an action is illegal, and ``problems`` is empty when the
    record is valid.

    Replay stops at the first illegal action (what follows it has no meaning); claims are
    checked for every hand replayed, so a bad claim does not hide a later one. The replay is
    returned when there is no illegal action (claims may still disagree). Raises
    :class:`TypeError` for anything but a loaded record (JSON data is read with ``loads``).
    """
    if not isinstance(record, models.TwoPlayerRecord | models.FourPlayerRecord):
        raise TypeError(
            f"a record is replayed as loaded (spades_replay.load or loads), not a "
            f"{type(record).__name__}"
        )
    variant = variant_of(record)
    rules = rules_of(record.rules)
    players = tuple(PlayerInfo(player.name, player.id) for player in record.players)
    actions = tuple(hand_actions_of(hand) for hand in record.hands)
    problems: list[Problem] = []
    outcomes: list[HandOutcome] = []
    illegal = False
    try:
        for outcome in iter_hands(variant, rules, record.first_dealer, actions):
            outcomes.append(outcome)
            claim = record.hands[outcome.hand_index].result
            if claim is not None:
                problems.extend(_claim_problems(claim, outcome.hand_index, outcome))
    except HandError as error:
        problems.append(problem_of(error, error.hand_index, players))
        illegal = True
    result = _result_of(outcomes)
    if illegal:
        return None, tuple(problems)
    problems.extend(_game_claim_problems(record, result))
    replayed = Replay(
        variant,
        rules,
        players,
        record.first_dealer,
        record.game_id,
        tuple(outcomes),
        actions,
        result,
    )
    return replayed, tuple(problems)


def figures_of(replayed: Replay) -> GameFigures:
    """The figures of a replayed game: what :func:`spades_replay.replayer.verify.verify` gives for a
    clean record (stats build their rows from them)."""
    result = replayed.result
    return GameFigures(
        replayed.variant,
        replayed.rules,
        tuple(
            HandFigures(outcome.dealer, outcome.bids, outcome.play.tricks_won, outcome.scores)
            for outcome in replayed.outcomes
        ),
        result.complete,
        result.winner,
        result.reason,
        result.scores,
        result.bags,
        result.hands,
    )


def replay(record: models.AnyRecord) -> Replay:
    """Replay ``record``; raise :class:`RulesError` (with every problem found) if it breaks a
    rule or claims what the rules do not give."""
    replayed, problems = check(record)
    if problems:
        raise RulesError(problems)
    assert replayed is not None
    return replayed
