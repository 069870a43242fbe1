"""``spades-replay ratings PATH...|--store DIR``: a skill rating per player, with its
uncertainty (Weng-Lin, by the ``openskill`` package; docs/stats.md, "Ratings").

Every won game is rated, in corpus order (the format holds no start time); unfinished games
are not. Invalid records are reported and left out.
"""

from __future__ import annotations

import argparse
import io
import sys
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from spades_replay.cli.common import (
    UsageError,
    add_jobs_option,
    add_limit_options,
    console_for,
    exit_code,
    limits_of,
    output_format,
    refuse_own_inputs,
    report_counted,
    report_invalid,
    say_problem,
    stdout_console,
    write_output,
)
from spades_replay.cli.progress import Bar
from spades_replay.cli.stats_view import encode
from spades_replay.text import safe

if TYPE_CHECKING:
    import polars as pl

    from spades_replay.replayer.validate import Summary
    from spades_replay.stats.tables import Tables

FORMATS = ("table", "csv", "json", "parquet")
"""What ``--format`` writes."""


def register(commands: Any) -> None:
    """Add the command to the parser."""
    parser = commands.add_parser(
        "ratings",
        help="a skill rating per player, with its uncertainty",
        description=(
            "Rate every player from the games won and lost (Weng-Lin ratings, the openskill "
            "package's Plackett-Luce model: two partners form a side in four-player). Games "
            "are rated in corpus order (the format holds no start time); unfinished games "
            "are not rated. Per player: mu (the skill believed), sigma (its uncertainty) "
            "and the rating mu - 3 sigma that ranks them, with games and wins. Invalid "
            "records are reported and left out."
        ),
        epilog="Exit codes: 0 every record rated or counted, 1 some records invalid (left "
        "out; the rest are still rated), 2 usage or I/O error, 3 no records found.",
    )
    parser.add_argument(
        "paths", nargs="*", metavar="PATH", help="record, corpus, directory, or - for stdin"
    )
    parser.add_argument(
        "--store",
        metavar="DIR",
        help="rate the games of a store made by `ingest` instead of PATHs (the same ratings "
        "as on the files it holds, without replaying them)",
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        help="table for people (the default); csv, json (an array of rows) or parquet for "
        "tools. With -o and no --format, the file's extension says which",
    )
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout"
    )
    add_jobs_option(parser)
    parser.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    add_limit_options(parser)
    parser.set_defaults(run=run)


def _from_paths(
    arguments: argparse.Namespace, out: Console, err: Console
) -> tuple[Tables, Summary]:
    from spades_replay.stats.collect import StatsCollection

    reading = Bar(
        "reading",
        counts="bytes",
        out=out,
        err=err,
        text_on_stdout=False,
        enabled=not arguments.no_progress,
    )
    collection = StatsCollection(
        arguments.paths, jobs=arguments.jobs, progress=reading.update, limits=limits_of(arguments)
    )
    with reading:
        for report in collection:
            report_invalid(err, [report])
    return collection.tables(), collection.summary


def _from_store(arguments: argparse.Namespace, err: Console) -> tuple[Tables, Summary]:
    from spades_replay.store.layout import StoreError
    from spades_replay.store.read import Store

    try:
        store = Store.open(arguments.store)
        report_invalid(err, store.invalid_reports())
        return store.tables(), store.summary()
    except StoreError as error:
        raise UsageError(str(error)) from None
    except OSError as error:
        raise UsageError(f"cannot read the store {arguments.store}: {error}") from None


def render(console: Console, frame: pl.DataFrame) -> None:
    """The ratings as a table for people, with a line on how they were made."""
    from spades_replay.stats.ratings import ORDER

    table = Table(title="Ratings (Weng-Lin, openskill Plackett-Luce)", title_justify="left")
    for heading in ("rank", "player", "games", "wins", "rating", "mu", "sigma"):
        table.add_column(heading, justify="left" if heading == "player" else "right")
    for row in frame.iter_rows(named=True):
        name = safe(row["player"], 60)
        if row["player_key"] != row["player"]:
            name += f" ({safe(row['player_key'], 60)})"
        table.add_row(
            *map(
                Text,
                (
                    str(row["rank"]),
                    name,
                    str(row["games"]),
                    str(row["wins"]),
                    f"{row['rating']:.2f}",
                    f"{row['mu']:.2f}",
                    f"{row['sigma']:.2f}",
                ),
            )
        )
    console.print(table)
    console.print(
        Text(
            f"rating = mu - 3 sigma; games rated in {ORDER}; unfinished games are not rated",
            style="dim",
        )
    )


def run(arguments: argparse.Namespace) -> int:
    """Rate and write."""
    arguments.format = output_format(arguments.format, arguments.output, FORMATS)
    if arguments.format == "parquet" and not arguments.output:
        raise UsageError("--format parquet needs -o FILE")
    refuse_own_inputs(
        arguments.paths, arguments.output, [arguments.store] if arguments.store else []
    )
    out = stdout_console()
    err = console_for(sys.stderr)
    if arguments.store is not None:
        if arguments.paths:
            raise UsageError("give PATHs or --store DIR, not both")
        tables, summary = _from_store(arguments, err)
    elif not arguments.paths:
        raise UsageError("give the PATHs to read, or --store DIR")
    else:
        tables, summary = _from_paths(arguments, out, err)
    for problem in summary.io_errors:
        say_problem(err, problem)
    if not summary.records:
        return exit_code(summary, arguments.paths, err)
    from spades_replay.stats.ratings import ratings

    frame = ratings(tables)
    if arguments.format == "table":
        if arguments.output:
            capture = Console(file=io.StringIO(), width=200, highlight=False, color_system=None)
            render(capture, frame)
            data = capture.file.getvalue().encode()  # type: ignore[attr-defined]
        else:
            render(out, frame)
            data = b""
    else:
        data = encode(frame, arguments.format)
    write_output(arguments.output, data, text=arguments.format in ("csv", "json"))
    rated = int(tables.games["winner"].is_not_null().sum())
    report_counted(err, f"{rated} game(s) rated, {frame.height} player(s)", summary)
    return exit_code(summary, arguments.paths, err)
