"""What the commands share: exit codes, consoles, usage errors, record selection."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from rich.console import Console

from spades_replay.corpus import Task, is_corpus, read_task
from spades_replay.errors import InputError

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """A command was asked for something it cannot do: reported, exit code 2."""


def console_for(stream: TextIO) -> Console:
    """A rich console on ``stream`` that never reads markup from data and keeps colours off
    when the stream is not a terminal."""
    terminal = stream.isatty()
    return Console(
        file=stream,
        highlight=False,
        soft_wrap=not terminal,
        emoji=False,
        width=None if terminal else 160,
    )


def stdout_console() -> Console:
    """The console for a command's output."""
    return console_for(sys.stdout)


def add_game_arguments(parser: argparse.ArgumentParser, *, hand_help: str, json_help: str) -> None:
    """The arguments of the commands that work on one game: the file, ``--game`` in a
    corpus, ``--hand`` and ``--format``."""
    parser.add_argument("file", metavar="FILE", help="a record (.json) or a corpus (.jsonl)")
    parser.add_argument(
        "--game",
        metavar="N",
        help="in a corpus: the N-th record (1-based, default 1) or the record with game_id N",
    )
    parser.add_argument("--hand", type=int, metavar="N", help=hand_help)
    parser.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help=f"text for people (default) or {json_help}",
    )


def select_record(path: str, game: str | None) -> tuple[bytes, int | None]:
    """The bytes of one record in ``path``: the file itself, or in a corpus the ``game``-th
    record (1-based) or the one whose ``game_id`` is ``game``; with its line number."""
    target = Path(path)
    if not target.is_file():
        raise UsageError(f"no such file: {path}")
    corpus = is_corpus(target)
    if not corpus:
        if game not in (None, "1"):
            raise UsageError(f"{path} holds one record; --game applies to .jsonl corpora")
        try:
            source = next(read_task(Task(0, path, False)))
        except InputError as error:
            raise UsageError(error.problem.message) from None
        return source.data, None
    wanted_index = int(game) if game is not None and game.isdigit() else None
    wanted_id = None if game is None or game.isdigit() else game
    if game is None:
        wanted_index = 1
    count = 0
    try:
        for source in read_task(Task(0, path, True)):
            if source.blank:
                continue
            count += 1
            if wanted_index is not None and count == wanted_index:
                return source.data, source.line
            if wanted_id is not None and _has_id(source.data, wanted_id):
                return source.data, source.line
    except InputError as error:
        raise UsageError(error.problem.message) from None
    if wanted_id is not None:
        raise UsageError(f"no record with game_id {wanted_id!r} in {path}")
    raise UsageError(f"{path} holds {count} record(s); there is no game {game}")


def _has_id(data: bytes, game_id: str) -> bool:
    import orjson

    if game_id.encode() not in data:
        return False
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return False
    return isinstance(value, dict) and value.get("game_id") == game_id
