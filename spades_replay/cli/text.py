"""Safe, readable text for terminals: escaped untrusted strings and cards with suit symbols.

Player names, ``meta`` values and anything else from a record are untrusted: :func:`safe`
makes control characters (including ANSI escapes and bidirectional overrides) visible as
escapes, so a record cannot move the cursor, recolour the terminal or reorder a line.

>>> safe("Megan")
'Megan'
>>> safe("evil\\x1b[2Jname")
'evil\\\\x1b[2Jname'
>>> card_label(parse_card("TH"))
'10♥'
"""

from __future__ import annotations

import unicodedata

from rich.text import Text

from spades_replay.engine.cards import (
    DIAMONDS,
    HEARTS,
    RANKS,
    SUIT_SYMBOLS,
    Card,
    cards_of,
    parse_card,
)

__all__ = ["card_label", "card_text", "cards_text", "parse_card", "safe"]

_RANK_LABELS = tuple("10" if rank == "T" else rank for rank in RANKS)


def safe(text: str, limit: int = 200) -> str:
    """``text`` with every control or format character escaped, cut to ``limit`` characters."""
    out = []
    for char in text[:limit]:
        category = unicodedata.category(char)
        if category in ("Cc", "Cf", "Co", "Cs", "Zl", "Zp"):
            code = ord(char)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(char)
    if len(text) > limit:
        out.append("…")
    return "".join(out)


def card_label(card: Card) -> str:
    """A card as people write it: ``10♥``, ``A♠``."""
    return _RANK_LABELS[card % 13] + SUIT_SYMBOLS[card // 13]


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
