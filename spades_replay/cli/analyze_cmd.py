"""``spades-replay analyze FILE``: double-dummy analysis of a game, hand by hand.

For each hand: the par (what perfect play would have made) beside the bids and the tricks
made, every play with what it cost, the best alternatives to each costly play, and each Nil's
verdict. With ``--all``, every game of a corpus (or directory), its hands spread over the
workers one by one. See docs/analysis.md for the method and its limits.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
from rich.console import Console, Group
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from spades_replay.analysis.play import HandAnalysis, PlayAnalysis, analyze_hands
from spades_replay.cli.common import (
    DEFAULT_TIME_CAP,
    EXIT_INVALID,
    EXIT_NO_RECORDS,
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
    add_game_arguments,
    add_jobs_option,
    add_scheduler_option,
    console_for,
    load_game,
    load_kernel,
    pick_hands,
    print_problem,
    say_no_records,
    stdout_console,
    workers_of,
)
from spades_replay.cli.progress import Bar
from spades_replay.cli.text import card_text
from spades_replay.engine.scoring import bid_name
from spades_replay.engine.seats import Variant
from spades_replay.errors import InputError, Problem
from spades_replay.plumbing.corpus import expand, plan, read_task
from spades_replay.plumbing.limits import DEFAULT_LIMITS
from spades_replay.replayer.replay import Replay
from spades_replay.replayer.validate import check_bytes, oversize_report
from spades_replay.text import card_label, safe


def register(commands: Any) -> None:
    """Add the command to the parser."""
    parser = commands.add_parser(
        "analyze",
        description=(
            "Solve every position of one game's card play with all hands known: for each "
            "hand the par (tricks each side could make with perfect play) beside the bids, "
            "every card with the tricks it cost its side (costly plays marked, with the best "
            "alternatives), and whether each Nil was makeable or doomed. Four-player hands "
            "take seconds each: use --jobs, and --time-cap to bound each hand (a capped hand "
            "says so and keeps the analysis of its later plays)."
        ),
        epilog="Exit codes: 0 analysed, 1 the record is invalid, 2 usage or I/O error.",
    )
    add_game_arguments(
        parser,
        hand_help="analyse only hand N (1-based)",
        json_help="JSON (one document: the game and its hands; with --all one line per game)",
    )
    parser.add_argument(
        "--all",
        action="store_true",
        help="every game of FILE (a corpus, or a directory of records and corpora), its "
        "hands spread over the workers one by one; invalid records are reported and skipped",
    )
    add_jobs_option(parser, "worker processes, one hand each (default 1; 0 = one per core)")
    parser.add_argument(
        "--time-cap",
        type=float,
        default=DEFAULT_TIME_CAP,
        metavar="SECONDS",
        help=f"stop analysing a hand after SECONDS (default {DEFAULT_TIME_CAP:g}; 0 = no cap)",
    )
    add_scheduler_option(parser)
    parser.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    parser.set_defaults(run=run)


def _name(replay: Replay, seat: int, limit: int = 40) -> str:
    return safe(replay.players[seat].name, limit)


def _side_names(replay: Replay) -> tuple[str, str]:
    if replay.variant is Variant.TWO_PLAYER:
        return _name(replay, 0, 60), _name(replay, 1, 60)
    return (
        f"team 0 ({safe(replay.side_name(0), 80)})",
        f"team 1 ({safe(replay.side_name(1), 80)})",
    )


def _where(play: PlayAnalysis) -> str:
    return f"trick {play.trick}, card {play.position}"


def _summary(replay: Replay, analysis: HandAnalysis) -> list[Any]:
    """Each side's bid, par and tricks made, side by side."""
    table = Table(box=None, pad_edge=False)
    table.add_column("side")
    table.add_column("bid")
    table.add_column("par (double dummy)", justify="right")
    table.add_column("made", justify="right")
    for side, name in enumerate(_side_names(replay)):
        seats = replay.variant.side_seats(side)
        bids = Text()
        for index, seat in enumerate(seats):
            if index:
                bids.append(" + ")
            if len(seats) > 1:
                bids.append(f"{_name(replay, seat, 20)} ")
            bid = analysis.bids[seat]
            bids.append(bid_name(bid), style="bold magenta" if bid <= 0 else "bold")
        par = "?" if analysis.par is None else str(analysis.par[side])
        table.add_row(name, bids, par, str(analysis.made[side]))
    notes: list[Any] = [table]
    if analysis.par is None:
        notes.append(Text("Par: not found within the time cap.", style="yellow"))
    if not analysis.complete:
        notes.append(Text("Made: so far, as the record stops in this hand.", style="yellow"))
    return notes


def _nil_lines(replay: Replay, analysis: HandAnalysis) -> list[Text]:
    lines = []
    for nil in analysis.nils:
        line = Text(f"{'Blind Nil' if nil.blind else 'Nil'}: ", style="bold magenta")
        line.append(f"{_name(replay, nil.seat)} (seat {nil.seat}): ")
        if nil.makeable is None:
            line.append("verdict not found within the time cap", style="yellow")
        else:
            line.append("makeable" if nil.makeable else "doomed", style="bold")
            line.append(" against any defence from the start of play")
        for play in analysis.plays:
            for swing in play.nil_swings:
                if swing.seat == nil.seat:
                    change = "made makeable" if swing.makeable else "lost"
                    line.append(
                        f"; {change} at {_where(play)} by "
                        f"{_name(replay, play.seat)}'s {card_label(play.card)}"
                    )
        if nil.made is None:
            line.append("; still open")
        else:
            line.append("; made" if nil.made else f"; failed ({nil.tricks} trick(s))")
        lines.append(line)
    return lines


def _play_text(replay: Replay, play: PlayAnalysis) -> Text:
    text = Text(f"{_name(replay, play.seat, 20)} ")
    text.append_text(card_text(play.card))
    if not play.analysed:
        text.append(" ?", style="yellow")
    elif play.cost:
        text.append(f" -{play.cost}", style="bold red")
    for swing in play.nil_swings:
        text.append(" nil+" if swing.makeable else " nil-", style="bold magenta")
    return text


def _tricks_table(replay: Replay, analysis: HandAnalysis) -> Table:
    table = Table(
        title="Plays (-N: tricks the card cost its side; nil-/nil+: a Nil lost or let off)",
        title_justify="left",
        box=None,
        pad_edge=False,
    )
    table.add_column("#", justify="right")
    table.add_column("cards in play order")
    table.add_column("winner")
    count = replay.variant.seat_count
    for start in range(0, len(analysis.plays), count):
        plays = analysis.plays[start : start + count]
        cards = Text()
        for index, play in enumerate(plays):
            if index:
                cards.append("  ")
            cards.append_text(_play_text(replay, play))
        number = plays[0].trick
        tricks = replay.hands[analysis.number - 1].outcome.play.tricks
        winner = tricks[number - 1].winner
        table.add_row(str(number), cards, _name(replay, winner) if winner is not None else "…")
    return table


def _costly_lines(replay: Replay, analysis: HandAnalysis) -> list[Text]:
    lines = []
    for play in analysis.plays:
        if not play.cost:
            continue
        line = Text(f"  {_where(play)}: {_name(replay, play.seat)} played ")
        line.append_text(card_text(play.card))
        side = _side_names(replay)[replay.variant.side_of(play.seat)]
        line.append(f": -{play.cost} ({side} could make {play.best}, after it {play.value})")
        line.append("; best: ")
        for index, card in enumerate(play.best_cards):
            if index:
                line.append(" ")
            line.append_text(card_text(card))
        if play.nil_live:
            line.append(" [a Nil was live]", style="magenta")
        lines.append(line)
    if lines:
        lines.insert(0, Text("Costly plays:", style="bold"))
    return lines


def render_analysis(replay: Replay, analysis: HandAnalysis) -> Group:
    """One analysed hand, as the terminal shows it."""
    hand = replay.hands[analysis.number - 1]
    parts: list[Any] = [Rule(f"Hand {analysis.number}", align="left")]
    role = "First player" if replay.variant is Variant.TWO_PLAYER else "Dealer"
    parts.append(
        Text(
            f"{role} {_name(replay, hand.outcome.dealer)}; "
            f"{_name(replay, hand.outcome.leader)} leads"
        )
    )
    parts.extend(_summary(replay, analysis))
    parts.extend(_nil_lines(replay, analysis))
    if analysis.capped:
        skipped = analysis.analysed_from
        parts.append(
            Text(
                f"Time cap reached: the first {skipped} of {len(analysis.plays)} plays were not "
                "analysed (marked ?); the rest were.",
                style="bold yellow",
            )
        )
    if analysis.plays:
        parts.append(_tricks_table(replay, analysis))
    parts.extend(_costly_lines(replay, analysis))
    lost = Text("Tricks lost by misplays: ", style="bold")
    lost.append(
        " · ".join(
            f"{_name(replay, seat)} {count}" for seat, count in enumerate(analysis.tricks_lost)
        )
    )
    parts.append(lost)
    return Group(*parts)


def _document(replayed: Replay, time_cap: float | None, hands: list[Any]) -> dict[str, Any]:
    return {
        "game_id": replayed.game_id,
        "variant": replayed.variant.value,
        "players": [player.name for player in replayed.players],
        "time_cap": time_cap,
        "hands": hands,
    }


class _Games:
    """The valid games under a path, in order; invalid records are reported on ``report``
    as ``validate`` reports them, and counted. A file of a folder that cannot be read (a
    FIFO, a device) is reported and skipped, and counted in ``unreadable``."""

    def __init__(self, path: str, report: Console) -> None:
        self.invalid = 0
        self.unreadable = 0
        self._path = path
        self._report = report

    def __iter__(self) -> Iterator[Replay]:
        try:
            for task in plan(expand([self._path], self._skip), chunk_bytes=2**62):
                for source in read_task(task):
                    if source.blank:
                        continue
                    if source.oversize:
                        report, replayed = oversize_report(source, DEFAULT_LIMITS), None
                    else:
                        report, replayed = check_bytes(source.data, source.path, source.line)
                    if replayed is not None:
                        yield replayed
                        continue
                    self.invalid += 1
                    where = safe(source.path, 500)
                    where += f":{source.line}" if source.line is not None else ""
                    self._report.print(Text(f"{where}: invalid, skipped", style="bold red"))
                    for problem in report.problems:
                        print_problem(self._report, problem)
        except InputError as error:
            raise UsageError(error.problem.message) from None

    def _skip(self, problem: Problem) -> None:
        """A path of a walk that cannot be read: said, counted, and the rest goes on."""
        if Path(self._path).is_dir():
            self.unreadable += 1
            self._report.print(
                Text(f"{safe(problem.message, 1000)} [{problem.code}]", style="bold red")
            )
            return
        raise InputError(problem)


def _run_all(arguments: argparse.Namespace, out: Console, time_cap: float | None) -> int:
    """Analyse every game under the path: all their hands in one stream of work, each game
    shown (or written as one JSON line) as soon as its hands are done."""
    if arguments.game is not None or arguments.hand is not None:
        raise UsageError("--all analyses every hand of every game: leave out --game and --hand")
    as_json = arguments.format == "json"
    err = console_for(sys.stderr)
    reader = _Games(arguments.file, err if as_json else out)
    games = list(reader)
    if not (games or reader.invalid or reader.unreadable):
        say_no_records(err, [arguments.file])
        return EXIT_NO_RECORDS
    load_kernel(err)
    bar = Bar(
        "analysing hands",
        counts="items",
        out=out,
        err=err,
        text_on_stdout=not as_json,
        enabled=not arguments.no_progress,
    )
    with workers_of(arguments) as jobs, bar, contextlib.ExitStack() as stack:
        hands = (hand for replayed in games for hand in replayed.hands)
        results = analyze_hands(hands, time_cap=time_cap, jobs=jobs, progress=bar.update)
        # closing(): an interrupt stops the workers (or cancels the cluster's work) at once
        stack.enter_context(contextlib.closing(results))
        for replayed in games:
            analyses = [next(results) for _ in replayed.hands]
            if as_json:
                document = _document(replayed, time_cap, [item.to_dict() for item in analyses])
                sys.stdout.buffer.write(orjson.dumps(document) + b"\n")
                continue
            title = f"Double-dummy analysis · {replayed.variant.value}"
            if replayed.game_id is not None:
                title += f" · game {safe(replayed.game_id, 200)}"
            bar.out.print(Text(title, style="bold"))
            for analysis in analyses:
                bar.out.print(render_analysis(replayed, analysis))
    sys.stdout.buffer.flush()
    if reader.unreadable:
        return EXIT_USAGE
    return EXIT_INVALID if reader.invalid else EXIT_OK


def run(arguments: argparse.Namespace) -> int:
    """Analyse one record (or with ``--all`` every game) and show it."""
    if not arguments.time_cap >= 0:
        raise UsageError("--time-cap must be 0 (no cap) or a number of seconds")
    out = stdout_console()
    if arguments.all:
        return _run_all(arguments, out, arguments.time_cap or None)
    replayed = load_game(arguments.file, arguments.game, out)
    if replayed is None:
        return EXIT_INVALID
    hands = pick_hands(replayed, arguments.hand)
    as_json = arguments.format == "json"
    slow = replayed.variant is Variant.FOUR_PLAYER and len(hands) > 1
    err = console_for(sys.stderr)
    load_kernel(err)
    bar = Bar(
        "analysing hands",
        counts="items",
        out=out,
        err=err,
        text_on_stdout=not as_json,
        enabled=slow and not arguments.no_progress,
        total=len(hands),
    )
    time_cap = arguments.time_cap or None
    results = []
    if not as_json:
        out.print(Text(f"Double-dummy analysis · {replayed.variant.value}", style="bold"))
    with workers_of(arguments) as jobs, bar:
        for analysis in analyze_hands(hands, time_cap=time_cap, jobs=jobs, progress=bar.update):
            if as_json:
                results.append(analysis.to_dict())
            else:
                bar.out.print(render_analysis(replayed, analysis))
    if as_json:
        document = _document(replayed, time_cap, results)
        sys.stdout.buffer.write(orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n")
        sys.stdout.buffer.flush()
    return EXIT_OK
