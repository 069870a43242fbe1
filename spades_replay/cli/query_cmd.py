"""``spades-replay query --store DIR "SQL"``: read-only SQL over a store, with DuckDB."""

from __future__ import annotations

import argparse
import csv
import io
import os
import tempfile
from typing import Any

import orjson
from rich.console import Console
from rich.table import Table

from spades_replay.cli.common import (
    EXIT_OK,
    UsageError,
    output_format,
    refuse_own_inputs,
    stdout_console,
    write_output,
)
from spades_replay.text import safe

FORMATS = ("table", "csv", "json", "parquet")


def register(commands: Any) -> None:
    """Add the command to the parser."""
    parser = commands.add_parser(
        "query",
        description=(
            "Run one read-only SQL statement (SELECT, WITH ... SELECT, EXPLAIN) over the "
            "tables of a store made by `ingest`: games, side_hands, seat_hands, "
            "seat_analysis (when analysed), records, problems and sources. docs/store.md "
            "gives their columns and worked questions."
        ),
        epilog="Exit codes: 0 ok, 2 usage error (bad SQL, no such store, a store of another "
        "version, a file that cannot be written).",
    )
    parser.add_argument("sql", metavar="SQL", help="one SQL query")
    parser.add_argument("--store", required=True, metavar="DIR", help="the store to query")
    parser.add_argument(
        "--format",
        choices=FORMATS,
        help="table for people (default); csv, json (an array of rows) or parquet for tools. "
        "With -o and no --format, the file's extension says which (.csv, .json, .parquet, "
        ".txt for the table)",
    )
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout"
    )
    parser.set_defaults(run=run)


def _cell(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, list | dict):
        from spades_replay.store.sql import plain

        return orjson.dumps(plain(value)).decode()
    return str(value)


def _csv_cell(value: Any) -> str:
    return "" if value is None else _cell(value)


def render_table(columns: list[str], rows: list[tuple[Any, ...]]) -> Table:
    """The rows as a terminal table (text through :func:`~spades_replay.text.safe`); a
    column of numbers is right-aligned, as in every table of the command line."""
    table = Table(title_justify="left")
    for index, column in enumerate(columns):
        values = [row[index] for row in rows if row[index] is not None]
        numbers = bool(values) and all(
            isinstance(value, int | float) and not isinstance(value, bool) for value in values
        )
        table.add_column(safe(column, 80), justify="right" if numbers else "left")
    for row in rows:
        table.add_row(*(safe(_cell(value), 200) for value in row))
    return table


def encode(columns: list[str], rows: list[tuple[Any, ...]], kind: str) -> bytes:
    """The rows as csv or json bytes."""
    from spades_replay.store.sql import plain

    if kind == "csv":
        text = io.StringIO()
        writer = csv.writer(text, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow([_csv_cell(value) for value in row])
        return text.getvalue().encode()
    data = [dict(zip(columns, (plain(value) for value in row), strict=True)) for row in rows]
    return orjson.dumps(data) + b"\n"


def _parquet(store: Any, sql: str, output: str) -> None:
    from spades_replay.store.sql import write_parquet

    with tempfile.TemporaryDirectory() as scratch:
        temporary = os.path.join(scratch, "result.parquet")
        write_parquet(store, sql, temporary)
        with open(temporary, "rb") as stream:
            data = stream.read()
    write_output(output, data)


def run(arguments: argparse.Namespace) -> int:
    """Run the query and write its rows."""
    arguments.format = output_format(arguments.format, arguments.output, FORMATS)
    if arguments.format == "parquet" and not arguments.output:
        raise UsageError("--format parquet needs -o FILE")
    refuse_own_inputs([], arguments.output, [arguments.store])
    from spades_replay.store.layout import StoreError
    from spades_replay.store.read import Store
    from spades_replay.store.sql import run as run_sql

    try:
        store = Store.open(arguments.store)
        if arguments.format == "parquet":
            _parquet(store, arguments.sql, arguments.output)
            return EXIT_OK
        result = run_sql(store, arguments.sql)
    except StoreError as error:
        raise UsageError(str(error)) from None
    except OSError as error:
        raise UsageError(f"cannot write {arguments.output}: {error.strerror}") from None
    if arguments.format == "table":
        table = render_table(result.columns, result.rows)
        if arguments.output:
            capture = Console(file=io.StringIO(), width=200, highlight=False, color_system=None)
            capture.print(table)
            data = capture.file.getvalue().encode()  # type: ignore[attr-defined]
        else:
            stdout_console().print(table)
            return EXIT_OK
    else:
        data = encode(result.columns, result.rows, arguments.format)
    write_output(arguments.output, data, text=True)
    return EXIT_OK
