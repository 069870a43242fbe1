"""``spades-replay stats PATH...``: per-player, per-game or per-variant metrics, and with
``--analysis`` the tricks each player's misplays cost, double dummy.

polars and the stats modules are imported only when the command runs, so that other
commands (and their worker processes) do not pay for them.
"""

from __future__ import annotations

import argparse
import io
import sys
from typing import TYPE_CHECKING, Any, Literal

from rich.console import Console
from rich.text import Text

from spades_replay.atomic import write_bytes_atomic
from spades_replay.cli.common import (
    DEFAULT_TIME_CAP,
    EXIT_INVALID,
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
    add_limit_options,
    add_scheduler_option,
    console_for,
    limits_of,
    print_problem,
    stdout_console,
    workers_of,
)
from spades_replay.cli.progress import Bar
from spades_replay.limits import Limits
from spades_replay.parallel import Jobs
from spades_replay.text import safe

if TYPE_CHECKING:
    import polars as pl

    from spades_replay.stats.collect import StatsCollection
    from spades_replay.stats.tables import Tables

GROUPINGS = ("game", "player", "variant")

CAPPED_LISTED = 10
"""How many capped hands the command names before it only counts the rest."""


def register(commands: Any) -> None:
    """Add the command to the parser."""
    parser = commands.add_parser(
        "stats",
        help="metrics per player, game or variant",
        description=(
            "Replay every record under the paths and compute metrics: per player (by id, "
            "else name; and by variant and rules) win rate, points per hand, bid accuracy, "
            "bags, bag penalties, Nil and Blind Nil success with their counts; per game; or "
            "per variant. Invalid records are reported and left out, never counted."
        ),
        epilog="Exit codes: 0 all records counted, 1 some records invalid (left out; the "
        "stats of the rest are still written), 2 usage or I/O error.",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="record, corpus or directory")
    parser.add_argument(
        "--by", choices=GROUPINGS, default="player", help="what a row is (default player)"
    )
    parser.add_argument(
        "--format",
        choices=("table", "csv", "json", "parquet"),
        default="table",
        help="table for people (default); csv, json (an array of rows) or parquet for tools",
    )
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout"
    )
    parser.add_argument(
        "-j", "--jobs", type=int, default=1, metavar="N", help="worker processes (0: per core)"
    )
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
    add_scheduler_option(parser)
    parser.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    add_limit_options(parser)
    parser.set_defaults(run=run)


def _report_invalid(console: Console, reports: Any) -> None:
    for report in reports:
        where = safe(report.source or "<input>", 500)
        if report.line is not None:
            where += f":{report.line}"
        console.print(Text(f"{where}: invalid, left out", style="bold red"))
        print_problem(console, report.problems[0])


def _report_capped(console: Console, seat_analysis: pl.DataFrame, time_cap: float) -> None:
    """Name the hands the time cap stopped (the first few, then how many more)."""
    from spades_replay.stats.double_dummy import capped_hands

    capped = capped_hands(seat_analysis)
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


def _analysed(collection: StatsCollection, bar: Bar, time_cap: float | None, jobs: Jobs) -> Tables:
    """The collection's tables with the analysis of every complete hand, under ``bar``."""
    with bar:
        return collection.analysed(time_cap=time_cap, jobs=jobs, progress=bar.update)


def run(arguments: argparse.Namespace) -> int:
    """Compute and write the metrics."""
    if arguments.format == "parquet" and not arguments.output:
        raise UsageError("--format parquet needs -o FILE")
    if arguments.time_cap is not None and not arguments.analysis:
        raise UsageError("--time-cap applies with --analysis")
    time_cap = DEFAULT_TIME_CAP if arguments.time_cap is None else arguments.time_cap
    if not time_cap >= 0:
        raise UsageError("--time-cap must be 0 (no cap) or a number of seconds")
    limits = limits_of(arguments)
    with workers_of(arguments) as jobs:
        return _run(arguments, jobs, limits, time_cap)


def _run(arguments: argparse.Namespace, jobs: Jobs, limits: Limits, time_cap: float) -> int:
    out = stdout_console()
    err = console_for(sys.stderr)

    def bar(description: str, counts: Literal["bytes", "items"]) -> Bar:
        return Bar(
            description,
            counts=counts,
            out=out,
            err=err,
            text_on_stdout=False,
            enabled=not arguments.no_progress,
        )

    from spades_replay.cli import stats_view
    from spades_replay.stats.collect import StatsCollection

    reading = bar("reading", "bytes")
    collection = StatsCollection(
        arguments.paths,
        jobs=jobs,
        progress=reading.update,
        limits=limits,
        keep_hands=arguments.analysis,
    )
    with reading:
        _report_invalid(err, collection)
    summary = collection.summary
    for problem in summary.io_errors:
        err.print(Text(f"spades-replay: {safe(problem.message, 1000)} [{problem.code}]"))
    if arguments.analysis:
        analysing = bar("analysing hands", "items")
        tables = _analysed(collection, analysing, time_cap or None, jobs)
        assert tables.seat_analysis is not None
        _report_capped(err, tables.seat_analysis, time_cap)
    else:
        tables = collection.tables()
    frame = stats_view.metrics(tables, arguments.by)
    if arguments.format == "table":
        rendered = stats_view.TABLES[arguments.by](frame)
        if arguments.output:
            capture = Console(file=io.StringIO(), width=200, highlight=False, color_system=None)
            capture.print(rendered)
            data = capture.file.getvalue().encode()  # type: ignore[attr-defined]
        else:
            out.print(rendered)
            data = b""
    else:
        data = stats_view.encode(frame, arguments.format)
    if arguments.output:
        try:
            write_bytes_atomic(arguments.output, data)
        except OSError as error:
            raise UsageError(f"cannot write {arguments.output}: {error.strerror}") from None
    elif data:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    counted = f"{summary.valid} game(s) counted"
    if summary.invalid:
        counted += f", {summary.invalid} invalid record(s) left out"
    err.print(Text(counted, style="bold red" if summary.invalid else "green"))
    if summary.io_errors:
        return EXIT_USAGE
    return EXIT_INVALID if summary.invalid else EXIT_OK
