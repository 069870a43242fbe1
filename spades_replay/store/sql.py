"""SQL over a store with DuckDB (embedded; it reads the Parquet part files in place).

:func:`connect` opens an in-memory DuckDB database with one view per table of the store
(``games``, ``side_hands``, ``seat_hands``, ``seat_analysis`` when analysed, ``records``,
``problems``) and a ``sources`` table (the manifest's files). The views number games across
the whole store as ``stats`` does. :func:`run` runs one read-only statement (a query, or
``EXPLAIN`` of one) and refuses anything else.

>>> import tempfile
>>> from spades_replay.store.ingest import ingest
>>> from spades_replay.store.read import Store
>>> directory = tempfile.mkdtemp()
>>> _ = ingest(["fixtures/corpus/two-player.jsonl"], directory)
>>> result = run(Store.open(directory), "SELECT count(*) AS games FROM games")
>>> result.columns, result.rows
(['games'], [(25,)])
"""

from __future__ import annotations

import datetime
import decimal
import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from spades_replay.engine.scoring import SCORE_COLUMNS
from spades_replay.store.layout import PARTS, StoreError, damaged
from spades_replay.store.read import Store
from spades_replay.text import safe

if TYPE_CHECKING:
    from collections.abc import Iterable

    import duckdb

VIEWS = ("games", "side_hands", "seat_hands", "seat_analysis", "records", "problems")
"""The tables a query sees as views (``seat_analysis`` only in an analysed store)."""

SOURCES_COLUMNS = (
    ("source", "VARCHAR"),
    ("resolved", "VARCHAR"),
    ("size", "BIGINT"),
    ("mtime_ns", "BIGINT"),
    ("sha256", "VARCHAR"),
    ("records", "BIGINT"),
    ("games", "BIGINT"),
    ("invalid", "BIGINT"),
    ("first_game", "BIGINT"),
    ("io_error", "VARCHAR"),
)
"""The columns of the ``sources`` table: one row per file of the store, in game order."""


SQL_TYPES = {"int": "BIGINT", "bool": "BOOLEAN"}
"""The SQL type of each kind of score part."""

COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {
    "games": (
        ("game_id", "VARCHAR"),
        ("game", "BIGINT"),
        ("variant", "VARCHAR"),
        ("rules", "VARCHAR"),
        ("players", "VARCHAR"),
        ("player_keys", "VARCHAR"),
        ("side_0", "VARCHAR"),
        ("side_1", "VARCHAR"),
        ("complete", "BOOLEAN"),
        ("winner", "BIGINT"),
        ("winner_players", "VARCHAR"),
        ("reason", "VARCHAR"),
        ("score_0", "BIGINT"),
        ("score_1", "BIGINT"),
        ("hands", "BIGINT"),
        ("source", "VARCHAR"),
        ("line", "BIGINT"),
    ),
    "side_hands": (
        ("game_id", "VARCHAR"),
        ("game", "BIGINT"),
        ("hand", "BIGINT"),
        ("variant", "VARCHAR"),
        ("rules", "VARCHAR"),
        ("side", "BIGINT"),
        ("players", "VARCHAR"),
        *((part.column, SQL_TYPES[part.kind]) for part in SCORE_COLUMNS if part.field != "side"),
    ),
    "seat_hands": (
        ("game_id", "VARCHAR"),
        ("game", "BIGINT"),
        ("hand", "BIGINT"),
        ("variant", "VARCHAR"),
        ("rules", "VARCHAR"),
        ("seat", "BIGINT"),
        ("player", "VARCHAR"),
        ("player_key", "VARCHAR"),
        ("side", "BIGINT"),
        ("bid_kind", "VARCHAR"),
        ("bid", "BIGINT"),
        ("tricks", "BIGINT"),
        ("contract_made", "BOOLEAN"),
        ("accuracy", "VARCHAR"),
        ("nil_made", "BOOLEAN"),
        ("nil_points", "BIGINT"),
        ("side_points", "BIGINT"),
        ("side_bags", "BIGINT"),
        ("side_bag_penalties", "BIGINT"),
        ("side_won_game", "BOOLEAN"),
    ),
    "seat_analysis": (
        ("game_id", "VARCHAR"),
        ("game", "BIGINT"),
        ("hand", "BIGINT"),
        ("variant", "VARCHAR"),
        ("rules", "VARCHAR"),
        ("seat", "BIGINT"),
        ("player", "VARCHAR"),
        ("player_key", "VARCHAR"),
        ("side", "BIGINT"),
        ("bid_kind", "VARCHAR"),
        ("plays", "BIGINT"),
        ("analysed_plays", "BIGINT"),
        ("costly_plays", "BIGINT"),
        ("tricks_lost", "BIGINT"),
        ("capped", "BOOLEAN"),
        ("side_par", "BIGINT"),
        ("side_tricks", "BIGINT"),
        ("nil_makeable", "BOOLEAN"),
    ),
    "records": (
        ("source", "VARCHAR"),
        ("line", "BIGINT"),
        ("offset", "BIGINT"),
        ("game", "BIGINT"),
        ("game_id", "VARCHAR"),
        ("variant", "VARCHAR"),
        ("valid", "BOOLEAN"),
        ("hands", "BIGINT"),
        ("complete", "BOOLEAN"),
        ("problems", "BIGINT"),
    ),
    "problems": (
        ("source", "VARCHAR"),
        ("line", "BIGINT"),
        ("offset", "BIGINT"),
        ("game_id", "VARCHAR"),
        ("variant", "VARCHAR"),
        ("problem", "BIGINT"),
        ("code", "VARCHAR"),
        ("family", "VARCHAR"),
        ("message", "VARCHAR"),
        ("pointer", "VARCHAR"),
        ("place", "VARCHAR"),
        ("rule", "VARCHAR"),
        ("legal", "VARCHAR[]"),
        ("hand", "BIGINT"),
        ("trick", "BIGINT"),
        ("card", "BIGINT"),
        ("seat", "BIGINT"),
        ("player", "VARCHAR"),
    ),
}
"""The columns of every view with their SQL types (those of
:func:`spades_replay.store.read.schemas`; a test keeps the two in step), so that a query
needs no polars."""


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _numbers_games(table: str) -> bool:
    """Whether ``table`` has a ``game`` column (its rows belong to games)."""
    return any(name == "game" for name, _ in COLUMNS[table])


def _view(table: str, parts: list[tuple[str, int]]) -> str:
    """The SQL of one table's view over its part files (``parts``: each resolved, with the
    number of the store's games before its file), games numbered across the store: each
    row's part is its ``file_index`` in the list, which picks its base from a list of the
    same order (a query that does not ask for ``game`` reads no more than the parts' own
    columns; a join on the file's name cost a fifth of a query over every seat row)."""
    columns = COLUMNS[table]
    if not parts:
        nulls = ", ".join(f"CAST(NULL AS {kind}) AS {name}" for name, kind in columns)
        return f"SELECT {nulls} WHERE false"
    files = ", ".join(_literal(path) for path, _ in parts)
    if not _numbers_games(table):
        return f"SELECT * FROM read_parquet([{files}])"
    bases = ", ".join(str(base) for _, base in parts)
    return (
        f"SELECT * REPLACE (game + ([{bases}]::BIGINT[])[file_index::BIGINT + 1] AS game) "
        f"FROM read_parquet([{files}])"
    )


def _resolved(parts: Iterable[tuple[str, int]]) -> list[tuple[str, int]]:
    """The part files ``parts`` (paths as text, each with its base number), their links
    resolved (DuckDB's allowed directories are checked on the path it is given): each folder
    is resolved once, and a part on its own only where it is a link (resolving each path
    took 60 ms at 1,400 parts)."""
    folders: dict[str, str] = {}
    resolved = []
    for path, base in parts:
        parent, file = os.path.split(path)
        folder = folders.get(parent)
        if folder is None:
            folder = folders[parent] = os.path.realpath(parent)
        real = os.path.realpath(path) if os.path.islink(path) else os.path.join(folder, file)
        resolved.append((real, base))
    return resolved


def _parts(store: Store, table: str, game: int | None) -> list[tuple[str, int]]:
    """The part files of ``table`` in game order, as text, each with its base number: all of
    them, or those that hold game number ``game`` (:meth:`Store.game_parts`)."""
    if game is not None:
        return [(str(path), base) for path, base in store.game_parts(table, game)]
    root = str(store.directory)
    return [
        (os.path.join(root, name), base)
        for source, base in store.bases()
        for name in source.parts.get(table, ())
    ]


def _fill(
    connection: duckdb.DuckDBPyConnection,
    table: str,
    columns: tuple[tuple[str, str], ...],
    rows: list[tuple[Any, ...]],
) -> None:
    """Create ``table`` with ``columns`` (name, SQL type) holding ``rows``, in one statement
    (row by row, DuckDB takes about a millisecond a row: seconds for a store of thousands of
    files)."""
    connection.execute(f"CREATE TABLE {table} ({', '.join(f'{n} {k}' for n, k in columns)})")
    if rows:
        lists = ", ".join(f"unnest(?::{kind}[])" for _, kind in columns)
        values = [list(column) for column in zip(*rows, strict=True)]
        connection.execute(f"INSERT INTO {table} SELECT {lists}", values)


def connect(
    store: Store,
    scratch: str | None = None,
    threads: int | None = None,
    game: int | None = None,
) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB database with the store's tables as views, shut in: it reads
    the store's part files and nothing else (no other file, no network; with ``scratch``,
    also that folder, where :func:`write_parquet` writes), never installs or loads an
    extension, and its configuration is locked, so that no statement can change that.
    ``threads``: how many threads DuckDB may use (all cores unless given).

    With ``game``, the views hold game number ``game`` alone: each table that numbers games
    reads only the part file that holds it, and ``problems`` is empty. A page about one
    game asks this, in milliseconds, where a view of a million games' parts takes DuckDB
    most of a second to filter."""
    import duckdb

    allowed = [os.path.join(os.path.realpath(store.directory), PARTS) + os.sep]
    if scratch is not None:
        allowed.append(os.path.realpath(scratch) + os.sep)
    connection = duckdb.connect(
        ":memory:",
        config={"autoinstall_known_extensions": False, "autoload_known_extensions": False},
    )
    if threads is not None:
        connection.execute(f"SET threads TO {int(threads)}")
    connection.execute("SET allowed_directories = ?", [allowed])
    connection.execute("SET enable_external_access = false")
    sources = [
        (
            source.path,
            source.resolved,
            source.size,
            source.mtime_ns,
            source.sha256,
            source.records,
            source.games,
            source.invalid,
            base,
            None if source.io_error is None else str(source.io_error.get("message")),
        )
        for source, base in store.bases()
    ]
    _fill(connection, "sources", SOURCES_COLUMNS, sources)
    for table in VIEWS:
        if table == "seat_analysis" and not store.analysis:
            continue
        if game is None:
            view = _view(table, _resolved(_parts(store, table, None)))
        elif _numbers_games(table):
            one = _view(table, _resolved(_parts(store, table, game)))
            view = f"SELECT * FROM ({one}) WHERE game = {int(game)}"
        else:
            view = _view(table, [])
        connection.execute(f"CREATE VIEW {table} AS {view}")
    connection.execute("SET lock_configuration = true")
    return connection


@dataclass(frozen=True)
class Result:
    """What a query gave: its column names and types (DuckDB's), and its rows."""

    columns: list[str]
    types: list[str]
    rows: list[tuple[Any, ...]]


_SPACE = re.compile(r"(?:\s+|--[^\n]*(?:\n|$)|/\*.*?\*/)*", re.S)
_EXPLAIN = re.compile(r"EXPLAIN\b(?P<rest>.*)", re.S | re.I)
_ANALYZE = re.compile(r"ANALY[SZ]E\b(?P<rest>.*)", re.S | re.I)


def _after_space(text: str) -> str:
    """``text`` from its first token on (white space and comments skipped)."""
    found = _SPACE.match(text)
    return text[found.end() :] if found else text


def _explained(sql: str) -> str | None:
    """The statement an ``EXPLAIN`` or ``EXPLAIN ANALYZE`` statement explains (``EXPLAIN
    ANALYZE`` runs it), or ``None`` when ``sql`` is not one of those two forms."""
    explain = _EXPLAIN.match(_after_space(sql))
    if explain is None:
        return None
    rest = _after_space(explain.group("rest"))
    analyze = _ANALYZE.match(rest)
    return analyze.group("rest") if analyze is not None else rest


def _statement(connection: duckdb.DuckDBPyConnection, sql: str) -> str:
    """The one read-only statement of ``sql``; :class:`StoreError` for anything else. The
    statement an ``EXPLAIN`` explains is judged too: ``EXPLAIN ANALYZE`` runs it."""
    import duckdb

    text = sql
    while True:
        try:
            statements = connection.extract_statements(text)
        except duckdb.Error as error:
            raise StoreError(f"bad SQL: {safe(_first_line(error), 1000)}") from None
        if len(statements) != 1:
            raise StoreError(f"give one SQL statement, not {len(statements)}")
        kind = statements[0].type
        if kind is duckdb.StatementType.SELECT:
            return sql
        inner = _explained(text) if kind is duckdb.StatementType.EXPLAIN else None
        if inner is None:
            shown = "EXPLAIN in another form" if kind is duckdb.StatementType.EXPLAIN else kind.name
            raise StoreError(
                "the store is read-only: only queries (SELECT, WITH, EXPLAIN [ANALYZE] of a "
                f"query) run here, not {shown}"
            )
        text = inner


def _first_line(error: BaseException) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


def run(store: Store, sql: str) -> Result:
    """Run one read-only SQL statement over the store."""
    import duckdb

    connection = connect(store)
    try:
        statement = _statement(connection, sql)
        try:
            relation = connection.sql(statement)
            if relation is None:
                return Result([], [], [])
            return Result(
                list(relation.columns), [str(kind) for kind in relation.types], relation.fetchall()
            )
        except duckdb.Error as error:
            raise failure(store, error) from None
    finally:
        connection.close()


def failure(store: Store, error: BaseException) -> StoreError:
    """The error of a statement that DuckDB could not run: a damaged part (named), a part
    gone meanwhile, a file outside the store, or bad SQL."""
    import duckdb

    text = str(error)
    for table in VIEWS:
        parts = store.part_paths(table)
        resolved = _resolved((str(path), base) for path, base in parts)
        for (path, _), (real, _) in zip(parts, resolved, strict=True):
            if real in text:
                name = path.relative_to(store.directory).as_posix()
                if not path.exists():
                    break
                return damaged(
                    store.directory,
                    f"part {safe(name, 300)} cannot be read ({safe(_first_line(error), 300)})",
                )
    if isinstance(error, duckdb.IOException):
        return StoreError(
            f"cannot read the store {safe(str(store.directory), 500)} (did an ingest change "
            f"it meanwhile? run again): {safe(_first_line(error), 500)}"
        )
    if isinstance(error, duckdb.PermissionException):
        return StoreError(
            "a query reads the store's tables only, no other file and no network: "
            f"{safe(_first_line(error), 500)}"
        )
    return StoreError(f"bad SQL: {safe(_first_line(error), 1000)}{_hint(store, error)}")


def _hint(store: Store, error: BaseException) -> str:
    if "seat_analysis" in str(error) and not store.analysis:
        return " (this store holds no seat_analysis: it was ingested without --analysis)"
    return ""


def write_parquet(store: Store, sql: str, target: str | os.PathLike[str]) -> None:
    """Run one read-only query over the store and write its result to a Parquet file at
    ``target``, a new file in a scratch folder of the caller's (which then moves it into
    place): the one folder outside the store that this connection may write in."""
    import duckdb

    connection = connect(store, scratch=os.path.dirname(os.path.abspath(target)))
    try:
        statement = _statement(connection, sql)
        try:
            relation = connection.sql(statement)
            if relation is None:
                raise StoreError("the statement gives no rows to write")
            relation.write_parquet(str(target))
        except duckdb.Error as error:
            raise failure(store, error) from None
    finally:
        connection.close()


def plain(value: Any) -> Any:
    """A query value as JSON data: decimals as numbers, dates and times as ISO text."""
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, datetime.date | datetime.time | datetime.datetime):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    return value
