"""The Game charts page: the running score, the bags and the points of every hand of the
game picked."""

from __future__ import annotations

import polars as pl
import streamlit as st
from streamlit.navigation.page import StreamlitPage

from . import figures, store
from .widgets import Context, current, game_rows, pick_game


def page() -> StreamlitPage:
    """The page, for ``st.navigation`` and links."""
    return st.Page(render, title="Game charts", icon=":material/show_chart:", url_path="charts")


SHEET_COLUMNS = {
    "hand": "hand",
    "side": "side",
    "players": "players",
    "contract": "contract",
    "tricks": "tricks",
    "contract_points": "contract pts",
    "bag_points": "bags",
    "nil_points": "Nil pts",
    "penalty_points": "penalty pts",
    "points": "hand total",
    "score": "score",
    "bags": "bag count",
}
"""The score sheet under the charts: side_hands columns and their headings."""


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
    st.plotly_chart(
        figures.running_scores(rows, rules.target_score, rules.lose_score), key="chart_scores"
    )
    st.plotly_chart(figures.bags_by_hand(rows, rules.bag_limit), key="chart_bags")
    st.plotly_chart(figures.points_by_part(rows), key="chart_points")
    st.subheader("Score sheet")
    sheet = rows.sort("hand", "side").select(list(SHEET_COLUMNS)).rename(SHEET_COLUMNS)
    st.dataframe(sheet, hide_index=True, key="sheet")
