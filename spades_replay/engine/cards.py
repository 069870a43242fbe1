"""Cards as small ints, hands as bitmasks, and their two-character notation.

A card is an ``int`` from 0 to 51: ``suit * 13 + rank``, with suits in the order clubs, diamonds,
hearts, spades and ranks from 2 (0) to ace (12). Spades therefore hold the 13 highest numbers,
which makes trick-taking a plain ``max`` (see :mod:`spades_replay.engine.tricks`).

A set of cards (a player's holding, the discard pile) is a bitmask: bit ``c`` is set when card
``c`` is in the set.

>>> parse_card("QH")
36
>>> card_name(36)
'QH'
>>> names_of(mask_of([parse_card("AS"), parse_card("2C")]))
'2C AS'
"""

from __future__ import annotations

from collections.abc import Iterable

Card = int
"""A card, 0..51 (see the module docstring)."""

Suit = int
"""A suit, 0..3: clubs, diamonds, hearts, spades."""

RANKS = "23456789TJQKA"
SUITS = "CDHS"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
SUIT_SYMBOLS = (
    "\N{BLACK CLUB SUIT}",
    "\N{BLACK DIAMOND SUIT}",
    "\N{BLACK HEART SUIT}",
    "\N{BLACK SPADE SUIT}",
)

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3

DECK: tuple[Card, ...] = tuple(range(52))
"""Every card, in ascending order: 2C, 3C, ..., AC, 2D, ..., AS."""

CARD_NAMES: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
"""The notation of every card, indexed by card."""

CARD_BY_NAME: dict[str, Card] = {name: card for card, name in enumerate(CARD_NAMES)}
"""The card of every notation: the fast path for parsing many cards."""

FULL_DECK_MASK = (1 << 52) - 1
SUIT_MASKS: tuple[int, ...] = tuple(0x1FFF << (13 * suit) for suit in range(4))
"""The bitmask of all 13 cards of each suit, indexed by suit."""

BITS: tuple[int, ...] = tuple(1 << card for card in DECK)
"""The bitmask of each card alone, indexed by card."""

SPADES_MASK = SUIT_MASKS[SPADES]
NON_SPADES_MASK = FULL_DECK_MASK & ~SPADES_MASK


def parse_card(text: str) -> Card:
    """The card written ``text`` (rank then suit, uppercase: ``"AS"``, ``"TH"``, ``"2C"``).

    >>> parse_card("2C"), parse_card("AS")
    (0, 51)
    >>> parse_card("10H")
    Traceback (most recent call last):
    ...
    ValueError: not a card: '10H' (rank 2-9, T, J, Q, K or A, then suit C, D, H or S)
    """
    card = CARD_BY_NAME.get(text)
    if card is None:
        raise ValueError(
            f"not a card: {text!r} (rank 2-9, T, J, Q, K or A, then suit C, D, H or S)"
        )
    return card


def card_name(card: Card) -> str:
    """The two-character notation of ``card``.

    >>> card_name(51)
    'AS'
    """
    return CARD_NAMES[card]


def suit_of(card: Card) -> Suit:
    """The suit of ``card`` (0 clubs .. 3 spades)."""
    return card // 13


def rank_of(card: Card) -> int:
    """The rank of ``card``, 0 for a two up to 12 for an ace."""
    return card % 13


def mask_of(cards: Iterable[Card]) -> int:
    """The bitmask of a collection of cards."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def _byte_cards(first: Card) -> tuple[tuple[Card, ...], ...]:
    """The cards each value of a byte of a card mask holds, its lowest bit card ``first``:
    the values below each bit's, then each of them with that bit's card. Made by doubling
    at every command's start: a fifth of the time of reading each value's bits."""
    table: list[tuple[Card, ...]] = [()]
    for card in range(first, first + 8):
        table += [(*cards, card) for cards in table]
    return tuple(table)


_BYTE_CARDS = tuple(_byte_cards(8 * place) for place in range(7))
"""For each of the 7 bytes of a card mask (low byte first), the cards each value of it holds."""


def cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a bitmask, in ascending order (clubs first, then by rank).

    >>> [card_name(c) for c in cards_of(0b101)]
    ['2C', '4C']
    """
    # a byte at a time, looked up: bots and the engine ask this at every turn
    cards: tuple[Card, ...] = ()
    for table in _BYTE_CARDS:
        if not mask:
            break
        if mask & 255:
            cards += table[mask & 255]
        mask >>= 8
    return cards


def names_of(mask: int) -> str:
    """The cards of a bitmask in notation, space-separated, in ascending order."""
    return " ".join(CARD_NAMES[card] for card in cards_of(mask))


def suit_name(suit: Suit) -> str:
    """The English name of a suit, plural: ``"clubs"``."""
    return SUIT_NAMES[suit]
