"""``spades-replay stats PATH...``: per-player, per-game or per-variant metrics."""

from __future__ import annotations

import argparse
import io
import sys
from typing import Any

import polars as pl
from rich.console import Console
from rich.table import Table
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
from spades_replay.stats.collect import StatsCollection
from spades_replay.stats.metrics import game_metrics, player_metrics, variant_metrics
from spades_replay.stats.tables import Tables

GROUPINGS = {"player": player_metrics, "game": game_metrics, "variant": variant_metrics}


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
        "--by", choices=sorted(GROUPINGS), default="player", help="what a row is (default player)"
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


def _percent(value: float | None, count: int, total: int) -> str:
    if value is None:
        return "-"
    return f"{value:.0%} ({count}/{total})"


def _number(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def player_table(frame: pl.DataFrame) -> Table:
    """The per-player metrics as a terminal table: every rate beside its counts."""
    table = Table(title="Players", title_justify="left")
    for column, justify in (
        ("player", "left"),
        ("variant", "left"),
        ("rules", "left"),
        ("games", "right"),
        ("wins", "right"),
        ("hands", "right"),
        ("pts/hand", "right"),
        ("bids exact", "right"),
        ("over", "right"),
        ("set", "right"),
        ("bags/hand", "right"),
        ("penalties/game", "right"),
        ("nil made", "right"),
        ("blind nil made", "right"),
    ):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for row in frame.iter_rows(named=True):
        table.add_row(
            safe(row["player"], 40),
            row["variant"],
            safe(row["rules"], 60),
            str(row["games"]),
            _percent(row["win_rate"], row["wins"], row["complete_games"]),
            str(row["hands"]),
            _number(row["points_per_hand"]),
            _percent(row["exact_rate"], row["exact"], row["bids"]),
            _percent(row["over_rate"], row["over"], row["bids"]),
            _percent(row["set_rate"], row["set"], row["bids"]),
            _number(row["bags_per_hand"], 2),
            _number(row["bag_penalties_per_game"], 2),
            _percent(row["nil_rate"], row["nil_made"], row["nil_attempts"]),
            _percent(row["blind_nil_rate"], row["blind_nil_made"], row["blind_nil_attempts"]),
        )
    return table


def game_table(frame: pl.DataFrame) -> Table:
    """The per-game rows as a terminal table."""
    table = Table(title="Games", title_justify="left")
    for column in ("game", "variant", "rules", "sides", "winner", "scores", "hands", "ended"):
        table.add_column(column)
    for row in frame.iter_rows(named=True):
        ended = row["reason"] or "unfinished"
        table.add_row(
            safe(row["game_id"], 60),
            row["variant"],
            safe(row["rules"], 60),
            f"{safe(row['side_0'], 60)} vs {safe(row['side_1'], 60)}",
            safe(row["winner_players"] or "-", 60),
            f"{row['score_0']} to {row['score_1']}",
            str(row["hands"]),
            ended,
        )
    return table


def variant_table(frame: pl.DataFrame) -> Table:
    """The per-variant metrics as a terminal table."""
    table = Table(title="Variants", title_justify="left")
    for column in (
        "variant",
        "rules",
        "games",
        "complete",
        "hands/game",
        "pts/side-hand",
        "sets",
        "bags/side-hand",
        "penalties/game",
        "nil made",
        "blind nil made",
    ):
        table.add_column(column)
    for row in frame.iter_rows(named=True):
        table.add_row(
            row["variant"],
            safe(row["rules"], 60),
            str(row["games"]),
            str(row["complete"]),
            _number(row["hands_per_game"]),
            _number(row["points_per_side_hand"]),
            _percent(row["set_rate"], row["sets"], row["contracts"]),
            _number(row["bags_per_side_hand"], 2),
            _number(row["bag_penalties_per_game"], 2),
            _percent(row["nil_rate"], row["nil_made"], row["nil_attempts"]),
            _percent(row["blind_nil_rate"], row["blind_nil_made"], row["blind_nil_attempts"]),
        )
    return table


TABLES = {"player": player_table, "game": game_table, "variant": variant_table}


def encode(frame: pl.DataFrame, kind: str) -> bytes:
    """A metrics frame as csv, json or parquet bytes."""
    if kind == "csv":
        return frame.write_csv().encode()
    if kind == "json":
        return frame.write_json().encode() + b"\n"
    buffer = io.BytesIO()
    frame.write_parquet(buffer)
    return buffer.getvalue()


def metrics(tables: Tables, by: str) -> pl.DataFrame:
    """The metrics frame for a grouping."""
    return GROUPINGS[by](tables)


def _report_invalid(console: Console, collection: StatsCollection) -> None:
    for report in collection:
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
    frame = metrics(collection.tables(), arguments.by)
    if arguments.format == "table":
        rendered = TABLES[arguments.by](frame)
        if arguments.output:
            capture = Console(file=io.StringIO(), width=200, highlight=False, color_system=None)
            capture.print(rendered)
            data = capture.file.getvalue().encode()  # type: ignore[attr-defined]
        else:
            out.print(rendered)
            data = b""
    else:
        data = encode(frame, arguments.format)
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
