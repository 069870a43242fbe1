"""``spades-replay stats PATH...``: per-player, per-game or per-variant metrics, and with
``--analysis`` the tricks each player's misplays cost, double dummy.

polars and the stats modules are imported only when the command runs, so that other
commands (and their worker processes) do not pay for them.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from rich.console import Console
from rich.text import Text

from spades_replay.cli.common import (
    DEFAULT_TIME_CAP,
    UsageError,
    add_jobs_option,
    add_limit_options,
    add_scheduler_option,
    console_for,
    exit_code,
    limits_of,
    load_kernel,
    output_format,
    print_whole,
    refuse_own_inputs,
    report_counted,
    report_invalid,
    say_problem,
    stdout_console,
    workers_of,
    write_output,
)
from spades_replay.cli.progress import Bar
from spades_replay.plumbing.limits import Limits
from spades_replay.plumbing.parallel import Jobs
from spades_replay.text import safe

if TYPE_CHECKING:
    import polars as pl

    from spades_replay.replayer.validate import Summary
    from spades_replay.stats.collect import StatsCollection
    from spades_replay.stats.tables import Tables

GROUPINGS = ("game", "player", "variant")
FORMATS = ("table", "csv", "json", "parquet")
CAPPED_LISTED = 10
"""How many capped hands the command names before it only counts the rest."""


def register(commands: Any) -> None:
    """Add the command to the parser."""
    parser = commands.add_parser(
        "stats",
        description=(
            "Replay every record under the paths and compute metrics: per player (by id, "
            "else name; and by variant and rules) win rate, points per hand, bid accuracy, "
            "bags, bag penalties, Nil and Blind Nil success with their counts; per game; or "
            "per variant. Invalid records are reported and left out, never counted."
        ),
        epilog="Exit codes: 0 all records counted, 1 some records invalid (left out; the "
        "stats of the rest are still written), 2 usage or I/O error, 3 no records found.",
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="record, corpus, directory, or - for standard input",
    )
    parser.add_argument(
        "--store",
        metavar="DIR",
        help="read the tables of a store made by `ingest` instead of PATHs: the same output "
        "as `stats` on the files it holds, without replaying them",
    )
    parser.add_argument(
        "--by", choices=GROUPINGS, default="player", help="what a row is (default player)"
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        help="table for people (the default); csv, json (an array of rows) or parquet for "
        "tools. With -o and no --format, the file's extension says which (.csv, .json, "
        ".parquet, .txt for the table)",
    )
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout"
    )
    add_jobs_option(parser)
    parser.add_argument(
        "--analysis",
        action="store_true",
        help="add the double-dummy analysis of every complete hand: per player (game, "
        "variant) the hands analysed, the tricks lost by misplays and per hand, and the "
        "hands capped. Off by default because it is slow: two-player hands take "
        "milliseconds, four-player hands seconds each (see --time-cap and --jobs)",
    )
    parser.add_argument(
        "--time-cap",
        type=float,
        metavar="SECONDS",
        help=f"with --analysis: stop analysing a hand after SECONDS (default "
        f"{DEFAULT_TIME_CAP:g}; 0 = no cap); capped hands are reported and left out of the "
        "tricks-lost counts",
    )
    parser.add_argument(
        "--columns",
        metavar="NAME,...",
        help="the table's columns, by their headers, comma-separated (default: those that fit "
        "the width, key ones first); csv, json and parquet carry every column",
    )
    add_scheduler_option(parser)
    parser.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    add_limit_options(parser)
    parser.set_defaults(run=run)


def _report_capped(console: Console, capped: pl.DataFrame, time_cap: float) -> None:
    """Name the hands the time cap stopped (:func:`capped_hands`: the first few, then how
    many more)."""
    if capped.height == 0:
        return
    where = [
        f"{safe(row['game_id'], 60)} hand {row['hand']} "
        f"({row['analysed_plays']} of {row['plays']} plays analysed)"
        for row in capped.head(CAPPED_LISTED).iter_rows(named=True)
    ]
    if capped.height > CAPPED_LISTED:
        where.append(f"and {capped.height - CAPPED_LISTED} more")
    console.print(
        Text(
            f"{capped.height} hand(s) reached the time cap of {time_cap:g} s and are left out "
            f"of the tricks-lost counts (capped_hands): {'; '.join(where)}",
            style="bold yellow",
        )
    )


def _analysed(
    collection: StatsCollection, bar: Bar[Console], time_cap: float | None, jobs: Jobs
) -> Tables:
    """The collection's tables with the analysis of every complete hand, under ``bar``."""
    with bar:
        return collection.analysed(time_cap=time_cap, jobs=jobs, progress=bar.update)


def _columns(arguments: argparse.Namespace) -> list[str] | None:
    """The columns ``--columns`` names, checked; ``None`` without it."""
    if arguments.columns is None:
        return None
    if arguments.format != "table":
        raise UsageError("--columns applies to the table; csv, json and parquet carry every column")
    from spades_replay.cli.stats_view import column_names

    known = column_names(arguments.by, arguments.analysis)
    names = [name.strip() for name in arguments.columns.split(",") if name.strip()]
    unknown = [name for name in names if name not in known]
    if unknown or not names:
        raise UsageError(
            f"unknown column {safe(', '.join(unknown) or arguments.columns, 200)!r} for "
            f"--by {arguments.by}; the columns are: {', '.join(known)}"
        )
    return names


def run(arguments: argparse.Namespace) -> int:
    """Compute and write the metrics."""
    arguments.format = output_format(arguments.format, arguments.output, FORMATS)
    if arguments.format == "parquet" and not arguments.output:
        raise UsageError("--format parquet needs -o FILE")
    if arguments.time_cap is not None and not arguments.analysis:
        raise UsageError("--time-cap applies with --analysis")
    columns = _columns(arguments)
    stores = [arguments.store] if arguments.store is not None else []
    refuse_own_inputs(arguments.paths, arguments.output, stores)
    time_cap = DEFAULT_TIME_CAP if arguments.time_cap is None else arguments.time_cap
    if not time_cap >= 0:
        raise UsageError("--time-cap must be 0 (no cap) or a number of seconds")
    out = stdout_console()
    err = console_for(sys.stderr)
    if arguments.store is not None:
        if arguments.paths:
            raise UsageError("give PATHs or --store DIR, not both")
        if arguments.time_cap is not None or arguments.scheduler is not None:
            raise UsageError(
                "--time-cap and --scheduler apply when reading PATHs; a store was read (and "
                "analysed) by ingest"
            )
        return _from_store(arguments, out, err, columns)
    if not arguments.paths:
        raise UsageError("give the PATHs to read, or --store DIR")
    limits = limits_of(arguments)
    with workers_of(arguments) as jobs:
        tables, summary = _read(arguments, out, err, jobs, limits, time_cap)
    from spades_replay.cli import stats_view

    plan = stats_view.metrics(tables.lazy(), arguments.by)
    return _write(arguments, out, err, plan.collect, summary, columns)


def _read(
    arguments: argparse.Namespace,
    out: Console,
    err: Console,
    jobs: Jobs,
    limits: Limits,
    time_cap: float,
) -> tuple[Tables, Summary]:
    """The tables and summary of the records under the paths, read (and analysed) by
    ``jobs``, under progress bars; invalid records reported on ``err``."""

    def bar(description: str, counts: Literal["bytes", "items"]) -> Bar[Console]:
        return Bar(
            description,
            counts=counts,
            out=out,
            err=err,
            text_on_stdout=False,
            enabled=not arguments.no_progress,
        )

    from spades_replay.stats.collect import StatsCollection
    from spades_replay.stats.double_dummy import capped_hands

    reading = bar("reading", "bytes")
    collection = StatsCollection(
        arguments.paths,
        jobs=jobs,
        progress=reading.update,
        limits=limits,
        keep_hands=arguments.analysis,
    )
    with reading:
        report_invalid(err, collection)
    summary = collection.summary
    for problem in summary.io_errors:
        say_problem(err, problem)
    if arguments.analysis:
        load_kernel(err)
        analysing = bar("analysing hands", "items")
        tables = _analysed(collection, analysing, time_cap or None, jobs)
        assert tables.seat_analysis is not None
        _report_capped(err, capped_hands(tables.seat_analysis), time_cap)
    else:
        tables = collection.tables()
    return tables, summary


def _from_store(
    arguments: argparse.Namespace, out: Console, err: Console, columns: list[str] | None
) -> int:
    """The metrics of the games of a store, as ``stats`` gives them on its files."""
    from spades_replay.stats.double_dummy import capped_hands
    from spades_replay.store.layout import StoreError
    from spades_replay.store.read import Store

    try:
        store = Store.open(arguments.store)
        if arguments.analysis and not store.analysis:
            raise UsageError(
                f"the store {arguments.store} holds no double-dummy analysis: ingest with "
                "--analysis into a new store"
            )
        report_invalid(err, store.invalid_reports())
        summary = store.summary()
        scans = store.scans(analysis=arguments.analysis)
        capped = None
        if scans.seat_analysis is not None:
            (capped,) = store.collect(capped_hands(scans.seat_analysis))
    except StoreError as error:
        raise UsageError(str(error)) from None
    except OSError as error:
        raise UsageError(f"cannot read the store {arguments.store}: {error}") from None
    for problem in summary.io_errors:
        say_problem(err, problem)
    if capped is not None:
        time_cap = store.manifest.settings.get("time_cap") or 0
        _report_capped(err, capped, float(time_cap))
    from spades_replay.cli import stats_view

    def frame() -> pl.DataFrame:
        try:
            (metrics,) = store.collect(stats_view.metrics(scans, arguments.by))
        except StoreError as error:
            raise UsageError(str(error)) from None
        return metrics

    return _write(arguments, out, err, frame, summary, columns)


def _write(
    arguments: argparse.Namespace,
    out: Console,
    err: Console,
    metrics: Callable[[], pl.DataFrame],
    summary: Summary,
    columns: list[str] | None,
) -> int:
    """Write the frame ``metrics`` gives as asked (the table's ``columns``, ``None``: by
    width), then the count line; the exit code. Nothing is written, nor ``metrics`` asked,
    when no record was read."""
    if not summary.records:  # nothing read: the path errors or "no records" alone
        return exit_code(summary, arguments.paths, err)
    from spades_replay.cli import stats_view

    frame = metrics()
    if arguments.format == "table":
        capture = Console(file=io.StringIO(), width=200, highlight=False, color_system=None)
        console = capture if arguments.output else out
        rendered = stats_view.table(frame, arguments.by, console.width, columns).renderable
        if arguments.output:
            print_whole(capture, rendered)
            data = capture.file.getvalue().encode()  # type: ignore[attr-defined]
        else:
            print_whole(out, rendered)
            data = b""
    else:
        data = stats_view.encode(frame, arguments.format)
    write_output(arguments.output, data, text=arguments.format in ("csv", "json"))
    report_counted(err, f"{summary.valid} game(s) counted", summary)
    return exit_code(summary, arguments.paths, err)
