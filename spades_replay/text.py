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

from collections.abc import Iterable

from spades_replay.engine.cards import RANKS, SUIT_SYMBOLS, Card, parse_card
from spades_replay.engine.scoring import BLIND_NIL, NIL, SideScore, bid_name

__all__ = [
    "card_label",
    "option_value",
    "parse_card",
    "player_labels",
    "plural",
    "rate_label",
    "safe",
    "score_line",
    "score_sheet",
]

_RANK_LABELS = tuple("10" if rank == "T" else rank for rank in RANKS)


def safe(text: str, limit: int = 200) -> str:
    """``text`` with every control or format character escaped, cut to ``limit`` characters."""
    if text.isprintable():
        # no character of the escaped categories (nor any other but the plain space) is
        # printable: the common case needs no look at each character
        return text if len(text) <= limit else text[:limit] + "…"
    import unicodedata  # only here: most text needs no look at each character

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


def option_value(value: object) -> str:
    """A value as every output writes it, the way ``--rule`` and JSON take it: ``true``,
    ``false``, ``null``, numbers and words as they are.

    >>> option_value(False), option_value(None), option_value(300), option_value("two_of_clubs")
    ('false', 'null', '300', 'two_of_clubs')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)


def player_labels(players: Iterable[tuple[str, str]]) -> dict[str, str]:
    """How every table names each player of ``players`` (pairs of name and key, the key
    being her id, or her name when she has none): by name, with the key after it only where
    two keys share a name; escaped.

    >>> player_labels([("Alex", "heuristic-alex"), ("Drew", "d1"), ("Drew", "d2")])
    {'heuristic-alex': 'Alex', 'd1': 'Drew (d1)', 'd2': 'Drew (d2)'}
    """
    keys: dict[str, set[str]] = {}
    names: dict[str, str] = {}
    for name, key in players:
        keys.setdefault(name, set()).add(key)
        names[key] = name
    return {
        key: safe(name, 60) if len(keys[name]) == 1 else f"{safe(name, 60)} ({safe(key, 60)})"
        for key, name in names.items()
    }


def rate_label(rate: float | None, count: int, total: int) -> str:
    """A rate as every table writes it: whole percent, then the counts it comes from.

    >>> rate_label(12 / 27, 12, 27), rate_label(None, 0, 0)
    ('44% (12/27)', '-')
    """
    return "-" if rate is None else f"{rate:.0%} ({count}/{total})"


def _contract(side: SideScore) -> str:
    if side.made is None:
        return "no contract"
    return f"{side.contract} bid, {side.tricks_toward} won: {'made' if side.made else 'set'}"


def _nils(side: SideScore) -> str:
    parts = []
    for nil in side.nils:
        kind = bid_name(BLIND_NIL if nil.blind else NIL)
        result = "made" if nil.made else f"failed ({plural(nil.tricks, 'trick')})"
        parts.append(f"{kind} {result} {nil.points:+d}")
    return "; ".join(parts) or "-"


_SHEET = (
    ("contract", _contract),
    ("contract points", lambda side: f"{side.contract_points:+d}"),
    ("bags (points)", lambda side: f"{side.bag_points:+d}"),
    ("Nil", _nils),
    ("bag penalty", lambda side: f"{side.penalty_points:+d}" if side.bag_penalties else "-"),
    ("hand", lambda side: f"{side.points:+d}"),
    ("score", lambda side: str(side.score)),
    ("bag count", lambda side: str(side.bags)),
)


def score_sheet(scores: tuple[SideScore, SideScore]) -> list[tuple[str, str, str]]:
    """The score sheet of a finished hand, as the terminal and the dashboard show it: each
    line's label and the two sides' cells.

    >>> from spades_replay.engine.rules import Rules
    >>> from spades_replay.engine.scoring import score_hand
    >>> from spades_replay.engine.seats import Variant
    >>> sides = score_hand(Variant.TWO_PLAYER, Rules(), (7, 0), (8, 5), (0, 0), (0, 0))
    >>> score_sheet(sides)[:2]
    [('contract', '7 bid, 8 won: made', 'no contract'), ('contract points', '+70', '+0')]
    """
    return [(label, cell(scores[0]), cell(scores[1])) for label, cell in _SHEET]
