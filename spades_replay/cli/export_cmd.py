"""``spades-replay export openspiel PATH... -o OUT``: our four-player hands as OpenSpiel games."""

from __future__ import annotations

import argparse
import sys
from typing import Any, BinaryIO

import orjson
from rich.console import Console
from rich.text import Text

from spades_replay.cli.common import (
    EXIT_INVALID,
    EXIT_NO_RECORDS,
    EXIT_OK,
    EXIT_USAGE,
    console_for,
    output_writer,
    print_problem,
    refuse_own_inputs,
    say_no_records,
    say_problem,
    stdout_console,
    write_failed,
)
from spades_replay.cli.progress import Bar
from spades_replay.errors import InputError, Problem
from spades_replay.interop.openspiel import (
    OpenSpielHand,
    UnsupportedError,
    check_rules,
    to_history,
)
from spades_replay.plumbing.corpus import Source, expand, plan, read_task
from spades_replay.plumbing.limits import DEFAULT_LIMITS
from spades_replay.replayer.replay import Replay
from spades_replay.replayer.validate import check_bytes, oversize_report
from spades_replay.text import safe

ID_CHARS = 200


def register(commands: Any) -> None:
    """Add the command to the parser."""
    parser = commands.add_parser(
        "export",
        description=(
            "Write every four-player hand of the records under the paths as an OpenSpiel "
            "spades game, one per line: its history (a JSON array of actions), or with "
            '--format jsonl an object {"id": ..., "players": [...], "history": [...]} that '
            "import reads back. The player left of the dealer becomes OpenSpiel's seat 0. A "
            "game or hand OpenSpiel cannot play (two-player, Blind Nil, failed-Nil tricks not "
            "helping the partner, other rules it lacks) is refused, naming the rule; invalid "
            "records are reported as validate reports them."
        ),
        epilog="Exit codes: 0 all exported, 1 a record invalid or refused, 2 usage or I/O error.",
    )
    parser.add_argument("target", choices=("openspiel",), help="the tool to write for")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="record, corpus or directory")
    parser.add_argument("-o", "--output", required=True, metavar="OUT", help="the file to write")
    parser.add_argument(
        "--format",
        choices=("history", "jsonl"),
        default="history",
        help="history: a JSON array of actions per line (default); jsonl: an object per line "
        "with the hand's id and players",
    )
    parser.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    parser.set_defaults(run=run)


def _line(hand: OpenSpielHand, replayed: Replay, label: str, as_object: bool) -> bytes:
    """A hand's line. Its id is the game's, with `` hand N`` after it when the game has
    several hands: a game of one hand (as ``import`` makes of every history) keeps its id,
    so that an export of an import of an export gives the same ids."""
    if not as_object:
        return orjson.dumps(list(hand.history))
    suffix = f" hand {hand.hand}" if len(replayed.hands) > 1 else ""
    players = [replayed.players[seat] for seat in hand.seats]
    return orjson.dumps(
        {
            "id": label[: ID_CHARS - len(suffix)] + suffix,
            "players": [
                player.name if player.id is None else {"name": player.name, "id": player.id}
                for player in players
            ],
            "history": list(hand.history),
        }
    )


class _NothingReadError(Exception):
    """No record was read: the export is abandoned, its output never written."""


class _Export:
    """Writes the hands of each record to ``stream``, counting what was written, refused or
    invalid, and reporting refusals and invalid records on ``err``."""

    def __init__(self, stream: BinaryIO, err: Console, as_object: bool) -> None:
        self.stream = stream
        self.err = err
        self.as_object = as_object
        self.hands = 0
        self.games = 0
        self.invalid = 0
        self.refused = 0
        self.records = 0
        self.reasons: dict[tuple[str, str], tuple[int, str]] = {}

    def refuse(self, where: str, error: UnsupportedError) -> None:
        """Count a refusal under its reason; the first of each reason is kept as an example."""
        self.refused += 1
        kind = "game" if error.hand is None else "hand"
        count, example = self.reasons.get((error.rule, kind), (0, ""))
        hand = "" if error.hand is None else f" hand {error.hand}:"
        self.reasons[(error.rule, kind)] = (
            count + 1,
            example or f"{where}:{hand} {error.message}",
        )

    def report_refusals(self) -> None:
        """One line per reason OpenSpiel refused games or hands for, with its count and the
        first one refused, most frequent first."""
        ordered = sorted(self.reasons.items(), key=lambda item: (-item[1][0], item[0]))
        for (rule, kind), (count, example) in ordered:
            self.err.print(
                Text(f"refused {count} {kind}(s): {safe(rule, 500)} (first: {safe(example, 1000)})")
            )

    def source(self, source: Source) -> None:
        """Check one record and write each of its hands that OpenSpiel can play."""
        self.records += 1
        line = f":{source.line}" if source.line is not None else ""
        where = safe(source.path, 500) + line
        if source.oversize:
            report, replayed = oversize_report(source, DEFAULT_LIMITS), None
        else:
            report, replayed = check_bytes(source.data, source.path, source.line)
        if replayed is None:
            self.invalid += 1
            self.err.print(Text(f"{where}: invalid"))
            for problem in report.problems:
                print_problem(self.err, problem)
            return
        try:
            check_rules(replayed.variant, replayed.rules)
        except UnsupportedError as error:
            self.refuse(where, error)
            return
        self.games += 1
        label = replayed.game_id or source.path + line
        for number in range(1, len(replayed.hands) + 1):
            try:
                hand = to_history(replayed, number)
            except UnsupportedError as error:
                self.refuse(where, error)
                continue
            self.stream.write(_line(hand, replayed, label, self.as_object) + b"\n")
            self.hands += 1


def run(arguments: argparse.Namespace) -> int:
    """Export every hand OpenSpiel can play and write them."""
    out = stdout_console()
    err = console_for(sys.stderr)
    refuse_own_inputs(arguments.paths, arguments.output)
    problems: list[Problem] = []
    files = list(expand(arguments.paths, on_problem=problems.append))
    for problem in problems:
        say_problem(err, problem)
    io_errors = len(problems)
    tasks = plan(files)
    bar = Bar(
        "exporting",
        counts="bytes",
        out=out,
        err=err,
        text_on_stdout=False,
        enabled=not arguments.no_progress,
        total=sum(task.size for task in tasks),
    )
    done = 0
    try:
        with bar, output_writer(arguments.output) as stream:
            export = _Export(stream, err, arguments.format == "jsonl")
            for task in tasks:
                try:
                    for source in read_task(task):
                        if not source.blank:
                            export.source(source)
                except InputError as error:
                    err.print(Text(f"spades-replay: {safe(error.problem.message, 1000)}"))
                    io_errors += 1
                done += task.size
                bar.update(done)
            if not export.records:
                raise _NothingReadError
    except _NothingReadError:  # the output is not written
        if io_errors:
            return EXIT_USAGE
        say_no_records(err, arguments.paths)
        return EXIT_NO_RECORDS
    except OSError as error:
        raise write_failed(arguments.output, error) from None
    export.report_refusals()
    text = (
        f"exported {export.hands} hand(s) of {export.games} game(s) to OpenSpiel in "
        f"{safe(arguments.output, 500)}"
    )
    if export.refused:
        text += f"; {export.refused} refused"
    if export.invalid:
        text += f"; {export.invalid} invalid record(s)"
    out.print(Text(text))
    if io_errors:
        return EXIT_USAGE
    return EXIT_INVALID if export.refused or export.invalid else EXIT_OK
