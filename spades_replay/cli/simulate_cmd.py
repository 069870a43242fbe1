"""``spades-replay simulate``: corpora of games between seeded bots."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from rich.text import Text

from spades_replay.cli.common import (
    EXIT_OK,
    UsageError,
    add_jobs_option,
    add_scheduler_option,
    console_for,
    rule_setting,
    stdout_console,
    workers_of,
    write_failed,
)
from spades_replay.cli.progress import Bar
from spades_replay.engine.rules import PRESETS, Rules, options_problem
from spades_replay.engine.seats import Variant
from spades_replay.interop.openspiel import Settings, UnsupportedError, check_rules
from spades_replay.play.simulate import (
    BOT_KINDS,
    CORPUS_NAMES,
    MAX_HANDS,
    CorpusSpec,
    Tally,
    seat_kinds,
    write_corpus,
)
from spades_replay.plumbing.corpus import not_a_file
from spades_replay.text import option_value, safe


def register(commands: Any) -> None:
    """Add the command to the parser."""
    parser = commands.add_parser(
        "simulate",
        description=(
            "Play games between seeded bots and write their records: one .jsonl corpus "
            "(.gz to compress) or a directory of .json files. The same seed always gives "
            "the same bytes, whatever --jobs is. Every record written is valid."
        ),
        epilog="Exit codes: 0 written, 2 usage error or the output cannot be written.",
    )
    parser.add_argument("--variant", required=True, choices=[variant.value for variant in Variant])
    parser.add_argument("--games", type=int, required=True, metavar="N", help="how many games")
    parser.add_argument(
        "--seed", type=int, default=0, metavar="S", help="corpus seed, 0 or more (default 0)"
    )
    parser.add_argument(
        "--preset",
        choices=sorted(PRESETS),
        default="standard",
        help="a named rule set to start from (default standard)",
    )
    parser.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="set a house-rule option (any of the record's rules), e.g. --rule "
        "target_score=300 --rule nil_allowed=false --rule first_lead=two_of_clubs",
    )
    parser.add_argument(
        "--bot",
        default="heuristic",
        metavar="BOT[,BOT...]",
        help=f"who plays: {', '.join(BOT_KINDS)} in every seat (default heuristic), or one "
        "bot per seat in seat order, e.g. heuristic,random,heuristic,random; openspiel: "
        "four-player games under OpenSpiel's rules that export openspiel takes whole",
    )
    parser.add_argument(
        "--max-hands",
        type=int,
        default=MAX_HANDS,
        metavar="N",
        help=f"stop a game that is not won after N hands (default {MAX_HANDS})",
    )
    add_jobs_option(parser)
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUT",
        help="FILE.jsonl, FILE.jsonl.gz, or a directory for one .json per game",
    )
    add_scheduler_option(parser)
    parser.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    parser.set_defaults(run=run)


def parse_rules(preset: str, settings: list[str]) -> Rules:
    """The rules of a preset with ``KEY=VALUE`` settings applied (:func:`rule_setting`); a
    usage error when they do not go together (``lose_score`` not below ``target_score``)."""
    rules = PRESETS[preset].replace(**dict(map(rule_setting, settings)))
    problem = options_problem(rules.as_dict())
    if problem is not None:
        raise UsageError(f"the rules do not go together: {problem}")
    return rules


def run(arguments: argparse.Namespace) -> int:
    """Simulate and write."""
    if arguments.games < 0:
        raise UsageError("--games must be 0 or more")
    if arguments.max_hands < 1:
        raise UsageError("--max-hands must be at least 1")
    if arguments.seed < 0:
        # Python's generators take a seed's absolute value: -S would replay the games of S
        raise UsageError("--seed must be 0 or more")
    try:
        seat_kinds(Variant(arguments.variant), arguments.bot)
    except ValueError as error:
        raise UsageError(f"--bot: {error}") from None
    settings = arguments.rule
    if arguments.bot == "openspiel":
        if arguments.variant != Variant.FOUR_PLAYER.value:
            raise UsageError("--bot openspiel plays four-player games: OpenSpiel has no other")
        # OpenSpiel's rules and thresholds first, so that --rule may change what ends the game
        rules = Settings().rules().as_dict()
        openspiel = [f"{option}={option_value(value)}" for option, value in rules.items()]
        settings = [*openspiel, *arguments.rule]
    kind = not_a_file(arguments.output)
    if kind is None and arguments.output.lower().endswith(CORPUS_NAMES):
        # a corpus is one file: a folder of that name is not replaced (nor written into)
        kind = "a directory" if os.path.isdir(arguments.output) else None
    if kind is not None:
        raise UsageError(f"cannot write {safe(arguments.output, 300)}: it is {kind}")
    spec = CorpusSpec(
        Variant(arguments.variant),
        arguments.games,
        arguments.seed,
        parse_rules(arguments.preset, settings),
        arguments.bot,
        arguments.max_hands,
    )
    if arguments.bot == "openspiel":
        try:
            check_rules(spec.variant, spec.rules)
        except UnsupportedError as error:
            raise UsageError(f"--bot openspiel: OpenSpiel cannot play {error}") from None
    out = stdout_console()
    bar = Bar(
        "simulating",
        counts="items",
        out=out,
        err=console_for(sys.stderr),
        text_on_stdout=False,
        enabled=not arguments.no_progress,
        total=arguments.games,
    )
    tally = Tally()
    try:
        with workers_of(arguments) as jobs, bar:
            write_corpus(spec, arguments.output, jobs=jobs, progress=bar.update, tally=tally)
    except ValueError as error:
        raise UsageError(safe(str(error), 1000)) from None
    except OSError as error:
        raise _write_failed(arguments.output, error, tally.games) from None
    out.print(
        Text(f"wrote {tally.games} {spec.variant.value} game(s) to {safe(arguments.output, 500)}")
    )
    if tally.unfinished:
        console_for(sys.stderr).print(
            Text(unfinished_warning(tally, spec.max_hands, arguments.bot), style="bold yellow")
        )
    return EXIT_OK


def _write_failed(output: str, error: OSError, games: int) -> UsageError:
    """A failed write of a corpus file (left as it was), or of a game into a folder (the
    games before it are written whole, each file atomically)."""
    if not os.path.isdir(output):
        return write_failed(output, error)
    name = safe(output, 500)
    left = (
        None
        if not games
        else f"the {games} game(s) before it were written whole; nothing else in {name} was changed"
    )
    return write_failed(output, error, f"game {games + 1} into the folder {name}", left)


def unfinished_warning(tally: Tally, max_hands: int, bot: str) -> str:
    """Why some games were written unfinished, and what to do about it."""
    text = (
        f"{tally.unfinished} of {tally.games} game(s) are unfinished: no side won within "
        f"--max-hands {max_hands} hands"
    )
    if "random" in bot.split(","):
        text += (
            " (random bots rarely make their bids, so scores sink and nobody reaches the "
            "target: add a lose score, e.g. --rule lose_score=-300)"
        )
    else:
        text += " (raise --max-hands, or lower the target with --rule target_score=N)"
    return text
