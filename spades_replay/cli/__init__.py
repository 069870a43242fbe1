"""The ``spades-replay`` command line.

Every command exits with a documented code (docs/cli.md): 0 success (every record valid),
1 some record is invalid, 2 a usage error or a file that cannot be read or written,
130 interrupted. Bad input never produces a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType

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
        description="Validate, replay and analyse recorded games of Spades.",
        epilog="Exit codes: 0 ok, 1 invalid record(s), 2 usage or I/O error, 3 no records "
        "found, 130 interrupted.",
    )
    parser.add_argument("--version", action="version", version=f"spades-replay {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS if only is None else (only,):
        command_module(name).register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    words = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(words[0] if words and words[0] in COMMANDS else None)
    arguments = parser.parse_args(words)
    try:
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
