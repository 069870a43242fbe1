"""Validation of records and corpora: every problem of every record, and a summary.

:func:`validate_bytes` checks one record (parse, schema, legal replay, scoring, claims) and
never raises for a bad record: it reports. :class:`CorpusValidation` does the same for files,
directories and ``.jsonl`` corpora of any size, streaming, optionally on several processes,
and keeps going after every problem.
"""

from __future__ import annotations

import contextlib
import os
from collections import Counter
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

import orjson

from spades_replay.errors import Code, FormatError, InputError, Problem
from spades_replay.plumbing.corpus import (
    CHUNK_BYTES,
    PIECE_LINES,
    Source,
    Task,
    expand,
    pieces,
    plan,
    read_here,
    read_task,
    whole_json,
)
from spades_replay.plumbing.limits import DEFAULT_LIMITS, Limits
from spades_replay.plumbing.parallel import Jobs, ProgressCallback, ordered_map, workers
from spades_replay.record.header import refuse_early
from spades_replay.record.shape import accepts
from spades_replay.replayer.verify import GameFigures, verify

if TYPE_CHECKING:
    from spades_replay.record.models import AnyRecord
    from spades_replay.replayer.replay import Replay


class Player(Protocol):
    """A player as a :class:`Verified` game names one."""

    @property
    def name(self) -> str:
        """The name shown."""

    @property
    def id(self) -> str | None:
        """The stable id, if the record gives one."""


class Seated(NamedTuple):
    """A player of a record the fast path accepted: the name shown and the stable id."""

    name: str
    id: str | None


class Verified(NamedTuple):
    """A valid record's figures (:func:`spades_replay.replayer.verify.verify`), game id and
    players: what a :class:`Sink` receives. :attr:`record` gives the record itself (the
    format's models), and ``check(game.record)`` its full :class:`Replay`, when needed.
    ``seats`` are its players as read: parsed objects (the accept path) or the models'."""

    figures: GameFigures
    game_id: str | None
    seats: Sequence[Any]
    data: bytes
    limits: Limits = DEFAULT_LIMITS

    @property
    def players(self) -> tuple[Player, ...]:
        """The players, each with its name and stable id."""
        return tuple(
            Seated(seat["name"], seat.get("id")) if isinstance(seat, dict) else seat
            for seat in self.seats
        )

    @property
    def record(self) -> AnyRecord:
        """The record, loaded by the format's models from :attr:`data` on each read (the fast
        path never builds it: only a sink that needs the models pays for them)."""
        from spades_replay.record.io import loads

        return loads(self.data, self.limits)


class Sink(Protocol):
    """Takes every valid record of a task with its figures, in order (in the worker
    process)."""

    def add(self, game: Verified, path: str, line: int | None) -> None:
        """Take one valid record, from ``path`` (at ``line`` of a corpus, counted from the
        start of the task's range: ``on_sink`` receives the offset that makes it absolute)."""


class RecordReport(NamedTuple):
    """The verdict on one record: where it came from, what it is, and its problems."""

    source: str | None
    line: int | None
    game_id: str | None
    variant: str | None
    hands: int
    complete: bool | None
    problems: tuple[Problem, ...]

    @property
    def valid(self) -> bool:
        """Whether the record has no problem."""
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data."""
        return {
            "source": self.source,
            "line": self.line,
            "game_id": self.game_id,
            "variant": self.variant,
            "valid": self.valid,
            "hands": self.hands,
            "complete": self.complete,
            "problems": [problem.to_dict() for problem in self.problems],
        }


def _peek(data: bytes) -> tuple[str | None, str | None]:
    """Best-effort game id and variant of bytes that failed to load, for the report."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None, None
    if not isinstance(value, dict):
        return None, None
    game_id, variant = value.get("game_id"), value.get("variant")
    return (
        game_id if isinstance(game_id, str) else None,
        variant if variant in ("two-player", "four-player") else None,
    )


def _loaded(
    data: bytes, source: str | None, line: int | None, limits: Limits
) -> AnyRecord | RecordReport:
    """The record in ``data``, or the report of why it is not one. A document refused by its
    size, its opening or its header is refused without the models (nor pydantic) being
    loaded: a corpus of such lines is read in the memory a valid one takes."""
    try:
        refuse_early(data, limits)
        from spades_replay.record.io import loads

        return loads(data, limits)
    except FormatError as error:
        opens_an_object = all(
            problem.code is not Code.FORMAT_NOT_OBJECT for problem in error.problems
        )
        game_id, variant = _peek(data) if opens_an_object else (None, None)
        problems = tuple(problem.located(source, line) for problem in error.problems)
        return RecordReport(source, line, game_id, variant, 0, None, problems)


def _checked(
    record: AnyRecord, source: str | None, line: int | None
) -> tuple[RecordReport, Replay | None]:
    """The engine's verdict on a loaded record, and its replay when it is valid."""
    from spades_replay.replayer.replay import check

    replayed, found = check(record)
    problems = tuple(problem.located(source, line) for problem in found)
    complete = replayed.result.complete if replayed is not None else None
    report = RecordReport(
        source, line, record.game_id, record.variant, len(record.hands), complete, problems
    )
    return report, replayed if not problems else None


def check_bytes(
    data: bytes,
    source: str | None = None,
    line: int | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> tuple[RecordReport, Replay | None]:
    """Check one record's bytes completely: the report, and the full replay when it is
    valid (for callers that show or analyse it; :func:`verify_bytes` is faster)."""
    loaded = _loaded(data, source, line, limits)
    if isinstance(loaded, RecordReport):
        return loaded, None
    return _checked(loaded, source, line)


def _accepted(data: bytes, limits: Limits) -> dict[str, Any] | None:
    """The record in ``data`` parsed by orjson, if the shape check accepts it (so the models
    would); ``None`` for anything else, which the models explain. Only what opens an object
    is parsed (a large array is never built only to be refused)."""
    if data[:1] != b"{" or len(data) > limits.record_bytes:
        return None
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    return value if accepts(value, limits) else None


def verify_bytes(
    data: bytes,
    source: str | None = None,
    line: int | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> tuple[RecordReport, Verified | None]:
    """Check one record's bytes completely, the fast way: the report, and the valid game
    with its figures when it is valid.

    The fast path parses with orjson, checks the shape without the models
    (:func:`spades_replay.record.shape.accepts`) and verifies the play
    (:mod:`spades_replay.replayer.verify`), so a clean record never builds the models nor a
    :class:`Replay`. Anything else goes to :func:`check_bytes` (the models, then the engine's
    :func:`~spades_replay.replayer.replay.check`), so the report is the one it gives, every
    problem explained by the models or the engine.
    """
    value = _accepted(data, limits)
    if value is not None:
        figures = verify(value)
        if figures is not None:
            report = _clean(value, figures, source, line)
            return report, Verified(figures, report.game_id, value["players"], data, limits)
    report, replayed = check_bytes(data, source, line, limits)
    if replayed is None:
        return report, None
    from spades_replay.replayer.replay import figures_of

    verified = Verified(figures_of(replayed), replayed.game_id, replayed.players, data, limits)
    return report, verified


def _clean(
    value: dict[str, Any], figures: GameFigures, source: str | None, line: int | None
) -> RecordReport:
    """The report on a clean record, parsed as ``value``."""
    hands = len(value["hands"])
    return RecordReport(
        source, line, value.get("game_id"), value["variant"], hands, figures.complete, ()
    )


def validate_bytes(
    data: bytes,
    source: str | None = None,
    line: int | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> RecordReport:
    """Check one record's bytes completely; report every problem, raise for none. The
    report of :func:`verify_bytes`, without building each hand's figures for a clean
    record."""
    value = _accepted(data, limits)
    if value is not None:
        figures = verify(value, hands=False)
        if figures is not None:
            return _clean(value, figures, source, line)
    return check_bytes(data, source, line, limits)[0]


class Summary:
    """Counts over everything validated so far. ``records``, ``valid``, ``invalid`` and
    ``codes`` count every record; ``hands``, ``complete`` and ``unfinished`` count the valid
    records only (an invalid record's hands and ending are not known to be real). A plain
    class: the validate command makes the class at import, where a dataclass would compile its
    methods."""

    __slots__ = (
        "bytes",
        "codes",
        "complete",
        "files",
        "hands",
        "invalid",
        "io_errors",
        "records",
        "unfinished",
        "valid",
    )

    def __init__(self, files: int = 0, bytes: int = 0) -> None:
        self.files = files
        self.bytes = bytes
        self.records = self.hands = self.valid = self.invalid = 0
        self.complete = self.unfinished = 0
        self.codes: Counter[str] = Counter()
        self.io_errors: list[Problem] = []

    def add(self, report: RecordReport) -> None:
        """Count one record."""
        self.records += 1
        if not report.valid:
            self.invalid += 1
            self.codes.update(problem.code.value for problem in report.problems)
            return
        self.valid += 1
        self.hands += report.hands
        if report.complete is True:
            self.complete += 1
        elif report.complete is False:
            self.unfinished += 1

    def merge(self, other: Summary) -> None:
        """Add another summary's counts to this one."""
        self.files += other.files
        self.records += other.records
        self.hands += other.hands
        self.valid += other.valid
        self.invalid += other.invalid
        self.complete += other.complete
        self.unfinished += other.unfinished
        self.bytes += other.bytes
        self.codes.update(other.codes)
        self.io_errors.extend(other.io_errors)

    def to_dict(self) -> dict[str, Any]:
        """The summary as JSON-ready data (codes sorted)."""
        return {
            "files": self.files,
            "records": self.records,
            "hands": self.hands,
            "valid": self.valid,
            "invalid": self.invalid,
            "invalid_by_code": dict(sorted(self.codes.items())),
            "games_complete": self.complete,
            "games_unfinished": self.unfinished,
            "io_errors": [problem.to_dict() for problem in self.io_errors],
        }


class TaskResult(NamedTuple):
    """What one task found: its counts, the reports to show, and how many lines it read;
    when asked, ``offsets``: the (line, byte offset) of every record read, in order.
    ``path`` and ``size`` are the task's (:class:`~spades_replay.plumbing.corpus.Task`)."""

    lines: int
    summary: Summary
    reports: tuple[RecordReport, ...]
    sink: Sink | None = None
    offsets: tuple[tuple[int | None, int], ...] = ()
    path: str = ""
    size: int = 0


def oversize_report(source: Source, limits: Limits) -> RecordReport:
    """The report on a record too large to read."""
    problem = Problem(
        Code.FORMAT_LIMIT,
        f"the record exceeds the size limit of {limits.record_bytes} bytes; it was skipped unread",
        source=source.path,
        line=source.line,
    )
    return RecordReport(source.path, source.line, None, None, 0, None, (problem,))


def pretty_corpus_report(source: Source, following: bytes | None = None) -> RecordReport | None:
    """The report on a ``.jsonl`` corpus whose first line opens a record it does not close
    (``{`` or ``[`` alone): a pretty-printed record misnamed as a corpus, which would
    otherwise give one error per line. ``None`` for any other first line, and when the line
    ``following`` it (if known) is a whole JSON value: then the file is a corpus after all."""
    if source.line != 1 or source.data.strip() not in (b"{", b"["):
        return None
    if following is not None and whole_json(following):
        return None
    problem = Problem(
        Code.FORMAT_JSON,
        f"a .jsonl corpus holds one whole record per line, but line 1 is only "
        f"{source.data.strip().decode()!r}: this looks like a pretty-printed record; name the "
        "file .json, or write each record on one line",
        source=source.path,
        line=1,
    )
    return RecordReport(source.path, 1, None, None, 0, None, (problem,))


def run_task(
    task: Task,
    keep_valid: bool = False,
    limits: Limits = DEFAULT_LIMITS,
    sink: Sink | None = None,
    offsets: bool = False,
) -> TaskResult:
    """Validate every record of a task (a whole file or a range of a corpus), handing each
    valid record with its figures to ``sink``; with ``offsets``, note where each record
    starts (:attr:`TaskResult.offsets`).

    Line numbers in the reports are relative to the task's range; :class:`CorpusValidation`
    makes them absolute.
    """
    summary = Summary(files=1 if task.start == 0 else 0, bytes=task.size)
    reports: list[RecordReport] = []
    starts: list[tuple[int | None, int]] = []
    lines = 0
    # the last invalid line and its report: a line of the same bytes gets the same verdict,
    # moved to its own line, without being judged again (a decompression bomb repeats one
    # invalid line millions of times)
    last: tuple[bytes, RecordReport] | None = None

    def take(source: Source) -> None:
        nonlocal last
        verified = None
        if source.oversize:
            report = oversize_report(source, limits)
        elif last is not None and source.data == last[0]:
            report = _moved(last[1], source.line)
        else:
            # without a sink, no hand's figures are wanted
            if sink is None:
                report = validate_bytes(source.data, source.path, source.line, limits)
            else:
                report, verified = verify_bytes(source.data, source.path, source.line, limits)
            if not report.valid:
                last = (source.data, report)
        summary.add(report)
        if sink is not None and verified is not None:
            sink.add(verified, source.path, source.line)
        if keep_valid or not report.valid:
            reports.append(report)

    # a corpus whose line 1 opens a record alone is judged by its next line: a pretty-printed
    # record (one error for the file) unless that line is a whole JSON value
    first: Source | None = None
    try:
        for source in read_task(task, limits):
            lines += 1
            if source.blank:
                continue
            if offsets:
                starts.append((source.line, source.offset))
            if task.corpus and task.start == 0 and pretty_corpus_report(source) is not None:
                first = source
                continue
            if first is not None:
                pretty = pretty_corpus_report(first, source.data)
                if pretty is not None:
                    summary.add(pretty)
                    reports.append(pretty)
                    first = None
                    break
                take(first)
                first = None
            take(source)
        if first is not None:
            take(first)
    except InputError as error:
        summary.io_errors.append(error.problem)
    return TaskResult(lines, summary, tuple(reports), sink, tuple(starts), task.path, task.size)


def _work(
    keep_valid: bool, limits: Limits, sink: Callable[[], Sink] | None, task: Task
) -> TaskResult:
    """What a worker process runs for each task (bound to the rest by a picklable
    :func:`functools.partial`)."""
    return run_task(task, keep_valid, limits, sink() if sink is not None else None)


class CorpusValidation:
    """Validate everything under some paths; iterate for the reports, then read
    :attr:`summary`.

    Iteration yields the report of every invalid record (and of valid ones too when
    ``keep_valid``), in input order, with absolute ``.jsonl`` line numbers, whatever ``jobs``
    is. ``jobs`` is the number of worker processes (1: none; 0: one per core), or a cluster
    (:class:`~spades_replay.plumbing.parallel.Executor`); plain corpora are cut into ranges of
    ``chunk_bytes`` for them, and every corpus into pieces of at most ``piece_lines`` lines
    (:func:`~spades_replay.plumbing.corpus.pieces`). Reports are yielded as each piece is
    done and kept nowhere: memory is bounded by the pieces in flight, whatever the corpus
    holds.

    With ``sink``, each task (in its worker) hands every valid record (:class:`Verified`) to a sink
    made by ``sink()``; the filled sinks reach ``on_sink`` in the main process, in input
    order, with the number of lines before the task's range in its file. Stats are gathered
    this way.
    """

    def __init__(
        self,
        paths: Iterable[str | os.PathLike[str]],
        *,
        jobs: Jobs = 1,
        keep_valid: bool = False,
        progress: ProgressCallback | None = None,
        limits: Limits = DEFAULT_LIMITS,
        chunk_bytes: int = CHUNK_BYTES,
        sink: Callable[[], Sink] | None = None,
        on_sink: Callable[[Sink, int], None] | None = None,
        piece_lines: int = PIECE_LINES,
    ) -> None:
        self.summary = Summary()
        self._chunk_bytes = chunk_bytes
        self._piece_lines = piece_lines
        self._limits = limits
        self._paths = list(paths)
        self._jobs = workers(jobs)
        self._worker = partial(_work, keep_valid, limits, sink)
        self._on_sink = on_sink
        self._progress = progress

    def _tasks(self) -> list[Task]:
        files = list(expand(self._paths, on_problem=self.summary.io_errors.append))
        return plan(files, self._chunk_bytes)

    def _results(self, tasks: list[Task]) -> Generator[TaskResult, None, None]:
        cut = pieces(tasks, self._limits, self._piece_lines, self._chunk_bytes)
        # no more workers than tasks, unless one is read in pieces of unknown number
        jobs = self._jobs if any(map(read_here, tasks)) else workers(self._jobs, len(tasks))
        yield from ordered_map(self._worker, cut, jobs, preload=["spades_replay.replayer.validate"])

    def __iter__(self) -> Iterator[RecordReport]:
        tasks = self._tasks()
        # closing(): if the caller stops early (or is interrupted), the workers stop at once
        results = self._results(tasks)
        with contextlib.closing(results):
            yield from self._reports(tasks, results)

    def _reports(self, tasks: list[Task], results: Iterator[TaskResult]) -> Iterator[RecordReport]:
        total = sum(task.size for task in tasks)
        done = 0
        lines_before: dict[str, int] = {}
        for result in results:
            offset = lines_before.get(result.path, 0)
            lines_before[result.path] = offset + result.lines
            self.summary.merge(result.summary)
            if self._on_sink is not None and result.sink is not None:
                self._on_sink(result.sink, offset)
            done += result.size
            if self._progress is not None:
                self._progress(done, total)
            for report in result.reports:
                yield _shift(report, offset) if offset else report


def _shift(report: RecordReport, offset: int) -> RecordReport:
    return _moved(report, None if report.line is None else report.line + offset)


def _moved(report: RecordReport, line: int | None) -> RecordReport:
    """The same report, and its problems, on another line of the same file."""
    problems = tuple(problem.located(problem.source, line) for problem in report.problems)
    return RecordReport(
        report.source,
        line,
        report.game_id,
        report.variant,
        report.hands,
        report.complete,
        problems,
    )
