"""Cards: the notation round trip over all 52, masks, and bad input."""

from __future__ import annotations

import pytest

from spades_replay.engine.cards import (
    CARD_NAMES,
    DECK,
    FULL_DECK_MASK,
    SPADES_MASK,
    SUIT_MASKS,
    card_name,
    cards_of,
    mask_of,
    names_of,
    parse_card,
    rank_of,
    suit_of,
)


def test_every_card_round_trips() -> None:
    assert len(DECK) == 52
    names = [card_name(card) for card in DECK]
    assert len(set(names)) == 52
    for card in DECK:
        assert parse_card(card_name(card)) == card
    for name in names:
        assert card_name(parse_card(name)) == name


def test_order_is_suit_then_rank() -> None:
    assert [card_name(c) for c in DECK[:13]] == [rank + "C" for rank in "23456789TJQKA"]
    assert CARD_NAMES[13] == "2D"
    assert card_name(DECK[-1]) == "AS"
    assert suit_of(parse_card("QH")) == 2
    assert rank_of(parse_card("QH")) == 10
    assert {suit_of(parse_card(rank + "S")) for rank in "23456789TJQKA"} == {3}


@pytest.mark.parametrize("text", ["", "A", "1H", "10H", "as", "AX", "ASX", " AS", "TS\n"])
def test_bad_notation_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not a card"):
        parse_card(text)


def test_cards_of_lists_every_bit_in_order() -> None:
    """The byte-table lookup of :func:`cards_of` against the plain reading of the bits."""
    import random

    rng = random.Random(52)
    masks = [0, FULL_DECK_MASK, 1, 1 << 51, *(1 << card for card in range(52))]
    masks += [rng.getrandbits(52) for _ in range(2000)]
    masks += [mask_of(rng.sample(DECK, rng.randrange(1, 14))) for _ in range(2000)]
    for mask in masks:
        assert cards_of(mask) == tuple(card for card in range(52) if mask >> card & 1)


def test_masks() -> None:
    assert mask_of(DECK) == FULL_DECK_MASK
    assert cards_of(FULL_DECK_MASK) == DECK
    assert sum(SUIT_MASKS) == FULL_DECK_MASK
    assert names_of(SPADES_MASK).split() == [rank + "S" for rank in "23456789TJQKA"]
    assert cards_of(0) == ()
    assert names_of(mask_of([parse_card("AS"), parse_card("2C")])) == "2C AS"
