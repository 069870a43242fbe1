"""The dashboard on a store (``spades-replay dashboard --store DIR``): nothing is replayed.

The games table (with where each game starts) is read once per version of the manifest
and kept; everything else is asked of the store when a page needs it, the sidebar's filters
pushed down into the query: the hand rows of one game for its charts (DuckDB), Corpus
stats' counts and the tables of the games shown (polars queries of its Parquet parts,
:func:`scans`), the invalid records for Validate. The Replay page re-reads the one record it
shows, by its byte offset. Every cache is keyed on the store's directory and the digest of
its manifest, so an ingest into the store is seen at the next run.
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import duckdb
import polars as pl
import streamlit as st

from spades_replay.replayer.validate import RecordReport
from spades_replay.stats.tables import GAME_SCHEMA, LazyTables, Tables
from spades_replay.store.layout import MANIFEST, open_manifest
from spades_replay.store.read import Store, schemas
from spades_replay.store.sql import connect, failure

from .data import FILE, GameRef
from .selection import Filters, chosen


def manifest_key(directory: str) -> str:
    """The digest of the store's manifest: what every cache of the store is keyed on.
    Raises :class:`~spades_replay.store.layout.StoreError` when there is no store, or a
    damaged one. Every run of a page asks it, so that an ingest into the store is seen at
    the next run; the manifest's checks (its fields, and each part file a regular file in
    the store: a fifth of a second for the 3,500 parts of 100,000 games) are made once per
    digest, a run reading and hashing the manifest only."""
    try:
        data = (Path(directory) / MANIFEST).read_bytes()
    except OSError:
        open_manifest(directory)  # the store's own error, where it has one
        raise
    key = hashlib.sha256(data).hexdigest()
    _checked_manifest(directory, key)
    return key


@st.cache_resource(show_spinner=False, max_entries=8)
def _checked_manifest(directory: str, key: str) -> None:
    """Check the manifest of digest ``key`` (a damaged one raises, and is checked again at
    the next run: only a manifest that passed is kept)."""
    open_manifest(directory)


@dataclass(frozen=True)
class StoreView:
    """An open store: its games (``game`` is the row number, with the columns that find each
        record: ``file``, the absolute path, so that the store can be shown from any directory,
        ``offset``, and ``digest``, ``size``, ``mtime_ns`` to tell a changed file), player names,
        counts, and the files it could not read. ``players`` has a row per player and rule set
    she played (``player_key``, ``player``, ``variant``, ``rules``); ``kinds`` a row per
    variant and rule set of its games (``variant``, ``rules``), in the order they first come:
    what the sidebar's filters offer, without going through every game at each run."""

    directory: str
    key: str
    games: pl.DataFrame
    players: pl.DataFrame
    kinds: pl.DataFrame
    complete_hands: int
    records: int
    invalid: int
    unread: tuple[str, ...] = ()

    def ref(self, game: int) -> GameRef:
        """Where game number ``game`` is, with its byte offset."""
        row = self.games.row(game, named=True)
        stamp = (row["size"], row["mtime_ns"])
        return GameRef(FILE, row["file"], row["line"], row["digest"], row["offset"], stamp)


def _frame(
    connection: Any, sql: str, schema: dict[str, Any], parameters: list[Any] | None = None
) -> pl.DataFrame:
    """The rows of a query as a frame with the given schema (also when there is no row)."""
    frame: pl.DataFrame = connection.sql(sql, params=parameters or None).pl()
    if frame.height == 0:
        return pl.DataFrame(schema=schema)
    return frame.select(list(schema)).cast(pl.Schema(schema))


@st.cache_resource(show_spinner="Opening the store…", max_entries=2)
def open_view(directory: str, key: str) -> StoreView:
    """The games and counts of the store (cached on its directory and manifest digest)."""
    store = Store.open(directory)
    connection = connect(store)
    try:
        return _view(store, connection, directory, key)
    except duckdb.Error as error:
        raise failure(store, error) from None
    finally:
        connection.close()


def _view(store: Store, connection: Any, directory: str, key: str) -> StoreView:
    columns = ", ".join(f"g.{name}" for name in GAME_SCHEMA)
    games = _frame(
        connection,
        f"SELECT {columns}, r.offset, s.sha256 AS digest, s.size, s.mtime_ns, "
        "s.resolved AS file FROM games g "
        "JOIN records r USING (game) JOIN sources s ON s.source = g.source ORDER BY g.game",
        {
            **GAME_SCHEMA,
            "offset": pl.Int64,
            "digest": pl.String,
            "size": pl.Int64,
            "mtime_ns": pl.Int64,
            "file": pl.String,
        },
    )
    # every game with a seat row has one in its first hand (only a game's last hand may be
    # unfinished, and an unfinished hand has no row), and a game's players stay its players:
    # the first hand's rows name every player and game the whole table names, from one hand
    # of each game rather than all of them
    players = _frame(
        connection,
        "SELECT player_key, arg_min(player, game) AS player, variant, rules FROM seat_hands "
        "WHERE hand = 1 GROUP BY player_key, variant, rules ORDER BY player_key, variant, rules",
        {"player_key": pl.String, "player": pl.String, "variant": pl.String, "rules": pl.String},
    )
    (hands,) = connection.execute("SELECT count(*) FROM side_hands").fetchone() or (0,)
    summary = store.summary()
    unread = tuple(f"{problem.message} [{problem.code}]" for problem in summary.io_errors)
    kinds = games.select("variant", "rules").unique(maintain_order=True)
    return StoreView(
        directory,
        key,
        games,
        players,
        kinds,
        int(hands) // 2,
        summary.records,
        summary.invalid,
        unread,
    )


def checked(directory: str) -> Store:
    """The store that :func:`open_view` opened, its parts checked there: its manifest is
    checked again, its parts are not."""
    return Store.open(directory, verified=True)


def scans(store: Store, filters: Filters) -> LazyTables:
    """The store's tables (:meth:`~spades_replay.store.read.Store.scans`) of the games that
    pass the filters (:func:`.selection.chosen`), as lazy frames; a player's games are those
    in which she sat in a complete hand (the store holds no other seats)."""
    every = store.scans()
    if not filters.active:
        return every
    games = chosen(every.games, every.seat_hands, filters)
    numbers = games.select("game")
    return LazyTables(
        every.seat_hands.join(numbers, on="game", how="semi", maintain_order="left"),
        every.side_hands.join(numbers, on="game", how="semi", maintain_order="left"),
        games,
    )


@st.cache_data(show_spinner=False, max_entries=16)
def game_numbers(directory: str, key: str, filters: Filters) -> list[int]:
    """The games that pass the filters, asked of the store."""
    store = checked(directory)
    (numbers,) = store.collect(scans(store, filters).games.select("game"))
    return numbers.get_column("game").to_list()


READ_BYTES_PER_GAME = 28_000
"""The peak memory, per game, of a page that reads the games' tables into memory and works
on them: measured on 100,000 games, reading them peaks at 1.25 GB (the frames keep 0.92 GB),
the Leaderboard at 1.98 GB, What-if's preparation at 2.78 GB, the most of them."""


class TooLargeError(Exception):
    """The tables of the games a page asks for would not fit :func:`memory_budget`."""


def memory_budget() -> int:
    """The memory, in bytes, the tables of a store's games may take when read: half the
    machine's physical memory (where the system does not say how much it has, as on
    Windows, no limit)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
    except (AttributeError, ValueError, OSError):
        return sys.maxsize


def _size(count: int) -> str:
    """``count`` bytes, in GB from one GB up, else in MB."""
    return f"{count / 2**30:.1f} GB" if count >= 2**30 else f"{count / 2**20:.1f} MB"


def fits(games: int) -> bool:
    """Whether the tables of ``games`` games can be read within :func:`memory_budget`."""
    return games * READ_BYTES_PER_GAME <= memory_budget()


def check_fits(games: int) -> None:
    """Raise :class:`TooLargeError`, saying what to do, unless :func:`fits`: a page never reads
    more than the machine holds (a million games take some 25 GB)."""
    if not fits(games):
        need, budget = games * READ_BYTES_PER_GAME, memory_budget()
        raise TooLargeError(
            f"The {games:,} games shown would take about {_size(need)} of memory to read "
            f"for this page, over the dashboard's budget of {_size(budget)} "
            "(half of this machine's memory). Narrow them with the sidebar's filters, or ask "
            "the store with `spades-replay query`."
        )


def read_tables(directory: str, filters: Filters) -> Tables:
    """The stats tables of the games that pass the filters, read into memory."""
    store = checked(directory)
    chosen = scans(store, filters)
    return Tables(*store.collect(chosen.seat_hands, chosen.side_hands, chosen.games))


@st.cache_resource(show_spinner="Reading the store…", max_entries=8)
def tables(directory: str, key: str, filters: Filters) -> Tables:
    """:func:`read_tables`, cached on the store's directory and manifest digest, and shared by
    every session as read: the frames are never changed in place, and a data cache would
    pickle them once and unpickle them at every run (16 s for the 960 MB of 100,000 games)."""
    return read_tables(directory, filters)


T = TypeVar("T")


def in_background(work: Callable[[], T], name: str) -> Future[T]:
    """Run ``work`` in a daemon thread named ``name`` and hand its result, or what it raised,
    to the future returned; the page asks the future and never waits for it. A daemon: a
    server stopped meanwhile (a million games take minutes) stops at once, instead of waiting
    for it as it would for a ``ThreadPoolExecutor``'s thread."""
    future: Future[T] = Future()

    def run() -> None:
        try:
            future.set_result(work())
        except BaseException as error:  # handed to the page that asks for it
            future.set_exception(error)

    threading.Thread(target=run, name=name, daemon=True).start()
    return future


@st.cache_data(show_spinner=False, max_entries=64)
def side_hands(directory: str, key: str, game: int) -> pl.DataFrame:
    """The ``side_hands`` rows of one game, read from the one part file that holds them."""
    connection = connect(checked(directory), game=game)
    try:
        return _frame(
            connection, "SELECT * FROM side_hands ORDER BY hand, side", schemas()["side_hands"]
        )
    finally:
        connection.close()


@st.cache_data(show_spinner="Reading the invalid records…", max_entries=2)
def invalid_reports(directory: str, key: str) -> tuple[RecordReport, ...]:
    """The report of every invalid record of the store, with its problems."""
    return tuple(checked(directory).invalid_reports())


def with_uploads(stored: LazyTables, shown: Tables, count: int) -> LazyTables:
    """The tables of the store's games that pass the filters, then those of the uploads:
    ``shown`` has the hand rows of every upload and the games that pass the filters, the
    uploads' numbered from ``count``, the number of the store's games."""
    games = shown.games.filter(pl.col("game") >= count)
    if games.height == 0:
        return stored
    kept = games.get_column("game").implode()
    return LazyTables(
        pl.concat([stored.seat_hands, shown.seat_hands.lazy().filter(pl.col("game").is_in(kept))]),
        pl.concat([stored.side_hands, shown.side_hands.lazy().filter(pl.col("game").is_in(kept))]),
        pl.concat([stored.games, games.select(list(GAME_SCHEMA)).lazy()]),
    )
