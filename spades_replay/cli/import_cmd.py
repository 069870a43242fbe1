"""``spades-replay import openspiel FILE... -o OUT.jsonl``: other tools' games as records."""

from __future__ import annotations

import argparse
import gzip
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from rich.console import Console
from rich.text import Text

from spades_replay.cli.common import (
    EXIT_INVALID,
    EXIT_NO_RECORDS,
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
    add_limit_options,
    console_for,
    limits_of,
    output_writer,
    refuse_own_inputs,
    stdout_console,
    write_failed,
)
from spades_replay.cli.progress import Bar
from spades_replay.engine.rules import OPTION
from spades_replay.errors import InputError
from spades_replay.interop.openspiel import (
    DEFAULT_SETTINGS,
    GameInput,
    HistoryError,
    Settings,
    from_history,
    read_games,
)
from spades_replay.plumbing.corpus import Task, read_task
from spades_replay.plumbing.limits import Limits
from spades_replay.record.io import dumps
from spades_replay.text import safe

CORPUS_NAMES = (".jsonl", ".ndjson", ".jsonl.gz", ".ndjson.gz")
GAME_ID_CHARS = 200


def register(commands: Any) -> None:
    """Add the command to the parser."""
    parser = commands.add_parser(
        "import",
        description=(
            "Read OpenSpiel spades games and write one four-player record per game, with "
            "OpenSpiel's rules and every claim filled in, to a .jsonl corpus (.gz to "
            "compress). A FILE holds one game per line as a JSON array of actions or a JSON "
            'object {"history": [...], "players": [...], "id": "..."}, or the text of '
            "state.serialize() (one action per line), games separated by blank lines. A "
            "history that is not a legal OpenSpiel game is reported, naming the game and the "
            "action, and the other games are still imported."
        ),
        epilog="Exit codes: 0 all imported, 1 some game refused, 2 usage or I/O error.",
    )
    parser.add_argument("source", choices=("openspiel",), help="where the games come from")
    parser.add_argument("files", nargs="+", metavar="FILE", help="a file of histories (.gz too)")
    parser.add_argument(
        "-o", "--output", required=True, metavar="OUT", help="the corpus to write: FILE.jsonl[.gz]"
    )
    parser.add_argument(
        "--win-threshold",
        type=int,
        default=DEFAULT_SETTINGS.win_threshold,
        metavar="N",
        help=f"OpenSpiel's win_threshold (default {DEFAULT_SETTINGS.win_threshold})",
    )
    parser.add_argument(
        "--mercy-threshold",
        type=int,
        default=DEFAULT_SETTINGS.mercy_threshold,
        metavar="N",
        help="OpenSpiel's mercy_threshold, 0 for none "
        f"(default {DEFAULT_SETTINGS.mercy_threshold})",
    )
    parser.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    add_limit_options(parser)
    parser.set_defaults(run=run)


def _lines(path: str, limits: Limits) -> Iterator[str | None]:
    """The lines of a file of histories (gzip-compressed when it ends in .gz), read one by
    one as a corpus is: a line over ``limits.record_bytes`` is ``None``, skipped unread.
    Raises :class:`UsageError` for a file that cannot be read or is not UTF-8 text."""
    if not Path(path).exists():
        raise UsageError(f"no such file: {safe(path, 500)}")
    try:
        for source in read_task(Task(path, True), limits):
            if source.oversize:
                yield None
                continue
            try:
                text = source.data.decode("utf-8")
            except UnicodeDecodeError as error:
                raise UsageError(
                    f"{path} is not UTF-8 text (line {source.line}, byte {error.start})"
                ) from None
            yield text.removeprefix("\ufeff") if source.line == 1 else text
    except InputError as error:
        raise UsageError(error.problem.message) from None


def _default_id(path: str, game: GameInput) -> str:
    name = Path(path).name
    suffix = f":{game.line}"
    return name[: GAME_ID_CHARS - len(suffix)] + suffix


def _report(err: Console, path: str, game: GameInput, message: str) -> None:
    where = f"{safe(path, 500)}:{game.line}"
    if game.game_id is not None:
        where += f" (id {safe(game.game_id)})"
    err.print(Text(f"{where}: {safe(message, 2000)}"))


class _NoGamesError(Exception):
    """The files hold no game at all: the output is not written (the writer drops it)."""


def _import(
    stream: BinaryIO | gzip.GzipFile, path: str, game: GameInput, settings: Settings, err: Console
) -> bool:
    """Write the record of one game; report it and return false if it is refused."""
    if game.error is not None:
        _report(err, path, game, game.error)
        return False
    try:
        record = from_history(
            game.history,
            players=game.players,
            game_id=game.game_id or _default_id(path, game),
            settings=settings,
            meta={"source": "OpenSpiel spades"},
        )
    except HistoryError as error:
        _report(err, path, game, str(error))
        return False
    stream.write(dumps(record) + b"\n")
    return True


def run(arguments: argparse.Namespace) -> int:
    """Import every game and write the corpus."""
    output = str(arguments.output)
    if not output.lower().endswith(CORPUS_NAMES):
        raise UsageError("the output is a corpus: name it FILE.jsonl (or FILE.jsonl.gz)")
    settings = Settings(
        arguments.win_threshold, arguments.mercy_threshold, DEFAULT_SETTINGS.win_or_loss_bonus
    )
    if settings.win_threshold < 1:
        raise UsageError("--win-threshold must be at least 1")
    if settings.mercy_threshold != 0 and settings.mercy_threshold >= settings.win_threshold:
        raise UsageError("--mercy-threshold must be below --win-threshold (or 0 for none)")
    rules = settings.rules()
    for option, name in (("--win-threshold", "target_score"), ("--mercy-threshold", "lose_score")):
        # in the option table's words, as --rule and the records say them
        problem = OPTION[name].problem(getattr(rules, name))
        if problem is not None:
            raise UsageError(f"{option}: {problem}")
    limits = limits_of(arguments)
    refuse_own_inputs(arguments.files, output)
    out = stdout_console()
    err = console_for(sys.stderr)
    io_errors = 0
    bar = Bar(
        "importing",
        counts="items",
        out=out,
        err=err,
        text_on_stdout=False,
        enabled=not arguments.no_progress,
    )
    imported = refused = 0
    try:
        with bar, output_writer(output) as raw:
            stream = (
                gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) if output.endswith(".gz") else raw
            )
            for path in arguments.files:
                try:
                    for game in read_games(_lines(path, limits), limits):
                        bar.update(imported + refused + 1)
                        if _import(stream, path, game, settings, err):
                            imported += 1
                        else:
                            refused += 1
                except UsageError as error:
                    err.print(Text(f"spades-replay: {safe(str(error), 1000)}"))
                    io_errors += 1
            if stream is not raw:
                stream.close()
            if not imported + refused:
                raise _NoGamesError
    except _NoGamesError:
        if io_errors:
            return EXIT_USAGE
        named = ", ".join(safe(path, 200) for path in arguments.files)
        err.print(
            Text(
                f"spades-replay: no games found in {named}: nothing was imported, "
                f"{safe(output, 500)} was not written",
                style="bold red",
            )
        )
        return EXIT_NO_RECORDS
    except OSError as error:
        raise write_failed(output, error) from None
    text = f"imported {imported} game(s) from OpenSpiel to {safe(output, 500)}"
    if refused:
        text += f"; {refused} refused"
    out.print(Text(text))
    if io_errors:
        return EXIT_USAGE
    return EXIT_INVALID if refused else EXIT_OK
