"""The Player page: one player over the games shown (the sidebar's filters apply): the
leaderboard's figures by variant and rules, her form in game order, her partners and
opponents, her Nil and Blind Nil hands, and her games, each opening on the Replay page
(docs/dashboard.md, "Player")."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go  # type: ignore[import-untyped]
import polars as pl
import streamlit as st
from streamlit.navigation.page import StreamlitPage

from spades_replay.stats import player as record
from spades_replay.stats.metrics import player_metrics
from spades_replay.stats.tables import Tables, short_rules_label

from . import headers, replay, urlstate
from .markup import md, plain, plot_text
from .selection import player_options
from .stats import page_tables
from .widgets import current, excluded, open_game

PLAYER = "player"
"""The session key of the player shown (the leaderboard's *Open her page* sets it)."""
SPAN = 200
"""How many of her last games the form chart shows at first."""
WINDOW = 50
"""How many games each point of the form chart's rolling rates covers at first."""


def page() -> StreamlitPage:
    """The page, for ``st.navigation`` and links."""
    return st.Page(render, title="Player", icon=":material/person:", url_path="player")


def open_player(key: str) -> None:
    """Show ``key`` on the Player page (a callback, before the page is drawn)."""
    st.session_state[PLAYER] = key


def form_chart(frame: pl.DataFrame, window: int, name: str) -> go.Figure:
    """Her rolling win rate and Nil success over the games of ``frame`` (a tail of
    :func:`~spades_replay.stats.player.form`), in her game order, 0 to 100 %."""
    figure = go.Figure(
        [
            go.Scatter(
                x=frame.get_column("number").to_list(),
                y=frame.get_column("rolling_win_rate").to_list(),
                mode="lines+markers",
                marker={"size": 4},
                name="win rate",
                line={"color": "#1f5fa8"},
            ),
            go.Scatter(
                x=frame.get_column("number").to_list(),
                y=frame.get_column("rolling_nil_rate").to_list(),
                mode="lines+markers",
                marker={"size": 4},
                name="Nil and Blind Nil success",
                line={"color": "#54a24b", "dash": "dot"},
            ),
        ]
    )
    figure.update_layout(
        template="plotly_white",
        title={
            "text": f"Form of {plot_text(name, 60)}: her last {frame.height} games, "
            f"rolling over {window}",
            "x": 0,
        },
        margin={"l": 60, "r": 20, "t": 60, "b": 90},
        legend={"orientation": "h", "yanchor": "top", "y": -0.2, "x": 0},
        xaxis={"title": "her games, in order"},
        yaxis={"title": "rate", "tickformat": ".0%", "range": [0, 1]},
        height=380,
    )
    return figure


def rating_chart(frame: pl.DataFrame, name: str) -> go.Figure:
    """Her rating after each game she finished, in her game order."""
    rated = frame.filter(pl.col("rating").is_not_null())
    figure = go.Figure(
        go.Scatter(
            x=rated.get_column("number").to_list(),
            y=rated.get_column("rating").to_list(),
            mode="lines+markers",
            name="rating",
            line={"color": "#c2452d"},
            marker={"size": 4},
        )
    )
    figure.update_layout(
        template="plotly_white",
        title={"text": f"Rating of {plot_text(name, 60)} after each game", "x": 0},
        margin={"l": 60, "r": 20, "t": 60, "b": 50},
        showlegend=False,
        xaxis={"title": "her games, in order"},
        yaxis={"title": "rating (mu - 3 sigma)"},
        height=340,
    )
    return figure


def nil_line(change: pl.DataFrame) -> str:
    """How her Nil success changed over her last games, in a line (Markdown), from
    :func:`~spades_replay.stats.player.nil_change`."""
    rows = {row["span"]: row for row in change.iter_rows(named=True)}

    def told(row: dict[str, Any]) -> str:
        if row["bids"] == 0:
            return "no bid"
        return f"**{row['rate']:.1%}** ({row['made']} made of {row['bids']})"

    last, first, second = rows["last"], rows["first half"], rows["second half"]
    line = f"**Nil and Blind Nil success over her last {last['games']} games**: {told(last)}"
    if last["bids"] == 0:
        return line + "."
    return (
        f"{line}; in the first {first['games']} of them {told(first)}, in the last "
        f"{second['games']} {told(second)}."
    )


def _games(tables: Tables, key: str) -> None:
    """Her games, and a button that opens the one picked on the Replay page."""
    context = current()
    games = record.games_of(tables, key)
    if games.height == 0:
        return
    numbers = games.get_column("game").to_list()
    labels = {
        number: f"{plain(game_id, 60)} · {variant} · "
        + {True: "won", False: "lost", None: "unfinished"}[won]
        for number, game_id, variant, won in games.select(
            "game", "game_id", "variant", "won"
        ).iter_rows()
    }
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    chosen = left.selectbox("Her games", numbers, format_func=labels.__getitem__, key="player_game")
    if right.button("Open on the Replay page", key="player_open_game", type="primary"):
        open_game(context, int(chosen))
        st.switch_page(replay.page())


def render() -> None:
    """Draw the page."""
    st.title("Player")
    context = current()
    tables = page_tables(context)
    if tables is None:
        return
    seats = tables.seat_hands.select("game", "player_key", "player")
    options = player_options(seats)
    if not options:
        st.info(excluded(context, "No player to show"))
        return
    keys = list(options)
    linked = urlstate.take(PLAYER)
    if linked is not None:
        if linked in keys:
            st.session_state[PLAYER] = linked
        else:
            st.warning(
                f"The link names the player {md(linked, 120)}, who is not among those shown."
            )
    if st.session_state.get(PLAYER) not in keys:
        st.session_state[PLAYER] = keys[0]
    key = st.selectbox("Player (type to search)", keys, format_func=options.__getitem__, key=PLAYER)
    urlstate.want(player=key)
    name = options[key]
    metrics = player_metrics(tables).filter(pl.col("player_key") == key)
    st.subheader("By variant and rules")
    headers.table(
        metrics.with_columns(pl.col("rules").map_elements(short_rules_label, pl.String)).select(
            "variant",
            "rules",
            "games",
            "wins",
            "win_rate",
            "exact_rate",
            "set_rate",
            "bags_per_hand",
            "nil_attempts",
            "nil_made",
            "nil_rate",
            "blind_nil_attempts",
            "blind_nil_made",
            "blind_nil_rate",
        ),
        "player_metrics",
    )
    st.subheader("Form")
    left, right = st.columns(2)
    span = int(left.number_input("Her last … games", 2, 1_000_000, SPAN, key="player_span"))
    window = int(right.number_input("Rolling over … games", 1, 1000, WINDOW, key="player_window"))
    frame = record.form(tables, key, window)
    shown = frame.tail(span)
    st.plotly_chart(form_chart(shown, window, name), key="chart_player_form")
    st.caption(
        f"Her last {shown.height} games: at each, the share of her last {window} finished "
        "games she won, and the share of her Nil and Blind Nil bids in those games she made."
    )
    st.markdown(nil_line(record.nil_change(tables, key, span)))
    st.plotly_chart(rating_chart(frame, name), key="chart_player_rating")
    st.caption("Her rating (mu - 3 sigma) after each game she finished, in the order played.")
    st.subheader("Partners and opponents")
    left, right = st.columns(2)
    headers.table(record.partners(tables, key).drop("partner_key"), "player_partners", left)
    left.caption("Four-player: her games with each partner, and her side's wins.")
    headers.table(record.opponents(tables, key).drop("opponent_key"), "player_opponents", right)
    right.caption("Her games against each opponent, and her wins.")
    st.subheader("Nil and Blind Nil hands")
    nils = record.nil_hands(tables, key)
    made = int(nils.get_column("made").sum())
    st.caption(f"{nils.height} bid(s): {made} made, {nils.height - made} failed.")
    headers.table(nils.drop("game").rename({"points": "nil_points"}), "player_nils")
    st.subheader("Her games")
    _games(tables, key)
