"""``spades-replay schema``: print (or write) the JSON Schema of format 1.1 (or the frozen 1.0)."""

from __future__ import annotations

import argparse
from typing import Any

from spades_replay.cli.common import EXIT_OK, write_output
from spades_replay.record.models import FORMAT_VERSION
from spades_replay.record.schema import SCHEMA_VERSIONS, schema_bytes


def register(commands: Any) -> None:
    """Add the command to the parser."""
    parser = commands.add_parser(
        "schema",
        description="Print the JSON Schema (draft 2020-12) of format 1.1, generated from the "
        "models (it also accepts 1.0 records), or with --format-version 1.0 the frozen schema "
        "of format 1.0. The same bytes are checked in as schema/spades-replay-VERSION.schema.json.",
    )
    parser.add_argument(
        "--format-version",
        choices=SCHEMA_VERSIONS,
        default=FORMAT_VERSION,
        help=f"the format version (default {FORMAT_VERSION})",
    )
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="write the schema to FILE (atomically)"
    )
    parser.set_defaults(run=run)


def run(arguments: argparse.Namespace) -> int:
    """Print or write the schema."""
    write_output(arguments.output, schema_bytes(arguments.format_version))
    return EXIT_OK
