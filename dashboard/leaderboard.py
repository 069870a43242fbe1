"""The Leaderboard page: one row per player over the games that pass the sidebar's filters
and the page's own (variant, rules, a minimum of games), with how sure each figure is: the
win rate's 95 % interval and a skill rating (docs/stats.md, "Ratings")."""

from __future__ import annotations

import hashlib

import polars as pl
import streamlit as st
from streamlit.navigation.page import StreamlitPage

from spades_replay.stats.leaderboard import chance_above, leaderboard
from spades_replay.stats.ratings import ORDER
from spades_replay.stats.tables import Tables, short_rules_label

from . import figures, headers, player
from .markup import md, plain
from .stats import page_tables
from .widgets import Context, current

TOP = 20
"""How many players the charts show at first; the reader may ask for more."""
MOST = 500
"""The most players the charts show; the table holds every one."""


def page() -> StreamlitPage:
    """The page, for ``st.navigation`` and links."""
    return st.Page(
        render, title="Leaderboard", icon=":material/leaderboard:", url_path="leaderboard"
    )


def narrowed(
    games: pl.DataFrame, variants: list[str], rules: list[str]
) -> tuple[pl.DataFrame, str | None]:
    """The games of the variants and rules chosen (none chosen: all), and the name of the
    filter that left none (``None`` when some pass)."""
    if variants:
        games = games.filter(pl.col("variant").is_in(variants))
        if games.height == 0:
            return games, "variant"
    if rules:
        games = games.filter(pl.col("rules").is_in(rules))
        if games.height == 0:
            return games, "rules"
    return games, None


def _kept(tables: Tables, games: pl.DataFrame) -> Tables:
    kept = games.get_column("game").implode()
    return Tables(
        tables.seat_hands.filter(pl.col("game").is_in(kept)),
        tables.side_hands.filter(pl.col("game").is_in(kept)),
        games,
        None
        if tables.seat_analysis is None
        else tables.seat_analysis.filter(pl.col("game").is_in(kept)),
    )


@st.cache_resource(show_spinner="Rating the players…", max_entries=8)
def _board(key: str, min_games: int, _tables: Tables) -> pl.DataFrame:
    """The leaderboard of ``_tables`` (named by ``key``), kept for every session: the
    ratings rate every game once."""
    return leaderboard(_tables, min_games)


def _key(context: Context, games: pl.DataFrame) -> str:
    """What names the games shown: the store's manifest digest or the files' keys, and the
    games' numbers."""
    where = context.store.key if context.store is not None else "|".join(context.paths)
    numbers = games.get_column("game").to_list()
    return hashlib.sha256(f"{where}|{numbers}|{sorted(context.uploads)}".encode()).hexdigest()


def best_line(board: pl.DataFrame) -> str | None:
    """Who is best, and how sure we are, in a line (Markdown): the first player of
    ``board`` (a leaderboard, best first), her rating and its uncertainty, the chance that
    her skill is above the next player's, and her win rate with its 95 % interval; ``None``
    when nobody is rated (no finished game)."""
    best = board.row(0, named=True)
    if best["rating"] is None:
        return None
    name = f"{md(best['player'], 60)}** ({md(best['player_key'], 60)})"
    line = (
        f"**Best rated: {name}: rating {best['rating']:.2f} (skill {best['mu']:.2f} "
        f"± {3 * best['sigma']:.2f})."
    )
    if board.height > 1 and board.item(1, "rating") is not None:
        other = board.row(1, named=True)
        chance = chance_above(best["mu"], best["sigma"], other["mu"], other["sigma"])
        line += (
            f" How sure: a **{chance:.1%}** chance that her skill is above the next "
            f"player's ({md(other['player'], 60)}, rating {other['rating']:.2f})."
        )
    if best["win_rate"] is not None:
        line += (
            f" She won {best['wins']} of {best['complete_games']} finished games "
            f"(**{best['win_rate']:.1%}**; 95 % interval {best['win_low']:.1%} to "
            f"{best['win_high']:.1%})."
        )
    return line


def render() -> None:
    """Draw the page."""
    st.title("Leaderboard")
    st.caption(
        "Who plays best, and how sure we are: every player of the games shown, ranked by a "
        f"skill rating (Weng-Lin, from the openskill package; games rated in {ORDER}, "
        "unfinished ones not rated). Sort by any column; the sidebar's filters apply too."
    )
    context = current()
    tables = page_tables(context)
    if tables is None:
        return
    games = tables.games
    if games.height == 0:
        st.info("No game to rank: nothing is loaded, or nothing passes the sidebar's filters.")
        return
    left, middle, right = st.columns(3)
    variants = left.multiselect(
        "Variant", sorted(games.get_column("variant").unique().to_list()), key="lb_variant"
    )
    offered = games.filter(pl.col("variant").is_in(variants)) if variants else games
    rule_sets = sorted(offered.get_column("rules").unique().to_list())
    rules = middle.multiselect(
        "Rules",
        rule_sets,
        key="lb_rules",
        format_func=short_rules_label,
        help="only the rule sets of the variants chosen",
    )
    min_games = int(right.number_input("At least this many games", 1, 100_000, 1, key="lb_min"))
    chosen, empty = narrowed(games, variants, [label for label in rules if label in rule_sets])
    if empty is not None:
        st.warning(f"No game passes the {empty} filter: widen it.")
        return
    board = _board(_key(context, chosen), min_games, _kept(tables, chosen))
    if board.height == 0:
        st.warning(
            f"No player has {min_games} game(s) among these {chosen.height}: the minimum of "
            "games excluded everyone; lower it."
        )
        return
    st.metric("Players", board.height, help=f"over {chosen.height} game(s)")
    answer = best_line(board)
    if answer is not None:
        st.markdown(answer)
    headers.table(board, "leaderboard")
    st.caption(
        "**Rating**: mu - 3 sigma, the skill she very likely has at least (0 for a newcomer; "
        "it grows with wins and with games). **Skill (mu)** is the skill believed, "
        "**uncertainty (sigma)** how unsure it is. **Win rate, 95 %**: the Wilson interval "
        "of her win rate, narrow after many games. **Exact bids** and **set** are shares of "
        "her number bids; **bags per hand** her side's; Nil and Blind Nil success beside "
        "their counts."
    )
    names = dict(board.select("player_key", "player").iter_rows())
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    chosen = left.selectbox(
        "A player's page (type to search)",
        list(names),
        format_func=lambda key: plain(names[key], 60),
        key="lb_open",
    )
    if right.button("Open her page", key="lb_open_page", type="primary"):
        player.open_player(chosen)
        st.switch_page(player.page())
    asked = st.number_input("Players in the charts", 1, MOST, TOP, key="lb_top")
    top = min(int(asked), board.height)
    shown = board.head(top)
    st.plotly_chart(figures.ratings_chart(shown), key="chart_ratings")
    st.caption(
        "The dot is the skill believed, the bar its uncertainty (3 sigma each way): the "
        "rating is the bar's left end."
    )
    st.plotly_chart(figures.win_intervals(shown), key="chart_win_intervals")
    st.caption(
        "The dot is the share of finished games won, the bar where the true rate very likely "
        "lies (95 % Wilson interval): a few games give a wide bar."
    )
