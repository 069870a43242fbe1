"""What the commands share: exit codes, consoles, usage errors, the input limit options, how a
problem is printed, picking, checking and reporting one game of a file, and where the work
runs (``--jobs`` or ``--scheduler``)."""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, TextIO

from spades_replay.cli.exits import EXIT_INTERRUPTED as EXIT_INTERRUPTED
from spades_replay.cli.exits import EXIT_INVALID as EXIT_INVALID
from spades_replay.cli.exits import EXIT_NO_RECORDS as EXIT_NO_RECORDS
from spades_replay.cli.exits import EXIT_OK as EXIT_OK
from spades_replay.cli.exits import EXIT_USAGE as EXIT_USAGE
from spades_replay.cli.exits import NoRecordsError
from spades_replay.cli.exits import UsageError as UsageError
from spades_replay.cli.plain import text
from spades_replay.engine.rules import OPTION, RuleValue, not_an_option
from spades_replay.errors import InputError, Problem
from spades_replay.plumbing.atomic import atomic_writer
from spades_replay.plumbing.corpus import (
    STDIN,
    STDIN_NAME,
    Source,
    Task,
    expand,
    is_corpus,
    not_a_file,
    read_task,
)
from spades_replay.plumbing.limits import DEFAULT_LIMITS, Limits
from spades_replay.plumbing.parallel import Jobs
from spades_replay.replayer.validate import (
    RecordReport,
    Summary,
    check_bytes,
    oversize_report,
    pretty_corpus_report,
)
from spades_replay.text import safe

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

    from spades_replay.cli.plain import Printer
    from spades_replay.replayer.replay import HandReplay, Replay

NULL_WORDS = ("null", "none")
"""How ``--rule`` says an optional option is off."""
_WHOLE_NUMBER = re.compile(r"-?[0-9]+")
"""A number ``--rule`` takes: ASCII digits, perhaps after a minus (not ``int``'s ``+3``,
``3_00`` or other scripts' digits)."""


def rule_setting(setting: str) -> tuple[str, RuleValue]:
    """A ``--rule KEY=VALUE`` setting as the option's name and value, read as the option
    table says the option is written (a whole number, true or false, one of its words; null
    for an optional one) and checked against its range. A misspelt name is named as such,
    with the option it looks like. Which options a command accepts is the command's to check.

    >>> rule_setting("bag_limit=7"), rule_setting("lose_score=null")
    (('bag_limit', 7), ('lose_score', None))
    """
    name, sep, text = setting.partition("=")
    if not sep:
        raise UsageError(f"--rule takes KEY=VALUE, got {setting!r}")
    name, text = name.strip(), text.strip()
    row = OPTION.get(name)
    if row is None:
        raise UsageError(f"--rule {setting}: {not_an_option(name)}")
    value: RuleValue = text
    if text.lower() in NULL_WORDS:
        value = None
    elif row.kind == "bool" and text.lower() in ("true", "false"):
        value = text.lower() == "true"
    elif row.kind == "int" and _WHOLE_NUMBER.fullmatch(text):
        value = int(text)
    problem = row.problem(value)
    if problem is not None:
        raise UsageError(f"--rule {setting}: {problem}")
    return name, value


def console_for(stream: TextIO) -> Console:
    """A rich console on ``stream`` that never reads markup from data and keeps colours off
    when the stream is not a terminal."""
    from rich.console import Console

    terminal = stream.isatty()
    return Console(
        file=stream,
        highlight=False,
        soft_wrap=not terminal,
        emoji=False,
        width=None if terminal else 160,
    )


def print_whole(console: Console, renderable: RenderableType) -> None:
    """Print ``renderable`` on ``console``; off a terminal (a pipe, a file), as wide as it
    needs when that is wider than the console, so that no cell (a game id, a name) is ever
    cut or folded."""
    if console.is_terminal:
        console.print(renderable)
        return
    width = console.width
    unbounded = console.options.update_width(1 << 20)
    console.width = max(width, console.measure(renderable, options=unbounded).maximum)
    try:
        console.print(renderable)
    finally:
        console.width = width


def stdout_console() -> Console:
    """The console for a command's output."""
    return console_for(sys.stdout)


def add_game_arguments(parser: argparse.ArgumentParser, *, hand_help: str, json_help: str) -> None:
    """The arguments of the commands that work on one game: the file, ``--game`` in a
    corpus, ``--hand`` and ``--format``."""
    parser.add_argument(
        "file", metavar="FILE", help="a record (.json), a corpus (.jsonl), or - for standard input"
    )
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


def select_record(path: str, game: str | None) -> Source:
    """One record in ``path`` (``-``: standard input): the file itself, or in a corpus the
    ``game``-th record (1-based) or the one whose ``game_id`` is ``game``; its bytes and
    line number (``oversize`` and no bytes when it is over the size limit)."""
    target = Path(path)
    if path == STDIN:
        task = Task(STDIN, False)
    elif target.is_dir():
        raise UsageError(
            f"{path} is a directory; this command takes one record (.json) or corpus (.jsonl) "
            "file, or - for standard input (validate and stats walk directories)"
        )
    elif (kind := not_a_file(target)) is not None:
        raise UsageError(f"{safe(path, 300)} is {kind}, not a regular file [io.not-a-file]")
    elif not target.is_file():
        raise UsageError(f"no such file: {safe(path, 300)}")
    else:
        task = Task(path, is_corpus(target))
    numbered = game is not None and game.isascii() and game.isdigit()
    wanted_index = int(game) if game is not None and numbered else None
    wanted_id = None if game is None or numbered else game
    if game is None:
        wanted_index = 1
    count = 0
    try:
        for source in read_task(task):
            if source.blank:
                continue
            if source.line is None:  # a record file: the one record
                if game not in (None, "1"):
                    raise UsageError(f"{path} holds one record; --game applies to .jsonl corpora")
                return source
            count += 1
            if wanted_index is not None and count == wanted_index:
                return source
            if wanted_id is not None and _has_id(source.data, wanted_id):
                return source
    except InputError as error:
        raise UsageError(error.problem.message) from None
    if not count:
        raise NoRecordsError(no_records_message([path]))
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


EXTENSIONS = {".csv": "csv", ".json": "json", ".parquet": "parquet", ".txt": "table"}
"""The output formats that an ``-o FILE`` extension names."""


def output_format(chosen: str | None, output: str | None, formats: Sequence[str]) -> str:
    """The format to write, of a command's ``formats``: the one asked for, else the one the
    extension of ``output`` names (``.csv``, ``.json``, ``.parquet``, ``.txt`` for the table; a
    name without an extension gets the table too). A format that contradicts the extension, or
    an extension that names none of ``formats`` without ``--format``, is a usage error.

    >>> output_format(None, "players.parquet", ("table", "parquet"))
    'parquet'
    >>> output_format("csv", None, ("table", "csv"))
    'csv'
    """
    suffix = Path(output).suffix.lower() if output else ""
    named = EXTENSIONS.get(suffix)
    if chosen is None:
        if suffix and named not in formats:
            *others, last = [name for name, format_ in EXTENSIONS.items() if format_ in formats]
            raise UsageError(
                f"cannot tell the format of {safe(output or '', 300)} from its extension: name "
                f"a {', '.join(others)} or {last} file, or say --format"
            )
        return named or "table"
    if named is not None and named != chosen:
        raise UsageError(
            f"--format {chosen} does not match the extension of {safe(output or '', 300)} "
            f"({named}); drop --format or rename the file"
        )
    return chosen


def jobs_count(text: str) -> int:
    """The value of ``--jobs``: a number of worker processes, 0 for one per core."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 (one per core) or more, not {value}")
    return value


DEFAULT_TIME_CAP = 60.0
"""Seconds per hand unless ``--time-cap`` says otherwise; two-player hands never need it."""

LIMIT_OPTIONS = (
    (
        "--max-record-bytes",
        DEFAULT_LIMITS.record_bytes,
        1 << 30,
        "largest record or .jsonl line read",
    ),
    ("--max-depth", DEFAULT_LIMITS.depth, 1024, "deepest nesting inside meta and x- extensions"),
    (
        "--max-string",
        DEFAULT_LIMITS.string_chars,
        1 << 30,
        "longest meta value or extension string",
    ),
    (
        "--max-expansion",
        DEFAULT_LIMITS.expansion,
        1 << 30,
        "how many times its compressed size a .gz input may expand to (its first MiB is "
        "always read)",
    ),
)
"""Each limit option: its flag, default, largest value (a record is read into memory whole,
so a gibibyte is already far beyond any game; JSON nested deeper than 1024 is refused while
parsing) and meaning."""


def limit_value(most: int) -> Callable[[str], int]:
    """The value of a limit option: a whole number from 1 to ``most``.

    >>> limit_value(1024)("64")
    64
    >>> limit_value(1024)("99999999999999999999")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: must be at most 1024, got 99999999999999999999
    """

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < 1:
            raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
        if value > most:
            raise argparse.ArgumentTypeError(f"must be at most {most}, got {text.strip()}")
        return value

    return parse


def add_limit_options(parser: argparse.ArgumentParser) -> None:
    """The options that set the input size limits (docs/reliability.md)."""
    for flag, default, most, meaning in LIMIT_OPTIONS:
        parser.add_argument(
            flag,
            type=limit_value(most),
            default=default,
            metavar="N",
            help=f"{meaning} (default {default}, at most {most})",
        )


def limits_of(arguments: argparse.Namespace) -> Limits:
    """The limits the options ask for."""
    limits = Limits(
        arguments.max_record_bytes,
        arguments.max_depth,
        arguments.max_string,
        arguments.max_expansion,
    )
    return DEFAULT_LIMITS if limits == DEFAULT_LIMITS else limits


def print_problem(console: Printer, problem: Problem, indent: str = "  ") -> None:
    """One problem, readably: place and message, then rule, legal choices and pointer."""
    head = text(console, indent)
    if problem.place:
        head.append(safe(problem.place, 300), style="bold")
        head.append(": ")
    head.append(safe(problem.message, 2000))
    console.print(head)
    if problem.rule:
        console.print(text(console, f"{indent}  rule: {problem.rule}", style="dim"))
    if problem.legal:
        console.print(text(console, f"{indent}  legal: {' '.join(problem.legal)}", style="dim"))
    pointer = safe(problem.pointer, 300) or "/"
    console.print(text(console, f"{indent}  at {pointer}  [{problem.code}]", style="dim"))


def problem_text(problem: Problem, indent: str = "  ") -> str:
    """The lines :func:`print_problem` shows, as the plain text a console off a terminal
    writes (no colours, nothing wrapped), each ending in a newline."""
    place = f"{safe(problem.place, 300)}: " if problem.place else ""
    text = f"{indent}{place}{safe(problem.message, 2000)}\n"
    if problem.rule:
        text += f"{indent}  rule: {problem.rule}\n"
    if problem.legal:
        text += f"{indent}  legal: {' '.join(problem.legal)}\n"
    pointer = safe(problem.pointer, 300) or "/"
    return text + f"{indent}  at {pointer}  [{problem.code}]\n"


def _left_out(report: RecordReport) -> str:
    """The heading of an invalid record a counting command leaves out."""
    where = safe(report.source or "<input>", 500)
    if report.line is not None:
        where += f":{report.line}"
    return f"{where}: invalid, left out"


REPORT_BATCH = 1 << 16
"""Characters of invalid-record reports gathered before one write, off a terminal."""


def report_invalid(console: Console, reports: Iterable[RecordReport]) -> None:
    """Each invalid record a counting command leaves out: where it is, then its first
    problem.

    On a terminal, through rich, in colour. Elsewhere (a file, a pipe) the same characters
    rich would write there are written directly, some at a time: rendering each of a
    corpus's millions of invalid records through rich would cost most of the run."""
    if console.is_terminal:
        for report in reports:
            console.print(text(console, _left_out(report), style="bold red"))
            print_problem(console, report.problems[0])
        return
    stream = console.file
    batch: list[str] = []
    size = 0
    try:
        for report in reports:
            lines = f"{_left_out(report)}\n{problem_text(report.problems[0])}"
            batch.append(lines)
            size += len(lines)
            if size >= REPORT_BATCH:
                stream.write("".join(batch))
                batch.clear()
                size = 0
    finally:
        stream.write("".join(batch))
        stream.flush()


def refuse_own_inputs(
    inputs: Iterable[str], output: str | None, stores: Iterable[str] = ()
) -> None:
    """A usage error when writing ``output`` would harm what the command reads: one of the
    files ``inputs`` name (itself, through a symbolic link or a hard link, or found in a
    directory walked), or any file inside a store in ``stores``."""
    if not output:
        return
    # a new file too: its folder's real path, with its name
    target = os.path.realpath(output)
    for store in stores:
        if Path(target).is_relative_to(os.path.realpath(store)):
            raise UsageError(
                f"-o {safe(output, 300)} is inside the store {safe(store, 300)}, which this "
                "command reads; write it elsewhere"
            )
    if not os.path.isfile(output):
        return
    for path in expand([item for item in inputs if item != STDIN], on_problem=lambda _: None):
        with contextlib.suppress(OSError):
            if os.path.samefile(path, output):
                raise UsageError(
                    f"-o {safe(output, 300)} is the input {safe(str(path), 300)}: writing it "
                    "would destroy what is read; write elsewhere"
                )


DIRECT_OUTPUTS = (stat.S_ISCHR, stat.S_ISFIFO)
"""What an output is written to directly rather than replaced: a character device
(``/dev/null``, a terminal) or a FIFO (a pipe, ``/dev/stdout`` in a pipeline)."""


@contextlib.contextmanager
def output_writer(output: str) -> Iterator[BinaryIO]:
    """Write a command's output file: a regular file (or a new one) atomically, through
    :func:`~spades_replay.plumbing.atomic.atomic_writer`; a character device or a FIFO
    directly, never replaced by a file; anything else (a directory, a block device, a
    socket) is refused."""
    try:
        mode = os.stat(output).st_mode
    except (FileNotFoundError, NotADirectoryError):
        mode = stat.S_IFREG
    except OSError as error:
        raise UsageError(f"cannot write {safe(output, 300)}: {error.strerror}") from None
    if stat.S_ISREG(mode):
        with atomic_writer(output) as stream:
            yield stream
    elif any(test(mode) for test in DIRECT_OUTPUTS):
        with open(output, "wb") as stream:
            yield stream
    else:
        kind = "a directory" if stat.S_ISDIR(mode) else not_a_file(output) or "not a file"
        raise UsageError(f"cannot write {safe(output, 300)}: it is {kind}")


def write_output(output: str | None, data: bytes, *, text: bool = False) -> None:
    """Write a command's output: to ``output`` (:func:`output_writer`; a usage error if it
    cannot be written), else to standard output. ``text`` output (csv, json) that goes to a
    terminal is escaped as tables are (control characters shown as ``\\x1b``, never sent);
    to a file or a pipe it is written byte for byte."""
    if output:
        try:
            with output_writer(output) as stream:
                stream.write(data)
        except OSError as error:
            raise write_failed(output, error) from None
    elif data:
        if text and sys.stdout.isatty():
            data = terminal_text(data)
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()


def terminal_text(data: bytes) -> bytes:
    """Machine text made fit for a terminal: every control or format character of each
    line escaped by :func:`~spades_replay.text.safe`, the line breaks kept.

    >>> terminal_text(b'name\\n"\\x1b[2J"\\n')
    b'name\\n"\\\\x1b[2J"\\n'
    """
    lines = data.decode("utf-8", errors="replace").split("\n")
    return "\n".join(safe(line, len(line)) for line in lines).encode()


def write_failed(
    target: str | os.PathLike[str],
    error: OSError,
    what: str | None = None,
    left: str | None = None,
) -> UsageError:
    """The usage error (exit 2) of a write to ``target`` that failed and left it as it was
    (every write is atomic), or as ``left`` says: what was written (``what``, else the
    target), why, and for a full disk, which disk (where it is mounted) and the room left
    on it."""
    name = safe(str(target), 500)
    text = f"cannot write {what or name}: {error.strerror or error}"
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        mount = mount_point(target)
        try:
            import shutil

            free = f"{shutil.disk_usage(mount).free:,} bytes free"
        except OSError:
            free = "its room unknown"
        text += f" (the disk mounted at {safe(str(mount), 500)}, {free})"
    return UsageError(f"{text}; {left or f'{name} is left as it was'}")


def mount_point(path: str | os.PathLike[str]) -> Path:
    """Where the filesystem that holds (or would hold) ``path`` is mounted.

    >>> mount_point("/")
    PosixPath('/')
    """
    place = Path(os.path.abspath(path))
    while not place.exists() and place != place.parent:
        place = place.parent
    while not os.path.ismount(place):
        place = place.parent
    return place


def say_problem(err: Printer, problem: Problem) -> None:
    """A problem of the inputs (a path that cannot be read) on a line of its own:
    ``spades-replay: MESSAGE [code]``."""
    err.print(text(err, f"spades-replay: {safe(problem.message, 1000)} [{problem.code}]"))


def report_counted(err: Printer, games: str, summary: Summary) -> None:
    """The closing line of a command that counts games: ``games`` (``"12 game(s)
    counted"``) and the invalid records it left out."""
    counted = games
    if summary.invalid:
        counted += f", {summary.invalid} invalid record(s) left out"
    err.print(text(err, counted, style="bold red" if summary.invalid else "green"))


def exit_code(summary: Summary, paths: list[str], err: Printer) -> int:
    """The exit code of a command that read records under ``paths``: 2 for a path that
    could not be read, 3 (said on ``err``) when they hold no record, 1 for an invalid record,
    else 0."""
    if summary.io_errors:
        return EXIT_USAGE
    if not summary.records:
        say_no_records(err, paths)
        return EXIT_NO_RECORDS
    return EXIT_INVALID if summary.invalid else EXIT_OK


def say_no_records(err: Printer, paths: list[str]) -> None:
    """Say on ``err`` that ``paths`` hold no record (:func:`no_records_message`)."""
    err.print(text(err, f"spades-replay: {no_records_message(paths)}", style="bold red"))


def no_records_message(paths: list[str]) -> str:
    """What a command says when ``paths`` hold no record at all."""
    named = ", ".join(safe(path, 200) for path in paths[:5])
    if len(paths) > 5:
        named += f" and {len(paths) - 5} more"
    return (
        f"no records found in {named}: nothing was checked (records are .json files, "
        ".jsonl/.ndjson corpora, either .gz-compressed)"
    )


def pick_hands(replay: Replay, number: int | None) -> tuple[HandReplay, ...]:
    """Every hand of a replay, or only hand ``number`` (1-based; a usage error if none)."""
    hands = replay.hands
    if number is None:
        return hands
    if not 1 <= number <= len(hands):
        raise UsageError(f"the game has {len(hands)} hand(s); there is no hand {number}")
    return (hands[number - 1],)


def load_game(path: str, game: str | None, console: Console) -> Replay | None:
    """The replay of one record of ``path`` (``game`` picks it in a corpus), or ``None``
    after printing its problems as ``validate`` would."""
    source = select_record(path, game)
    data, line = source.data, source.line
    name = STDIN_NAME if path == STDIN else path
    pretty = pretty_corpus_report(Source(name, line, data)) if line is not None else None
    if source.oversize:
        report, replayed = oversize_report(source, DEFAULT_LIMITS), None
    elif pretty is not None:
        report, replayed = pretty, None
    else:
        report, replayed = check_bytes(data, name, line)
    if replayed is not None:
        return replayed
    where = safe(name, 500) + (f":{line}" if line is not None else "")
    console.print(text(console, f"{where}: invalid", style="bold red"))
    for problem in report.problems:
        print_problem(console, problem)
    return None


def load_kernel(err: Console) -> None:
    """Load the compiled double-dummy kernel before a command analyses (nothing without
    numba): from numba's cache in a second or two, but compiled on the first run on a
    machine, which takes up to a minute. A terminal sees a status line meanwhile; a compile
    is reported on ``err`` when done."""
    from spades_replay.analysis import kernel_name, prepare_kernel

    if kernel_name() == "python":
        return
    if err.is_terminal:
        with err.status(
            "loading the compiled double-dummy kernel (the first run on a machine compiles "
            "it: up to a minute)"
        ):
            seconds = prepare_kernel()
    else:
        seconds = prepare_kernel()
    if seconds >= COMPILE_NOTICE_SECONDS:
        err.print(
            text(
                err,
                f"compiled the double-dummy kernel in {seconds:.0f} s; later runs load it "
                "from numba's cache",
                style="dim",
            )
        )


COMPILE_NOTICE_SECONDS = 5.0
"""A kernel load at least this long was a compile, and is reported."""


def add_jobs_option(
    parser: argparse.ArgumentParser, what: str = "worker processes (default 1; 0 = one per core)"
) -> None:
    """``-j/--jobs N``: how many worker processes run the command's work on this machine."""
    parser.add_argument("-j", "--jobs", type=jobs_count, default=1, metavar="N", help=what)


def add_scheduler_option(parser: argparse.ArgumentParser) -> None:
    """``--scheduler ADDRESS``: run the command's work on a Dask cluster (docs/scale.md)."""
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run on a Dask cluster instead of --jobs: tcp://HOST:PORT of a running "
        "scheduler, or local / local:N to start N worker processes for the run; the same "
        "output as --jobs (needs spades-replay[cluster]; see docs/scale.md)",
    )


@contextlib.contextmanager
def workers_of(arguments: argparse.Namespace) -> Iterator[Jobs]:
    """Where the command's work runs: ``--jobs`` worker processes, or the Dask cluster that
    ``--scheduler`` names, opened for the block and closed after it. Cluster failures
    (Dask missing, a scheduler out of reach, work lost) become usage errors, exit 2."""
    address: str | None = getattr(arguments, "scheduler", None)
    if address is None:
        yield arguments.jobs
        return
    if arguments.jobs != 1:
        raise UsageError("--jobs and --scheduler exclude each other: the cluster has the workers")
    from spades_replay.plumbing.cluster import ClusterError, open_cluster

    try:
        with open_cluster(address) as cluster:
            yield cluster
    except ClusterError as error:
        raise UsageError(safe(str(error), 1000)) from None
