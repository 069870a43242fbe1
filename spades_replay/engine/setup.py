"""Setting up a hand before the bidding: the two-player draft, the four-player deal, and the
Blind Nil exchanges of both variants (docs/rules.md, "Two-player" and "Four-player").

Pure functions over bitmask holdings; each raises :class:`IllegalActionError` with the action's
address when the rules are broken.

>>> from spades_replay.engine.cards import DECK, names_of
>>> draft = draft_hands(DECK, "K" * 26, first=0)
>>> names_of(draft.holdings[0]).split()[:3]
['2C', '6C', 'TC']
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import add
from typing import NamedTuple

from spades_replay.engine.actions import Exchange, IllegalActionError
from spades_replay.engine.cards import BITS, CARD_NAMES, FULL_DECK_MASK, Card, mask_of, names_of
from spades_replay.engine.seats import Seat, Variant
from spades_replay.errors import Code

RULE_DECK = "the deck holds each of the 52 cards exactly once"
RULE_DEAL = "the deal gives each of the 52 cards to exactly one seat"
RULE_EXCHANGE_WHO = "only a Blind Nil bidder exchanges cards"
RULE_EXCHANGE_ONCE = "a Blind Nil bidder exchanges at most once per hand"
RULE_EXCHANGE_ORDER = "when both players bid Blind Nil, the second player exchanges first"
RULE_EXCHANGE_PARTNER_BLIND = "when both partners bid Blind Nil, no cards are exchanged"
RULE_EXCHANGE_SIZE = (
    "an exchange puts away and takes in the same number of cards, at most blind_nil_exchange"
)
RULE_EXCHANGE_DISTINCT = "each card of an exchange is named once"
RULE_EXCHANGE_HELD = "a player gives only cards she holds"
RULE_EXCHANGE_PILE = "cards taken in come from the discard pile as it is at that moment"
RULE_EXCHANGE_PARTNER = "the partner gives only cards she was dealt"


def turn_seat(turn: int, first: Seat) -> Seat:
    """The seat that takes draft turn ``turn`` (0-based): the first player takes the even turns."""
    return first if turn % 2 == 0 else 1 - first


class DraftOutcome(NamedTuple):
    """The two-player draft, done: each seat's 13 cards and the 26-card discard pile."""

    holdings: tuple[int, int]
    discard: int


def check_deck(deck: Sequence[Card]) -> None:
    """Raise unless ``deck`` holds every card exactly once."""
    if len(deck) == 52 and len(set(deck)) == 52:
        return
    seen: dict[Card, int] = {}
    for index, card in enumerate(deck):
        if card in seen:
            raise IllegalActionError(
                Code.DECK_DUPLICATE_CARD,
                f"{CARD_NAMES[card]} appears twice in the deck "
                f"(positions {seen[card] + 1} and {index + 1})",
                RULE_DECK,
                at=("deck", index),
            )
        seen[card] = index


_DRAFT_OFFSETS = bytes.maketrans(b"KD", b"\x00\x01")
_TURN_STARTS = tuple(range(0, 52, 2))


def draft_hands(deck: Sequence[Card], draft: str, first: Seat) -> DraftOutcome:
    """Run the 26 turns of the draft over ``deck`` (top first) as ``draft`` says.

    ``draft`` holds one letter per turn: ``K`` keeps the top card (the next is discarded),
    ``D`` discards it (and the next is kept). ``first`` is the first player. The deck must
    hold every card once (:func:`check_deck`); every card not kept is discarded.
    """
    offsets = draft.encode("ascii").translate(_DRAFT_OFFSETS)  # 0 keeps the top card, 1 the next
    kept = list(map(deck.__getitem__, map(add, _TURN_STARTS, offsets)))
    # the first player takes turns 0, 2, 4, ...; the cards are distinct, so bits add up
    leading = sum(map(BITS.__getitem__, kept[0::2]))
    second = sum(map(BITS.__getitem__, kept[1::2]))
    holdings = (leading, second) if first == 0 else (second, leading)
    return DraftOutcome(holdings, FULL_DECK_MASK & ~(leading | second))


def check_exchange_shape(exchange: Exchange, index: int, limit: int) -> None:
    """Raise unless ``out`` and ``in`` have the same size, at most ``limit``, without repeats."""
    at = ("exchanges", index)
    if len(exchange.out) != len(exchange.in_) or len(exchange.out) > limit:
        raise IllegalActionError(
            Code.EXCHANGE_SIZE,
            f"puts away {len(exchange.out)} card(s) and takes in {len(exchange.in_)}; "
            f"both must be the same number, at most {limit}",
            RULE_EXCHANGE_SIZE,
            at=(*at, "in" if len(exchange.out) <= limit else "out"),
            seat=exchange.seat,
        )
    for side, cards in (("out", exchange.out), ("in", exchange.in_)):
        seen: set[Card] = set()
        for position, card in enumerate(cards):
            if card in seen:
                raise IllegalActionError(
                    Code.EXCHANGE_DUPLICATE_CARD,
                    f"names {CARD_NAMES[card]} twice in '{side}'",
                    RULE_EXCHANGE_DISTINCT,
                    at=(*at, side, position),
                    seat=exchange.seat,
                )
            seen.add(card)


def check_subset(
    cards: tuple[Card, ...],
    pool: int,
    code: Code,
    what: str,
    rule: str,
    *,
    at: tuple[str | int, ...],
    seat: Seat,
) -> None:
    """Raise ``code`` at the first of ``cards`` that is not in ``pool``."""
    for position, card in enumerate(cards):
        if not pool >> card & 1:
            raise IllegalActionError(
                code,
                f"{CARD_NAMES[card]} is not {what}, which holds {names_of(pool) or 'nothing'}",
                rule,
                at=(*at, position),
                seat=seat,
                legal=tuple(names_of(pool).split()),
            )


def check_swap(
    exchange: Exchange,
    index: int,
    limit: int,
    holding: int,
    source: int,
    *,
    partner: Seat | None,
) -> tuple[int, int]:
    """Check that an exchange has a legal size, gives only cards of ``holding`` and takes in
    only cards of ``source`` (the discard pile, or the partner's hand when ``partner`` is
    given); return the bitmasks of the cards given and taken."""
    check_exchange_shape(exchange, index, limit)
    dealt = "" if partner is None else " as dealt"  # four-player: both give before any play
    check_subset(
        exchange.out,
        holding,
        Code.EXCHANGE_NOT_HELD,
        f"in her hand{dealt}",
        RULE_EXCHANGE_HELD,
        at=("exchanges", index, "out"),
        seat=exchange.seat,
    )
    if partner is None:
        code, where, rule = Code.EXCHANGE_NOT_IN_PILE, "in the discard pile", RULE_EXCHANGE_PILE
    else:
        code, where = (
            Code.EXCHANGE_PARTNER_NOT_HELD,
            f"in her partner's hand{dealt} (seat {partner})",
        )
        rule = RULE_EXCHANGE_PARTNER
    check_subset(
        exchange.in_, source, code, where, rule, at=("exchanges", index, "in"), seat=exchange.seat
    )
    return mask_of(exchange.out), mask_of(exchange.in_)


def check_blind_seat(
    exchange: Exchange, index: int, blind: Sequence[bool], done: set[Seat]
) -> None:
    """Raise unless the exchanging seat bid Blind Nil and has not exchanged yet."""
    if not blind[exchange.seat]:
        raise IllegalActionError(
            Code.EXCHANGE_NOT_BLIND_NIL,
            f"seat {exchange.seat} exchanges cards but did not bid Blind Nil",
            RULE_EXCHANGE_WHO,
            at=("exchanges", index, "seat"),
            seat=exchange.seat,
        )
    if exchange.seat in done:
        raise IllegalActionError(
            Code.EXCHANGE_REPEATED,
            f"seat {exchange.seat} exchanges a second time",
            RULE_EXCHANGE_ONCE,
            at=("exchanges", index, "seat"),
            seat=exchange.seat,
        )


def exchange_order(variant: Variant, dealer: Seat, blind: Sequence[bool]) -> tuple[Seat, ...]:
    """The seats that exchange cards, in the order they do: every Blind Nil bidder in bidding
    order (so in two-player the second player first), except in four-player one whose
    partner also bid Blind Nil (they exchange nothing). The one home of the exchange order."""
    order = variant.seats_from(variant.next_seat(dealer))
    four = variant is Variant.FOUR_PLAYER
    return tuple(seat for seat in order if blind[seat] and not (four and blind[seat ^ 2]))


def check_exchange_entry(
    variant: Variant,
    exchanges: Sequence[Exchange],
    index: int,
    blind: Sequence[bool],
    dealer: Seat,
    done: set[Seat],
) -> None:
    """Raise unless entry ``index`` of a hand's recorded exchanges may stand where it is: its
    seat bid Blind Nil, has not exchanged yet, has a partner to exchange with (four-player),
    and does not go before a seat that exchanges first (:func:`exchange_order`)."""
    exchange = exchanges[index]
    seat = exchange.seat
    check_blind_seat(exchange, index, blind, done)
    if variant is Variant.FOUR_PLAYER:
        if blind[seat ^ 2]:
            raise IllegalActionError(
                Code.EXCHANGE_PARTNER_BLIND,
                f"seat {seat} exchanges with seat {seat ^ 2}, who also bid Blind Nil",
                RULE_EXCHANGE_PARTNER_BLIND,
                at=("exchanges", index, "seat"),
                seat=seat,
            )
        return
    if seat == dealer and blind[1 - dealer] and index == 0 and len(exchanges) > 1:
        raise IllegalActionError(
            Code.EXCHANGE_ORDER,
            f"seat {seat}, the first player, exchanges before the second player",
            RULE_EXCHANGE_ORDER,
            at=("exchanges", index, "seat"),
            seat=seat,
        )


def exchange_two_player(
    draft: DraftOutcome,
    exchanges: Sequence[Exchange],
    blind: Sequence[bool],
    first: Seat,
    limit: int,
) -> DraftOutcome:
    """Apply the two-player Blind Nil exchanges, in order, to the drafted hands."""
    holdings = list(draft.holdings)
    pile = draft.discard
    done: set[Seat] = set()
    for index, exchange in enumerate(exchanges):
        seat = exchange.seat
        check_exchange_entry(Variant.TWO_PLAYER, exchanges, index, blind, first, done)
        out, taken = check_swap(exchange, index, limit, holdings[seat], pile, partner=None)
        holdings[seat] = holdings[seat] & ~out | taken
        pile = pile & ~taken | out
        done.add(seat)
    return DraftOutcome((holdings[0], holdings[1]), pile)


def check_deal(deal: Sequence[Sequence[Card]]) -> tuple[int, ...]:
    """The holdings of ``deal``; raise when a card is dealt twice. (That each seat holds 13
    cards is the format's to check: a shorter deal is taken as it is.)"""
    if sum(len(cards) for cards in deal) == 52 and len(set().union(*deal)) == 52:
        # 52 distinct cards: a holding's bits can be added up instead of or-ed
        return tuple(sum(map(BITS.__getitem__, cards)) for cards in deal)
    return _find_duplicate(deal)


def _find_duplicate(deal: Sequence[Sequence[Card]]) -> tuple[int, ...]:
    owner: dict[Card, tuple[int, int]] = {}
    holdings = []
    for seat, cards in enumerate(deal):
        mask = 0
        for index, card in enumerate(cards):
            if card in owner:
                first_seat, first_index = owner[card]
                raise IllegalActionError(
                    Code.DEAL_DUPLICATE_CARD,
                    f"{CARD_NAMES[card]} is dealt twice "
                    f"(seat {first_seat} card {first_index + 1}, seat {seat} card {index + 1})",
                    RULE_DEAL,
                    at=("deal", seat, index),
                    seat=seat,
                )
            owner[card] = (seat, index)
            mask |= 1 << card
        holdings.append(mask)
    return tuple(holdings)


def exchange_four_player(
    dealt: Sequence[int],
    exchanges: Sequence[Exchange],
    blind: Sequence[bool],
    limit: int,
) -> tuple[int, ...]:
    """Apply the four-player Blind Nil exchanges between partners to the dealt hands."""
    holdings = list(dealt)
    done: set[Seat] = set()
    for index, exchange in enumerate(exchanges):
        seat = exchange.seat
        partner = seat ^ 2
        # (the dealer only orders two-player exchanges; any seat will do here)
        check_exchange_entry(Variant.FOUR_PLAYER, exchanges, index, blind, 0, done)
        out, taken = check_swap(
            exchange, index, limit, dealt[seat], dealt[partner], partner=partner
        )
        holdings[seat] = holdings[seat] & ~out | taken
        holdings[partner] = holdings[partner] & ~taken | out
        done.add(seat)
    return tuple(holdings)
