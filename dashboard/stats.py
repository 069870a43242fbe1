"""The Corpus stats page: how players and games went, over everything that passes the
sidebar's filters; and, when asked, the tricks each player's misplays cost, double dummy."""

from __future__ import annotations

import dataclasses
import os
import shlex
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TypeAlias

# imported here, on the page's thread, before the background count's thread can need it:
# two threads importing pandas at once leave one of them a half-initialised module
import pandas  # type: ignore[import-untyped]  # noqa: F401
import plotly.graph_objects as go  # type: ignore[import-untyped]
import polars as pl
import streamlit as st
from streamlit.navigation.page import StreamlitPage

from spades_replay.stats.double_dummy import capped_hands
from spades_replay.stats.metrics import (
    ANALYSIS_COLUMNS,
    player_metrics,
    player_plan,
    variant_plan,
)
from spades_replay.stats.tables import LazyTables, Tables, rules_legend, short_rules_label

from . import data, figures, headers, store
from .markup import md, plain
from .selection import Filters
from .widgets import Context, current, excluded

CORPUS_TIME_CAP = 10.0
"""The time cap offered for each hand of a corpus analysis."""

REQUESTED = "double-dummy corpus"
"""Session key: the games, time cap and workers of the analysis last asked for."""

TWO_PLAYER_HAND_S = 0.03
FOUR_PLAYER_HAND_S = 11.0
"""What the analysis of a hand takes, about: two-player tens of milliseconds, four-player
11 s (a median; the time cap bounds it) (docs/analysis.md)."""
ANALYSIS_BOUND = 600.0
"""Past this estimate (seconds), the page offers no button: the server would be busy for
longer than a reader waits; it offers to narrow the filters or to run it in a terminal."""


def analysis_estimate(two: int, four: int, time_cap: float, jobs: int) -> float:
    """About how long the analysis of ``two`` two-player and ``four`` four-player hands takes
    on ``jobs`` workers, in seconds."""
    per_four = min(FOUR_PLAYER_HAND_S, time_cap)
    return (two * min(TWO_PLAYER_HAND_S, time_cap) + four * per_four) / max(1, jobs)


def duration(seconds: float) -> str:
    """``40 s``, ``12 min``, ``3.5 h`` or ``2.1 days``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    if seconds < 36 * 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


def _too_long(context: Context, hands: int, estimate: float, time_cap: float, jobs: int) -> None:
    """Past :data:`ANALYSIS_BOUND`: no button; narrow the filters, or run it in a terminal."""
    st.warning(
        f"Analysing these {hands} hand(s) would take about {duration(estimate)} on {jobs} "
        f"worker(s), past the {duration(ANALYSIS_BOUND)} this page waits for. Narrow the "
        "filters in the sidebar (a variant, a rule set, a player) until the estimate fits, or "
        "analyse them once in a terminal into a store, then open the dashboard on it:"
    )
    if context.store is not None:
        files = context.store.games.get_column("file").unique(maintain_order=True).to_list()
        sources = " ".join(shlex.quote(path) for path in files) or "PATH..."
        target = shlex.quote(context.store.directory.rstrip("/") + "-analysed")
    else:
        sources = " ".join(shlex.quote(path) for path in context.paths) or "PATH..."
        target = "games.store"
    st.code(
        f"spades-replay ingest {sources} --store {target} --analysis --time-cap {time_cap:g} "
        f"--jobs {jobs}\nspades-replay dashboard --store {target}",
        language="bash",
    )


def page() -> StreamlitPage:
    """The page, for ``st.navigation`` and links."""
    return st.Page(render, title="Corpus stats", icon=":material/bar_chart:", url_path="stats")


TOP = 12
"""How many players the per-player charts show at first; the reader may ask for more."""
MOST = 500
"""The most players the per-player charts show; the table below them holds every one."""
PLAYER_TABLE = (
    "player",
    "player_key",
    "variant",
    "rules",
    "games",
    "complete_games",
    "wins",
    "win_rate",
    "hands",
    "points_per_hand",
    "bids",
    "exact_rate",
    "over_rate",
    "set_rate",
    "bags_per_hand",
    "bag_penalties_per_game",
    "nil_attempts",
    "nil_rate",
    "blind_nil_attempts",
    "blind_nil_rate",
)
"""The columns of the players' table, in order (their headers: :mod:`.columns`)."""
VARIANT_TABLE = (
    "variant",
    "rules",
    "games",
    "complete",
    "mercy_endings",
    "hands_per_game",
    "points_per_side_hand",
    "set_rate",
    "bags_per_side_hand",
    "bag_penalties_per_game",
    "nil_rate",
    "blind_nil_rate",
)
"""The columns of the variants' table, in order."""
TERMS = (
    "**Side**: the players who score together (in two-player, each player alone; in "
    "four-player, partners opposite each other). **A side's hand**: one side's result in one "
    "hand, so a hand counts twice, once per side. **Number bid**: a bid of one or more "
    "tricks; **exact** made with no trick over, **over** made with bags (tricks over the "
    "contract), **set** missed. **Nil** and **Blind Nil**: a bid to take no trick (Blind "
    "Nil before seeing one's cards); made when she took none."
)
"""The words the page's figures use, spelled out once at the top."""


def short_rules(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with each rule set's key replaced by its short label (the legend under the
    tables spells the labels out)."""
    keys = frame.get_column("rules").unique().to_list()
    return frame.with_columns(
        pl.col("rules").replace_strict({key: short_rules_label(key) for key in keys})
    )


@dataclass(frozen=True)
class Counted:
    """What the page shows of the games that pass the filters: the counts, the player and
    variant metrics (the players filtered; players with the most hands first), the game
    charts by their keys (none when no player has a complete hand), and, for the analysis,
    the games' numbers and four-player hands."""

    games: int
    complete: int
    hands: int
    four_hands: int
    numbers: tuple[int, ...]
    players: pl.DataFrame
    variants: pl.DataFrame
    charts: dict[str, go.Figure]


Collect: TypeAlias = Callable[..., list[pl.DataFrame]]
"""Runs queries of lazy frames, in turn: polars' own for frames in memory, a store's
(:meth:`~spades_replay.store.read.Store.collect`, streaming) for its scans."""


def in_memory(*plans: pl.LazyFrame) -> list[pl.DataFrame]:
    """:data:`Collect` for frames in memory."""
    return [plan.collect() for plan in plans]


def count(tables: LazyTables, filters: Filters, collect: Collect) -> Counted | None:
    """The page's figures of ``tables``, each a query run by ``collect`` that keeps its
    groups and counts, never every row (a store's millions of games are counted where they
    lie); ``None`` when there is no game."""
    games, sides = tables.games, tables.side_hands
    shown, hands, players = collect(
        games.select("game", "complete"),
        sides.select(
            pl.len().alias("sides"), (pl.col("variant") == "four-player").sum().alias("four")
        ),
        player_plan(tables),
    )
    if shown.height == 0:
        return None
    if filters.players:
        players = players.filter(pl.col("player_key").is_in(filters.players))
    players = players.sort("hands", descending=True, maintain_order=True)
    variants = pl.DataFrame()
    charts: dict[str, go.Figure] = {}
    if players.height:
        variants, scores, points = collect(
            variant_plan(tables),
            figures.final_score_counts(games),
            figures.hand_point_counts(sides),
        )
        charts = {
            "chart_final_scores": figures.final_scores(scores),
            "chart_hand_points": figures.hand_points(points),
        }
    return Counted(
        shown.height,
        int(shown.get_column("complete").sum()),
        int(hands.item(0, "sides")) // 2,
        int(hands.item(0, "four")) // 2,
        tuple(shown.get_column("game").to_list()),
        players,
        variants,
        charts,
    )


def _scans(context: Context) -> tuple[LazyTables, Collect]:
    """The tables of the games that pass the filters as lazy frames, with what runs their
    queries: of a store, its scans (the uploads' after them); else those the sidebar kept."""
    if context.store is None:
        return context.view.lazy(), in_memory
    opened = store.checked(context.store.directory)
    chosen = store.scans(opened, context.filters)
    return store.with_uploads(chosen, context.view, context.store.games.height), opened.collect


def shown_tables(context: Context) -> Tables:
    """The tables of the games that pass the filters, in memory: of a store, read from it
    and kept (the uploads' after them); else those the sidebar kept."""
    if context.store is None:
        return context.view
    store.check_fits(context.view.games.height)
    stored = store.tables(context.store.directory, context.store.key, context.filters)
    chosen = store.with_uploads(stored.lazy(), context.view, context.store.games.height)
    return Tables(*in_memory(chosen.seat_hands, chosen.side_hands, chosen.games))


def page_tables(context: Context) -> Tables | None:
    """:func:`shown_tables` for a page that draws from them; ``None``, the page told why,
    when they would not fit the dashboard's memory."""
    try:
        return shown_tables(context)
    except store.TooLargeError as error:
        st.warning(str(error))
        return None


@st.cache_resource(show_spinner="Counting the games…", max_entries=8)
def _stored(
    directory: str, key: str, filters: Filters, uploads: tuple[str, ...], _context: Context
) -> Counted | None:
    """:func:`count` of a store's games that pass the filters, and of the uploads' (by
    digest): the same for every session, so kept once for all, as built."""
    tables, collect = _scans(_context)
    return count(tables, filters, collect)


@st.cache_resource(show_spinner=False, max_entries=2)
def _whole_store(directory: str, key: str) -> Future[Counted | None]:
    """:func:`count` of every game of a store (no filter, no upload), started in the
    background (:func:`~spades_replay.dashboard.store.in_background`) and kept for every
    session."""

    def whole() -> Counted | None:
        opened = store.checked(directory)
        return count(opened.scans(), Filters(), opened.collect)

    return store.in_background(whole, "corpus-stats")


def prefetch(context: Context) -> None:
    """Start counting the whole store shown in the background, once per store version, while
    the first page is drawn and read: Corpus stats is then ready when asked for. Nothing to
    do when no store is shown."""
    if context.store is not None:
        _whole_store(context.store.directory, context.store.key)


def _counted(context: Context) -> Counted | None:
    """:func:`count` of what the page shows: of a store, counted once for every session."""
    if context.store is None:
        return count(context.view.lazy(), context.filters, in_memory)
    directory, key = context.store.directory, context.store.key
    if context.filters.active or context.uploads:
        return _stored(directory, key, context.filters, tuple(context.uploads), context)
    with st.spinner("Counting the games…"):
        return _whole_store(directory, key).result()


PLAYER_CHARTS = (
    (
        "chart_wins",
        figures.win_rates,
        "The share of her finished games she won, beside wins / finished games.",
    ),
    (
        "chart_accuracy",
        figures.bid_accuracy,
        "How her number bids went: exact, over (made with bags) or set, as shares of her "
        "bids; each part is labelled with its count.",
    ),
    (
        "chart_nil",
        figures.nil_success,
        "The share of her Nil and Blind Nil bids she made (took no trick), beside made / "
        'bids; "-" where she made no such bid.',
    ),
    (
        "chart_bags_per_hand",
        figures.bags_per_hand,
        "The bags (tricks over the contract) her side took per hand, on average: bags add "
        "up to penalties.",
    ),
)
"""The per-player charts: key, figure, and the line that explains it."""


def render() -> None:
    """Draw the page."""
    st.title("Corpus stats")
    st.caption(
        "How players and games went, over every game that passes the sidebar's filters. "
        "Each figure is explained under it; the tables at the end hold every figure."
    )
    context = current()
    counted = _counted(context)
    if counted is None:
        st.info(excluded(context, "No game to count"))
        return
    players = counted.players
    columns = st.columns(4)
    columns[0].metric("Games", counted.games)
    columns[1].metric("Complete games", counted.complete)
    columns[2].metric("Complete hands", counted.hands)
    columns[3].metric("Players", players.get_column("player_key").n_unique())
    if players.height == 0:
        st.info("No complete hand among these games yet: there is nothing to count.")
        return
    st.caption(TERMS)
    st.subheader("Players")
    asked = st.number_input(
        "Players in the charts",
        1,
        MOST,
        TOP,
        key="stats_top",
        help="The rows with the most hands first: a player has a row per variant and rules.",
    )
    top = min(int(asked), players.height)
    st.caption(
        f"The {top} of {players.height} player rows with the most hands (a player has one "
        "row per variant and rule set); ask for more above, or read them all in the table "
        "below."
    )
    shown = players.head(top)
    grid = st.columns(2)
    for number, (key, chart, line) in enumerate(PLAYER_CHARTS):
        place = grid[number % 2]
        place.plotly_chart(chart(shown), key=key)
        place.caption(line)
    st.subheader("Games")
    left, right = st.columns(2)
    left.plotly_chart(counted.charts["chart_final_scores"], key="chart_final_scores")
    left.caption(
        "How many finished games ended on each final score: the winner's on the left, the "
        "loser's on the right, on the same scale."
    )
    right.plotly_chart(counted.charts["chart_hand_points"], key="chart_hand_points")
    right.caption(
        "How many sides' hands scored each number of points (a hand counts once per side), "
        "two-player and four-player side by side."
    )
    st.subheader("Every player")
    st.caption(
        "A row per player, variant and rule set; every rate beside its counts. Sort by any column."
    )
    headers.table(short_rules(players.select(PLAYER_TABLE)), "players")
    st.subheader("Variants and rules")
    st.caption("A row per variant and rule set: how long games last and how hands go.")
    headers.table(short_rules(counted.variants.select(VARIANT_TABLE)), "variants")
    legend = rules_legend(counted.variants.get_column("rules").to_list())
    if any(short != key for short, key in legend):
        st.caption(
            "Rules: " + "; ".join(f"**{md(short, 40)}**: {md(key, 300)}" for short, key in legend)
        )
    _analysis(context, counted)


def _analysis(context: Context, counted: Counted) -> None:
    """The tricks lost by misplays: the button that asks for the analysis of every complete
    hand shown (with a warning when four-player hands make it slow), then its figures; the
    tables are read only then."""
    st.subheader("Tricks lost by misplays (double dummy)")
    hands, four = counted.hands, counted.four_hands
    st.caption(
        "Every complete hand solved with every hand known, both sides playing perfectly for "
        "tricks: the tricks each card cost its player's side, added up per player. A hand "
        "stopped by the time cap is counted apart (capped), never in the tricks lost."
    )
    if four:
        st.warning(
            f"{four} of these {hands} hand(s) are four-player: a four-player hand takes "
            "about 11 s (a median; some take minutes, and stop at the time cap), so this "
            "can take a while. Narrow the filters for a quicker answer."
        )
    cores = os.cpu_count() or 1
    left, middle, right = st.columns(3, vertical_alignment="bottom")
    time_cap = left.number_input(
        "Time cap per hand (seconds)",
        min_value=0.1,
        max_value=120.0,
        value=CORPUS_TIME_CAP,
        step=5.0,
        key="corpus_time_cap",
    )
    jobs = middle.number_input(
        "Worker processes", min_value=1, max_value=cores, value=cores, key="corpus_jobs"
    )
    estimate = analysis_estimate(hands - four, four, time_cap, int(jobs))
    if estimate > ANALYSIS_BOUND:
        _too_long(context, hands, estimate, time_cap, int(jobs))
        return
    right.caption(f"About {duration(estimate)} on {int(jobs)} worker(s).")
    numbers = counted.numbers
    if context.store is not None:
        # the manifest's digest and the numbers name the games of a store (no ref per game)
        games = (context.store.key, *map(str, numbers))
    else:
        games = tuple(context.loaded.ref(game).key for game in numbers)
    request = (games, time_cap, jobs)
    if right.button(
        f"Analyse {hands} hand(s)",
        key="analyse_corpus",
        disabled=hands == 0,
        icon=":material/psychology:",
    ):
        st.session_state[REQUESTED] = request
    if st.session_state.get(REQUESTED) != request:
        return
    tables = page_tables(context)
    if tables is None:
        return
    result = data.corpus_analysis(
        context.loaded, tables, context.uploads, time_cap=time_cap, jobs=jobs
    )
    if result.unread:
        places = ", ".join(md(place, 200) for place in result.unread[:10])
        st.warning(
            f"{len(result.unread)} game(s) could not be read again (changed or gone since "
            f"they were loaded) and are left out: {places}"
        )
    capped = capped_hands(result.table)
    if capped.height:
        st.warning(
            f"{capped.height} hand(s) reached the time cap of {time_cap:g} s: they are counted "
            "apart (capped hands), never in the tricks lost."
        )
        st.dataframe(
            [
                {
                    "game": plain(row["game_id"], 60),
                    "hand": row["hand"],
                    "cards analysed": f"{row['analysed_plays']} of {row['plays']} (the last ones)",
                }
                for row in capped.iter_rows(named=True)
            ],
            hide_index=True,
            key="capped",
        )
    players = player_metrics(dataclasses.replace(tables, seat_analysis=result.table))
    if context.filters.players:
        players = players.filter(pl.col("player_key").is_in(context.filters.players))
    st.plotly_chart(figures.tricks_lost(players), key="chart_tricks_lost")
    st.caption(
        "The tricks her misplays cost her side per hand, against perfect play with every hand "
        "known; capped hands are counted apart."
    )
    headers.table(
        short_rules(
            players.select("player", "player_key", "variant", "rules", "hands", *ANALYSIS_COLUMNS)
        ),
        "tricks_lost",
    )
