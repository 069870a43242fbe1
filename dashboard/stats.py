"""The Corpus stats page: how players and games went, over everything that passes the
sidebar's filters."""

from __future__ import annotations

import polars as pl
import streamlit as st
from streamlit.navigation.page import StreamlitPage

from spades_replay.stats.metrics import player_metrics, variant_metrics

from . import figures
from .widgets import current


def page() -> StreamlitPage:
    """The page, for ``st.navigation`` and links."""
    return st.Page(render, title="Corpus stats", icon=":material/bar_chart:", url_path="stats")


PERCENT = st.column_config.NumberColumn(format="percent")
DECIMAL = st.column_config.NumberColumn(format="%.2f")
PLAYER_COLUMNS = {
    "player": st.column_config.TextColumn("player"),
    "win_rate": PERCENT,
    "points_per_hand": DECIMAL,
    "exact_rate": PERCENT,
    "over_rate": PERCENT,
    "set_rate": PERCENT,
    "bags_per_hand": DECIMAL,
    "bag_penalties_per_game": DECIMAL,
    "nil_rate": PERCENT,
    "blind_nil_rate": PERCENT,
}
VARIANT_COLUMNS = {
    "hands_per_game": DECIMAL,
    "points_per_side_hand": DECIMAL,
    "set_rate": PERCENT,
    "bags_per_side_hand": DECIMAL,
    "bag_penalties_per_game": DECIMAL,
    "nil_rate": PERCENT,
    "blind_nil_rate": PERCENT,
}


def render() -> None:
    """Draw the page."""
    st.title("Corpus stats")
    context = current()
    tables = context.view
    games = tables.games
    if games.height == 0:
        st.info("No game to count: nothing is loaded, or nothing passes the filters.")
        return
    players = player_metrics(tables)
    if context.filters.players:
        players = players.filter(pl.col("player_key").is_in(context.filters.players))
    columns = st.columns(4)
    columns[0].metric("Games", games.height)
    columns[1].metric("Complete games", games.filter(pl.col("complete")).height)
    columns[2].metric("Complete hands", tables.side_hands.height // 2)
    columns[3].metric("Players", players.get_column("player_key").n_unique())
    if players.height == 0:
        st.info("No complete hand among these games yet: there is nothing to count.")
        return
    st.plotly_chart(figures.nil_success(players), key="chart_nil")
    st.plotly_chart(figures.bid_accuracy(players), key="chart_accuracy")
    st.plotly_chart(figures.win_rates(players), key="chart_wins")
    st.plotly_chart(figures.bags_per_hand(players), key="chart_bags_per_hand")
    left, right = st.columns(2)
    left.plotly_chart(figures.final_scores(games), key="chart_final_scores")
    right.plotly_chart(figures.hand_points(tables.side_hands), key="chart_hand_points")
    st.subheader("Players")
    st.caption("Every rate beside its counts; grouped by player, variant and rules.")
    st.dataframe(players, hide_index=True, column_config=PLAYER_COLUMNS, key="players")
    st.subheader("Variants and rules")
    st.dataframe(
        variant_metrics(tables), hide_index=True, column_config=VARIANT_COLUMNS, key="variants"
    )
