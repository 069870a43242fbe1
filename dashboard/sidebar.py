"""The sidebar every page shares: where the data comes from (the paths given, uploads, or a
store), what was left out, and the filters. It builds the :class:`~.widgets.Context` of the
run.

Its widgets are drawn after the page (:class:`Sidebar`): the context is built from their
values in the session (those of the run before, or the defaults), so that the page's own
elements, the Replay page's board first of all, reach the browser before the upload widget
and the filters' select boxes, whose scripts the browser loads and runs as they first show.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from spades_replay.engine.seats import Variant
from spades_replay.replayer.validate import RecordReport
from spades_replay.stats.tables import GAME_SCHEMA, Tables, rules_caption
from spades_replay.store.layout import StoreError

from . import store, validate
from .data import UPLOAD_BYTES, GameRef, Loaded, Scan, Upload, load, not_records, scan
from .markup import md, plain
from .selection import Filters, Offered, apply, game_numbers, offered
from .widgets import (
    CONTEXT,
    SIDEBAR_UPLOAD,
    UPLOAD_TYPES,
    Context,
    admit,
    opened_uploads,
)


@dataclass(frozen=True, slots=True)
class Sidebar:
    """What the sidebar set up for the run: the page's context, and the drawing of the
    sidebar's widgets and of what it says about the data, which the entry script calls once
    the page is drawn (the context was built from the widgets' values in the session)."""

    context: Context
    draw: Callable[[], None]


def _known(key: str, options: list[str]) -> list[str]:
    """Drop from a multiselect's value whatever is no longer an option; what was dropped."""
    if key not in st.session_state:
        return []
    value = st.session_state[key]
    st.session_state[key] = [item for item in value if item in options]
    return [item for item in value if item not in options]


def _chosen(key: str) -> tuple[str, ...]:
    """The session's value of the multiselect ``key`` (none chosen before it is drawn)."""
    return tuple(st.session_state.get(key, ()))


PLAYER_COLUMNS = ("player_key", "player", "variant", "rules")
"""What the player filter is offered from: a row per player and rule set she played."""


def seat_players(seats: pl.DataFrame, games: pl.DataFrame) -> pl.DataFrame:
    """The :data:`PLAYER_COLUMNS` of every seat (``game``, ``player_key``, ``player``) of
    ``games`` (``game``, ``variant``, ``rules``)."""
    return (
        seats.join(games.select("game", "variant", "rules"), on="game")
        .select(PLAYER_COLUMNS)
        .unique(maintain_order=True)
    )


@dataclass(frozen=True, slots=True)
class _Choices:
    """What the filter widgets offer, each only what the filters above it leave (a
    variant's rule sets, the players of those games), what they hold, and the choices let
    go as the filters above now exclude them."""

    offered: Offered
    filters: Filters
    dropped: list[str]


def _choices(games: pl.DataFrame, players: pl.DataFrame) -> _Choices:
    """The filters' options and the session's choices among them (:class:`_Choices`)."""
    every = offered(games, players, Filters())
    _known("f_variant", every.variants)
    variants = _chosen("f_variant")
    step = offered(games, players, Filters(variants))
    dropped = [rules_caption(label) for label in _known("f_rules", step.rules)]
    rules = _chosen("f_rules")
    narrowest = offered(games, players, Filters(variants, rules))
    dropped += [every.players.get(key, key) for key in _known("f_player", list(narrowest.players))]
    return _Choices(
        Offered(every.variants, step.rules, narrowest.players),
        Filters(variants, rules, _chosen("f_player")),
        dropped,
    )


def _draw_filters(sidebar: DeltaGenerator, choices: _Choices) -> None:
    """The filter widgets, holding :func:`_choices`'s values; a choice let go is said."""
    sidebar.header("Filters")
    sidebar.multiselect("Variant", choices.offered.variants, key="f_variant", placeholder="all")
    sidebar.multiselect(
        "Rules",
        choices.offered.rules,
        key="f_rules",
        placeholder="all",
        format_func=rules_caption,
        help="Only the rule sets of the variants chosen.",
    )
    sidebar.multiselect(
        "Player",
        list(choices.offered.players),
        key="f_player",
        format_func=choices.offered.players.__getitem__,
        placeholder="all",
        help="Only the players of the games the variant and rules leave.",
    )
    if choices.dropped:
        dropped = ", ".join(choices.dropped)
        sidebar.caption(md(f"Let go, as the filters above exclude them: {dropped}", 500))


def _in_order(games: pl.DataFrame) -> pl.DataFrame:
    """The variants and rule sets of ``games`` (a row per game, or already one per variant
    and rule set), one row each, the variants in the engine's order: all the filters need to
    know of the games."""
    order = pl.Enum([variant.value for variant in Variant])
    kinds = games.select("variant", "rules").unique(maintain_order=True)
    return kinds.sort(pl.col("variant").cast(order), maintain_order=True)


def _uploads(notes: list[str]) -> dict[str, Upload]:
    """The upload widget's files in the session, with those opened from the Validate page;
    what is left unread is said in ``notes``."""
    files = st.session_state.get(SIDEBAR_UPLOAD)
    uploads = {upload.digest: upload for upload in admit(files, SIDEBAR_UPLOAD, notes.append)}
    uploads.update(opened_uploads())
    return uploads


def _draw_uploader(sidebar: DeltaGenerator, notes: list[str]) -> None:
    """The upload widget, and what it left unread (``notes``)."""
    sidebar.file_uploader(
        "Add records",
        type=UPLOAD_TYPES,
        accept_multiple_files=True,
        key=SIDEBAR_UPLOAD,
        max_upload_size=UPLOAD_BYTES >> 20,
        help=f"Records, .jsonl corpora or either gzipped, up to {UPLOAD_BYTES >> 20} MiB each; "
        "read in memory only.",
    )
    for note in notes:
        sidebar.warning(note)


def _after(frame: pl.DataFrame, count: int) -> pl.DataFrame:
    return frame.with_columns(pl.col("game") + count) if count else frame


def _left_out(sidebar: DeltaGenerator, invalid: int, others: Sequence[RecordReport]) -> None:
    """Say how many invalid records were left out, and apart which files are no record at
    all (``others``, among the ``invalid`` reports)."""
    if invalid > len(others):
        sidebar.warning(f"{invalid - len(others)} invalid record(s) left out")
        sidebar.page_link(validate.page(), label="See them on the Validate page")
    if others:
        names = ", ".join(Path(report.source or "").name for report in others[:3])
        more = f" and {len(others) - 3} more" if len(others) > 3 else ""
        sidebar.caption(md(f"Not records, skipped: {names}{more}", 300))


def render_store(directory: str) -> Sidebar:
    """The sidebar of a store: nothing is replayed; the filters are asked of it. Uploads
    are read as usual and numbered after the store's games."""
    sidebar = st.sidebar
    sidebar.header("Data")
    sidebar.caption("The store")
    # the whole path, never cut; as plain text, since a code block would have the browser
    # load its syntax highlighter first (seconds of the first page on a busy machine)
    sidebar.text(plain(directory, len(directory)), wrap=True)
    try:
        key = store.manifest_key(directory)
        view = store.open_view(directory, key)
    except (StoreError, OSError) as error:
        message = error.strerror if isinstance(error, OSError) else str(error)
        sidebar.error(md(f"cannot open the store {directory}: {message}", 1000))
        st.stop()
        raise
    notes: list[str] = []
    uploads = _uploads(notes)
    extra = load(Scan((), ()), list(uploads.values()))
    count = view.games.height
    games = pl.concat([view.games.select(list(GAME_SCHEMA)), _after(extra.tables.games, count)])
    seats = pl.concat(
        [view.players.select("player_key", "player"), extra.seats.select("player_key", "player")]
    )
    players = pl.concat([view.players, seat_players(extra.seats, extra.tables.games)]).select(
        PLAYER_COLUMNS
    )
    kinds = pl.concat([view.kinds, extra.tables.games.select("variant", "rules")])
    choices = _choices(_in_order(kinds), players)
    filters = choices.filters
    kept = games
    if filters.active:
        numbers = store.game_numbers(directory, key, filters)
        uploaded = game_numbers(extra.tables, extra.seats, filters) + count
        kept = games.filter(pl.col("game").is_in([*numbers, *uploaded.to_list()]))
    tables = Tables(
        _after(extra.tables.seat_hands, count), _after(extra.tables.side_hands, count), games
    )

    def where(game: int) -> GameRef:
        return view.ref(game) if game < count else extra.refs[game - count]

    loaded = Loaded(
        tables,
        seats,
        (),
        extra.invalid,
        extra.problems,
        view.records + extra.records,
        where,
    )
    shown = Tables(tables.seat_hands, tables.side_hands, kept)
    context = Context((), loaded, filters, shown, uploads, view)
    st.session_state[CONTEXT] = context

    def draw() -> None:
        _draw_uploader(sidebar, notes)
        hands = view.complete_hands + extra.tables.side_hands.height // 2
        sidebar.markdown(f"**{games.height}** valid game(s), **{hands}** complete hand(s)")
        others = not_records(store.invalid_reports(directory, key)) if view.invalid else ()
        invalid = view.invalid + len(extra.invalid)
        _left_out(sidebar, invalid, (*others, *not_records(extra.invalid)))
        for message in view.unread:
            sidebar.error(md(message, 500))
        for problem in extra.problems:
            sidebar.error(f"{md(problem.message, 500)} `{problem.code}`")
        _draw_filters(sidebar, choices)

    return Sidebar(context, draw)


def render(paths: tuple[str, ...]) -> Sidebar:
    """The sidebar of the records under ``paths`` (and the uploads): load them, and keep
    the context for the page."""
    sidebar = st.sidebar
    sidebar.header("Data")
    if paths:
        sidebar.caption("Records under")
        sidebar.text("\n".join(plain(path, len(path)) for path in paths), wrap=True)
    else:
        sidebar.caption("No path given: upload records below.")
    notes: list[str] = []
    uploads = _uploads(notes)
    loaded = load(scan(paths), list(uploads.values()))
    games = loaded.tables.games
    choices = _choices(_in_order(games), seat_players(loaded.seats, games))
    filters = choices.filters
    context = Context(paths, loaded, filters, apply(loaded.tables, loaded.seats, filters), uploads)
    st.session_state[CONTEXT] = context

    def draw() -> None:
        _draw_uploader(sidebar, notes)
        hands = loaded.tables.side_hands.height // 2
        sidebar.markdown(f"**{len(loaded.refs)}** valid game(s), **{hands}** complete hand(s)")
        _left_out(sidebar, len(loaded.invalid), not_records(loaded.invalid))
        for problem in loaded.problems:
            sidebar.error(f"{md(problem.message, 500)} `{problem.code}`")
        _draw_filters(sidebar, choices)

    return Sidebar(context, draw)
