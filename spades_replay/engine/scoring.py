"""Scoring a hand and deciding the game: docs/rules.md, "Both variants", as pure functions.

Bids are ints: 1..13 a contract, :data:`NIL` (0) and :data:`BLIND_NIL` (-1).

The worked example of docs/rules.md, "Both variants": Karen bids 7 and wins 8 tricks, 70 + 1 = 71
points and 1 bag.

>>> from spades_replay.engine.rules import Rules
>>> from spades_replay.engine.seats import Variant
>>> karen = score_side(Variant.TWO_PLAYER, Rules(), 0, bids=(7, 4), tricks=(8, 5),
...                    score_before=0, bags_before=0)
>>> karen.points, karen.overtricks
(71, 1)
>>> winner(Rules(), (512, 340))
0
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NamedTuple

from spades_replay.engine.rules import Rules
from spades_replay.engine.seats import Seat, Side, Variant

Bid = int
NIL: Bid = 0
BLIND_NIL: Bid = -1


def bid_name(bid: Bid) -> str:
    """``"4"``, ``"Nil"`` or ``"Blind Nil"``: the game's words, spelt as every message and
    table spells them."""
    if bid == BLIND_NIL:
        return "Blind Nil"
    if bid == NIL:
        return "Nil"
    return str(bid)


class NilOutcome(NamedTuple):
    """How one Nil or Blind Nil bid went."""

    seat: Seat
    blind: bool
    tricks: int
    made: bool
    points: int


class SideScore(NamedTuple):
    """One side's score for one hand, part by part (the score table docs/cli.md describes).

    ``contract`` is 0 when the side has no contract (every member bid Nil or Blind Nil), and
    ``made`` is then ``None``. ``overtricks`` are the bags earned beyond the contract,
    ``nil_bags`` the tricks of failed Nil bidders that count as bags; each bag is one point
    (``bag_points``). ``score`` and ``bags`` are the running totals after this hand, bag
    penalties applied.
    """

    side: Side
    contract: int
    tricks: int
    tricks_toward: int
    made: bool | None
    contract_points: int
    overtricks: int
    nil_bags: int
    bag_points: int
    nils: tuple[NilOutcome, ...]
    nil_points: int
    bag_penalties: int
    penalty_points: int
    points: int
    score: int
    bags: int


class Part(NamedTuple):
    """One field of :class:`SideScore`, as every table and report names it.

    ``column`` is its name in a replay's JSON, the stats tables and the store; ``kind`` what
    it holds (``"int"``; ``"bool"``, null when there is no contract; ``"nils"``, the Nil
    outcomes, which no table holds); ``label``, for the parts of a hand's points only, what
    the points-by-part tables call it.
    """

    field: str
    column: str
    kind: Literal["int", "bool", "nils"] = "int"
    label: str = ""


SCORE_PARTS: tuple[Part, ...] = (
    Part("side", "side"),
    Part("contract", "contract"),
    Part("tricks", "tricks"),
    Part("tricks_toward", "tricks_toward_contract"),
    Part("made", "made", "bool"),
    Part("contract_points", "contract_points", label="contract"),
    Part("overtricks", "overtricks"),
    Part("nil_bags", "nil_bags"),
    Part("bag_points", "bag_points", label="bags"),
    Part("nils", "nils", "nils"),
    Part("nil_points", "nil_points", label="Nil"),
    Part("bag_penalties", "bag_penalties"),
    Part("penalty_points", "penalty_points", label="bag penalties"),
    Part("points", "points", label="total"),
    Part("score", "score"),
    Part("bags", "bags"),
)
"""Every field of :class:`SideScore`, in its order: the one list of a score's parts, from
which the replay's JSON, the stats tables' columns and types, the store's SQL types and the
points-by-part tables are built."""
SCORE_COLUMNS = tuple(part for part in SCORE_PARTS if part.kind != "nils")
"""The parts a table holds, one column each."""
POINTS_PARTS = tuple(part for part in SCORE_PARTS if part.label)
"""The parts of a hand's points, then their total (``points``)."""


def score_side(
    variant: Variant,
    rules: Rules,
    side: Side,
    bids: Sequence[Bid],
    tricks: Sequence[int],
    *,
    score_before: int,
    bags_before: int,
) -> SideScore:
    """Score ``side`` for one hand from every seat's bid and tricks won."""
    seats = variant.sides_seats[side]
    contract = 0
    side_tricks = 0
    nil_tricks = 0
    nils: list[NilOutcome] = []
    nil_points = 0
    for seat in seats:
        bid = bids[seat]
        taken = tricks[seat]
        side_tricks += taken
        if bid > 0:
            contract += bid
            continue
        nil_tricks += taken
        blind = bid == BLIND_NIL
        bonus = rules.blind_nil_bonus if blind else rules.nil_bonus
        points = bonus if taken == 0 else -bonus
        nil_points += points
        nils.append(NilOutcome(seat, blind, taken, taken == 0, points))
    pooled = rules.failed_nil_tricks_help_partner and variant.seat_count == 4
    nil_bags_allowed = rules.failed_nil_tricks_count_as_bags
    if contract > 0:
        toward = side_tricks if pooled else side_tricks - nil_tricks
        made: bool | None = toward >= contract
        double = rules.double_contract_from
        per_trick = 20 if made and double is not None and contract >= double else 10
        contract_points = per_trick * contract if made else -10 * contract
        overtricks = toward - contract if made else 0
        nil_bags = nil_tricks if nil_bags_allowed and not pooled else 0
    else:
        toward = 0
        made = None
        contract_points = 0
        overtricks = 0
        nil_bags = nil_tricks if nil_bags_allowed else 0
    bag_points = overtricks + nil_bags
    bags = bags_before + bag_points
    penalties = 0
    while bags >= rules.bag_limit:
        bags -= rules.bag_limit
        penalties += 1
    penalty_points = -penalties * rules.bag_penalty
    points = contract_points + bag_points + nil_points + penalty_points
    return SideScore(
        side=side,
        contract=contract,
        tricks=side_tricks,
        tricks_toward=toward,
        made=made,
        contract_points=contract_points,
        overtricks=overtricks,
        nil_bags=nil_bags,
        bag_points=bag_points,
        nils=tuple(nils),
        nil_points=nil_points,
        bag_penalties=penalties,
        penalty_points=penalty_points,
        points=points,
        score=score_before + points,
        bags=bags,
    )


def score_hand(
    variant: Variant,
    rules: Rules,
    bids: Sequence[Bid],
    tricks: Sequence[int],
    scores_before: Sequence[int],
    bags_before: Sequence[int],
) -> tuple[SideScore, SideScore]:
    """Score both sides for one complete hand."""
    return (
        score_side(
            variant,
            rules,
            0,
            bids,
            tricks,
            score_before=scores_before[0],
            bags_before=bags_before[0],
        ),
        score_side(
            variant,
            rules,
            1,
            bids,
            tricks,
            score_before=scores_before[1],
            bags_before=bags_before[1],
        ),
    )


def end_reason(rules: Rules, scores: Sequence[int]) -> str | None:
    """Why the game ends after a hand with these running scores, or ``None`` if it goes on.

    ``"target"``: a side reached ``target_score``; ``"mercy"``: a side fell to ``lose_score``.
    Either way the higher score wins, and a tie means another hand is played.
    """
    first, second = scores
    if first == second:
        return None
    if first >= rules.target_score or second >= rules.target_score:
        return "target"
    lose = rules.lose_score
    if lose is not None and (first <= lose or second <= lose):
        return "mercy"
    return None


def winner(rules: Rules, scores: Sequence[int]) -> Side | None:
    """The side that has won after a hand with these running scores, or ``None``."""
    if end_reason(rules, scores) is None:
        return None
    return 0 if scores[0] > scores[1] else 1
