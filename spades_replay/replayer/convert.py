"""The one place where record types (pydantic models, card strings) meet engine types (ints).

Record to engine: :func:`variant_of`, :func:`rules_of`, :func:`hand_actions_of`,
:func:`cards_named`. Engine to record: :func:`rules_model`, :func:`bid_value`,
:func:`card_names`, used by writers.
"""

from __future__ import annotations

from collections.abc import Iterable

from spades_replay.engine.actions import Exchange
from spades_replay.engine.cards import CARD_BY_NAME, CARD_NAMES, Card
from spades_replay.engine.game import HandActions
from spades_replay.engine.rules import OPTION, Rules
from spades_replay.engine.scoring import BLIND_NIL, Bid
from spades_replay.engine.seats import Variant
from spades_replay.record import models

RULE_FIELDS = tuple(OPTION)
"""The options a record's ``rules`` object holds: every option of the table, in its order."""
BLIND_NIL_TEXT = "blind_nil"
_BIDS: dict[int | str, Bid] = {**{bid: bid for bid in range(14)}, BLIND_NIL_TEXT: BLIND_NIL}
"""The engine's bid for every bid a record may hold (the format has checked it is one)."""


def variant_of(record: models.AnyRecord) -> Variant:
    """The engine's variant of a record."""
    return Variant(record.variant)


def rules_of(model: models.RulesObject) -> Rules:
    """The engine's rules of a record's ``rules`` object."""
    return Rules(**{name: getattr(model, name) for name in RULE_FIELDS})


def rules_model(rules: Rules) -> models.RulesObject:
    """The record's ``rules`` object, fully resolved, for engine rules."""
    return models.RulesObject(**{name: getattr(rules, name) for name in RULE_FIELDS})


def bid_value(bid: Bid) -> int | str:
    """The record's bid for an engine bid."""
    return BLIND_NIL_TEXT if bid == BLIND_NIL else bid


def cards_named(names: Iterable[str]) -> tuple[Card, ...]:
    """Engine cards for card names the record layer has already checked (the inverse of
    :func:`card_names`; :func:`spades_replay.engine.cards.cards_of` reads a bitmask)."""
    return tuple(map(CARD_BY_NAME.__getitem__, names))


def card_names(cards: Iterable[Card]) -> tuple[str, ...]:
    """Card names for engine cards."""
    return tuple(map(CARD_NAMES.__getitem__, cards))


def _exchanges(hand: models.AnyHand) -> tuple[Exchange, ...]:
    return tuple(
        Exchange(entry.seat, cards_named(entry.out), cards_named(entry.in_))
        for entry in hand.exchanges
    )


def hand_actions_of(hand: models.AnyHand) -> HandActions:
    """The engine's view of one recorded hand."""
    card = CARD_BY_NAME.__getitem__
    bids = tuple(map(_BIDS.__getitem__, hand.bids))
    plays = tuple(map(card, hand.plays))
    exchanges = _exchanges(hand) if hand.exchanges else ()
    if isinstance(hand, models.Hand2):
        return HandActions(bids, plays, exchanges, tuple(map(card, hand.deck)), hand.draft, None)
    deal = tuple(tuple(map(card, cards)) for cards in hand.deal)
    return HandActions(bids, plays, exchanges, None, None, deal)
