"""``spades-replay stats PATH...``: per-player, per-game or per-variant metrics.

polars and the stats modules are imported only when the command runs, so that other
commands (and their worker processes) do not pay for them.
"""

from __future__ import annotations

import argparse
import io
import sys
from typing import Any

from rich.console import Console
from rich.text import Text

from spades_replay.atomic import write_bytes_atomic
from spades_replay.cli.common import (
    EXIT_INVALID,
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
    console_for,
    stdout_console,
)
from spades_replay.cli.text import safe
from spades_replay.cli.validate_cmd import (
    add_limit_options,
    bar_console,
    limits_of,
    print_problem,
    progress_bar,
)

GROUPINGS = ("game", "player", "variant")


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


def run(arguments: argparse.Namespace) -> int:
    """Compute and write the metrics."""
    if arguments.format == "parquet" and not arguments.output:
        raise UsageError("--format parquet needs -o FILE")
    out = stdout_console()
    err = console_for(sys.stderr)
    where = None if arguments.no_progress else bar_console(out, err, text_on_stdout=False)
    bar = progress_bar(where) if where is not None else None
    task = bar.add_task("reading", total=None) if bar is not None else None

    def progress(done: int, total: int) -> None:
        if bar is not None and task is not None:
            bar.update(task, completed=done, total=total)

    from spades_replay.cli import stats_view
    from spades_replay.stats.collect import StatsCollection

    collection = StatsCollection(
        arguments.paths, jobs=arguments.jobs, progress=progress, limits=limits_of(arguments)
    )
    if bar is not None:
        bar.start()
    try:
        _report_invalid(err, collection)
    finally:
        if bar is not None:
            bar.stop()
    summary = collection.summary
    for problem in summary.io_errors:
        err.print(Text(f"spades-replay: {safe(problem.message, 1000)} [{problem.code}]"))
    frame = stats_view.metrics(collection.tables(), arguments.by)
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
