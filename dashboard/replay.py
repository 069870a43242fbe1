"""The Replay page: a game hand by hand, stepped through card by card or trick by trick,
with the double-dummy analysis of each card (:mod:`.double_dummy`)."""

from __future__ import annotations

import plotly.graph_objects as go  # type: ignore[import-untyped]
import polars as pl
import streamlit as st
from streamlit.navigation.page import StreamlitPage

from spades_replay.analysis import HandAnalysis
from spades_replay.engine.rules import Rules
from spades_replay.engine.seats import Variant
from spades_replay.engine.state import Phase
from spades_replay.replayer.replay import HandReplay, Replay, next_mark, previous_mark
from spades_replay.stats.tables import rules_caption, rules_label

from . import board, charts, double_dummy, figures
from .data import GameRef
from .markup import hand_md, md, plain
from .widgets import Context, Picked, current, keep, pick_game, set_value, sync

ALL = -1
"""The view option "every hand face up"; the others are seat numbers."""


def page() -> StreamlitPage:
    """The page, for ``st.navigation`` and links (the default page)."""
    return st.Page(
        render, title="Replay", icon=":material/replay:", url_path="replay", default=True
    )


def _new_hand() -> None:
    keep("hand")
    set_value("step", 0)


def _controls(hand: HandReplay) -> int:
    """The step slider and the buttons around it; the step shown."""
    last = len(hand.timeline) - 1
    if last == 0:
        return 0
    sync("step", range(last + 1), 0)
    step: int = st.slider(
        "Step",
        0,
        last,
        key="step",
        help="every action of the hand, in order",
        on_change=keep,
        args=("step",),
    )
    marks = board.trick_marks(hand)
    buttons = (
        ("Start", "first", 0, "first_page"),
        ("Previous trick", "prev_trick", previous_mark(marks, step), "fast_rewind"),
        ("Previous card", "prev_card", max(step - 1, 0), "navigate_before"),
        ("Next card", "next_card", min(step + 1, last), "navigate_next"),
        ("Next trick", "next_trick", next_mark(marks, step, last), "fast_forward"),
        ("End", "last", last, "last_page"),
    )
    for column, (label, key, target, icon) in zip(st.columns(len(buttons)), buttons, strict=True):
        column.button(
            label,
            key=key,
            icon=f":material/{icon}:",
            icon_position="right" if key.startswith(("next", "last")) else "left",
            help="a card, a bid or a draft turn" if key.endswith("card") else None,
            on_click=set_value,
            args=("step", target),
            disabled=target == step,
            width="stretch",
        )
    return step


def _header(replay: Replay) -> None:
    game = f"**{md(replay.game_id, 120)}** · " if replay.game_id else ""
    rules = rules_caption(rules_label(replay.rules))
    st.markdown(
        f"{game}{replay.variant.value} · rules: {md(rules, 300)} · target "
        f"{replay.rules.target_score}  \n{board.result_md(replay)}"
    )


def _seats(
    replay: Replay,
    hand: HandReplay,
    step: int,
    viewer: board.Viewer,
    analysis: HandAnalysis | None,
) -> None:
    state = hand.timeline[step].state
    for column, panel in zip(
        st.columns(replay.variant.seat_count),
        board.seat_panels(replay, state, viewer, analysis),
        strict=True,
    ):
        with column.container(border=True):
            turn = " · **to act**" if panel.to_act else ""
            st.markdown(f"{panel.title}{turn}")
            verdict = f" · {panel.verdict}" if panel.verdict else ""
            st.markdown(f"Bid **{panel.bid}**{verdict} · tricks won **{panel.tricks}**")
            if panel.cards is None:
                st.markdown(f":gray[{panel.count} card(s), hidden]")
            else:
                st.markdown(hand_md(panel.cards))


def _setup(replay: Replay, hand: HandReplay, step: int, viewer: board.Viewer) -> None:
    state = hand.timeline[step].state
    outcome = hand.outcome
    if replay.variant is Variant.TWO_PLAYER:
        with st.expander("The draft", expanded=state.phase is Phase.DRAFT):
            rows = board.draft_rows(replay, hand, step, viewer)
            if rows:
                st.dataframe(rows, hide_index=True, key="draft")
            else:
                st.caption("No draft turn taken yet.")
            if viewer is None and state.discard:
                st.markdown(f"Discard pile ({state.discard.bit_count()}): {hand_md(state.discard)}")
    else:
        with st.expander("The deal"):
            for seat in replay.variant.seats:
                cards = hand_md(outcome.dealt[seat]) if board.can_see(viewer, seat) else "hidden"
                st.markdown(f"{board.player(replay, seat)}: {cards}")
    if state.exchanges:
        with st.expander("Blind Nil exchanges", expanded=state.phase is Phase.EXCHANGE):
            for exchange in state.exchanges:
                text = board.exchange_md(replay, exchange, viewer)
                st.markdown(f"{board.player(replay, exchange.seat)} {text}")


def _play(
    ref: GameRef,
    replay: Replay,
    hand: HandReplay,
    step: int,
    viewer: board.Viewer,
    analysis: HandAnalysis | None,
) -> None:
    state = hand.timeline[step].state
    marks = board.play_marks(analysis)
    trick = board.trick_view(state)
    if trick is None:
        st.caption("No card played yet.")
    else:
        with st.container(border=True):
            st.markdown(board.trick_md(replay, trick, marks))
            double_dummy.alternatives(ref, replay, hand, step, analysis, viewer)
    st.markdown("  \n".join(board.side_lines(replay, state, analysis)))
    if state.tricks:
        with st.expander(f"Tricks so far ({len(state.tricks)})"):
            rows = board.trick_rows(replay, state, marks)
            st.dataframe(rows, hide_index=True, key="tricks")


def _scores(replay: Replay, hand: HandReplay, step: int) -> None:
    state = hand.timeline[step].state
    st.subheader("Score")
    scores = hand.scores
    if state.phase is Phase.DONE and scores is not None:
        st.dataframe(board.score_rows(replay, scores), hide_index=True, key="scores")
        return
    if step == len(hand.timeline) - 1:
        st.warning("The record stops here, before the end of the hand: it has no score.")
    (first, second), (bags_first, bags_second) = board.scores_before(replay, hand)
    st.markdown(
        f"Going into hand {hand.number}: {md(replay.side_name(0), 80)} **{first}** "
        f"({bags_first} bags) · {md(replay.side_name(1), 80)} **{second}** ({bags_second} bags)"
    )


@st.cache_resource(show_spinner=False, max_entries=256)
def _score_chart(ref: GameRef, number: int, _rows: pl.DataFrame, _rules: Rules) -> go.Figure:
    """The running score of the game at ``ref`` (its ``side_hands`` rows), hand ``number``
    marked: built once per game and hand (tens of milliseconds), not at every step."""
    return figures.running_scores(_rows, _rules.target_score, _rules.lose_score, marked=number)


def _game_so_far(context: Context, picked: Picked, number: int) -> None:
    """The running score of the whole game, the hand shown marked (the Game charts page has
    it with the bags and the points of every hand)."""
    rows = charts.side_hands(context, picked.game)
    if rows.height:
        chart = _score_chart(picked.ref, number, rows, picked.replay.rules)
        st.plotly_chart(chart, key="chart_replay_scores")


def render() -> None:
    """Draw the page."""
    st.title("Replay")
    context = current()
    picked = pick_game(context)
    if picked is None:
        return
    replay = picked.replay
    _header(replay)
    if not replay.hands:
        st.info("This record has no hand.")
        return
    numbers = [hand.number for hand in replay.hands]
    views = [ALL, *replay.variant.seats]
    left, right = st.columns(2)
    sync("hand", numbers, numbers[0])
    number: int = left.selectbox(
        "Jump to hand",
        numbers,
        key="hand",
        format_func=lambda n: f"Hand {n} of {len(numbers)}",
        on_change=_new_hand,
    )
    sync("view", views, ALL)
    view: int = right.selectbox(
        "View",
        views,
        key="view",
        format_func=lambda seat: (
            "All hands, face up"
            if seat == ALL
            else f"Seat {seat}: {plain(replay.players[seat].name, 60)}'s view (other cards hidden)"
        ),
        on_change=keep,
        args=("view",),
    )
    viewer = None if view == ALL else view
    hand = replay.hands[number - 1]
    step = _controls(hand)
    state = hand.timeline[step].state
    broken = "broken" if state.spades_broken else "not broken yet"
    st.markdown(
        f"**Step {step} of {len(hand.timeline) - 1}** · {board.phase_label(state)} · "
        f"spades {broken}  \n{board.describe(replay, hand, step, viewer)}"
    )
    analysis = double_dummy.hand_panel(picked.ref, replay, hand)
    _seats(replay, hand, step, viewer, analysis)
    _play(picked.ref, replay, hand, step, viewer, analysis)
    _setup(replay, hand, step, viewer)
    _scores(replay, hand, step)
    _game_so_far(context, picked, number)
