"""``spades-replay validate PATH...``: every problem of every record, and a summary."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import orjson

from spades_replay.cli.common import (
    add_jobs_option,
    add_limit_options,
    add_scheduler_option,
    exit_code,
    limits_of,
    print_problem,
    say_problem,
    workers_of,
)
from spades_replay.cli.plain import Printer, console, text
from spades_replay.cli.progress import Bar
from spades_replay.replayer.validate import CorpusValidation, RecordReport, Summary
from spades_replay.text import safe


def register(commands: Any) -> None:
    """Add the command to the parser."""
    parser = commands.add_parser(
        "validate",
        description=(
            "Check every record under the given paths (files, directories, .jsonl corpora, "
            ".gz): the format, every action under the record's rules, every score and claim. "
            "Reports every problem and keeps going. Never writes to its inputs."
        ),
        epilog="Exit codes: 0 all valid, 1 some record invalid, 2 usage or I/O error, "
        "3 no records found (nothing was checked).",
    )
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="record, corpus, directory, or - for standard input",
    )
    parser.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text for people (default); json: one JSON object per line for every record "
        "(valid or not), then a summary line",
    )
    add_jobs_option(parser)
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="text format: also list the records that are valid",
    )
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="print only the summary (text format)"
    )
    add_scheduler_option(parser)
    parser.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    add_limit_options(parser)
    parser.set_defaults(run=run)


def _where(report: RecordReport) -> str:
    where = safe(report.source or "<input>", 500)
    if report.line is not None:
        where += f":{report.line}"
    return where


def _print_report(out: Printer, report: RecordReport) -> None:
    title = text(out, _where(report), style="bold")
    label = ", ".join(
        part
        for part in (
            f"game {safe(report.game_id)}" if report.game_id else "",
            report.variant or "",
        )
        if part
    )
    if report.valid:
        title.append(": valid", style="green")
    else:
        title.append(": invalid", style="bold red")
    if label:
        title.append(f" ({label})")
    out.print(title)
    for problem in report.problems:
        print_problem(out, problem)


def summary_line(summary: Summary) -> str:
    """The closing summary in words."""
    text = (
        f"{summary.records} record(s) in {summary.files} file(s): "
        f"{summary.valid} valid, {summary.invalid} invalid"
    )
    if summary.codes:
        counts = ", ".join(f"{code} {count}" for code, count in sorted(summary.codes.items()))
        text += f" ({counts})"
    text += (
        f"; the valid ones: {summary.complete} game(s) complete, {summary.unfinished} "
        f"unfinished, {summary.hands} hand(s) recorded"
    )
    if summary.io_errors:
        text += f"; {len(summary.io_errors)} path(s) could not be read"
    return text


def run(arguments: argparse.Namespace) -> int:
    """Validate and report (through rich only where it draws: a terminal)."""
    out = console(sys.stdout)
    err = console(sys.stderr)
    as_json = arguments.format == "json"
    bar = Bar(
        "validating",
        counts="bytes",
        out=out,
        err=err,
        text_on_stdout=not as_json,
        enabled=not arguments.no_progress,
    )
    limits = limits_of(arguments)
    with workers_of(arguments) as jobs, bar:
        validation = CorpusValidation(
            arguments.paths,
            jobs=jobs,
            keep_valid=arguments.verbose or as_json,
            progress=bar.update,
            limits=limits,
        )
        for report in validation:
            if as_json:
                sys.stdout.buffer.write(orjson.dumps(report.to_dict()) + b"\n")
            elif not arguments.quiet:
                _print_report(bar.out, report)
    summary = validation.summary
    for problem in summary.io_errors:
        say_problem(err, problem)
    if as_json:
        sys.stdout.buffer.write(orjson.dumps({"summary": summary.to_dict()}) + b"\n")
        sys.stdout.buffer.flush()
    else:
        style = "green" if not summary.invalid and not summary.io_errors else "bold red"
        out.print(text(out, summary_line(summary), style=style))
    return exit_code(summary, arguments.paths, err)
