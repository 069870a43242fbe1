"""Cards for the terminal, in colour (the plain-text helpers live in :mod:`spades_replay.text`)."""

from __future__ import annotations

from rich.text import Text

from spades_replay.engine.cards import DIAMONDS, HEARTS, Card, cards_of
from spades_replay.text import card_label

__all__ = ["card_text", "cards_text"]


def card_text(card: Card) -> Text:
    """A card for the terminal, red for hearts and diamonds."""
    red = card // 13 in (HEARTS, DIAMONDS)
    return Text(card_label(card), style="bold red" if red else "bold")


def cards_text(mask: int) -> Text:
    """A holding for the terminal, grouped by suit, spades first, high cards first."""
    text = Text()
    groups = []
    for suit in (3, 2, 1, 0):
        cards = [card for card in reversed(cards_of(mask)) if card // 13 == suit]
        if cards:
            groups.append(cards)
    for group_index, cards in enumerate(groups):
        if group_index:
            text.append("  ")
        for index, card in enumerate(cards):
            if index:
                text.append(" ")
            text.append_text(card_text(card))
    return text
