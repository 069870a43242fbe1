"""Text for people, shared by the terminal and the dashboard (no display library here).

Player names, ``meta`` values and anything else from a record are untrusted: :func:`safe`
makes control characters (including ANSI escapes and bidirectional overrides) visible as
escapes, so a record cannot move the cursor, recolour the terminal or reorder a line.

>>> safe("Megan")
'Megan'
>>> safe("evil\\x1b[2Jname")
'evil\\\\x1b[2Jname'
>>> card_label(parse_card("TH"))
'10♥'
>>> score_line((63, 525), 1)
'525 to 63'
"""

from __future__ import annotations

import unicodedata

from spades_replay.engine.cards import RANKS, SUIT_SYMBOLS, Card, parse_card

__all__ = ["card_label", "parse_card", "plural", "safe", "score_line"]

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


def score_line(scores: tuple[int, int] | list[int], winner: int | None) -> str:
    """Two sides' scores in words, the winner's first (side 0's first when no side won):
    ``525 to 63``. Every result line of the terminal and the dashboard says it this way."""
    first, second = (1, 0) if winner == 1 else (0, 1)
    return f"{scores[first]} to {scores[second]}"


def plural(count: int, word: str) -> str:
    """A count and a noun that agree: ``1 trick``, ``2 tricks``, ``0 tricks``.

    >>> plural(1, "trick"), plural(3, "trick")
    ('1 trick', '3 tricks')
    """
    return f"{count} {word}" if count == 1 else f"{count} {word}s"
