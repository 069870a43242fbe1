"""The ``spades-replay`` command line.

Every command exits with a documented code (docs/cli.md): 0 success (every record valid),
1 some record is invalid, 2 a usage error or a file that cannot be read or written,
130 interrupted (Ctrl-C or SIGTERM). Bad input never produces a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import gc
import importlib
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from types import FrameType, ModuleType
from typing import NoReturn

from spades_replay import __version__
from spades_replay.cli.exits import (
    EXIT_INTERRUPTED,
    EXIT_NO_RECORDS,
    EXIT_USAGE,
    NoRecordsError,
    UsageError,
)
from spades_replay.plumbing.parallel import WorkerLostError

COMMANDS = {
    "validate": "check records against the format and the rules",
    "replay": "show a game hand by hand, trick by trick",
    "analyze": "double-dummy analysis: par, the cost of every card, Nil verdicts",
    "stats": "metrics per player, game or variant",
    "ratings": "a skill rating per player, with its uncertainty",
    "rescore": "what-if: score the games again under other scoring options",
    "simulate": "write a corpus of games between seeded bots",
    "schema": "print the JSON Schema of the record format",
    "dashboard": "open the dashboard (Streamlit) on some records",
    "migrate": "rewrite records as format 1.1 (or back to 1.0)",
    "import": "turn games from another tool (OpenSpiel) into records",
    "export": "write our four-player hands as games of another tool (OpenSpiel)",
    "ingest": "validate records once into a store of Parquet tables",
    "query": "SQL over a store (DuckDB)",
}
"""Every command, in the order ``--help`` lists them, with the line it gives each. A command
is the module ``spades_replay.cli.<name>_cmd``, imported only when that command is named:
``--help`` lists them from this table without importing any."""


def command_module(name: str) -> ModuleType:
    """The module of command ``name``."""
    return importlib.import_module(f"spades_replay.cli.{name}_cmd")


class Parser(argparse.ArgumentParser):
    """argparse's parser, but help's width found without :mod:`shutil`, which argparse
    imports for it, and with it bz2 and lzma: a twentieth of a short command's start, paid
    for every parser made, since ``add_argument`` makes a help formatter to check each
    argument. Every parser under it (commands, formats) is one too."""

    def _get_formatter(self) -> argparse.HelpFormatter:
        # every formatter of argparse takes a width; typeshed's protocol names only prog
        return self.formatter_class(prog=self.prog, width=help_width())  # type: ignore[call-arg]


def help_width() -> int:
    """The width argparse writes help in: the terminal's columns, found as
    :func:`shutil.get_terminal_size` finds them (``$COLUMNS``, else standard output's
    terminal, else 80), less 2."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return (columns or 80) - 2


def build_parser(only: str | None = None, *, alone: bool = False) -> argparse.ArgumentParser:
    """The command line's parser. Command ``only`` gets its full parser (only its module is
    imported: a command's start-up does not pay for the others'); every other command only
    its name and its line in the list of commands, which is printed only when no command is
    named, or, ``alone``, no parser at all (each costs a parser's making, which looks up
    argparse's translations on disk)."""
    parser = Parser(
        prog="spades-replay",
        allow_abbrev=False,
        description="Validate, replay and analyse recorded games of Spades.",
        epilog="Exit codes: 0 ok, 1 invalid record(s), 2 usage or I/O error, 3 no records "
        "found, 130 interrupted.",
    )
    parser.add_argument("--version", action="version", version=f"spades-replay {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, summary in COMMANDS.items():
        if name == only:
            command_module(name).register(commands)
            # and its line in the list of commands, which its module does not write
            commands._choices_actions.append(commands._ChoicesPseudoAction(name, (), summary))
        elif not alone:
            commands.add_parser(name, help=summary)
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
    import difflib

    options = [option for action in parser._actions for option in action.option_strings]
    for word in extras:
        if word.startswith("-") and word != "-":
            name = word.partition("=")[0]
            near = difflib.get_close_matches(name, options, n=1, cutoff=0.6)
            hint = f"; did you mean {near[0]}?" if near else f"; see {parser.prog} --help"
            return f"unknown option {name}{hint}"
    return f"unexpected argument(s): {' '.join(extras)}"


_received: list[int] = []
"""The interrupting signals this process has received while a command ran."""


def _interrupted(signum: int, frame: FrameType | None) -> None:
    _received.append(signum)
    raise KeyboardInterrupt


@contextlib.contextmanager
def _terminate_interrupts() -> Iterator[None]:
    """SIGTERM (``kill``, a supervisor stopping the command) interrupts the command as
    Ctrl-C does: what it was writing is removed, and it exits 130.

    Both signals are also noted, because a library may catch the ``KeyboardInterrupt``
    raised inside a callback of ours and raise its own error instead (pydantic's serializer
    does): the command then fails with that error, and :func:`main` still reports the
    interruption."""
    try:
        previous = {
            stop: signal.signal(stop, _interrupted) for stop in (signal.SIGINT, signal.SIGTERM)
        }
    except ValueError:  # not the main thread, the only one a signal may be handled in
        previous = {}
    else:
        _received.clear()
    try:
        yield
    finally:
        for stop, handler in previous.items():
            signal.signal(stop, handler)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    prepared = _prepare(sys.argv[1:] if argv is None else list(argv))
    return prepared if isinstance(prepared, int) else _run(prepared)


def entry() -> NoReturn:
    """The ``spades-replay`` program: :func:`main` in a process of its own, then exit with
    its code.

    What start-up makes (modules, classes, tables, the parser) lives as long as the
    process, so the cyclic garbage collector is kept off while it is made, and then
    frozen out of every later collection (:func:`gc.freeze`): a long run's collections
    no longer walk it. What the command made is frozen too before the exit, whose last
    collection would only walk it to free what the process's end frees anyway. That is a
    sixth of a short command's CPU time (``docs/performance.md``). :func:`main`, which
    tests and other programs call in their own process, leaves the collector alone."""
    gc.disable()
    try:
        prepared = _prepare(sys.argv[1:])
    finally:
        gc.freeze()
        gc.enable()
    code = prepared if isinstance(prepared, int) else _run(prepared)
    gc.freeze()
    sys.exit(code)


def _prepare(words: list[str]) -> argparse.Namespace | int:
    """The arguments ``words`` give, the command's module imported; or the exit code, when
    the words ask for no command to run."""
    named = next((word for word in words if not word.startswith("-")), None)
    only = named if named in COMMANDS else None
    # the command first: no other command can be asked of this parser (``--help`` before
    # it lists them all)
    parser = build_parser(only, alone=only is not None and words[0] == only)
    if not words:
        parser.print_help()
        return EXIT_USAGE
    arguments, extras = parser.parse_known_args(words)
    if extras:
        _command_parser(parser, words).error(_unknown(_command_parser(parser, words), extras))
    return arguments


def _run(arguments: argparse.Namespace) -> int:
    """Run the command ``arguments`` name; return its exit code."""
    try:
        with _terminate_interrupts():
            code: int = arguments.run(arguments)
    except KeyboardInterrupt:
        print("spades-replay: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except NoRecordsError as error:
        print(f"spades-replay: {error}", file=sys.stderr)
        return EXIT_NO_RECORDS
    except (UsageError, WorkerLostError) as error:
        # the error is what a library, or a worker stopped with the command (SIGTERM to the
        # whole group), made of the interruption
        if _received:
            print("spades-replay: interrupted", file=sys.stderr)
            return EXIT_INTERRUPTED
        print(f"spades-replay: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        sys.stderr.close()
        return 0
    except OSError as error:
        if error.filename is not None or error.errno not in _WRITE_ERRORS:
            raise
        # every file is written through a writer that names it, so this is standard output
        print(
            f"spades-replay: error: cannot write to standard output: {error.strerror}",
            file=sys.stderr,
        )
        # what standard output still holds is dropped, so that the exit does not try again
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
        return EXIT_USAGE
    return code


_WRITE_ERRORS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO)
"""The errors of a write that failed for want of room or of a working device."""
