"""Move ordering for the solver: which card to try first.

Alpha-beta cuts off as soon as one move proves the point, so the likeliest good cards go
first. Leads: masters no opponent can ruff, then other leads no opponent can ruff (from the
suits the opponents are shortest in), then leads into a ruff. Followers: the cheapest card
that takes the lead, then the cheapest that does not; low when her partner is winning. In
the Nil search the Nil bidder ducks as high as she can, her partner covers high and the
defence plays low.

>>> from spades_replay.engine.cards import parse_card as c, names_of, mask_of
>>> names_of(mask_of(follow_order([c("2H"), c("9H"), c("KH")], 1, c("TH"), False)[:1]))
'KH'
"""

from __future__ import annotations

from spades_replay.analysis.position import SUIT_OF
from spades_replay.engine.cards import FULL_DECK_MASK, SUIT_MASKS, Card
from spades_replay.engine.tricks import FIRST_SPADE, beats

__all__ = ["follow_order", "lead_order", "nil_order"]

DISCARD_ORDER = tuple(card % 13 + (13 if card >= FIRST_SPADE else 0) for card in range(52))
"""Cheapest first: low ranks before high ones, any side-suit card before a spade."""
ABOVE = tuple(SUIT_MASKS[card // 13] & ~((2 << card) - 1) for card in range(52))
"""The cards of each card's suit that rank above it."""


def lead_order(leads: list[Card], hand: int, opponents: tuple[int, ...], gone: int) -> list[Card]:
    """Leads in the order to try them: masters (nothing higher left in their suit) that no
    opponent can ruff, then other leads no opponent can ruff, from the suits the opponents
    are shortest in, then leads into a ruff; cheapest first in each."""
    others = FULL_DECK_MASK & ~gone & ~hand
    ruffers = [opponent for opponent in opponents if opponent >> FIRST_SPADE]
    keyed = []
    for card in leads:
        mask = SUIT_MASKS[SUIT_OF[card]]
        if card < FIRST_SPADE and any(not ruffer & mask for ruffer in ruffers):
            rank = 2000
        elif others & ABOVE[card]:
            rank = 1000 + 100 * max((opponent & mask).bit_count() for opponent in opponents)
        else:
            rank = 0
        keyed.append((rank + DISCARD_ORDER[card], card))
    keyed.sort()
    return [card for _, card in keyed]


def follow_order(moves: list[Card], following: int, best: Card, partner_wins: bool) -> list[Card]:
    """Cards after the lead in the order to try them: the cheapest card that takes the lead,
    then the cheapest that does not; simply the cheapest first when her partner is winning.
    ``moves`` come in card order; ``following`` is non-zero when she follows suit, so they
    are all of one suit, ranked already."""
    if following:
        if partner_wins or best // 13 != moves[0] // 13:
            return moves
        split = 0
        while split < len(moves) and moves[split] < best:
            split += 1
        return moves[split:] + moves[:split] if split else moves
    moves.sort(key=DISCARD_ORDER.__getitem__)
    if partner_wins:
        return moves
    winners = [card for card in moves if beats(card, best)]
    if winners and len(winners) < len(moves):
        return winners + [card for card in moves if not beats(card, best)]
    return moves


def nil_order(moves: list[Card], role: int, best: Card) -> list[Card]:
    """Cards in the order to try them in the Nil search. ``role``: 0 the Nil bidder after the
    lead (her highest card that does not take the lead, then her cheapest that does), 1 her
    partner (highest first), 2 the defence and the Nil bidder leading (cheapest first)."""
    if role == 0:
        ducks = [card for card in moves if not beats(card, best)]
        return sorted(ducks, key=DISCARD_ORDER.__getitem__, reverse=True) + sorted(
            (card for card in moves if card not in ducks), key=DISCARD_ORDER.__getitem__
        )
    moves.sort(key=DISCARD_ORDER.__getitem__, reverse=role == 1)
    return moves
