"""Text for the dashboard: untrusted strings made inert, and cards as coloured Markdown.

Player names, game ids and file names come from records and uploads: other people's bytes.
Streamlit renders most text as Markdown (links, images, colours, maths) and plotly renders a
subset of HTML in chart text, so every such string goes through :func:`md` or
:func:`plot_text` before it is shown, after :func:`~spades_replay.cli.text.safe` has made its
control characters visible. Cards are the dashboard's own strings (rank and suit symbol) and
are coloured with Streamlit's ``:red[...]`` syntax.

>>> md("**Eve** [x](y)")
'\\\\*\\\\*Eve\\\\*\\\\* \\\\[x\\\\]\\\\(y\\\\)'
>>> plot_text("<b>Eve</b>")
'&lt;b&gt;Eve&lt;/b&gt;'
>>> card_md(parse_card("TH")), card_md(parse_card("AS"))
(':red[**10♥**]', '**A♠**')
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

from spades_replay.engine.cards import (
    CARD_BY_NAME,
    DIAMONDS,
    HEARTS,
    SPADES,
    Card,
    cards_of,
    parse_card,
)
from spades_replay.text import card_label, safe

__all__ = [
    "card_md",
    "card_words",
    "cards_md",
    "hand_md",
    "legal_text",
    "md",
    "parse_card",
    "plain",
    "plot_text",
]

_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
"""Every ASCII punctuation character: CommonMark lets each be escaped with a backslash."""

JOINER = "\u2060"
"""The word joiner: invisible, and it breaks up what would otherwise look like an address."""

SUIT_ORDER = (SPADES, HEARTS, 0, DIAMONDS)
"""How a holding is laid out: spades first, then the suits alternate red and black."""


def plain(text: str, limit: int = 200) -> str:
    """Untrusted text for a place that shows text as it is (a select box, a table cell)."""
    return safe(text, limit)


def md(text: str, limit: int = 200) -> str:
    """Untrusted text as Markdown that shows it literally: no link, image, emphasis, colour,
    maths or HTML can come out of it.

    Backslashes escape the Markdown syntax. GitHub's autolinks (``https://...``, ``www....``,
    ``name@host``) are found after the escapes are read, so an invisible word joiner (U+2060)
    goes after every ``:`` and ``@`` and before every ``.``: the text reads the same but no
    longer looks like an address.

    >>> md("www.x.org").replace(JOINER, "|")
    'www|\\\\.x|\\\\.org'
    """
    escaped = _PUNCTUATION.sub(r"\\\1", safe(text, limit))
    return (
        escaped.replace("\\:", "\\:" + JOINER)
        .replace("\\@", "\\@" + JOINER)
        .replace("\\.", JOINER + "\\.")
    )


def plot_text(text: str, limit: int = 60) -> str:
    """Untrusted text for plotly, which reads ``<b>``, ``<a href>`` and the like in labels."""
    return html.escape(safe(text, limit), quote=False)


def card_md(card: Card) -> str:
    """One card as Markdown: rank and suit symbol, bold, red for hearts and diamonds."""
    label = card_label(card)
    return f":red[**{label}**]" if card // 13 in (HEARTS, DIAMONDS) else f"**{label}**"


def cards_md(cards: Iterable[Card]) -> str:
    """Cards in the order given, as Markdown."""
    return " ".join(card_md(card) for card in cards)


def hand_md(mask: int) -> str:
    """A holding as Markdown, grouped by suit (spades first), high cards first.

    >>> hand_md(0)
    '*no cards*'
    """
    cards = cards_of(mask)
    groups = []
    for suit in SUIT_ORDER:
        group = [card for card in reversed(cards) if card // 13 == suit]
        if group:
            groups.append(cards_md(group))
    return "\u2003".join(groups) if groups else "*no cards*"


_CARD_WORD = re.compile(r"(?<![\w])[2-9TJQKA][CDHS](?![\w])")
"""A card as the engine names it in its messages, standing as a word of its own."""


def card_words(text: str) -> str:
    """The engine's words on a record's play with its cards written as the dashboard
    writes them everywhere (only for text the engine wrote: a name or a quoted value of the
    record could look like a card).

    >>> card_words("KS is not in her hand, which holds 4C TH AS")
    'K♠ is not in her hand, which holds 4♣ 10♥ A♠'
    """
    return _CARD_WORD.sub(lambda found: card_label(CARD_BY_NAME[found[0]]), text)


def legal_text(legal: Iterable[str]) -> str:
    """What a problem says was legal, as plain text: its cards written as the dashboard
    writes them everywhere, its bids and other words as they are.

    >>> legal_text(["AS", "TH", "Nil", "4"])
    'A♠ 10♥ Nil 4'
    """
    return " ".join(
        card_label(CARD_BY_NAME[item]) if item in CARD_BY_NAME else item for item in legal
    )
