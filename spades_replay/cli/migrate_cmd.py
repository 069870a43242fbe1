"""``spades-replay migrate``: rewrite records as another format version (1.0 or 1.1)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

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
    print_problem,
    say_no_records,
    say_problem,
    stdout_console,
    write_failed,
)
from spades_replay.cli.progress import Bar
from spades_replay.errors import InputError, Problem
from spades_replay.plumbing.corpus import STDIN, expand, is_corpus, not_a_file
from spades_replay.record.migrate import FileMigration, migrate_file, migrate_to_stream
from spades_replay.record.models import FORMAT_VERSION, VERSIONS
from spades_replay.text import safe


def register(commands: Any) -> None:
    """Add the command to the parser."""
    parser = commands.add_parser(
        "migrate",
        description=(
            "Rewrite every record of the given files (.json, .jsonl, .gz) and directories as "
            f"format --to (default {FORMAT_VERSION}). Inputs are never modified unless "
            "--in-place, which replaces each file atomically. Without -o or --in-place the "
            "records go to standard output, one per line. A record that is not well-formed, "
            "or that format 1.0 cannot express (a 1.1 option away from its default), stops "
            "its file from being written."
        ),
        epilog=(
            "Exit codes: 0 every record migrated, 1 some record could not be (its file was "
            "left as it was), 2 usage or I/O error, 130 interrupted."
        ),
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="record files or directories")
    parser.add_argument(
        "--to",
        choices=VERSIONS,
        default=FORMAT_VERSION,
        help=f"the format version to write (default {FORMAT_VERSION})",
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="a file (one input file) or a directory (several inputs, or a directory)",
    )
    where.add_argument(
        "--in-place", action="store_true", help="replace each input file (atomically)"
    )
    parser.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    add_limit_options(parser)
    parser.set_defaults(run=run)


def _same_kind(source: Path, target: Path) -> bool:
    gz = source.name.lower().endswith(".gz") == target.name.lower().endswith(".gz")
    return gz and is_corpus(source) == is_corpus(target)


def _plan(
    paths: list[str], output: str | None, in_place: bool, skipped: list[Problem]
) -> list[tuple[Path, Path | None]]:
    """Each input file with where it goes (``None``: standard output). A path that cannot
    be read (missing, a FIFO or device, an unlistable folder) goes to ``skipped``."""
    if STDIN in paths:
        raise UsageError(
            "migrate rewrites files, and standard input is none: save it to a file and migrate that"
        )
    pairs: list[tuple[Path, Path | None]] = []
    single_file = len(paths) == 1 and Path(paths[0]).is_file()
    for item in paths:
        root = Path(item)
        for path in expand([item], on_problem=skipped.append):
            if in_place:
                pairs.append((path, path))
            elif output is None:
                pairs.append((path, None))
            elif single_file and not Path(output).is_dir():
                pairs.append((path, Path(output)))
            elif root.is_dir():
                # one folder's files go straight under OUT; of several inputs, each folder
                # keeps its name, so that fixtures/a/x.json and fixtures/b/x.json stay apart
                under = Path(output) if len(paths) == 1 else Path(output) / root.resolve().name
                pairs.append((path, under / path.relative_to(root)))
            else:
                pairs.append((path, Path(output) / path.name))
    sources: dict[Path, Path] = {}
    for source, target in pairs:
        if target is None:
            continue
        if target in sources:
            raise UsageError(
                f"{safe(str(sources[target]), 300)} and {safe(str(source), 300)} would both be "
                f"written to {safe(str(target), 300)} under -o; migrate them apart"
            )
        sources[target] = source
    for source, target in pairs:
        if target is None or in_place:
            continue
        kind = not_a_file(target)
        if kind is not None:
            raise UsageError(f"cannot write {safe(str(target), 300)}: it is {kind}")
        # the same file by any name: itself, a symbolic link or a hard link
        if target.exists() and os.path.samefile(target, source):
            raise UsageError(
                f"-o would overwrite the input {safe(str(source), 300)}; use --in-place"
            )
        if not _same_kind(source, target):
            raise UsageError(
                f"{safe(str(target), 300)} is not the same kind of file as "
                f"{safe(str(source), 300)} (.json, .jsonl, .gz)"
            )
    return pairs


def run(arguments: argparse.Namespace) -> int:
    """Migrate, report, and say how it went."""
    limits = limits_of(arguments)
    skipped: list[Problem] = []
    pairs = _plan(arguments.paths, arguments.output, arguments.in_place, skipped)
    to_stdout = arguments.output is None and not arguments.in_place
    err = console_for(sys.stderr)
    for problem in skipped:
        say_problem(err, problem)
    if not pairs and skipped:
        return EXIT_USAGE
    if not pairs:
        say_no_records(err, arguments.paths)
        return EXIT_NO_RECORDS
    total = sum(map(_size, (path for path, _ in pairs)))
    bar = Bar(
        "migrating",
        counts="bytes",
        out=stdout_console(),
        err=err,
        text_on_stdout=not to_stdout,
        enabled=not arguments.no_progress,
        total=total,
    )
    done = 0

    def advance(count: int) -> None:
        nonlocal done
        done += count
        bar.update(done)

    results: list[FileMigration] = []
    with bar:
        for source, target in pairs:
            try:
                if target is None:
                    result = migrate_to_stream(
                        source, arguments.to, sys.stdout.buffer, limits=limits, progress=advance
                    )
                    sys.stdout.buffer.flush()
                else:
                    os.makedirs(target.parent, exist_ok=True)
                    result = migrate_file(
                        source, arguments.to, target, limits=limits, progress=advance
                    )
            except InputError as error:
                # a file that cannot be read is said, and the others are still migrated
                skipped.append(error.problem)
                say_problem(err, error.problem)
                continue
            except OSError as error:
                failed = write_failed(target or "<stdout>", error)
                if results:
                    failed = UsageError(
                        f"{failed}; the {len(results)} file(s) before it were migrated whole"
                    )
                raise failed from None
            results.append(result)
            _report(err if to_stdout else bar.out, result, arguments.in_place)
    if not skipped and not any(result.records for result in results):
        say_no_records(err, arguments.paths)
        return EXIT_NO_RECORDS
    code = _summary(err if to_stdout else bar.out, results, arguments.to)
    return EXIT_USAGE if skipped else code


def _size(path: Path) -> int:
    """The bytes of ``path`` for the progress bar (0 when it cannot be read: reading it
    says why)."""
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _report(console: Console, result: FileMigration, in_place: bool) -> None:
    for problem in result.problems:
        line = f":{problem.line}" if problem.line is not None else ""
        head = Text(f"{safe(result.source, 500)}{line}: cannot migrate", style="bold red")
        console.print(head)
        print_problem(console, problem)
    if result.problems and result.target is not None:
        outcome = "left as it was" if in_place else "not written"
        console.print(Text(f"  {safe(result.target, 500)} {outcome}", style="dim"))


def _summary(console: Console, results: list[FileMigration], version: str) -> int:
    migrated = sum(result.migrated for result in results)
    changed = sum(result.upgraded for result in results if result.migrated)
    failed = sum(len(result.problems) for result in results)
    text = (
        f"migrated {migrated} record(s) of {len(results)} file(s) to format {version} "
        f"({changed} changed version, {migrated - changed} already were)"
    )
    if failed:
        kept = sum(1 for result in results if result.problems and result.target is not None)
        text += f"; {failed} record(s) could not be migrated"
        text += f", {kept} file(s) not written" if kept else ""
    console.print(Text(text))
    return EXIT_INVALID if failed else EXIT_OK
