"""The What-if page: the game picked, and every game shown, scored again under other scoring
options (docs/rules.md, "Rescoring under other rules")."""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass

import polars as pl
import streamlit as st
from streamlit.delta_generator import DeltaGenerator
from streamlit.navigation.page import StreamlitPage

from spades_replay.engine.rules import OPTION, SCORING_OPTIONS, Option, Rules, RuleValue
from spades_replay.replayer.rescore import (
    PART_LABELS,
    PARTS,
    Outcome,
    Rescore,
    RescoreError,
    rescore,
)
from spades_replay.stats.tables import Tables
from spades_replay.store.rescore import Prepared, prepare, rescore_tables
from spades_replay.text import score_line

from . import data, figures, headers, store
from .markup import md, plain
from .selection import Filters
from .stats import shown_tables
from .widgets import Context, current, pick_game

SCORING_ROWS = tuple(OPTION[name] for name in SCORING_OPTIONS)
"""The options a what-if may change, each with its widget, in the option table's order."""
COLUMNS = 2


def page() -> StreamlitPage:
    """The page, for ``st.navigation`` and links."""
    return st.Page(render, title="What-if", icon=":material/rule:", url_path="whatif")


def options(rules: Rules, suffix: str) -> dict[str, RuleValue]:
    """A widget for each scoring option of the option table, starting from ``rules`` (their
    keys end in ``suffix``, so that each game starts from its own rules); every option's
    value."""
    key = f"whatif|{suffix}|"
    with st.container(border=True):
        st.markdown("**Scoring options** (the others shaped what was legal and stay as played)")
        columns = st.columns(COLUMNS)
        per_column = -(-len(SCORING_ROWS) // COLUMNS)
        return {
            row.name: option_widget(
                columns[number // per_column], row, getattr(rules, row.name), key + row.name
            )
            for number, row in enumerate(SCORING_ROWS)
        }


def option_widget(place: DeltaGenerator, row: Option, value: RuleValue, key: str) -> RuleValue:
    """The widget of one option in ``place`` (a column), as the option table describes it:
    a toggle, a choice of words, or a number (turned on and off by a checkbox when the
    option may be null); the value chosen."""
    label = row.title
    if len(row.variants) == 1:
        label += f" ({row.variants[0].value})"
    if row.kind == "bool":
        return bool(place.toggle(label, bool(value), key=key, help=row.text))
    if row.kind == "word":
        return str(
            place.selectbox(
                label, row.choices, row.choices.index(str(value)), key=key, help=row.text
            )
        )
    on = value is not None
    if row.optional:
        on = place.checkbox(row.switch, on, key=key + "|on")
    start = value if isinstance(value, int) else row.offered
    number = place.number_input(
        label, row.low, row.high, start, step=row.step, disabled=not on, key=key, help=row.text
    )
    return int(number) if on and number is not None else None


def changes_of(rules: Rules, chosen: dict[str, RuleValue]) -> dict[str, RuleValue]:
    """The options whose value differs from ``rules``."""
    return {name: value for name, value in chosen.items() if value != getattr(rules, name)}


def changes_text(changes: dict[str, RuleValue]) -> str:
    """``target_score=300 lose_score=none``, or ``no change``."""
    if not changes:
        return "no change"
    words = {True: "true", False: "false", None: "none"}
    return " ".join(
        f"{name}={words[value] if value is None or isinstance(value, bool) else value}"
        for name, value in changes.items()
    )


def outcome_text(game: Rescore, outcome: Outcome) -> str:
    """``208 to 181, won by Drew in hand 4 (target)`` (the winner's score first) or ``...,
    no winner within 14 hands``."""
    scores = score_line(outcome.scores, outcome.winner)
    if outcome.winner is None:
        return f"{scores}, no winner within {game.hands_scored} hand(s)"
    who = plain(game.side_names[outcome.winner], 80)
    return f"{scores}, won by {who} in hand {outcome.end_hand} ({outcome.reason})"


def parts_rows(game: Rescore) -> list[dict[str, object]]:
    """Each side's points by part, as played and rescored: one row per part."""
    rows = []
    names = [plain(name, 60) for name in game.side_names]
    before = (game.original.parts(0), game.original.parts(1))
    after = (game.rescored.parts(0), game.rescored.parts(1))
    for part in PARTS:
        row: dict[str, object] = {"part": PART_LABELS[part].capitalize()}
        for side in (0, 1):
            row[f"{names[side]} as played"] = before[side][part]
            row[f"{names[side]} rescored"] = after[side][part]
        rows.append(row)
    return rows


def render() -> None:
    """Draw the page."""
    st.title("What-if")
    st.caption(
        "The same bids and tricks, scored under other scoring options: the game may end "
        "earlier, end with another winner, or not end within the hands played."
    )
    context = current()
    picked = pick_game(context)
    if picked is None:
        return
    rules = picked.replay.rules
    chosen = options(rules, picked.ref.key)
    changes = changes_of(rules, chosen)
    st.markdown(f"Changes: **{md(changes_text(changes), 500)}**")
    try:
        game = rescore(picked.replay, **changes)
    except RescoreError as error:
        st.error(md(str(error), 500))
        return
    if not game.original.hands:
        st.info("No hand of this game is complete yet: there is nothing to score.")
        return
    _game(game)
    _corpus(context, changes)


def _game(game: Rescore) -> None:
    left, right = st.columns(2)
    left.markdown(f"**As played:** {md(outcome_text(game, game.original), 400)}")
    verdict = " · **the winner changes**" if game.winner_changed else ""
    right.markdown(f"**Rescored:** {md(outcome_text(game, game.rescored), 400)}{verdict}")
    st.plotly_chart(figures.whatif_scores(game), key="chart_whatif")
    st.caption(
        "The running score of each side as played (solid) and rescored (dashed), from the "
        "same bids and tricks; a star marks where each version of the game ends."
    )
    st.subheader("Points by part")
    headers.table(pl.DataFrame(parts_rows(game)), "whatif_parts")


def _corpus(context: Context, changes: dict[str, RuleValue]) -> None:
    st.subheader("Every game shown, with the same changes")
    games = context.view.games
    if not changes:
        st.info("Change a scoring option above to see how every game shown would have gone.")
        return
    if context.store is not None:
        stored = _from_store(context, changes)
        if stored is None:
            return
        whatif, changed_count = stored
    else:
        with st.spinner(f"Rescoring {games.height} game(s)…"):
            whatif = data.rescore_games(context.loaded, context.view, context.uploads, changes)
        changed_count = whatif.summary.winner_changed
    for where, why in whatif.refused:
        st.warning(f"{md(where, 200)} is left out: {md(why, 300)}")
    if whatif.unread:
        places = ", ".join(md(place, 200) for place in whatif.unread[:10])
        st.warning(
            f"{len(whatif.unread)} game(s) could not be read again and are left out: {places}"
        )
    summary = whatif.summary
    columns = st.columns(4)
    columns[0].metric("Games", summary.games, help=f"of {games.height} shown")
    columns[1].metric("Winner changes", summary.winner_changed)
    columns[2].metric("End earlier", summary.ends_earlier)
    columns[3].metric("No longer end", summary.no_longer_ends)
    spreads = [summary.spread(side) for side in (0, 1)]
    st.markdown(
        "  \n".join(
            f"Side {side} score change: mean **{spread.mean:+.1f}**, spread (std) "
            f"**{spread.std:.1f}**, from {spread.low:+d} to {spread.high:+d}"
            for side, spread in enumerate(spreads)
        )
    )
    changed = [
        {
            "game_id": plain(figured.game_id or context.loaded.ref(number).where, 80),
            "as_played": outcome_text(figured, figured.original),
            "rescored": outcome_text(figured, figured.rescored),
        }
        for number, figured in whatif.games
        if figured.winner_changed
    ]
    st.markdown("**Games whose winner changes**")
    if changed_count > len(changed):
        st.caption(f"The first {len(changed)} of {changed_count}.")
    if changed:
        headers.table(pl.DataFrame(changed), "whatif_changed")
    else:
        st.caption("None: every game has the same winner.")
    players = pl.DataFrame(
        [row.to_dict() for row in summary.player_rows()],
        schema={
            "player_key": pl.String,
            "player": pl.String,
            "games": pl.Int64,
            "wins_before": pl.Int64,
            "win_rate_before": pl.Float64,
            "wins_after": pl.Int64,
            "win_rate_after": pl.Float64,
        },
    )
    if context.filters.players:
        players = players.filter(pl.col("player_key").is_in(context.filters.players))
    if players.height == 0:
        return
    st.plotly_chart(figures.whatif_win_rates(players), key="chart_whatif_wins")
    st.caption(
        "Each player's share of her games won as played and rescored, beside wins / games: "
        "who gains and who loses from the changes."
    )
    headers.table(players, "whatif_players")


LISTED = 500
"""How many of the games whose winner changes the page lists, on a store."""
POLL_S = 1.0
"""How often the page asks whether the preparation it waits for is done (a run of its
fragment alone)."""


@dataclass(frozen=True)
class Ready:
    """What scoring reads of some games of a store, whatever the options: their games table
    (the hand tables left empty: scoring reads them through ``prepared``) and
    :func:`~spades_replay.store.rescore.prepare` of their tables."""

    tables: Tables
    prepared: Prepared


def _ready(tables: Tables) -> Ready:
    """What scoring reads of ``tables``, the hand tables let go once prepared."""
    prepared = prepare(tables)
    empty = Tables(tables.seat_hands.clear(), tables.side_hands.clear(), tables.games)
    return Ready(empty, prepared)


@st.cache_resource(show_spinner=False, max_entries=2)
def _whole_store(directory: str, key: str) -> Future[Ready]:
    """Every game of a store prepared, started in the background when the store is opened
    (:func:`prefetch`) and kept for every session."""
    return store.in_background(
        lambda: _ready(store.read_tables(directory, Filters())), "what-if preparation"
    )


@st.cache_resource(show_spinner=False, max_entries=4)
def _filtered(key: str, _tables: Tables) -> Future[Ready]:
    """The games shown (named by ``key``: the store, the filters and the uploads) prepared
    in the background, kept for every session."""
    return store.in_background(lambda: _ready(_tables), "what-if preparation")


def prefetch(context: Context) -> None:
    """Start preparing every game of the store shown in the background, once per store
    version, while the first page is drawn and read: the first What-if answer then does not
    wait for it. Nothing to do when no store is shown."""
    if context.store is not None and store.fits(context.store.games.height):
        _whole_store(context.store.directory, context.store.key)


def _preparation(context: Context) -> Future[Ready]:
    """The preparation of the store's games shown: of the whole store (started when it was
    opened) when no filter or upload narrows or adds to them."""
    assert context.store is not None
    if not context.filters.active and not context.uploads:
        store.check_fits(context.view.games.height)
        return _whole_store(context.store.directory, context.store.key)
    key = f"{context.store.key}|{context.filters}|{sorted(context.uploads)}"
    return _filtered(key, shown_tables(context))


def _waiting(preparation: Future[Ready], games: int) -> None:
    """Say that the games are being prepared, and ask again every :data:`POLL_S` seconds (a
    run of this part of the page alone) until they are; then draw the page again."""

    @st.fragment(run_every=POLL_S)
    def poll() -> None:
        if preparation.done():
            st.rerun()
        st.info(
            f"Preparing the {games} game(s) shown for What-if in the background (once per "
            "store and filters): the figures of every game appear here when it is done. The "
            "game above is already rescored."
        )

    poll()


def _from_store(context: Context, changes: dict[str, RuleValue]) -> tuple[data.WhatIf, int] | None:
    """The games of the store shown rescored from its tables (no game is replayed): the
    figures, with the first :data:`LISTED` games whose winner changes, and how many change;
    ``None`` (said on the page) while the games are prepared in the background, when a
    game's rules refuse the changes, or when their tables would not fit in memory."""
    try:
        preparation = _preparation(context)
    except store.TooLargeError as error:
        st.warning(str(error))
        return None
    if not preparation.done():
        _waiting(preparation, context.view.games.height)
        return None
    ready = preparation.result()
    try:
        result = rescore_tables(ready.tables, changes, prepared=ready.prepared)
    except RescoreError as error:
        st.error(md(str(error), 500))
        return None
    changed = result.games.filter(pl.col("winner_changed")).get_column("game")
    listed = changed.head(LISTED).to_list()
    games = tuple(zip(listed, result.each(listed), strict=True))
    return data.WhatIf(games, result.summary, (), ()), changed.len()
