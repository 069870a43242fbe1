"""``spades-replay ingest PATH... --store DIR``: validate every record once into a store of
Parquet tables (docs/store.md), reading only new or changed files."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rich.text import Text

from spades_replay.cli.common import (
    DEFAULT_TIME_CAP,
    EXIT_INVALID,
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
    add_jobs_option,
    add_limit_options,
    add_scheduler_option,
    console_for,
    limits_of,
    load_kernel,
    say_problem,
    stdout_console,
    workers_of,
    write_failed,
)
from spades_replay.cli.progress import Bar
from spades_replay.text import safe


def register(commands: Any) -> None:
    """Add the command to the parser."""
    parser = commands.add_parser(
        "ingest",
        description=(
            "Validate every record under the paths and write the store DIR: the tables "
            "games, side_hands, seat_hands (seat_analysis with --analysis), records and "
            "problems, as Parquet files, and a manifest of the files read. Run again on the "
            "same paths, it reads only new or changed files. A run killed at any moment "
            "leaves the store as it was before or as after. Query the store with "
            "`spades-replay query`, `stats --store` or `dashboard --store`."
        ),
        epilog="Exit codes: 0 every record of the named files valid, 1 some invalid (they "
        "are in the problems table), 2 usage or I/O error (a path that cannot be read, a "
        "store another ingest is writing, a store of another version), 130 interrupted "
        "(the store is left as it was).",
    )
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="record, corpus or directory (not -: write standard input to a file first)",
    )
    parser.add_argument("--store", required=True, metavar="DIR", help="the store to write")
    add_jobs_option(parser)
    add_scheduler_option(parser)
    parser.add_argument(
        "--analysis",
        action="store_true",
        help="also store the double-dummy analysis of every complete hand (seat_analysis; "
        "slow: four-player hands take seconds each). A store is analysed or not: every "
        "ingest into it must say the same",
    )
    parser.add_argument(
        "--time-cap",
        type=float,
        metavar="SECONDS",
        help=f"with --analysis: stop analysing a hand after SECONDS (default "
        f"{DEFAULT_TIME_CAP:g}; 0 = no cap)",
    )
    parser.add_argument(
        "--prune", action="store_true", help="drop from the store the files that no longer exist"
    )
    parser.add_argument(
        "--wait",
        action="store_true",
        help="when another ingest is writing the store, wait for it (default: refuse, exit 2)",
    )
    parser.add_argument(
        "--rebuild",
        action="store_true",
        help="read every file anew into an empty store, whatever DIR's manifest holds: the "
        "way out of a damaged store (its old part files are removed when the new one is in "
        "place)",
    )
    parser.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    add_limit_options(parser)
    parser.set_defaults(run=run)


def run(arguments: argparse.Namespace) -> int:
    """Bring the store up to date and say what was done."""
    from spades_replay.store.ingest import Settings, ingest, refuse_standard_input
    from spades_replay.store.layout import StoreError

    try:
        refuse_standard_input(arguments.paths)
    except StoreError as error:
        raise UsageError(str(error)) from None
    if arguments.time_cap is not None and not arguments.analysis:
        raise UsageError("--time-cap applies with --analysis")
    time_cap = DEFAULT_TIME_CAP if arguments.time_cap is None else arguments.time_cap
    if not time_cap >= 0:
        raise UsageError("--time-cap must be 0 (no cap) or a number of seconds")
    limits = limits_of(arguments)
    out = stdout_console()
    err = console_for(sys.stderr)
    settings = Settings(
        arguments.analysis, limits, (time_cap or None) if arguments.analysis else None
    )
    if arguments.analysis:
        load_kernel(err)
    bar = Bar(
        "ingesting",
        counts="bytes",
        out=out,
        err=err,
        text_on_stdout=True,
        enabled=not arguments.no_progress,
    )

    def waiting() -> None:
        err.print(
            Text(f"waiting for another ingest of {safe(arguments.store, 500)}", style="yellow")
        )

    try:
        with workers_of(arguments) as jobs, bar:
            report = ingest(
                arguments.paths,
                arguments.store,
                settings=settings,
                jobs=jobs,
                prune=arguments.prune,
                wait=arguments.wait,
                progress=bar.update,
                on_wait=waiting,
                rebuild=arguments.rebuild,
            )
    except StoreError as error:
        raise UsageError(str(error)) from None
    except OSError as error:
        store = safe(arguments.store, 500)
        raise write_failed(arguments.store, error, f"the store {store}") from None
    for problem in report.io_errors:
        say_problem(err, problem)
    line = (
        f"{report.files} file(s): {report.read} read ({report.records_read} record(s), "
        f"{report.invalid_read} invalid), {report.unchanged} unchanged"
    )
    if report.pruned:
        line += f", {report.pruned} pruned"
    out.print(Text(line))
    if report.codes:
        codes = ", ".join(f"{code} {count}" for code, count in sorted(report.codes.items()))
        out.print(Text(f"invalid by code: {codes}"))
    if not report.written:
        out.print(Text(f"no store written to {safe(arguments.store, 500)}: no path names a file"))
    else:
        out.print(
            Text(
                f"store {safe(arguments.store, 500)}: {report.games} game(s), {report.records} "
                f"record(s), {report.invalid} invalid (see its problems table)",
                style="bold red" if report.invalid_named else "green",
            )
        )
    if report.io_errors:
        return EXIT_USAGE
    return EXIT_INVALID if report.invalid_named else EXIT_OK
