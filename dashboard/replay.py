"""The Replay page: a game hand by hand, stepped through card by card or trick by trick,
with the double-dummy analysis of each card (:mod:`.double_dummy`)."""

from __future__ import annotations

import plotly.graph_objects as go  # type: ignore[import-untyped]
import polars as pl
import streamlit as st
from streamlit.navigation.page import StreamlitPage

from spades_replay.engine.rules import Rules
from spades_replay.replayer.replay import Replay
from spades_replay.stats.tables import rules_caption, rules_label

from . import board, board_widget, charts, double_dummy, figures, urlstate
from .data import GameRef
from .markup import md, plain
from .widgets import (
    Context,
    Picked,
    current,
    keep,
    moved,
    moves,
    pick_game,
    set_value,
    sync,
)

ALL = -1
"""The view option "every hand face up"; the others are seat numbers."""


URL_PATH = "replay"
"""The page's URL path (it is the default page, at the app's root too)."""


def page() -> StreamlitPage:
    """The page, for ``st.navigation`` and links (the default page)."""
    return st.Page(
        render, title="Replay", icon=":material/replay:", url_path=URL_PATH, default=True
    )


def _header(replay: Replay, spoiler_free: bool) -> None:
    game = f"**{md(replay.game_id, 120)}** · " if replay.game_id else ""
    rules = rules_caption(rules_label(replay.rules))
    result = "" if spoiler_free else f" · {board.result_md(replay)}"
    st.markdown(
        f"{game}{replay.variant.value} · rules: {md(rules, 300)} · target "
        f"{replay.rules.target_score}{result}"
    )


def _heard() -> None:
    """The board told a new position: make it the session's."""
    told = board_widget.position()
    if told is not None:
        set_value("hand", told[0])
        set_value("step", told[1])


@st.cache_resource(show_spinner=False, max_entries=256)
def _score_chart(
    ref: GameRef, number: int, spoiler_free: bool, _rows: pl.DataFrame, _rules: Rules
) -> go.Figure:
    """The running score of the game at ``ref`` (its ``side_hands`` rows, all of them or
    those before hand ``number`` when ``spoiler_free``), hand ``number`` marked: built once
    per game, hand and mode (tens of milliseconds), not at every step."""
    return figures.running_scores(_rows, _rules.target_score, _rules.lose_score, marked=number)


def _game_so_far(context: Context, picked: Picked, number: int, spoiler_free: bool) -> None:
    """The running score of the whole game, the hand shown marked (the Game charts page has
    it with the bags and the points of every hand); without spoilers, only the hands before
    the one shown."""
    rows = charts.side_hands(context, picked.game)
    if spoiler_free:
        rows = rows.filter(pl.col("hand") < number)
    if rows.height:
        chart = _score_chart(picked.ref, number, spoiler_free, rows, picked.replay.rules)
        st.plotly_chart(chart, key="chart_replay_scores")


def _number(text: str | None) -> int | None:
    """A whole number from the address (ASCII digits), or ``None``.

    >>> [_number(text) for text in ("3", " -2 ", "\u00b2", "\uff15", "", None)]
    [3, -2, None, None, None, None]
    """
    if text is None:
        return None
    digits = text.strip().lstrip("-")
    if not (digits.isascii() and digits.isdigit()):
        return None
    return int(text)


def _arrived(numbers: list[int], views: list[int]) -> None:
    """The hand, step and view of an address that just arrived, made the session's (a value
    that is not one of this game's is left out: the page's default stands)."""
    hand, step, seat = (_number(urlstate.take(name)) for name in ("hand", "step", "seat"))
    if hand in numbers:
        set_value("hand", hand)
        set_value("step", step if step is not None and step >= 0 else 0)
        moved()
    if seat in views:
        set_value("view", seat)
    elif seat is None and hand in numbers:
        set_value("view", ALL)


def _position(replay: Replay) -> tuple[int, int]:
    """The session's position in ``replay`` (hand number, step), made valid."""
    numbers = [hand.number for hand in replay.hands]
    sync("hand", numbers, numbers[0])
    number = int(st.session_state["hand"])
    last = len(replay.hands[number - 1].timeline) - 1
    sync("step", range(last + 1), 0)
    return number, int(st.session_state["step"])


@st.fragment
def _board(
    context: Context,
    picked: Picked,
    viewer: board.Viewer,
    spoiler_free: bool,
    start: tuple[int, int],
) -> None:
    """The board, from ``start`` (the position of the page's last full run), and what
    follows the position it tells: the session's position, the double-dummy analysis of the
    hand shown and, once the board is drawn in the browser, the chart (plotly's script takes
    the browser seconds to load: the board comes first). A position told, the board asking
    again for the analyses made in the background, or saying it is drawn, reruns this
    alone."""
    replay = picked.replay
    number, step = _position(replay)
    waiting = []
    if viewer is None:
        waiting = double_dummy.learn_ready(picked.ref, replay, replay.hands[number - 1])
    token = f"{picked.ref.key}|{viewer}|{spoiler_free}|{moves()}"
    board_widget.draw(
        picked.ref.key,
        token,
        replay,
        viewer,
        start,
        heard=(number, step),
        spoiler_free=spoiler_free,
        page=(URL_PATH, True),
        analyses=double_dummy.known(picked.ref) if viewer is None else None,
        waiting=[hand.number for hand, _ in waiting],
        on_position=_heard,
    )
    # written by the page's full runs: as the reader steps, the board writes the address
    # itself, and a run of this fragment alone, which may come after a later step, does not
    urlstate.want(hand=number, step=step, seat=viewer)
    hand = replay.hands[number - 1]
    if viewer is None:
        analysis = double_dummy.hand_panel(picked.ref, replay, hand)
        double_dummy.alternatives(picked.ref, replay, hand, step, analysis)
    else:
        st.caption(
            "Double dummy reads every hand: its marks, pars and verdicts are shown in the "
            "full view only."
        )
    if board_widget.drawn():
        _game_so_far(context, picked, number, spoiler_free)


def render() -> None:
    """Draw the page: the game, the view and the spoiler-free switch on one row, a line on
    the game, then the board."""
    context = current()
    picking, viewing, spoiling = st.columns([5, 3, 1.6])
    with picking:
        picked = pick_game(context)
    if picked is None:
        return
    replay = picked.replay
    views = [ALL, *replay.variant.seats]
    if replay.hands:
        _arrived([hand.number for hand in replay.hands], views)
    sync("view", views, ALL)
    view: int = viewing.selectbox(
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
    sync("spoiler_free", [False, True], False)
    spoiler_free = spoiling.toggle(
        "Spoiler-free",
        key="spoiler_free",
        help="hide the game's result, and the scores of the hands to come",
        on_change=keep,
        args=("spoiler_free",),
    )
    _header(replay, spoiler_free)
    if not replay.hands:
        st.info("This record has no hand.")
        return
    _board(context, picked, None if view == ALL else view, spoiler_free, _position(replay))
