"""The bidding rules, with the options of format 1.1: who may bid Nil or Blind Nil, and the
team minimum (docs/rules.md: "Both variants", "Two-player", "Four-player", "House rules").

One place for them, used by the replay of a recorded game (:mod:`.game`) and by the states a
recorder drives (:mod:`.state`). As for every action, three levels: :func:`bid_violation` says
which rule a bid breaks (or ``None``), :func:`legal_bids_of` lists what is allowed, and
:func:`check_bid` raises an :class:`IllegalActionError` that explains why.

``bids`` is what each seat has bid so far in the hand (``None``: not yet), and ``scores`` the
running scores of the two sides before the hand (after earlier bag penalties).

The worked example of ``min_team_bid: 4`` (Alex bids 2, Beth 3, Charlie, Alex's partner, 1):

>>> from spades_replay.engine.rules import Rules
>>> rules = Rules(min_team_bid=4)
>>> bid_violation(Variant.FOUR_PLAYER, rules, 2, 1, (2, 3, None, None), (0, 0))
<Code.BID_MIN_TEAM_BID: 'bid.min-team-bid'>
>>> legal_bids_of(Variant.FOUR_PLAYER, rules, 2, (NIL, 3, None, None), (0, 0), blind=False)[:3]
(0, 4, 5)
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from spades_replay.engine.rules import Rules
from spades_replay.engine.scoring import BLIND_NIL, NIL, Bid, bid_name
from spades_replay.engine.seats import Seat, Variant
from spades_replay.errors import Code

RULE_NIL = "with nil_allowed false, a bid of 0 (Nil) is not allowed: bids are 1 to 13"
RULE_BLIND_NIL = "with blind_nil_allowed false, Blind Nil may not be declared"
RULE_DEFICIT = (
    "Blind Nil may be declared only by a side at least blind_nil_min_deficit points behind "
    "the other side before the hand"
)
RULE_MIN_TEAM_BID = (
    "a team's bids must add up to at least min_team_bid (Nil counts 0), unless both partners "
    "bid Nil or Blind Nil"
)
RULE_BID = "a bid is a whole number from 0 to 13, or Blind Nil"

NUMBERS: tuple[Bid, ...] = tuple(range(14))
"""Every bid a number may be: Nil (0) and 1 to 13."""


def bidding_order(variant: Variant, dealer: Seat) -> tuple[Seat, ...]:
    """Every seat in the order the seats bid: the second player first (two-player), or the
    dealer's left-hand opponent first (four-player)."""
    return variant.seats_from(variant.next_seat(dealer))


def rules_are_free(rules: Rules) -> bool:
    """Whether the rules leave every bid of 0 to 13 and Blind Nil open (the 1.0 rules): then
    no bid needs checking beyond its range."""
    return (
        rules.nil_allowed
        and rules.blind_nil_allowed
        and rules.blind_nil_min_deficit is None
        and not rules.min_team_bid
    )


def _nil_like(bid: Bid) -> bool:
    return bid in (NIL, BLIND_NIL)


def _value(bid: Bid) -> int:
    """What a bid adds to the team's contract: Nil and Blind Nil add nothing."""
    return 0 if bid == BLIND_NIL else bid


def deficit(variant: Variant, seat: Seat, scores: Sequence[int]) -> int:
    """How many points the side of ``seat`` is behind the other side (negative: ahead)."""
    side = variant.side_of(seat)
    return scores[1 - side] - scores[side]


def blind_nil_open(variant: Variant, rules: Rules, seat: Seat, scores: Sequence[int]) -> bool:
    """Whether the rules let ``seat`` declare Blind Nil in a hand begun at ``scores``."""
    if not rules.blind_nil_allowed:
        return False
    need = rules.blind_nil_min_deficit
    return need is None or deficit(variant, seat, scores) >= need


def _partner_bid(variant: Variant, seat: Seat, bids: Sequence[Bid | None]) -> Bid | None:
    partner = variant.partner(seat)
    return None if partner is None else bids[partner]


def _team_short(variant: Variant, rules: Rules, bid: Bid, partner: Bid | None) -> bool:
    """Whether ``bid``, beside the partner's ``partner`` (``None``: not yet bid, or no
    partner), leaves the team below min_team_bid."""
    if variant is Variant.TWO_PLAYER or not rules.min_team_bid or partner is None:
        return False
    if _nil_like(bid) and _nil_like(partner):
        return False
    return _value(bid) + _value(partner) < rules.min_team_bid


def bid_violation(
    variant: Variant,
    rules: Rules,
    seat: Seat,
    bid: Bid,
    bids: Sequence[Bid | None],
    scores: Sequence[int],
) -> Code | None:
    """The rule ``bid`` by ``seat`` breaks, or ``None`` when it is legal."""
    if bid == BLIND_NIL:
        if not rules.blind_nil_allowed:
            return Code.BID_BLIND_NIL_NOT_ALLOWED
        if not blind_nil_open(variant, rules, seat, scores):
            return Code.BID_BLIND_NIL_DEFICIT
    return _violation_beside(variant, rules, bid, _partner_bid(variant, seat, bids))


def _violation_beside(variant: Variant, rules: Rules, bid: Bid, partner: Bid | None) -> Code | None:
    """The rule ``bid`` breaks beside the partner's ``partner``, leaving aside what the
    scores decide (Blind Nil's deficit)."""
    if bid == NIL and not rules.nil_allowed:
        return Code.BID_NIL_NOT_ALLOWED
    if _team_short(variant, rules, bid, partner):
        return Code.BID_MIN_TEAM_BID
    return None


def legal_bids_of(
    variant: Variant,
    rules: Rules,
    seat: Seat,
    bids: Sequence[Bid | None],
    scores: Sequence[int],
    *,
    blind: bool,
) -> tuple[Bid, ...]:
    """Every bid ``seat`` may make now, Blind Nil first when ``blind`` (it is still a bid she
    can make: four-player bidding) and the rules allow it."""
    numbers = _legal_numbers(variant, rules, _partner_bid(variant, seat, bids))
    if blind and bid_violation(variant, rules, seat, BLIND_NIL, bids, scores) is None:
        return (BLIND_NIL, *numbers)
    return numbers


@functools.lru_cache(maxsize=256)
def _legal_numbers(variant: Variant, rules: Rules, partner: Bid | None) -> tuple[Bid, ...]:
    """The numbers and Nil a seat may bid beside the partner's ``partner``: the same for
    every seat, hand and score of a rule set (only Blind Nil depends on the scores), so
    asked once for each (self-play asks at every bid)."""
    return tuple(bid for bid in NUMBERS if _violation_beside(variant, rules, bid, partner) is None)


def _standing(variant: Variant, seat: Seat, scores: Sequence[int]) -> str:
    side = variant.side_of(seat)
    mine, theirs = scores[side], scores[1 - side]
    gap = theirs - mine
    where = "level" if gap == 0 else f"{gap} behind" if gap > 0 else f"{-gap} ahead"
    return f"at {mine} to {theirs} ({where})"


def check_bid(
    variant: Variant,
    rules: Rules,
    seat: Seat,
    bid: Bid,
    bids: Sequence[Bid | None],
    scores: Sequence[int],
    *,
    at: tuple[str | int, ...],
) -> None:
    """Raise :class:`IllegalActionError` when ``bid`` by ``seat`` is not allowed, saying why
    and which bids were."""
    code = bid_violation(variant, rules, seat, bid, bids, scores)
    if code is None:
        return
    declared = "declared Blind Nil"
    if code is Code.BID_BLIND_NIL_NOT_ALLOWED:
        message = f"{declared}, but Blind Nil is not allowed (blind_nil_allowed is false)"
        rule = RULE_BLIND_NIL
    elif code is Code.BID_BLIND_NIL_DEFICIT:
        message = (
            f"{declared} {_standing(variant, seat, scores)}, but blind_nil_min_deficit is "
            f"{rules.blind_nil_min_deficit}: a side must be at least that many points behind"
        )
        rule = RULE_DEFICIT
    elif code is Code.BID_NIL_NOT_ALLOWED:
        message = "bid Nil, but Nil is not allowed (nil_allowed is false): bids are 1 to 13"
        rule = RULE_NIL
    else:
        partner = _partner_bid(variant, seat, bids)
        assert partner is not None
        team = _value(bid) + _value(partner)
        need = rules.min_team_bid - _value(partner)
        message = (
            f"bid {bid_name(bid)}: team {variant.side_of(seat)} would bid {team}, below "
            f"min_team_bid {rules.min_team_bid}: with her partner's {bid_name(partner)} she "
            f"must bid at least {need}"
        )
        rule = RULE_MIN_TEAM_BID
    if variant is Variant.TWO_PLAYER and bid == BLIND_NIL:
        legal: tuple[Bid, ...] = ()  # she may only not declare, and bid a number later
    else:
        legal = legal_bids_of(
            variant, rules, seat, bids, scores, blind=variant is Variant.FOUR_PLAYER
        )
    # the actions' module only here, where a rule is broken: the fast path never is
    from spades_replay.engine.actions import IllegalActionError

    raise IllegalActionError(
        code,
        message,
        rule,
        at=at,
        seat=seat,
        legal=tuple(bid_name(choice) for choice in legal),
    )
