"""The ``spades-replay`` command line.

Every command exits with a documented code (docs/cli.md): 0 success (every record valid),
1 some record is invalid, 2 a usage error or a file that cannot be read or written,
130 interrupted. Bad input never produces a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from spades_replay import __version__
from spades_replay.cli import (
    analyze_cmd,
    dashboard_cmd,
    export_cmd,
    import_cmd,
    ingest_cmd,
    migrate_cmd,
    query_cmd,
    replay_cmd,
    rescore_cmd,
    schema_cmd,
    simulate_cmd,
    stats_cmd,
    validate_cmd,
)
from spades_replay.cli.common import EXIT_INTERRUPTED, EXIT_USAGE, UsageError

COMMANDS = (
    validate_cmd,
    replay_cmd,
    analyze_cmd,
    stats_cmd,
    rescore_cmd,
    simulate_cmd,
    schema_cmd,
    dashboard_cmd,
    migrate_cmd,
    import_cmd,
    export_cmd,
    ingest_cmd,
    query_cmd,
)


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command."""
    parser = argparse.ArgumentParser(
        prog="spades-replay",
        description="Validate, replay and analyse recorded games of Spades.",
        epilog="Exit codes: 0 ok, 1 invalid record(s), 2 usage or I/O error, 3 no records "
        "found, 130 interrupted.",
    )
    parser.add_argument("--version", action="version", version=f"spades-replay {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in COMMANDS:
        module.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    parser = build_parser()
    arguments = parser.parse_args(argv)
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
