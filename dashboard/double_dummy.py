"""The Replay page's double-dummy parts: the analysis of the hand shown, and the best
alternatives to the card just played.

A two-player hand is analysed as soon as it is shown (tens of milliseconds), before the
board is drawn, and the game's other hands in the background (:func:`.data.background`).
With the compiled kernel (numba) four-player hands are analysed at once too, within
:data:`FOUR_PLAYER_AT_ONCE_CAP` (a median hand takes about a second), in the background:
the page never waits for them; the board asks again while one is under way, and gets its
marks once it is done. Without it they take seconds to a minute, so they wait for
"Analyse this hand", and then run in the background too. Either way the page says when the
cap struck (the later cards keep their costs) and offers another try with the time cap
shown. Every result is cached in :mod:`.data`; the session only remembers which hands were
asked for, and with which cap.
"""

from __future__ import annotations

from typing import cast

import streamlit as st

from spades_replay.analysis import HandAnalysis, PlayAnalysis
from spades_replay.engine.actions import PlayCard
from spades_replay.engine.seats import Variant
from spades_replay.engine.state import Phase
from spades_replay.replayer.replay import HandReplay, Replay

from . import board, data
from .data import GameRef

TWO_PLAYER_TIME_CAP = 10.0
"""Seconds a two-player hand may take: never reached (the slowest measured take 0.1 s)."""

FOUR_PLAYER_TIME_CAP = 30.0
"""The time cap offered for a four-player hand (a median hand takes about 11 s in pure
Python, about 1 s compiled)."""

FOUR_PLAYER_AT_ONCE_CAP = 10.0
"""The time cap of a four-player hand analysed as soon as it is shown (compiled kernel):
the safety net for the rare hand that takes far longer than the median second."""

ALTERNATIVES_TIME_CAP = 30.0
"""Seconds the values of every legal card of one four-player play may take."""

Waiting = tuple[HandReplay, float]
"""A hand analysed in the background, and its time cap."""

REQUESTED = "double-dummy hands"
"""Session key: the four-player hands the user asked to analyse, with the cap asked for."""

KNOWN = "double-dummy known"
"""Session key: the analyses of the hands of the game shown, for its board: its key, and
{hand number: analysis}."""


def known(ref: GameRef) -> dict[int, HandAnalysis]:
    """The analyses of the hands of the game at ``ref`` shown so far in this session."""
    game, analyses = st.session_state.get(KNOWN, ("", {}))
    return cast(dict[int, HandAnalysis], analyses) if game == ref.key else {}


def learn(ref: GameRef, number: int, analysis: HandAnalysis) -> None:
    """Keep the analysis of hand ``number`` of the game at ``ref`` for its board."""
    analyses = known(ref)
    if analyses.get(number) != analysis:
        st.session_state[KNOWN] = (ref.key, {**analyses, number: analysis})


def learn_ready(ref: GameRef, replay: Replay, hand: HandReplay) -> list[Waiting]:
    """Before the board is drawn: learn the analyses that are there to take, so that the
    board comes with their marks; the hands still analysed in the background (the board
    asks again until they are done: :mod:`.board_widget`). A two-player hand shown is
    analysed now (tens of milliseconds), the game's other hands in the background, so that
    the marks and mistakes of every hand reach the board; of a four-player game, the hand
    shown only, once the background is done with it (a capped one too: its later cards keep
    their costs)."""
    if replay.variant is Variant.TWO_PLAYER:
        if analysable(hand):
            learn(ref, hand.number, data.hand_analysis(ref, hand, TWO_PLAYER_TIME_CAP))
        wanted = [
            (other, TWO_PLAYER_TIME_CAP)
            for other in replay.hands
            if other is not hand and analysable(other)
        ]
    else:
        cap = _cap(ref, hand)
        wanted = [] if cap is None or not analysable(hand) else [(hand, cap)]
    waiting = []
    for other, cap in wanted:
        analysis = data.background().ask(ref, other, cap)
        if analysis is None:
            waiting.append((other, cap))
        else:
            learn(ref, other.number, analysis)
    return waiting


def _requested() -> dict[str, float]:
    return cast(dict[str, float], st.session_state.setdefault(REQUESTED, {}))


def analysable(hand: HandReplay) -> bool:
    """Whether the hand reached the card play (a record may stop in the draft or bidding)."""
    return hand.timeline[-1].state.phase in (Phase.PLAY, Phase.DONE)


def hand_panel(ref: GameRef, replay: Replay, hand: HandReplay) -> HandAnalysis | None:
    """Draw what the analysis of ``hand`` says as a whole (or the button that asks for it);
    the analysis, once there is one."""
    if not analysable(hand):
        st.caption("Double dummy: the record stops before the card play, so nothing to analyse.")
        return None
    analysis = (
        data.hand_analysis(ref, hand, TWO_PLAYER_TIME_CAP)
        if replay.variant is Variant.TWO_PLAYER
        else _four_player(ref, hand)
    )
    if analysis is None:
        return None
    with st.expander("Double-dummy analysis of this hand"):
        st.caption(
            "Every hand known, both sides playing perfectly for tricks: a card marked -N cost "
            "its side N tricks (unmarked: a best play), ? was not analysed, nil- lost a "
            "makeable Nil and nil+ let a doomed one off. The par, beside each side's "
            "contract, is what it could make from the start of play."
        )
        for line in board.analysis_notes(replay, analysis):
            st.markdown(line)
    if analysis.capped:
        st.warning(
            f"The time cap struck after {analysis.seconds:.1f} s: the first "
            f"{analysis.analysed_from} of {len(analysis.plays)} cards are not analysed "
            "(marked ?) and the par is unknown; the later cards keep their costs."
        )
    return analysis


def _ask(key: str) -> None:
    """Callback of "Analyse this hand": remember the hand, with the cap chosen."""
    _requested()[key] = float(st.session_state["hand_time_cap"])


def _cap(ref: GameRef, hand: HandReplay) -> float | None:
    """The time cap a four-player hand is analysed with: the one asked for, else
    :data:`FOUR_PLAYER_AT_ONCE_CAP` with the compiled kernel; ``None``: not analysed yet."""
    cap = _requested().get(f"{ref.key}|{hand.number}")
    if cap is None and data.fast_solver():
        return FOUR_PLAYER_AT_ONCE_CAP
    return cap


def _four_player(ref: GameRef, hand: HandReplay) -> HandAnalysis | None:
    """The analysis of a four-player hand if it was asked for, or at once with the compiled
    kernel, analysed in the background (:func:`.data.background`) while the page goes on;
    else, and after a capped one, the time cap and the button that asks for it."""
    key = f"{ref.key}|{hand.number}"
    cap = _cap(ref, hand)
    analysis = None
    if cap is not None:
        analysis = data.background().ask(ref, hand, cap)
        if analysis is None:
            st.caption(
                f"Analysing hand {hand.number} double dummy in the background (up to "
                f"{cap:g} s): its marks and par come onto the board when it is done. Step on "
                "meanwhile."
            )
            return None
        if not analysis.capped:
            return analysis
    with st.container(border=True):
        if analysis is None:
            st.markdown(
                "**Double-dummy analysis.** A four-player hand takes seconds, now and then "
                "minutes: it runs when asked, in the background, within the time cap."
            )
        left, right = st.columns([1, 2], vertical_alignment="bottom")
        left.number_input(
            "Time cap (seconds)",
            min_value=0.1,
            max_value=120.0,
            value=FOUR_PLAYER_TIME_CAP,
            step=10.0,
            key="hand_time_cap",
        )
        right.button(
            "Analyse this hand" if analysis is None else "Analyse again with this cap",
            key="analyse_hand",
            icon=":material/psychology:",
            on_click=_ask,
            args=(key,),
        )
    return analysis


def alternatives(
    ref: GameRef,
    replay: Replay,
    hand: HandReplay,
    step: int,
    analysis: HandAnalysis | None,
) -> None:
    """When ``step`` plays a card: what the analysis says of it, and on demand (a toggle)
    every legal card of that play with its value."""
    current = hand.timeline[step]
    action = current.action
    if not isinstance(action, PlayCard):
        return
    index = board.played_count(current.state) - 1
    play: PlayAnalysis | None = analysis.plays[index] if analysis is not None else None
    if play is not None:
        st.markdown(board.played_md(replay, play))
    slow = replay.variant is Variant.FOUR_PLAYER
    if not st.toggle(
        "Best alternatives: every legal card of this play with its value",
        key="alternatives",
        help="solved when switched on; it stays on from card to card",
    ):
        return
    guess = play.value if play is not None else None
    if slow:
        with st.spinner(f"Solving, for up to {ALTERNATIVES_TIME_CAP:g} s…", show_time=True):
            values = data.card_values(ref, hand, index, ALTERNATIVES_TIME_CAP, guess)
    else:
        values = data.card_values(ref, hand, index, TWO_PLAYER_TIME_CAP, guess)
    if values is None:
        st.warning(f"Not found within {ALTERNATIVES_TIME_CAP:g} s: too many tricks left.")
        return
    whose = "she" if replay.variant is Variant.TWO_PLAYER else "her side"
    st.caption(
        f"tricks: the final count {whose} could reach with that card, both sides then "
        "playing perfectly; cost: tricks below the best."
    )
    rows = board.alternative_rows(values, action.card)
    st.dataframe(rows, hide_index=True, key="alternative")
