"""The sidebar every page shares: where the data comes from (the paths given, uploads, or a
store), what was left out, and the filters. It builds the :class:`~.widgets.Context` of the
run."""

from __future__ import annotations

from collections.abc import Sequence
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
from .selection import Filters, apply, game_numbers, offered
from .widgets import CONTEXT, Context, admit, opened_uploads

UPLOAD_TYPES = ["json", "jsonl", "ndjson", "gz"]
"""What the upload widgets take: records, corpora, and either gzip-compressed."""


def _known(key: str, options: list[str]) -> list[str]:
    """Drop from a multiselect's value whatever is no longer an option; what was dropped."""
    if key not in st.session_state:
        return []
    value = st.session_state[key]
    st.session_state[key] = [item for item in value if item in options]
    return [item for item in value if item not in options]


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


def _filters(sidebar: DeltaGenerator, games: pl.DataFrame, players: pl.DataFrame) -> Filters:
    """The filter widgets, each offering only what the filters above it leave (a variant's
    rule sets, the players of those games); what they select. A choice the filters above
    now exclude is let go, and the sidebar says so."""
    sidebar.header("Filters")
    every = offered(games, players, Filters())
    _known("f_variant", every.variants)
    variants = tuple(
        sidebar.multiselect("Variant", every.variants, key="f_variant", placeholder="all")
    )
    step = offered(games, players, Filters(variants))
    dropped = [rules_caption(label) for label in _known("f_rules", step.rules)]
    rules = tuple(
        sidebar.multiselect(
            "Rules",
            step.rules,
            key="f_rules",
            placeholder="all",
            format_func=rules_caption,
            help="Only the rule sets of the variants chosen.",
        )
    )
    step = offered(games, players, Filters(variants, rules))
    dropped += [every.players.get(key, key) for key in _known("f_player", list(step.players))]
    chosen = sidebar.multiselect(
        "Player",
        list(step.players),
        key="f_player",
        format_func=step.players.__getitem__,
        placeholder="all",
        help="Only the players of the games the variant and rules leave.",
    )
    if dropped:
        sidebar.caption(md(f"Let go, as the filters above exclude them: {', '.join(dropped)}", 500))
    return Filters(variants, rules, tuple(chosen))


def _in_order(games: pl.DataFrame) -> pl.DataFrame:
    """The variants and rule sets of ``games`` (a row per game, or already one per variant
    and rule set), one row each, the variants in the engine's order: all the filters need to
    know of the games."""
    order = pl.Enum([variant.value for variant in Variant])
    kinds = games.select("variant", "rules").unique(maintain_order=True)
    return kinds.sort(pl.col("variant").cast(order), maintain_order=True)


def _uploads(sidebar: DeltaGenerator) -> dict[str, Upload]:
    """The upload widget; the uploads (with those opened from the Validate page)."""
    files = sidebar.file_uploader(
        "Add records",
        type=UPLOAD_TYPES,
        accept_multiple_files=True,
        key="sidebar_upload",
        max_upload_size=UPLOAD_BYTES >> 20,
        help=f"Records, .jsonl corpora or either gzipped, up to {UPLOAD_BYTES >> 20} MiB each; "
        "read in memory only.",
    )
    uploads = {upload.digest: upload for upload in admit(files, "sidebar_upload", sidebar)}
    uploads.update(opened_uploads())
    return uploads


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


def render_store(directory: str) -> Context:
    """Draw the sidebar of a store: nothing is replayed; the filters are asked of it.
    Uploads are read as usual and numbered after the store's games."""
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
    uploads = _uploads(sidebar)
    extra = load(Scan((), ()), list(uploads.values()))
    count = view.games.height
    games = pl.concat([view.games.select(list(GAME_SCHEMA)), _after(extra.tables.games, count)])
    hands = view.complete_hands + extra.tables.side_hands.height // 2
    sidebar.markdown(f"**{games.height}** valid game(s), **{hands}** complete hand(s)")
    others = not_records(store.invalid_reports(directory, key)) if view.invalid else ()
    _left_out(sidebar, view.invalid + len(extra.invalid), (*others, *not_records(extra.invalid)))
    for message in view.unread:
        sidebar.error(md(message, 500))
    for problem in extra.problems:
        sidebar.error(f"{md(problem.message, 500)} `{problem.code}`")
    seats = pl.concat(
        [view.players.select("player_key", "player"), extra.seats.select("player_key", "player")]
    )
    players = pl.concat([view.players, seat_players(extra.seats, extra.tables.games)]).select(
        PLAYER_COLUMNS
    )
    kinds = pl.concat([view.kinds, extra.tables.games.select("variant", "rules")])
    filters = _filters(sidebar, _in_order(kinds), players)
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
    return context


def render(paths: tuple[str, ...]) -> Context:
    """Draw the sidebar, load what it names, and keep the context for the page."""
    sidebar = st.sidebar
    sidebar.header("Data")
    if paths:
        sidebar.caption("Records under")
        sidebar.text("\n".join(plain(path, len(path)) for path in paths), wrap=True)
    else:
        sidebar.caption("No path given: upload records below.")
    uploads = _uploads(sidebar)
    loaded = load(scan(paths), list(uploads.values()))

    games = loaded.tables.games
    hands = loaded.tables.side_hands.height // 2
    sidebar.markdown(f"**{len(loaded.refs)}** valid game(s), **{hands}** complete hand(s)")
    _left_out(sidebar, len(loaded.invalid), not_records(loaded.invalid))
    for problem in loaded.problems:
        sidebar.error(f"{md(problem.message, 500)} `{problem.code}`")

    filters = _filters(sidebar, _in_order(games), seat_players(loaded.seats, games))
    context = Context(paths, loaded, filters, apply(loaded.tables, loaded.seats, filters), uploads)
    st.session_state[CONTEXT] = context
    return context
