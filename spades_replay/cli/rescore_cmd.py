"""``spades-replay rescore PATH... --rule KEY=VALUE``: how the games would have gone under
other scoring options (docs/rules.md, "Rescoring under other rules").

Each valid game is scored again, hand by hand, with the options given; per game the command
reports the final scores and winner as played and rescored, the hand where the game now ends
(or that it no longer ends within the hands played) and each side's points by part; for the
whole input, how many games change winner, the mean and spread of each side's score change,
and every player's wins and win rate before and after. Invalid records are reported and left
out.
"""

from __future__ import annotations

import argparse
import csv
import functools
import io
import sys
from dataclasses import dataclass, field
from typing import Any

import orjson
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
    print_whole,
    refuse_own_inputs,
    report_counted,
    report_invalid,
    rule_setting,
    say_problem,
    stdout_console,
    write_output,
)
from spades_replay.cli.progress import Bar
from spades_replay.engine.rules import OPTION, SCORING_OPTIONS, RuleValue
from spades_replay.replayer.rescore import (
    PART_LABELS,
    PARTS,
    CorpusRescore,
    Outcome,
    Rescore,
    RescoreError,
    check_option_names,
    check_options,
    rescore,
)
from spades_replay.replayer.validate import (
    CorpusValidation,
    Sink,
    Summary,
    Verified,
)
from spades_replay.text import option_value, player_labels, rate_label, safe

PARTS_LISTED = 5
"""Up to this many games, the table shows each game's points by part; beyond, csv and json
hold them."""


FORMATS = ("table", "csv", "json")
"""What ``--format`` writes."""


def register(commands: Any) -> None:
    """Add the command to the parser."""
    parser = commands.add_parser(
        "rescore",
        description=(
            "Score every valid game under the paths again with some scoring options changed "
            f"({', '.join(SCORING_OPTIONS)}); the other options shaped what was legal and "
            "cannot change. Per game: final scores and winner as played and rescored, the hand "
            "where the game now ends, each side's points by part. For all the games: how many "
            "change winner, the mean and spread of each side's score change, and each player's "
            "wins before and after. Invalid records are reported and left out."
        ),
        epilog="Exit codes: 0 every record rescored, 1 some records invalid (left out; the "
        "rest are still rescored), 2 usage error (such as a non-scoring option) or I/O error, "
        "3 no records found.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="record, corpus or directory")
    parser.add_argument(
        "--store",
        metavar="DIR",
        help="rescore the games of a store made by `ingest` instead of PATHs: the same "
        "answers as on the files it holds, from its tables, without replaying a game",
    )
    parser.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a scoring option to change, e.g. --rule target_score=300 --rule lose_score=null",
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        help="table for people (the default); csv (one row per game) or json for tools. With "
        "-o and no --format, the file's extension says which (.csv, .json, .txt for the table)",
    )
    parser.add_argument(
        "--changed",
        action="store_true",
        help="list only the games whose winner changes (the summary still counts every game)",
    )
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout"
    )
    add_jobs_option(parser)
    parser.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    add_limit_options(parser)
    parser.set_defaults(run=run)


def parse_options(settings: list[str]) -> dict[str, RuleValue]:
    """The scoring options that ``KEY=VALUE`` settings ask for; a usage error for a malformed
    setting, an unknown option, one that is not a scoring option, or a value out of range."""
    options: dict[str, RuleValue] = {}
    try:
        for setting in settings:
            name = setting.partition("=")[0].strip()
            if name in OPTION:  # a shaping option is refused as such, whatever its value
                check_option_names([name])
            key, value = rule_setting(setting)
            options[key] = value
        check_options(options)
    except RescoreError as error:
        raise UsageError(str(error)) from None
    return options


@dataclass(frozen=True, slots=True)
class Rescored:
    """One game rescored, and where it came from."""

    source: str
    line: int | None
    game: Rescore

    @property
    def where(self) -> str:
        """``path`` or ``path:line``."""
        return self.source if self.line is None else f"{self.source}:{self.line}"


@dataclass
class RescoreSink:
    """Rescores the valid games of one task (in its worker); a value the format refuses for
    a game's rules (``lose_score`` not below its ``target_score``) is kept as an error."""

    options: dict[str, RuleValue]
    games: list[Rescored] = field(default_factory=list)
    error: str | None = None

    def add(self, game: Verified, path: str, line: int | None) -> None:
        """Rescore one game (replayed: the rescoring speaks of its hands and players)."""
        if self.error is not None:
            return
        try:
            self.games.append(Rescored(path, line, rescore(game.record, **self.options)))
        except RescoreError as error:
            place = path if line is None else f"{path}:{line}"
            self.error = f"{safe(place, 500)}: {error}"


@dataclass
class Gathered:
    """Every game rescored, in input order, with absolute line numbers."""

    games: list[Rescored] = field(default_factory=list)

    def take(self, sink: Sink, lines_before: int) -> None:
        """Take the games of one task."""
        assert isinstance(sink, RescoreSink)
        if sink.error is not None:
            raise UsageError(sink.error)
        for rescored in sink.games:
            line = None if rescored.line is None else rescored.line + lines_before
            self.games.append(Rescored(rescored.source, line, rescored.game))


def _add_row(table: Table, *cells: str) -> None:
    """A row of plain text: names from records are never read as rich markup."""
    table.add_row(*map(Text, cells))


def _changes(options: dict[str, RuleValue]) -> str:
    if not options:
        return "their own rules"
    return " ".join(f"{name}={option_value(value)}" for name, value in options.items())


def _winner(game: Rescore, outcome: Outcome) -> str:
    if outcome.winner is None:
        return "nobody yet"
    return safe(game.side_names[outcome.winner], 80)


def _ending(game: Rescore, outcome: Outcome) -> str:
    if outcome.end_hand is None:
        return f"no end in {game.hands_scored} hand(s)"
    return f"hand {outcome.end_hand} ({outcome.reason})"


def _signed(value: float) -> str:
    return f"{value:+.2f}" if isinstance(value, float) else f"{value:+d}"


def _games_table(games: list[Rescored]) -> Table:
    """One row per game: its id whole (never cut, whatever the width), then every score in
    the order of its sides, as the header says."""
    table = Table(
        title="Games rescored (every score in the order of the sides)", title_justify="left"
    )
    table.add_column("game", no_wrap=True)
    table.add_column("sides")
    for heading in ("played", "winner", "ends", "rescored", "winner", "ends", "change"):
        numbers = heading in ("played", "rescored", "change")
        table.add_column(heading, justify="right" if numbers else "left", no_wrap=numbers)
    for rescored in games:
        game = rescored.game
        before, after = game.original, game.rescored
        name = safe(game.game_id) if game.game_id else safe(rescored.where, 500)
        _add_row(
            table,
            name,
            f"{safe(game.side_names[0], 60)} / {safe(game.side_names[1], 60)}",
            f"{before.scores[0]} / {before.scores[1]}",
            _winner(game, before),
            _ending(game, before),
            f"{after.scores[0]} / {after.scores[1]}",
            ("changes: " if game.winner_changed else "") + _winner(game, after),
            _ending(game, after),
            " / ".join(_signed(change) for change in game.score_change),
        )
    return table


def _parts_table(rescored: Rescored) -> Table:
    game = rescored.game
    name = safe(game.game_id) if game.game_id else safe(rescored.where, 500)
    table = Table(title=Text(f"Points by part: {name}"), title_justify="left")
    table.add_column("part")
    for side in (0, 1):
        who = safe(game.side_names[side], 60)
        table.add_column(Text(f"{who} as played"), justify="right")
        table.add_column(Text(f"{who} rescored"), justify="right")
    before = (game.original.parts(0), game.original.parts(1))
    after = (game.rescored.parts(0), game.rescored.parts(1))
    for part in PARTS:
        _add_row(
            table,
            PART_LABELS[part],
            str(before[0][part]),
            str(after[0][part]),
            str(before[1][part]),
            str(after[1][part]),
        )
    return table


def _summary_lines(summary: CorpusRescore, options: dict[str, RuleValue]) -> list[str]:
    lines = [
        f"{summary.games} game(s) rescored with {_changes(options)}: "
        f"{summary.winner_changed} change winner, {summary.ends_earlier} end earlier, "
        f"{summary.no_longer_ends} no longer end within the hands played, "
        f"{summary.now_ends} now end"
    ]
    for side in (0, 1):
        spread = summary.spread(side)
        lines.append(
            f"side {side} score change: mean {_signed(spread.mean)}, spread (std) "
            f"{spread.std:.2f}, from {_signed(spread.low)} to {_signed(spread.high)}"
        )
    return lines


def _players_table(summary: CorpusRescore) -> Table:
    rows = summary.player_rows()
    labels = player_labels((row.name, row.key) for row in rows)
    table = Table(title="Players", title_justify="left")
    for heading in ("player", "games", "wins as played", "wins rescored"):
        table.add_column(heading, justify="left" if heading == "player" else "right")
    for row in rows:
        _add_row(
            table,
            labels[row.key],
            str(row.games),
            rate_label(row.rate_before, row.wins_before, row.games),
            rate_label(row.rate_after, row.wins_after, row.games),
        )
    return table


def render_table(
    console: Console, games: list[Rescored], summary: CorpusRescore, options: dict[str, RuleValue]
) -> None:
    """The per-game table, the points by part (for a few games), and the summary."""
    print_whole(console, _games_table(games))
    if len(games) <= PARTS_LISTED:
        for rescored in games:
            print_whole(console, _parts_table(rescored))
    else:
        console.print(
            Text("points by part: one row per game with --format csv or json", style="dim")
        )
    for line in _summary_lines(summary, options):
        console.print(Text(line))
    console.print(_players_table(summary))


CSV_OUTCOME = ("score_0", "score_1", "winner", "reason", "end_hand")


def csv_columns() -> list[str]:
    """The columns of ``--format csv``, one row per game."""
    columns = ["source", "line", "game_id", "variant", "side_0", "side_1", "hands_scored"]
    for when in ("played", "rescored"):
        columns += [f"{when}_{name}" for name in CSV_OUTCOME]
        columns += [f"{when}_{part}_{side}" for side in (0, 1) for part in PARTS]
    return [*columns, "winner_changed", "score_change_0", "score_change_1"]


def _csv_row(rescored: Rescored) -> list[Any]:
    game = rescored.game
    row: list[Any] = [
        rescored.source,
        rescored.line,
        game.game_id,
        game.variant.value,
        game.side_names[0],
        game.side_names[1],
        game.hands_scored,
    ]
    for outcome in (game.original, game.rescored):
        row += [*outcome.scores, outcome.winner, outcome.reason, outcome.end_hand]
        row += [outcome.parts(side)[part] for side in (0, 1) for part in PARTS]
    return [*row, game.winner_changed, *game.score_change]


def encode_csv(games: list[Rescored]) -> bytes:
    """One row per game (empty cells for ``None``, ``true`` and ``false`` as the stats and
    query csv write them)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(csv_columns())
    for rescored in games:
        writer.writerow(["" if cell is None else option_value(cell) for cell in _csv_row(rescored)])
    return buffer.getvalue().encode()


def encode_json(
    games: list[Rescored], summary: CorpusRescore, options: dict[str, RuleValue]
) -> bytes:
    """The changes asked for, every game, and the summary."""
    document = {
        "changes": options,
        "games": [
            {"source": rescored.source, "line": rescored.line, **rescored.game.to_dict()}
            for rescored in games
        ],
        "summary": summary.to_dict(),
    }
    return orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n"


def _from_store(
    arguments: argparse.Namespace, options: dict[str, RuleValue], err: Console
) -> tuple[list[Rescored], CorpusRescore, Summary]:
    """Every game of the store rescored from its tables; its invalid records reported."""
    from spades_replay.store.layout import StoreError
    from spades_replay.store.read import Store
    from spades_replay.store.rescore import rescore_tables

    try:
        store = Store.open(arguments.store)
        report_invalid(err, store.invalid_reports())
        summary = store.summary()
        tables = store.tables()
    except StoreError as error:
        raise UsageError(str(error)) from None
    except OSError as error:
        raise UsageError(f"cannot read the store {arguments.store}: {error}") from None
    try:
        rescored = rescore_tables(tables, options)
    except RescoreError as error:
        raise UsageError(safe(str(error), 1000)) from None
    places = rescored.games.select("source", "line").rows()
    games = [
        Rescored(source, line, game)
        for (source, line), game in zip(places, rescored.each(), strict=True)
    ]
    return games, rescored.summary, summary


def _from_paths(
    arguments: argparse.Namespace, options: dict[str, RuleValue], out: Console, err: Console
) -> tuple[list[Rescored], CorpusRescore, Summary]:
    """Every valid game under the paths, replayed and rescored; invalid records reported."""
    reading = Bar(
        "rescoring",
        counts="bytes",
        out=out,
        err=err,
        text_on_stdout=False,
        enabled=not arguments.no_progress,
    )
    gathered = Gathered()
    validation = CorpusValidation(
        arguments.paths,
        jobs=arguments.jobs,
        progress=reading.update,
        limits=limits_of(arguments),
        sink=functools.partial(RescoreSink, options),
        on_sink=gathered.take,
    )
    with reading:
        report_invalid(err, validation)
    summary = CorpusRescore().extend(rescored.game for rescored in gathered.games)
    return gathered.games, summary, validation.summary


def run(arguments: argparse.Namespace) -> int:
    """Rescore and write."""
    arguments.format = output_format(arguments.format, arguments.output, FORMATS)
    options = parse_options(arguments.rule)
    stores = [arguments.store] if arguments.store is not None else []
    refuse_own_inputs(arguments.paths, arguments.output, stores)
    out = stdout_console()
    err = console_for(sys.stderr)
    if arguments.store is not None:
        if arguments.paths:
            raise UsageError("give PATHs or --store DIR, not both")
        games, summary, result = _from_store(arguments, options, err)
    elif not arguments.paths:
        raise UsageError("give the PATHs to read, or --store DIR")
    else:
        games, summary, result = _from_paths(arguments, options, out, err)
    for problem in result.io_errors:
        say_problem(err, problem)
    if not result.records:  # nothing read: the path errors or "no records" alone
        return exit_code(result, arguments.paths, err)
    if arguments.changed:
        games = [rescored for rescored in games if rescored.game.winner_changed]
    if arguments.format == "table":
        if arguments.output:
            capture = Console(file=io.StringIO(), width=200, highlight=False, color_system=None)
            render_table(capture, games, summary, options)
            data = capture.file.getvalue().encode()  # type: ignore[attr-defined]
        else:
            render_table(out, games, summary, options)
            data = b""
    elif arguments.format == "csv":
        data = encode_csv(games)
        for line in _summary_lines(summary, options):
            err.print(Text(line))
    else:
        data = encode_json(games, summary, options)
    write_output(arguments.output, data, text=arguments.format != "table")
    report_counted(err, f"{summary.games} game(s) rescored", result)
    return exit_code(result, arguments.paths, err)
