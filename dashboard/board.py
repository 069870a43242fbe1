"""What the Replay page says of a hand, as plain data and Markdown: no Streamlit here.

A hand's timeline (:attr:`spades_replay.HandReplay.timeline`) holds one state per action.
This module says what is on the table at a step (the trick, the bids), who sees which cards
(everybody, ``viewer`` ``None``, or one seat), and what the scores and the double-dummy
analysis say; :mod:`.timeline` builds the board's data from it. Text that reaches Markdown is
escaped here with :func:`.markup.md`; table cells are plain text (:func:`.markup.plain`).

With the hand's double-dummy analysis (:class:`~spades_replay.analysis.HandAnalysis`), each
card carries its mark (``-1``: what it cost its side; ``?``: not analysed, the time cap
struck first; ``nil-`` / ``nil+``: it lost a makeable Nil or let a doomed one off), each
side's contract its par and each Nil its verdict. The page shows the analysis in the full
view only: it reads every hand.
"""

from __future__ import annotations

from dataclasses import dataclass

from spades_replay.analysis import HandAnalysis, PlayAnalysis
from spades_replay.engine.actions import Exchange
from spades_replay.engine.cards import Card
from spades_replay.engine.scoring import BLIND_NIL, NIL, SideScore
from spades_replay.engine.seats import Seat, Variant
from spades_replay.engine.state import HandState, Phase
from spades_replay.engine.tricks import trick_winner
from spades_replay.replayer.replay import HandReplay, Replay
from spades_replay.text import card_label, score_line, score_sheet

from .markup import cards_md, md, plain

Viewer = Seat | None
"""Whose eyes the table is seen through: a seat, or ``None`` for every hand face up."""


def bid_label(bid: int | None) -> str:
    """A bid as the page writes it.

    >>> bid_label(None), bid_label(0), bid_label(BLIND_NIL), bid_label(4)
    ('not yet', 'Nil', 'Blind Nil', '4')
    """
    if bid is None:
        return "not yet"
    if bid == BLIND_NIL:
        return "Blind Nil"
    if bid == NIL:
        return "Nil"
    return str(bid)


def can_see(viewer: Viewer, seat: Seat) -> bool:
    """Whether ``viewer`` sees the cards ``seat`` holds (everybody's when viewer is None)."""
    return viewer is None or viewer == seat


def sees_exchange(variant: Variant, viewer: Viewer, exchange: Exchange) -> bool:
    """Whether ``viewer`` sees the cards of a Blind Nil exchange: the bidder does, and in
    four-player so does her partner, who gave and received them."""
    return viewer is None or viewer in (exchange.seat, variant.partner(exchange.seat))


def player(replay: Replay, seat: Seat) -> str:
    """A player's name and seat, escaped for Markdown: ``Megan (seat 0)``."""
    return f"{md(replay.players[seat].name, 60)} (seat {seat})"


def nil_verdict(analysis: HandAnalysis | None, seat: Seat) -> str:
    """The double-dummy verdict on the Nil (or Blind Nil) of ``seat`` from the start of play,
    in words: makeable, doomed, or not judged (time cap); ``""`` without a Nil or an
    analysis."""
    if analysis is None:
        return ""
    for nil in analysis.nils:
        if nil.seat == seat:
            if nil.makeable is None:
                return "no verdict: time cap"
            return "makeable double dummy" if nil.makeable else "doomed double dummy"
    return ""


@dataclass(frozen=True, slots=True)
class TrickView:
    """The trick on the table: in progress (``winner`` is then who is winning so far), or the
    trick just completed."""

    number: int
    leader: Seat
    plays: tuple[tuple[Seat, int], ...]
    winner: Seat
    complete: bool


def trick_view(state: HandState) -> TrickView | None:
    """The trick in progress, else the last completed one, else ``None`` (before play)."""
    count = state.variant.seat_count
    if state.trick:
        leader = state.trick_leader
        plays = tuple(((leader + i) % count, card) for i, card in enumerate(state.trick))
        winning = trick_winner(state.trick, leader, count)
        return TrickView(len(state.tricks) + 1, leader, plays, winning, False)
    done = state.last_trick
    if done is None or done.winner is None:
        return None
    return TrickView(done.number, done.leader, done.plays, done.winner, True)


def play_mark(play: PlayAnalysis) -> str:
    """A card's mark: ``-N`` when it cost its side N tricks, ``?`` when it was not analysed,
    then ``nil-`` or ``nil+`` for each Nil it lost or let off; ``""`` for a best play."""
    parts = []
    if not play.analysed:
        parts.append("?")
    elif play.cost:
        parts.append(f"-{play.cost}")
    parts.extend("nil+" if swing.makeable else "nil-" for swing in play.nil_swings)
    return " ".join(parts)


def play_marks(analysis: HandAnalysis | None) -> dict[int, str]:
    """The marks of the cards of a hand that have one (none without an analysis)."""
    if analysis is None:
        return {}
    marks = {play.index: play_mark(play) for play in analysis.plays}
    return {index: mark for index, mark in marks.items() if mark}


def played_count(state: HandState) -> int:
    """How many cards of the hand have been played at this state."""
    return len(state.tricks) * state.variant.seat_count + len(state.trick)


def played_md(replay: Replay, play: PlayAnalysis) -> str:
    """What the analysis says of one card played, as Markdown: its cost, what its side could
    make before and after it, and the best cards."""
    who = player(replay, play.seat)
    card = cards_md([play.card])
    if not play.analysed:
        return f"{who} played {card}: not analysed (the time cap struck before this card)."
    whose = "she" if replay.variant is Variant.TWO_PLAYER else "her side"
    verdict = "a best play" if not play.cost else f"it cost **{play.cost}** trick(s)"
    text = (
        f"{who} played {card}: {verdict}. Before it {whose} could make **{play.best}** "
        f"trick(s), after it **{play.value}**."
    )
    if play.cost:
        text += f" Best: {cards_md(play.best_cards)}."
    for swing in play.nil_swings:
        nil = player(replay, swing.seat)
        text += (
            f" It let {nil}'s doomed Nil off."
            if swing.makeable
            else f" It lost {nil}'s makeable Nil."
        )
    if play.cost and play.nil_live:
        text += " A Nil was live: giving up tricks for it may have been right."
    return text


def alternative_rows(values: tuple[tuple[Card, int], ...], played: Card) -> list[dict[str, str]]:
    """The legal cards of one play with the final trick count each keeps for the mover's
    side, best first: a table for the page, the best cards and the card played marked.

    >>> rows = alternative_rows(((0, 5), (12, 6), (11, 6)), 0)
    >>> [(row["card"], row["tricks"], row["cost"], row["note"]) for row in rows]
    [('A♣', '6', '0', 'best'), ('K♣', '6', '0', 'best'), ('2♣', '5', '-1', 'played')]
    """
    best = max(value for _, value in values)
    rows = []
    for card, value in sorted(values, key=lambda item: (-item[1], -item[0])):
        notes = []
        if value == best:
            notes.append("best")
        if card == played:
            notes.append("played")
        rows.append(
            {
                "card": card_label(card),
                "tricks": str(value),
                "cost": str(value - best) if value < best else "0",
                "note": ", ".join(notes),
            }
        )
    return rows


def analysis_notes(replay: Replay, analysis: HandAnalysis) -> list[str]:
    """What to say of a hand's analysis as a whole, as Markdown lines: the Nil verdicts and
    their swings, the tricks each player's misplays cost."""
    lines = []
    for nil in analysis.nils:
        kind = "Blind Nil" if nil.blind else "Nil"
        verdict = (
            "not judged (time cap)"
            if nil.makeable is None
            else "makeable"
            if nil.makeable
            else "doomed"
        )
        line = f"{kind} of {player(replay, nil.seat)}: **{verdict}** from the start of play"
        for play in analysis.plays:
            for swing in play.nil_swings:
                if swing.seat == nil.seat:
                    change = "made makeable" if swing.makeable else "lost"
                    line += (
                        f"; {change} at trick {play.trick} by "
                        f"{md(replay.players[play.seat].name, 60)}'s {cards_md([play.card])}"
                    )
        if nil.made is not None:
            line += "; made" if nil.made else f"; failed ({nil.tricks} trick(s))"
        lines.append(line + ".")
    lost = " · ".join(
        f"{md(replay.players[seat].name, 60)} **{count}**"
        for seat, count in enumerate(analysis.tricks_lost)
    )
    lines.append(f"Tricks lost by misplays: {lost}")
    return lines


def phase_label(state: HandState) -> str:
    """Where the hand stands, in words."""
    return {
        Phase.DRAFT: "draft",
        Phase.EXCHANGE: "Blind Nil exchange",
        Phase.BIDDING: "bidding",
        Phase.PLAY: "play",
        Phase.DONE: "hand over",
    }[state.phase]


def score_rows(replay: Replay, scores: tuple[SideScore, SideScore]) -> list[dict[str, str]]:
    """The score table of a finished hand: one row per line of the score sheet, one column
    per side."""
    variant = replay.variant
    names = [f"{variant.side_name(side)}: {plain(replay.side_name(side), 80)}" for side in (0, 1)]

    return [
        {"": label, names[0]: first, names[1]: second}
        for label, first, second in score_sheet(scores)
    ]


def scores_before(replay: Replay, hand: HandReplay) -> tuple[tuple[int, int], tuple[int, int]]:
    """The running scores and bag counts going into ``hand``."""
    if hand.number == 1:
        return (0, 0), (0, 0)
    previous = replay.hands[hand.number - 2].scores
    assert previous is not None  # only the last hand of a record may be unfinished
    return (previous[0].score, previous[1].score), (previous[0].bags, previous[1].bags)


def result_md(replay: Replay) -> str:
    """The game's result as Markdown."""
    result = replay.result
    scores = score_line(result.scores, result.winner)
    if result.complete and result.winner is not None:
        how = "reached the target" if result.reason == "target" else "won on the mercy rule"
        return (
            f"**{md(replay.side_name(result.winner), 120)}** {how}: {scores} after "
            f"{result.hands} hand(s)."
        )
    return f"Unfinished: {scores} after {result.hands} complete hand(s)."
