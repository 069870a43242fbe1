"""The ``spades-replay`` command line.

Every command exits with a documented code (docs/cli.md): 0 success (every record valid),
1 some record is invalid, 2 a usage error or a file that cannot be read or written,
130 interrupted (Ctrl-C or SIGTERM). Bad input never produces a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import importlib
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from types import FrameType, ModuleType

from spades_replay import __version__
from spades_replay.cli.common import EXIT_INTERRUPTED, EXIT_USAGE, UsageError

COMMANDS = (
    "validate",
    "replay",
    "analyze",
    "stats",
    "rescore",
    "simulate",
    "schema",
    "dashboard",
    "migrate",
    "import",
    "export",
    "ingest",
    "query",
)
"""Every command, in the order ``--help`` lists them; each is the module
``spades_replay.cli.<name>_cmd``, imported only when it is needed."""


def command_module(name: str) -> ModuleType:
    """The module of command ``name``."""
    return importlib.import_module(f"spades_replay.cli.{name}_cmd")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of command ``only`` (then only its module is
    imported: a command's start-up does not pay for the others')."""
    parser = argparse.ArgumentParser(
        prog="spades-replay",
        allow_abbrev=False,
        description="Validate, replay and analyse recorded games of Spades.",
        epilog="Exit codes: 0 ok, 1 invalid record(s), 2 usage or I/O error, 3 no records "
        "found, 130 interrupted.",
    )
    parser.add_argument("--version", action="version", version=f"spades-replay {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS if only is None else (only,):
        command_module(name).register(commands)
    for each in _parsers(parser):
        each.allow_abbrev = False  # --gam is not --game: an option is named in full
    return parser


def _parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """``parser`` and every parser under it (commands, and ``import``'s and ``export``'s
    formats)."""
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                yield from _parsers(child)


def _command_parser(
    parser: argparse.ArgumentParser, words: Sequence[str]
) -> argparse.ArgumentParser:
    """The parser of the (sub)command that ``words`` name: the one whose options apply."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for index, word in enumerate(words):
                if word in action.choices:
                    return _command_parser(action.choices[word], words[index + 1 :])
    return parser


def _unknown(parser: argparse.ArgumentParser, extras: Sequence[str]) -> str:
    """What is wrong with the words ``extras`` that ``parser`` did not take: an option it
    does not know (with the nearest one it does), or an argument too many."""
    options = [option for action in parser._actions for option in action.option_strings]
    for word in extras:
        if word.startswith("-") and word != "-":
            name = word.partition("=")[0]
            near = difflib.get_close_matches(name, options, n=1, cutoff=0.6)
            hint = f"; did you mean {near[0]}?" if near else f"; see {parser.prog} --help"
            return f"unknown option {name}{hint}"
    return f"unexpected argument(s): {' '.join(extras)}"


def _interrupted(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def _terminate_interrupts() -> Iterator[None]:
    """SIGTERM (``kill``, a supervisor stopping the command) interrupts the command as
    Ctrl-C does: what it was writing is removed, and it exits 130."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _interrupted)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    words = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(words[0] if words and words[0] in COMMANDS else None)
    if not words:
        parser.print_help()
        return EXIT_USAGE
    arguments, extras = parser.parse_known_args(words)
    if extras:
        _command_parser(parser, words).error(_unknown(_command_parser(parser, words), extras))
    try:
        with _terminate_interrupts():
            code: int = arguments.run(arguments)
    except UsageError as error:
        print(f"spades-replay: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("spades-replay: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        sys.stderr.close()
        return 0
    return code
