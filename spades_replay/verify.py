"""The fast verifier: an accept-only check of a loaded record, with the figures stats need.

:func:`verify` takes a record the format models have already validated and answers one
question: is it clean (every action legal, every claim right)? If so it returns the
:class:`GameFigures` of the game (bids, tricks by seat, the engine's own side scores, the
result); if not, or wherever it is unsure, ``None``. It never explains: on ``None`` the
engine's :func:`spades_replay.replay.check` runs and says what is wrong, where, under which
rule and what was legal. So every problem a user sees comes from the engine, and the verifier
only has to be right when it says "clean" (a differential test holds the two equal on every
fixture, conformance record, simulated corpora and hundreds of thousands of mutated records).

How it stays fast, in pure Python (docs/performance.md has the figures):

- **No name-to-int pass**: its tables are keyed by the card-name strings the models return.
- **Deferred "was it held" test**: each seat's holding mask is XOR-ed with every card she plays
  and must end at 0. Thirteen plays XOR to a 13-card holding only when they are exactly that
  holding, once each; so for any record that passes, the running masks were the true holdings
  all along, and the follow-suit and spades tests made on them were exact.
- **Deck and deal checks as arithmetic**: a deck is valid when a set of it has 52 cards; a deal
  when its four holding masks (sums of single bits) add up to the full deck, which 52 single
  bits do only when they are distinct.
- **Table-driven tricks**: for the suit led, one lookup per card gives its bit, the led-suit
  mask a card of another suit says its player no longer holds, and its strength in the trick
  (strengths carry the position, so the winner is one ``max``). Spades-broken is tested only
  until the first trick that holds a spade.
- **Memoised scoring** with the engine's own :func:`~spades_replay.engine.scoring.score_side`.

It knows every option of format 1.1. The bids are checked by the engine's own
:func:`~spades_replay.engine.bidding.bid_violation` (only under rules that restrict them: bids
are few), against the running scores before the hand; under ``first_lead: two_of_clubs`` the
engine's :func:`~spades_replay.engine.tricks.opening_leader` names the holder of 2C after any
exchange, who must lead it. Unfinished hands are left to the engine: the verifier answers
``None`` for them.

>>> from spades_replay.record.io import load
>>> figures = verify(load("fixtures/two-player/mercy.json"))
>>> figures.complete, figures.reason, figures.hands[0].tricks
(True, 'mercy', (8, 5))
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from spades_replay.engine.bidding import bid_violation, bidding_order, rules_are_free
from spades_replay.engine.cards import CARD_NAMES, FULL_DECK_MASK, NON_SPADES_MASK, SUIT_MASKS
from spades_replay.engine.rules import Rules
from spades_replay.engine.scoring import BLIND_NIL, Bid, SideScore, end_reason, score_side
from spades_replay.engine.seats import Seat, Side, Variant
from spades_replay.engine.tricks import opening_leader, two_of_clubs_leads
from spades_replay.record import models

__all__ = ["GameFigures", "HandFigures", "rules_of_record", "verify"]


class HandFigures(NamedTuple):
    """One hand as the engine scores it: the dealer (two-player: the first player), every
    seat's bid (engine bids: :data:`~spades_replay.engine.scoring.BLIND_NIL` is -1) and tricks
    won, and the two sides' scores (``None`` for an unfinished hand)."""

    dealer: Seat
    bids: tuple[Bid, ...]
    tricks: tuple[int, ...]
    scores: tuple[SideScore, SideScore] | None


class GameFigures(NamedTuple):
    """A clean game: its variant and rules, every hand's figures, and the result.

    ``complete`` is true when some hand decided the game (``winner`` and ``reason`` say how);
    ``scores`` and ``bags`` are the running totals after the last complete hand, and
    ``complete_hands`` counts complete hands.
    """

    variant: Variant
    rules: Rules
    hands: tuple[HandFigures, ...]
    complete: bool
    winner: Side | None
    reason: str | None
    scores: tuple[int, int]
    bags: tuple[int, int]
    complete_hands: int


BIT: dict[str, int] = {name: 1 << card for card, name in enumerate(CARD_NAMES)}
"""The bitmask of each card, by name."""

_SPADE_STRENGTH = 100 * 4
"""Strengths at or above this are spades (see :data:`_TRICK_TABLES`)."""


def _trick_table(led: int) -> dict[str, tuple[int, int, int]]:
    """For a trick led in suit ``led``: each card's (bit, the led-suit mask that a player of
    this card must no longer hold, strength). A strength is a multiple of 4 (0 for a card
    that cannot win: neither a spade nor of the led suit), so that adding the card's position
    in the trick keeps it unique and the trick's ``max`` names its winner."""
    table = {}
    for card, name in enumerate(CARD_NAMES):
        suit, rank = divmod(card, 13)
        must_not_hold = 0 if suit == led else SUIT_MASKS[led]
        if suit == 3:
            strength = (100 + rank) * 4
        elif suit == led:
            strength = (1 + rank) * 4
        else:
            strength = 0
        table[name] = (1 << card, must_not_hold, strength)
    return table


_TRICK_TABLES: dict[str, dict[str, tuple[int, int, int]]] = {
    name: table
    for suit, table in enumerate(_trick_table(led) for led in range(4))
    for name in CARD_NAMES[13 * suit : 13 * suit + 13]
}
"""The trick table of the suit of each card, keyed by the card led."""

_IS_SPADE: dict[str, bool] = {name: card >= 39 for card, name in enumerate(CARD_NAMES)}
_BIDS: dict[int | str, Bid] = {**{bid: bid for bid in range(14)}, "blind_nil": BLIND_NIL}
_DRAFT_OFFSETS = bytes.maketrans(b"KD", b"\x00\x01")
_TURN_STARTS = tuple(range(0, 52, 2))


def _bids_legal(
    variant: Variant, rules: Rules, dealer: Seat, bids: tuple[Bid, ...], scores: tuple[int, int]
) -> bool:
    """Whether the engine's :func:`~spades_replay.engine.bidding.bid_violation` finds every
    bid of a hand begun at ``scores`` legal, each made in bidding order. (The engine takes a
    two-player Blind Nil declaration before the other bid; only the team minimum depends on
    the order, and it has no effect in two-player.)"""
    made: list[Bid | None] = [None] * len(bids)
    for seat in bidding_order(variant, dealer):
        if bid_violation(variant, rules, seat, bids[seat], made, scores) is not None:
            return False
        made[seat] = bids[seat]
    return True


@functools.lru_cache(maxsize=256)
def _rules(names: tuple[str, ...], values: tuple[Any, ...]) -> Rules:
    return Rules(**dict(zip(names, values, strict=True)))


_OPTION_GETTERS: dict[type[models.Rules], tuple[tuple[str, ...], Callable[[Any], Any]]] = {}


def rules_of_record(model: models.Rules) -> Rules:
    """The engine's rules of a record's ``rules`` object (as
    :func:`spades_replay.convert.rules_of` gives them), the same object for the same
    options."""
    kind = type(model)
    found = _OPTION_GETTERS.get(kind)
    if found is None:
        names = tuple(kind.model_fields)
        found = _OPTION_GETTERS[kind] = (names, operator.attrgetter(*names))
    names, values = found
    return _rules(names, values(model))


_MEMO_SIZE = 1 << 16
"""At most this many side scores are kept per rule set (then the memo starts afresh)."""
_MEMOS: dict[tuple[Variant, Rules], dict[tuple[int, ...], SideScore]] = {}


def _memo(variant: Variant, rules: Rules) -> dict[tuple[int, ...], SideScore]:
    """The side scores already worked out under ``rules``, by :func:`_side_score`'s key."""
    memo = _MEMOS.get((variant, rules))
    if memo is None or len(memo) > _MEMO_SIZE:
        if len(_MEMOS) > 64:
            _MEMOS.clear()
        memo = _MEMOS[(variant, rules)] = {}
    return memo


_new_tuple = tuple.__new__


def _side_score(
    memo: dict[tuple[int, ...], SideScore],
    variant: Variant,
    rules: Rules,
    side: Side,
    bids: tuple[Bid, ...],
    tricks: tuple[int, ...],
    score_before: int,
    bags_before: int,
) -> SideScore:
    """The engine's :func:`~spades_replay.engine.scoring.score_side`, memoised on what it
    reads (the side's bids and tricks, and its bags before the hand; the score before only
    shifts the running score)."""
    if len(bids) == 2:
        key: tuple[int, ...] = (side, bids[side], tricks[side], bags_before)
    else:
        key = (side, bids[side], bids[side + 2], tricks[side], tricks[side + 2], bags_before)
    score = memo.get(key)
    if score is None:
        score = memo[key] = score_side(
            variant, rules, side, bids, tricks, score_before=0, bags_before=bags_before
        )
    if not score_before:
        return score
    # the same fields but the running score (a named tuple built in C, without its __new__)
    running: SideScore = _new_tuple(
        SideScore, (*score[:14], score_before + score.points, score.bags)
    )
    return running


def _exchange2(
    hand: models.Hand2, bids: tuple[Bid, ...], holdings: list[int], first: Seat, limit: int
) -> bool:
    """Apply a two-player hand's exchanges to ``holdings``; whether they are all legal."""
    pile = FULL_DECK_MASK & ~(holdings[0] | holdings[1])
    exchanges = hand.exchanges
    done = [False, False]
    for index, exchange in enumerate(exchanges):
        seat = exchange.seat
        out, taken = exchange.out, exchange.in_
        if bids[seat] != BLIND_NIL or done[seat]:
            return False
        if seat == first and bids[1 - first] == BLIND_NIL and index == 0 and len(exchanges) > 1:
            return False
        if len(out) != len(taken) or len(out) > limit:
            return False
        if len(set(out)) != len(out) or len(set(taken)) != len(taken):
            return False
        out_mask = sum(map(BIT.__getitem__, out))
        in_mask = sum(map(BIT.__getitem__, taken))
        if out_mask & ~holdings[seat] or in_mask & ~pile:
            return False
        holdings[seat] = holdings[seat] & ~out_mask | in_mask
        pile = pile & ~in_mask | out_mask
        done[seat] = True
    return True


def _exchange4(hand: models.Hand4, bids: tuple[Bid, ...], holdings: list[int], limit: int) -> bool:
    """Apply a four-player hand's exchanges to ``holdings``; whether they are all legal.

    Only a Blind Nil bidder whose partner did not bid Blind Nil exchanges, once, so the two
    holdings an exchange touches are still as dealt."""
    done = [False] * 4
    for exchange in hand.exchanges:
        seat = exchange.seat
        partner = seat ^ 2
        out, taken = exchange.out, exchange.in_
        if bids[seat] != BLIND_NIL or done[seat] or bids[partner] == BLIND_NIL:
            return False
        if len(out) != len(taken) or len(out) > limit:
            return False
        if len(set(out)) != len(out) or len(set(taken)) != len(taken):
            return False
        out_mask = sum(map(BIT.__getitem__, out))
        in_mask = sum(map(BIT.__getitem__, taken))
        if out_mask & ~holdings[seat] or in_mask & ~holdings[partner]:
            return False
        holdings[seat] = holdings[seat] & ~out_mask | in_mask
        holdings[partner] = holdings[partner] & ~in_mask | out_mask
        done[seat] = True
    return True


def _play2(plays: Sequence[str], holdings: list[int], leader: Seat, broken: bool) -> list[int]:
    """Tricks won by each seat in a complete two-player hand, or ``[]`` if a card is
    illegal. ``broken`` is whether spades may be led from the start."""
    won = [0, 0]
    tables = _TRICK_TABLES
    # the holdings of the player to lead and of the other one, swapped when the lead passes
    lead, other = (holdings[0], holdings[1]) if leader == 0 else (holdings[1], holdings[0])
    it = iter(plays)
    for a, b in zip(it, it, strict=True):
        table = tables[a]
        bit_a, _, strength_a = table[a]
        bit_b, must_not_hold, strength_b = table[b]
        if not broken:
            if strength_a >= _SPADE_STRENGTH and lead & NON_SPADES_MASK:
                return []
            broken = strength_a >= _SPADE_STRENGTH or strength_b >= _SPADE_STRENGTH
        lead ^= bit_a
        other ^= bit_b
        if other & must_not_hold:
            return []
        if strength_b > strength_a:
            lead, other = other, lead
            leader = 1 - leader
        won[leader] += 1
    if lead | other:
        return []
    return won


def _play4(plays: Sequence[str], holdings: list[int], leader: Seat, broken: bool) -> list[int]:
    """Tricks won by each seat in a complete four-player hand, or ``[]`` if a card is
    illegal. ``broken`` is whether spades may be led from the start."""
    won = [0, 0, 0, 0]
    tables = _TRICK_TABLES
    spade = _SPADE_STRENGTH
    others = NON_SPADES_MASK
    # the holdings in turn order from the player to lead, rotated when the lead passes
    h0, h1, h2, h3 = holdings[leader:] + holdings[:leader]
    it = iter(plays)
    for a, b, c, d in zip(it, it, it, it, strict=True):
        table = tables[a]
        bit_a, _, strength_a = table[a]
        bit_b, not_b, strength_b = table[b]
        bit_c, not_c, strength_c = table[c]
        bit_d, not_d, strength_d = table[d]
        if not broken:
            if strength_a >= spade and h0 & others:
                return []
            broken = max(strength_a, strength_b, strength_c, strength_d) >= spade
        h0 ^= bit_a
        h1 ^= bit_b
        h2 ^= bit_c
        h3 ^= bit_d
        if h1 & not_b or h2 & not_c or h3 & not_d:
            return []
        offset = max(strength_a, strength_b + 1, strength_c + 2, strength_d + 3) & 3
        if offset:
            if offset == 1:
                h0, h1, h2, h3 = h1, h2, h3, h0
            elif offset == 2:
                h0, h1, h2, h3 = h2, h3, h0, h1
            else:
                h0, h1, h2, h3 = h3, h0, h1, h2
            leader = (leader + offset) & 3
        won[leader] += 1
    if h0 | h1 | h2 | h3:
        return []
    return won


def verify(record: models.AnyRecord) -> GameFigures | None:
    """The figures of ``record`` if it is clean (every action legal, every claim right),
    else ``None``: then :func:`spades_replay.replay.check` says why. ``None`` also when the
    record has an unfinished hand."""
    rules = rules_of_record(record.rules)
    two = isinstance(record, models.TwoPlayerRecord)
    variant = Variant.TWO_PLAYER if two else Variant.FOUR_PLAYER
    free = rules_are_free(rules)
    clubs_lead = two_of_clubs_leads(variant, rules)
    count = 2 if two else 4
    limit = rules.blind_nil_exchange
    broken = not rules.spades_must_be_broken
    bid_of = _BIDS.__getitem__
    bit = BIT.__getitem__
    dealer = record.first_dealer
    scores = (0, 0)
    bags = (0, 0)
    decided = False
    winner: Side | None = None
    reason: str | None = None
    figures = []
    memo = _memo(variant, rules)
    for hand in record.hands:
        if decided:
            return None
        bids = tuple(map(bid_of, hand.bids))
        if not free and not _bids_legal(variant, rules, dealer, bids, scores):
            return None
        if isinstance(hand, models.Hand2):
            deck = hand.deck
            if len(set(deck)) != 52 or len(hand.plays) != 26:
                return None
            offsets = hand.draft.encode("ascii").translate(_DRAFT_OFFSETS)
            kept = list(map(deck.__getitem__, map(int.__add__, _TURN_STARTS, offsets)))
            holdings = [sum(map(bit, kept[0::2])), sum(map(bit, kept[1::2]))]
            if dealer:
                holdings.reverse()
            if hand.exchanges and not _exchange2(hand, bids, holdings, dealer, limit):
                return None
            won = _play2(hand.plays, holdings, 1 - dealer, broken)
        else:
            if len(hand.plays) != 52:
                return None
            first_seat, second_seat, third_seat, fourth_seat = hand.deal
            holdings = [
                sum(map(bit, first_seat)),
                sum(map(bit, second_seat)),
                sum(map(bit, third_seat)),
                sum(map(bit, fourth_seat)),
            ]
            if sum(holdings) != FULL_DECK_MASK:
                return None
            if hand.exchanges and not _exchange4(hand, bids, holdings, limit):
                return None
            if clubs_lead:
                if hand.plays[0] != "2C":
                    return None
                leader = opening_leader(variant, rules, dealer, holdings)
            else:
                leader = (dealer + 1) & 3
            won = _play4(hand.plays, holdings, leader, broken)
        if not won:
            return None
        tricks = tuple(won)
        first = _side_score(memo, variant, rules, 0, bids, tricks, scores[0], bags[0])
        second = _side_score(memo, variant, rules, 1, bids, tricks, scores[1], bags[1])
        scores = (first.score, second.score)
        bags = (first.bags, second.bags)
        claim = hand.result
        if claim is not None and (
            (claim.tricks is not None and claim.tricks != tricks)
            or (claim.points is not None and claim.points != (first.points, second.points))
            or (claim.scores is not None and claim.scores != scores)
            or (claim.bags is not None and claim.bags != bags)
        ):
            return None
        figures.append(_new_tuple(HandFigures, (dealer, bids, tricks, (first, second))))
        reason = end_reason(rules, scores)
        if reason is not None:
            winner = 0 if scores[0] > scores[1] else 1
            decided = True
        dealer = dealer + 1 if dealer + 1 < count else 0
    game_claim = record.result
    if game_claim is not None and (
        not decided or game_claim.winner != winner or game_claim.scores != scores
    ):
        return None
    return GameFigures(
        variant, rules, tuple(figures), decided, winner, reason, scores, bags, len(figures)
    )
