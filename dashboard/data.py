"""Reading records for the dashboard, and caching what was read: the only module that uses
``st.cache_data``.

Every cache is keyed on paths and content digests (the sha256 of the bytes), never on model
objects: a file's digest is itself cached on its path, size and modification time, so an
unchanged corpus is hashed once and an edited one is read again. Uploads are keyed on the
digest of their bytes, which are parsed in memory only and capped (:data:`UPLOAD_BYTES`).

Records are read one by one (:class:`Reader`), so that a corpus of thousands of games loads
under a progress bar and every game keeps its exact place (file and line) for the Replay
page, which replays one game at a time from that place. Invalid records are kept as reports
(shown, never counted); a path that cannot be read at all is a problem of the load, not an
error of the app.

The What-if page's rescoring of the games shown (:func:`rescore_games`) is cached on their
places, digests and the options changed.

The double-dummy analysis (docs/analysis.md) is cached here too: a hand's
:class:`~spades_replay.analysis.HandAnalysis` and the values of the legal cards at one of its
plays, keyed on the game's place and digest, the hand, the card and the time cap; a corpus's
``seat_analysis`` table on the places and digests of its games. Four-player hands are
analysed in the background (:func:`background`), never under a page's run.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl
import streamlit as st

from spades_replay.analysis import (
    HandAnalysis,
    SearchTimeoutError,
    analyze_hand,
    kernel_name,
    new_solver,
    position_before,
)
from spades_replay.engine.cards import Card
from spades_replay.engine.rules import RuleValue
from spades_replay.errors import Code, InputError, Problem
from spades_replay.plumbing.corpus import (
    Source,
    Task,
    expand,
    is_corpus,
    is_gzip_name,
    read_at,
    read_memory,
    read_task,
    sample_paths,
)
from spades_replay.plumbing.limits import DEFAULT_LIMITS, Limits
from spades_replay.replayer.replay import HandReplay, Replay
from spades_replay.replayer.rescore import CorpusRescore, Rescore, RescoreError, rescore
from spades_replay.replayer.validate import RecordReport, check_bytes, oversize_report, verify_bytes
from spades_replay.stats.double_dummy import HandList, analysis_table
from spades_replay.stats.tables import TableRows, Tables, game_name

UPLOAD_BYTES = DEFAULT_LIMITS.record_bytes
"""The largest upload taken (after decompression): the size limit of one record. Larger
corpora are read from disk: ``spades-replay dashboard PATH``."""

SEAT_SCHEMA: dict[str, Any] = {
    "game": pl.Int64,
    "seat": pl.Int64,
    "player": pl.String,
    "player_key": pl.String,
}
"""The columns of :attr:`Loaded.seats`: who sat where in every game, finished or not."""

FILE, UPLOAD = "file", "upload"
"""Where a game came from: a file on disk, or an upload held in memory."""


@dataclass(frozen=True, slots=True)
class GameRef:
    """Where one valid game is: a file (or upload) by name, the line of a ``.jsonl`` corpus
    (``None`` for a record file), and the digest of the whole file's bytes; in a store, also
    the byte offset where the record starts, and the file's (size, modification time) when
    it was ingested (while they hold, the digest is not taken again)."""

    origin: str
    name: str
    line: int | None
    digest: str
    offset: int | None = None
    stamp: tuple[int, int] | None = None

    @property
    def where(self) -> str:
        """The place in words: ``fixtures/corpus/two-player.jsonl:3``, ``upload game.json``."""
        place = self.name if self.origin == FILE else f"upload {self.name}"
        return place if self.line is None else f"{place}:{self.line}"

    @property
    def key(self) -> str:
        """A stable identifier for widgets: the same game gives the same key on every run."""
        return f"{self.origin}|{self.digest[:16]}|{self.line or 0}|{self.name}"


@dataclass(frozen=True)
class Loaded:
    """Everything read: the stats tables of the valid games, who sat where, where each game
    is (``refs[n]`` is game ``n`` of the tables), the reports of invalid records, and the
    inputs that could not be read at all."""

    tables: Tables
    seats: pl.DataFrame
    refs: tuple[GameRef, ...]
    invalid: tuple[RecordReport, ...]
    problems: tuple[Problem, ...]
    records: int
    where: Callable[[int], GameRef] | None = None

    def ref(self, game: int) -> GameRef:
        """Where game number ``game`` is (asked of the store when the data is one)."""
        if self.where is not None:
            return self.where(game)
        return self.refs[game]


@dataclass(frozen=True, slots=True)
class Upload:
    """An uploaded file, in memory: its name (as the browser sent it), its bytes (empty when
    it is over :data:`UPLOAD_BYTES` and was never read), its size and digest."""

    name: str
    data: bytes
    size: int
    digest: str

    @classmethod
    def of(cls, name: str, data: bytes) -> Upload:
        """An upload of ``data``."""
        return cls(name, data, len(data), hashlib.sha256(data).hexdigest())

    @classmethod
    def too_big(cls, name: str, size: int) -> Upload:
        """An upload over the cap, left unread."""
        return cls(name, b"", size, f"unread-{size}-{hashlib.sha256(name.encode()).hexdigest()}")


@dataclass
class Reader:
    """Turns records, one at a time, into table rows, game references and reports. A game
    without an id is named as ``stats`` names it: after its number in its file."""

    limits: Limits = DEFAULT_LIMITS
    rows: TableRows = field(default_factory=TableRows)
    seats: dict[str, list[Any]] = field(default_factory=lambda: {name: [] for name in SEAT_SCHEMA})
    refs: list[GameRef] = field(default_factory=list)
    invalid: list[RecordReport] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    records: int = 0
    file_games: dict[str, int] = field(default_factory=dict)

    def add(self, source: Source, origin: str, digest: str) -> None:
        """Check one record (a line or a whole file) and keep its rows, or its report."""
        if source.blank:
            return
        self.records += 1
        if source.oversize:
            self.invalid.append(oversize_report(source, self.limits))
            return
        report, verified = verify_bytes(source.data, source.path, source.line, self.limits)
        if verified is None:
            self.invalid.append(report)
            return
        ref = GameRef(origin, source.path, source.line, digest)
        game = len(self.refs)
        record = verified.record
        in_file = self.file_games.get(source.path, 0)
        self.file_games[source.path] = in_file + 1
        game_id = record.game_id or game_name(in_file)
        self.rows.add(verified.figures, record.players, game_id, game, source.path, source.line)
        for seat, player in enumerate(record.players):
            self.seats["game"].append(game)
            self.seats["seat"].append(seat)
            self.seats["player"].append(player.name)
            self.seats["player_key"].append(player.name if player.id is None else player.id)
        self.refs.append(ref)

    def loaded(self) -> Loaded:
        """What was read so far."""
        return Loaded(
            self.rows.tables(),
            pl.DataFrame(self.seats, schema=SEAT_SCHEMA),
            tuple(self.refs),
            tuple(self.invalid),
            tuple(self.problems),
            self.records,
        )


def upload_sources(upload: Upload, limits: Limits = DEFAULT_LIMITS) -> Iterator[Source]:
    """The records of an upload, read as a file of its name is (:func:`read_memory`), at
    most :data:`UPLOAD_BYTES` of it once decompressed. Raises :class:`InputError` for an
    upload that is too large or not valid gzip."""
    if upload.size > UPLOAD_BYTES:
        raise InputError(
            Problem(
                Code.FORMAT_LIMIT,
                f"{upload.name} is {upload.size} bytes; an upload may hold at most "
                f"{UPLOAD_BYTES} bytes (give larger corpora as paths: spades-replay dashboard "
                "PATH)",
                source=upload.name,
            )
        )
    yield from read_memory(upload.name, upload.data, limits, UPLOAD_BYTES)


def read_upload(upload: Upload, limits: Limits = DEFAULT_LIMITS) -> Loaded:
    """Every record of an upload, checked."""
    reader = Reader(limits)
    try:
        for source in upload_sources(upload, limits):
            reader.add(source, UPLOAD, upload.digest)
    except InputError as error:
        reader.problems.append(error.problem)
    return reader.loaded()


NOT_A_RECORD = "no 'format' key"
"""How the reader words a JSON object that does not claim to be a record at all."""


def not_records(reports: Iterable[RecordReport]) -> tuple[RecordReport, ...]:
    """Of the reports of invalid records, those of JSON files that do not claim to be
    records at all (an object without a ``format`` key, such as the expected verdicts that
    ``fixtures/invalid/EXPECTED.json`` keeps beside its broken records): they are named apart,
    never counted among the invalid records."""
    return tuple(
        report
        for report in reports
        if report.problems
        and report.problems[0].code is Code.FORMAT_NOT_A_RECORD
        and NOT_A_RECORD in report.problems[0].message
    )


def expected_bytes(path: str) -> int:
    """How many bytes reading ``path`` gives, for a progress bar: its size, or for ``.gz``
    the uncompressed size its trailer records."""
    size = os.path.getsize(path)
    if not is_gzip_name(path) or size < 4:
        return size
    with open(path, "rb") as stream:
        stream.seek(-4, os.SEEK_END)
        return max(int.from_bytes(stream.read(4), "little"), 1)


LoadProgress = Callable[[int, int, int], None]
"""Called with (bytes read, bytes expected, records read) as a load goes."""


def read_files(
    files: Sequence[tuple[str, str]],
    limits: Limits = DEFAULT_LIMITS,
    progress: LoadProgress | None = None,
) -> Loaded:
    """Every record of some files, given as (path, digest), in order; ``progress`` hears of
    each record read."""
    reader = Reader(limits)
    total = 0
    for path, _ in files:
        try:
            total += expected_bytes(path)
        except OSError:
            continue
    done = 0
    for path, digest in files:
        try:
            for source in read_task(Task(path, is_corpus(Path(path))), limits):
                reader.add(source, FILE, digest)
                done += len(source.data) + 1
                if progress is not None:
                    progress(done, total, reader.records)
        except InputError as error:
            reader.problems.append(error.problem)
    return reader.loaded()


def _renumbered(frame: pl.DataFrame, offset: int) -> pl.DataFrame:
    return frame.with_columns(pl.col("game") + offset) if offset else frame


def combine(parts: Sequence[Loaded], problems: Sequence[Problem] = ()) -> Loaded:
    """Several loads as one, games numbered on from one part to the next."""
    if len(parts) == 1 and not problems:
        return parts[0]
    empty = Reader().loaded()
    offsets = []
    count = 0
    for part in parts:
        offsets.append(count)
        count += len(part.refs)
    every = [empty, *parts]
    shifts = [0, *offsets]
    return Loaded(
        Tables(
            pl.concat(
                [_renumbered(p.tables.seat_hands, o) for p, o in zip(every, shifts, strict=True)]
            ),
            pl.concat(
                [_renumbered(p.tables.side_hands, o) for p, o in zip(every, shifts, strict=True)]
            ),
            pl.concat([_renumbered(p.tables.games, o) for p, o in zip(every, shifts, strict=True)]),
        ),
        pl.concat([_renumbered(p.seats, o) for p, o in zip(every, shifts, strict=True)]),
        tuple(ref for part in parts for ref in part.refs),
        tuple(report for part in parts for report in part.invalid),
        (*problems, *(problem for part in parts for problem in part.problems)),
        sum(part.records for part in parts),
    )


def store_path(argv: Sequence[str], entry: str) -> str | None:
    """The store the dashboard shows, when Streamlit gave this entry script
    ``--store DIR`` (``streamlit run app.py -- --store DIR``); else ``None``."""
    script = Path(entry).resolve()
    if len(argv) == 3 and Path(argv[0]).resolve() == script and argv[1] == "--store":
        return argv[2]
    return None


def data_paths(argv: Sequence[str], entry: str) -> tuple[str, ...]:
    """The paths the dashboard shows: the arguments Streamlit gave this entry script
    (``streamlit run app.py -- PATH...``); without any, the sample records of the
    ``fixtures/`` folder of the checkout the script is in (all but ``fixtures/invalid``: see
    :func:`~spades_replay.plumbing.corpus.sample_paths`), when there is one; else none (uploads
    only)."""
    script = Path(entry).resolve()
    if len(argv) > 1 and Path(argv[0]).resolve() == script:
        return tuple(argv[1:])
    fixtures = script.parents[1] / "fixtures"
    if not fixtures.is_dir():
        return ()
    with contextlib.suppress(ValueError):
        fixtures = fixtures.relative_to(Path.cwd())
    return tuple(sample_paths(fixtures))


@dataclass(frozen=True)
class Scan:
    """The files under the paths, each with its digest, and the paths that failed."""

    files: tuple[tuple[str, str], ...]
    problems: tuple[Problem, ...]


@st.cache_data(show_spinner=False, max_entries=4096)
def _digest(path: str, size: int, mtime_ns: int) -> str:
    """The sha256 of a file's bytes; cached on its path, size and modification time."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        while chunk := stream.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def scan(paths: Sequence[str]) -> Scan:
    """Every record file under ``paths``, with the digest of its bytes."""
    files: list[tuple[str, str]] = []
    problems: list[Problem] = []
    for path in paths:
        for file in expand([path], on_problem=problems.append):
            name = str(file)
            try:
                stat = file.stat()
                files.append((name, _digest(name, stat.st_size, stat.st_mtime_ns)))
            except OSError as error:
                problems.append(
                    Problem(
                        Code.IO_UNREADABLE,
                        f"cannot read {name}: {error.strerror or error}",
                        source=name,
                    )
                )
    return Scan(tuple(files), tuple(problems))


@st.cache_data(show_spinner=False, max_entries=4)
def _load_files(files: tuple[tuple[str, str], ...]) -> Loaded:
    """The records of some files, read under a progress bar (which is gone once done)."""
    bar = st.progress(0.0, text="Reading records…")
    shown = [0.0]

    def progress(done: int, total: int, records: int) -> None:
        fraction = min(done / total, 1.0) if total else 1.0
        if fraction - shown[0] >= 0.02:
            shown[0] = fraction
            bar.progress(fraction, text=f"Reading records… {records} read")

    loaded = read_files(files, progress=progress)
    bar.empty()
    return loaded


@st.cache_data(show_spinner=False, max_entries=8)
def _load_upload(name: str, digest: str, _upload: Upload) -> Loaded:
    """The records of an upload; cached on its name and digest."""
    return read_upload(_upload)


def load(found: Scan, uploads: Sequence[Upload] = ()) -> Loaded:
    """Everything to show: the records of the scanned files, then those of the uploads."""
    parts = [_load_files(found.files)] if found.files else []
    parts.extend(_load_upload(upload.name, upload.digest, upload) for upload in uploads)
    return combine(parts, found.problems)


def check_upload(upload: Upload) -> Loaded:
    """One upload checked, for the Validate page (cached on its name and digest)."""
    return _load_upload(upload.name, upload.digest, upload)


def _replayed(source: Source) -> Replay | None:
    if source.oversize:
        return None
    return check_bytes(source.data, source.path, source.line)[1]


@st.cache_data(show_spinner=False, max_entries=64)
def _replay_file(
    path: str,
    line: int | None,
    digest: str,
    offset: int | None = None,
    stamp: tuple[int, int] | None = None,
) -> Replay | None:
    """The replay of the record at ``path`` (``line`` of a corpus; read from byte ``offset``
    when it is known, else found by reading the lines before it); cached on its digest.
    ``None`` when the file changed since its digest was taken."""
    try:
        if offset is not None:
            stat = os.stat(path)
            same = stamp == (stat.st_size, stat.st_mtime_ns)
            if not same and _digest(path, stat.st_size, stat.st_mtime_ns) != digest:
                return None
            return _replayed(read_at(path, offset, line))
        for source in read_task(Task(path, is_corpus(Path(path)))):
            if source.line == line:
                return _replayed(source)
    except (InputError, OSError):
        return None
    return None


@st.cache_data(show_spinner=False, max_entries=64)
def _replay_upload(name: str, line: int | None, digest: str, _upload: Upload) -> Replay | None:
    """The replay of a record of an upload; cached on the upload's name and digest."""
    try:
        for source in upload_sources(_upload):
            if source.line == line:
                return _replayed(source)
    except InputError:
        return None
    return None


def replay_of(ref: GameRef, uploads: dict[str, Upload]) -> Replay | None:
    """The replay of one game, or ``None`` if its file changed or went away since it was
    read (or its upload is gone)."""
    if ref.origin == FILE:
        return _replay_file(ref.name, ref.line, ref.digest, ref.offset, ref.stamp)
    upload = uploads.get(ref.digest)
    if upload is None:
        return None
    return _replay_upload(upload.name, ref.line, upload.digest, upload)


def fast_solver() -> bool:
    """Whether the compiled double-dummy kernel is there (numba installed, not turned off):
    then four-player hands are analysed as soon as they are shown."""
    return kernel_name() == "compiled"


@st.cache_data(show_spinner=False, max_entries=512)
def _hand_analysis(
    origin: str,
    name: str,
    line: int | None,
    digest: str,
    number: int,
    time_cap: float | None,
    _hand: HandReplay,
) -> HandAnalysis:
    """The analysis of hand ``number`` of the game at that place; cached on the place, the
    digest, the hand number and the time cap."""
    return analyze_hand(_hand, time_cap=time_cap)


def hand_analysis(ref: GameRef, hand: HandReplay, time_cap: float | None) -> HandAnalysis:
    """The double-dummy analysis of one hand of the game at ``ref`` (cached)."""
    return _hand_analysis(ref.origin, ref.name, ref.line, ref.digest, hand.number, time_cap, hand)


BACKGROUND_NICE = 10
"""The nice value of the thread that analyses hands in the background."""


def yielding() -> None:
    """Lower the calling thread's priority to :data:`BACKGROUND_NICE` (Linux, where a
    thread has its own nice value; never raised), so that the hands analysed in the
    background yield the cores to the browser and the pages while the reader steps
    (docs/performance.md, "The replay board"). Elsewhere nothing changes."""
    with contextlib.suppress(AttributeError, OSError):
        thread = threading.get_native_id()
        now = os.getpriority(os.PRIO_PROCESS, thread)
        os.setpriority(os.PRIO_PROCESS, thread, max(now, BACKGROUND_NICE))


class Background:
    """Four-player hands analysed in a thread of the server, one at a time, oldest asked
    first, so that no page waits for them: :meth:`ask` starts a hand (or says how it
    stands) and gives its analysis once there is one. What is done is kept for every
    session, the last :data:`KEPT` hands (the compiled kernel releases the GIL, so the
    server answers meanwhile)."""

    KEPT = 512

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="double-dummy", initializer=yielding
        )
        self._lock = threading.Lock()
        self._work: OrderedDict[tuple[object, ...], Future[HandAnalysis]] = OrderedDict()

    def ask(self, ref: GameRef, hand: HandReplay, time_cap: float | None) -> HandAnalysis | None:
        """The analysis of ``hand`` of the game at ``ref`` within ``time_cap``: started in
        the background the first time it is asked for; ``None`` until it is done."""
        key = (ref.origin, ref.name, ref.line, ref.digest, hand.number, time_cap)
        with self._lock:
            work = self._work.get(key)
            if work is None:
                work = self._pool.submit(analyze_hand, hand, time_cap=time_cap)
                self._work[key] = work
                while len(self._work) > self.KEPT:
                    self._work.popitem(last=False)
            self._work.move_to_end(key)
        return work.result() if work.done() else None


@st.cache_resource(show_spinner=False)
def background() -> Background:
    """The server's one :class:`Background`."""
    return Background()


@st.cache_data(show_spinner=False, max_entries=2048)
def _card_values(
    origin: str,
    name: str,
    line: int | None,
    digest: str,
    number: int,
    index: int,
    time_cap: float,
    guess: int | None,
    _hand: HandReplay,
) -> tuple[tuple[Card, int], ...] | None:
    """The legal cards before card ``index`` of hand ``number`` with their values, or
    ``None`` when the time cap struck first; cached like :func:`_hand_analysis`."""
    solver = new_solver(_hand.variant)
    solver.deadline = time.monotonic() + time_cap
    try:
        values = solver.card_values(position_before(_hand, index), guess)
    except SearchTimeoutError:
        return None
    return tuple(values.items())


def card_values(
    ref: GameRef, hand: HandReplay, index: int, time_cap: float, guess: int | None = None
) -> tuple[tuple[Card, int], ...] | None:
    """Every legal card before card ``index`` (0-based) of ``hand``, with the final trick
    count of the mover's side if she plays it (both sides then playing perfectly); ``None``
    if not found within ``time_cap`` seconds. ``guess``, the value of the card played when
    known, speeds the search up. Cached."""
    return _card_values(
        ref.origin, ref.name, ref.line, ref.digest, hand.number, index, time_cap, guess, hand
    )


@dataclass(frozen=True)
class CorpusAnalysis:
    """The ``seat_analysis`` table of some games (docs/stats.md), and the places of the games
    that could not be read again (their file changed or went away since it was loaded)."""

    table: pl.DataFrame
    unread: tuple[str, ...]


def _sources_of(
    origin: str, name: str, uploads: dict[str, Upload], digest: str
) -> Iterator[Source]:
    """The records of a file or an upload, read again; nothing when it changed or went away."""
    if origin == UPLOAD:
        upload = uploads.get(digest)
        if upload is not None:
            yield from upload_sources(upload)
        return
    stat = os.stat(name)
    if _digest(name, stat.st_size, stat.st_mtime_ns) != digest:
        return
    yield from read_task(Task(name, is_corpus(Path(name))))


def replays_of(
    games: Iterable[tuple[int, GameRef]], uploads: dict[str, Upload]
) -> tuple[dict[int, Replay], tuple[str, ...]]:
    """The replays of some games (number and place), each file read once; and the places
    not found."""
    wanted: dict[tuple[str, str, str], dict[int | None, int]] = {}
    for game, ref in games:
        wanted.setdefault((ref.origin, ref.name, ref.digest), {})[ref.line] = game
    found: dict[int, Replay] = {}
    unread: list[str] = []
    for (origin, name, digest), lines in wanted.items():
        try:
            for source in _sources_of(origin, name, uploads, digest):
                number = lines.get(source.line)
                if number is not None and not source.blank:
                    replayed = _replayed(source)
                    if replayed is not None:
                        found[number] = replayed
        except (InputError, OSError):
            pass  # what could not be read is reported as unread, just below
        for line, game in lines.items():
            if game not in found:
                unread.append(GameRef(origin, name, line, digest).where)
    return found, tuple(unread)


def games_of(
    games: Iterable[tuple[int, GameRef]], uploads: dict[str, Upload]
) -> tuple[HandList, tuple[str, ...]]:
    """The complete hands of some games, each file read once; and the places not found."""
    found, unread = replays_of(games, uploads)
    hands = HandList()
    for game in sorted(found):
        hands.add(found[game], game)
    return hands, unread


@st.cache_data(show_spinner=False, max_entries=8)
def _corpus_analysis(
    games: tuple[tuple[int, str, str, int | None, str], ...],
    time_cap: float | None,
    jobs: int,
    _uploads: dict[str, Upload],
    _seat_hands: pl.DataFrame,
) -> CorpusAnalysis:
    """The analysis of the complete hands of ``games`` (game number and place), under a
    progress bar that is gone once done; cached on the places, digests, cap and workers."""
    refs = [
        (game, GameRef(origin, name, line, digest)) for game, origin, name, line, digest in games
    ]
    hands, unread = games_of(refs, _uploads)
    bar = st.progress(0.0, text="Analysing hands…")

    def progress(done: int, total: int) -> None:
        fraction = done / total if total else 1.0
        bar.progress(fraction, text=f"Analysing hands… {done} of {total}")

    table = analysis_table(hands, _seat_hands, time_cap=time_cap, jobs=jobs, progress=progress)
    bar.empty()
    return CorpusAnalysis(table, unread)


def corpus_analysis(
    loaded: Loaded,
    tables: Tables,
    uploads: dict[str, Upload],
    *,
    time_cap: float | None,
    jobs: int,
) -> CorpusAnalysis:
    """The double-dummy analysis of every complete hand of the games in ``tables`` (games
    of ``loaded``), within ``time_cap`` seconds a hand on ``jobs`` worker processes
    (cached)."""
    games = tuple(
        (game, ref.origin, ref.name, ref.line, ref.digest)
        for game in tables.games.get_column("game").to_list()
        for ref in (loaded.ref(game),)
    )
    return _corpus_analysis(games, time_cap, jobs, uploads, tables.seat_hands)


@dataclass(frozen=True)
class WhatIf:
    """Games rescored with the same changes (docs/rules.md): each game's number and figures
    in input order, their summary, the games whose own rules refuse the changes (place and
    why), and the places that could not be read again."""

    games: tuple[tuple[int, Rescore], ...]
    summary: CorpusRescore
    refused: tuple[tuple[str, str], ...]
    unread: tuple[str, ...]


@st.cache_data(show_spinner=False, max_entries=16)
def _rescored(
    games: tuple[tuple[int, str, str, int | None, str], ...],
    changes: tuple[tuple[str, RuleValue], ...],
    _uploads: dict[str, Upload],
) -> WhatIf:
    """The games rescored; cached on their places and digests and the changes."""
    refs = {game: GameRef(origin, name, line, digest) for game, origin, name, line, digest in games}
    found, unread = replays_of(refs.items(), _uploads)
    rescored: list[tuple[int, Rescore]] = []
    refused: list[tuple[str, str]] = []
    for game in sorted(found):
        try:
            rescored.append((game, rescore(found[game], **dict(changes))))
        except RescoreError as error:
            refused.append((refs[game].where, str(error)))
    summary = CorpusRescore().extend(figures for _, figures in rescored)
    return WhatIf(tuple(rescored), summary, tuple(refused), unread)


def rescore_games(
    loaded: Loaded, tables: Tables, uploads: dict[str, Upload], changes: dict[str, RuleValue]
) -> WhatIf:
    """Every game of ``tables`` (games of ``loaded``) rescored with the scoring options
    ``changes`` (cached): the What-if page's one way to the corpus."""
    games = tuple(
        (game, ref.origin, ref.name, ref.line, ref.digest)
        for game in tables.games.get_column("game").to_list()
        for ref in (loaded.ref(game),)
    )
    return _rescored(games, tuple(sorted(changes.items())), uploads)
