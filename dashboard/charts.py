"""The Game charts page: the running score, the bags and the points of every hand of the
game picked."""

from __future__ import annotations

import polars as pl
import streamlit as st
from streamlit.navigation.page import StreamlitPage

from spades_replay.engine.scoring import POINTS_PARTS

from . import figures, headers, store
from .widgets import Context, current, game_rows, pick_game


def page() -> StreamlitPage:
    """The page, for ``st.navigation`` and links."""
    return st.Page(render, title="Game charts", icon=":material/show_chart:", url_path="charts")


SHEET_COLUMNS = (
    "hand",
    "side",
    "players",
    "contract",
    "tricks",
    *(part.column for part in POINTS_PARTS),
    "score",
    "bags",
)
"""The score sheet under the charts: the side_hands columns it shows, headed as every table
heads them (:mod:`.columns`)."""


def side_hands(context: Context, game: int) -> pl.DataFrame:
    """The ``side_hands`` rows of game number ``game``: asked of the store for one of its
    games, else taken from the tables loaded."""
    if context.store is not None and game < context.store.games.height:
        return store.side_hands(context.store.directory, context.store.key, game)
    return game_rows(context.loaded.tables.side_hands, game)


def render() -> None:
    """Draw the page."""
    st.title("Game charts")
    context = current()
    picked = pick_game(context)
    if picked is None:
        return
    rows = side_hands(context, picked.game)
    if rows.height == 0:
        st.info("No hand of this game is complete yet: there is nothing to chart.")
        return
    rules = picked.replay.rules
    left, right = st.columns(2)
    left.plotly_chart(
        figures.running_scores(rows, rules.target_score, rules.lose_score), key="chart_scores"
    )
    left.caption(
        "Each side's score after every hand, from 0; the game ends when a side reaches the "
        "target (or falls to the mercy line) and leads."
    )
    right.plotly_chart(figures.bags_by_hand(rows, rules.bag_limit), key="chart_bags")
    right.caption(
        "Each side's bag count (tricks over its contract) after every hand; a cross marks a "
        f"bag penalty: {rules.bag_limit} bags cost {rules.bag_penalty} points and start again."
    )
    st.plotly_chart(figures.points_by_part(rows), key="chart_points")
    st.caption(
        "Where each hand's points came from, per side: the contract (made or set), bags, Nil "
        "bids and bag penalties; the diamond is the hand's total."
    )
    st.subheader("Score sheet")
    headers.table(rows.sort("hand", "side").select(SHEET_COLUMNS), "sheet")
