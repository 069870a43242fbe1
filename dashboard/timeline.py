"""What the Replay page's board is sent: every hand of a game, every step of each, as seen
through one pair of eyes, as plain data (JSON-ready) for the browser to step through without
asking the server again. No Streamlit here.

The board (:mod:`.board_component`) draws a step from this data alone, so it is built once
per game and view: each step holds what is on the table (hands, bids, tricks won, the trick,
whose turn) and what just happened, in words; each hand its trick marks (where stepping
trick by trick stops), a log of its actions for the list that jumps, its draft, exchanges
and score. Cards are their numbers (:mod:`spades_replay.engine.cards`); :data:`CARD_TEXT`
tells the browser how to write them, so that they read as everywhere else in the
dashboard: ``A♠``, ``10♥``.

Seen by everybody (``viewer`` ``None``) every hand is face up and the double-dummy marks
of the analysis come along. Seen by one seat, the data holds only what that seat knew at
each step: her own cards (the others' only counted), the cards played, the public bids and
scores, of the draft her own turns (not the card she threw away unseen), of the Blind Nil
exchanges those she or her partner made; and nothing of the double-dummy analysis, which
reads every hand. Text is plain (:func:`.markup.plain`); the browser sets it as text, never
as markup.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from spades_replay.analysis import HandAnalysis, PlayAnalysis
from spades_replay.engine.actions import DeclareBlindNil, Draw, Exchange, PlaceBid, PlayCard
from spades_replay.engine.cards import SUIT_SYMBOLS, cards_of
from spades_replay.engine.seats import Seat, Variant
from spades_replay.engine.state import HandState, drafted_cards
from spades_replay.replayer.replay import HandReplay, Replay
from spades_replay.text import card_label

from .board import (
    Viewer,
    bid_label,
    can_see,
    nil_verdict,
    phase_label,
    play_marks,
    played_count,
    score_rows,
    scores_before,
    sees_exchange,
    trick_view,
)
from .markup import plain

Json = dict[str, Any]
Part = str | dict[str, int]
"""A piece of a sentence: text, or ``{"c": card}`` for a card the browser draws."""

CARD_TEXT: Json = {
    "ranks": [card_label(rank)[:-1] for rank in range(13)],
    "suits": list(SUIT_SYMBOLS),
    "order": [3, 2, 0, 1],
}
"""How cards are written: the rank labels (by ``card % 13``), the suit symbols (by
``card // 13``), and the order of the suits in a hand (spades, hearts, clubs, diamonds:
red and black alternate)."""


def _card(card: int) -> dict[str, int]:
    return {"c": card}


def _who(replay: Replay, seat: Seat) -> str:
    return f"{plain(replay.players[seat].name, 60)} (seat {seat})"


def describe(replay: Replay, hand: HandReplay, index: int, viewer: Viewer) -> list[Part]:
    """What happened at step ``index``, as sentence parts (cards the viewer did not see
    stay unnamed)."""
    step = hand.timeline[index]
    action = step.action
    if action is None:
        if replay.variant is Variant.TWO_PLAYER:
            return ["The deck is shuffled, face down: the draft begins."]
        return ["The cards are dealt."]
    who = _who(replay, action.seat)
    before = hand.timeline[index - 1].state
    if isinstance(action, DeclareBlindNil):
        return [f"{who} declares Blind Nil before seeing a card."]
    if isinstance(action, Draw):
        kept, thrown = drafted_cards(before, step.state)
        if not can_see(viewer, action.seat):
            return [f"{who} takes a draft turn."]
        if action.keep:
            if viewer is None:
                return [
                    f"{who} keeps the top card, ",
                    _card(kept),
                    ", and discards ",
                    _card(thrown),
                    ".",
                ]
            return [f"{who} keeps the top card, ", _card(kept), ", and discards the next unseen."]
        return [
            f"{who} discards the top card, ",
            _card(thrown),
            ", and keeps the next, ",
            _card(kept),
            ".",
        ]
    if isinstance(action, Exchange):
        return [f"{who} (Blind Nil) ", *exchange_parts(replay, action, viewer)]
    if isinstance(action, PlaceBid):
        return [f"{who} bids {bid_label(action.bid)}."]
    assert isinstance(action, PlayCard)
    parts: list[Part] = [f"{who} plays ", _card(action.card)]
    done = step.state.last_trick
    if len(step.state.tricks) > len(before.tricks) and done is not None:
        assert done.winner is not None
        parts.append(f"; {_who(replay, done.winner)} wins trick {done.number}")
    parts.append(".")
    return parts


def exchange_parts(replay: Replay, exchange: Exchange, viewer: Viewer) -> list[Part]:
    """A Blind Nil exchange in words, its cards named only to those who saw them."""
    source = "the discard pile" if replay.variant is Variant.TWO_PLAYER else "her partner"
    if not exchange.out:
        return ["exchanges no cards."]
    if not sees_exchange(replay.variant, viewer, exchange):
        return [f"exchanges {len(exchange.out)} card(s) with {source}."]
    return [
        "puts away ",
        *_cards(exchange.out),
        " and takes ",
        *_cards(exchange.in_),
        f" from {source}.",
    ]


def _cards(cards: Sequence[int]) -> list[Part]:
    parts: list[Part] = []
    for position, card in enumerate(cards):
        if position:
            parts.append(" ")
        parts.append(_card(card))
    return parts


def _step(replay: Replay, hand: HandReplay, index: int, viewer: Viewer) -> Json:
    state: HandState = hand.timeline[index].state
    trick = trick_view(state)
    return {
        "text": describe(replay, hand, index, viewer),
        "phase": phase_label(state),
        "turn": state.turn,
        "hands": [
            cards_of(holding) if can_see(viewer, seat) else holding.bit_count()
            for seat, holding in enumerate(state.holdings)
        ],
        "bids": [None if bid is None else bid_label(bid) for bid in state.bids],
        "nil": [bid is not None and bid <= 0 for bid in state.bids],
        "won": list(state.tricks_won),
        "trick": None
        if trick is None
        else {
            "number": trick.number,
            "leader": trick.leader,
            "plays": [[seat, card] for seat, card in trick.plays],
            "winner": trick.winner,
            "complete": trick.complete,
            "first": (trick.number - 1) * replay.variant.seat_count,
        },
        "broken": state.spades_broken,
        "played": played_count(state),
        "discard": state.discard.bit_count(),
    }


def _log(replay: Replay, hand: HandReplay, viewer: Viewer) -> list[Json]:
    """Every action of the hand, for the list that jumps: its step, seat, kind and what the
    viewer may know of it."""
    entries = []
    for step in hand.timeline[1:]:
        action = step.action
        assert action is not None
        entry: Json = {"step": step.index, "seat": action.seat}
        if isinstance(action, PlayCard):
            entry |= {"kind": "card", "card": action.card, "play": played_count(step.state) - 1}
        elif isinstance(action, PlaceBid):
            entry |= {"kind": "bid", "bid": bid_label(action.bid)}
        elif isinstance(action, Draw):
            kept, thrown = drafted_cards(hand.timeline[step.index - 1].state, step.state)
            seen = can_see(viewer, action.seat)
            entry |= {
                "kind": "draft",
                "keep": action.keep,
                "kept": kept if seen else None,
                "thrown": thrown if viewer is None or (seen and not action.keep) else None,
            }
        elif isinstance(action, Exchange):
            seen = sees_exchange(replay.variant, viewer, action)
            entry |= {
                "kind": "exchange",
                "out": list(action.out) if seen else len(action.out),
                "in": list(action.in_) if seen else len(action.in_),
            }
        else:
            entry |= {"kind": "blind"}
        entries.append(entry)
    return entries


TRICKS = 13
"""Tricks in a hand, in both variants: what the two sides' final counts add up to."""


def _play(variant: Variant, play: PlayAnalysis) -> Json:
    """One card of the analysis, for the par strip and the best alternatives: its seat, its
    cost (``None``: not analysed), each side's final trick count with perfect play after it
    (``None`` likewise), and the legal cards that kept its side's best."""
    after = None
    if play.value is not None:
        mine = variant.side_of(play.seat)
        after = [play.value if side == mine else TRICKS - play.value for side in (0, 1)]
    return {
        "seat": play.seat,
        "cost": play.cost,
        "after": after,
        "best": list(play.best_cards),
    }


def _analysis(variant: Variant, analysis: HandAnalysis | None) -> Json | None:
    """The double-dummy marks of a hand's cards (by play index), each side's par and each
    Nil's verdict (by seat; ``""`` without a Nil), and every card's figures (by play index:
    :func:`_play`)."""
    if analysis is None:
        return None
    return {
        "marks": {str(index): mark for index, mark in play_marks(analysis).items()},
        "par": None if analysis.par is None else list(analysis.par),
        "verdicts": [nil_verdict(analysis, seat) for seat in variant.seats],
        "plays": [_play(variant, play) for play in analysis.plays],
    }


def hand_data(
    replay: Replay, hand: HandReplay, viewer: Viewer, analysis: HandAnalysis | None = None
) -> Json:
    """One hand: its steps, marks, log, score, and (full view only) its analysis."""
    (first, second), (bags_first, bags_second) = scores_before(replay, hand)
    scores = hand.scores
    return {
        "number": hand.number,
        "dealer": hand.outcome.dealer,
        "steps": [_step(replay, hand, index, viewer) for index in range(len(hand.timeline))],
        "marks": list(hand.trick_marks),
        "log": _log(replay, hand, viewer),
        "before": {"scores": [first, second], "bags": [bags_first, bags_second]},
        "score": None if scores is None else score_rows(replay, scores),
        "complete": hand.complete,
        "analysis": _analysis(replay.variant, analysis) if viewer is None else None,
    }


def game_data(
    replay: Replay,
    viewer: Viewer,
    analyses: Mapping[int, HandAnalysis] | None = None,
) -> Json:
    """Every hand of ``replay`` as seen by ``viewer``, with the analyses of the hands that
    have one (by hand number; left out of a seat's view)."""
    variant = replay.variant
    found = analyses or {}
    return {
        "cards": CARD_TEXT,
        "variant": variant.value,
        "seats": variant.seat_count,
        "players": [plain(player.name, 60) for player in replay.players],
        "sides": [plain(replay.side_name(side), 80) for side in (0, 1)],
        "sideOf": [variant.side_of(seat) for seat in variant.seats],
        "viewer": viewer,
        "hands": [hand_data(replay, hand, viewer, found.get(hand.number)) for hand in replay.hands],
    }
