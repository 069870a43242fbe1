"""Reading a store back: the stats tables exactly as ``stats PATH`` builds them, the reports
of its invalid records, its counts.

Games are numbered across the whole store in the order of the manifest's sources; a part
file numbers the games of its file from 0.

>>> import tempfile
>>> from spades_replay.store.ingest import ingest
>>> directory = tempfile.mkdtemp()
>>> _ = ingest(["fixtures/corpus/two-player.jsonl"], directory)
>>> store = Store.open(directory)
>>> store.tables().games.height == store.summary().valid
True
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spades_replay.errors import Code, Problem
from spades_replay.replayer.validate import RecordReport, Summary
from spades_replay.store.layout import (
    PARTS,
    Manifest,
    PartFile,
    SourceEntry,
    StoreError,
    damaged,
    open_manifest,
)
from spades_replay.text import safe

if TYPE_CHECKING:
    import polars as pl

    from spades_replay.stats.tables import LazyTables, Tables


def schemas() -> dict[str, dict[str, Any]]:
    """The columns of every table, in order, with their polars types."""
    from spades_replay.stats.double_dummy import ANALYSIS_SCHEMA, IDENTITY
    from spades_replay.stats.tables import GAME_SCHEMA, SEAT_HAND_SCHEMA, SIDE_HAND_SCHEMA
    from spades_replay.store.columns import PROBLEM_SCHEMA, RECORD_SCHEMA

    return {
        "games": GAME_SCHEMA,
        "side_hands": SIDE_HAND_SCHEMA,
        "seat_hands": SEAT_HAND_SCHEMA,
        "seat_analysis": {
            **{name: SEAT_HAND_SCHEMA[name] for name in IDENTITY},
            **{name: kind for name, kind in ANALYSIS_SCHEMA.items() if name not in IDENTITY},
        },
        "records": RECORD_SCHEMA,
        "problems": PROBLEM_SCHEMA,
    }


def _problem(row: dict[str, object]) -> Problem:
    legal = row["legal"]
    return Problem(
        Code(str(row["code"])),
        str(row["message"]),
        pointer=str(row["pointer"]),
        place=str(row["place"]),
        rule=str(row["rule"]),
        legal=tuple(str(item) for item in legal) if isinstance(legal, list) else (),
        hand=row["hand"],  # type: ignore[arg-type]
        trick=row["trick"],  # type: ignore[arg-type]
        card=row["card"],  # type: ignore[arg-type]
        seat=row["seat"],  # type: ignore[arg-type]
        player=row["player"],  # type: ignore[arg-type]
        source=row["source"],  # type: ignore[arg-type]
        line=row["line"],  # type: ignore[arg-type]
    )


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _schema(path: Path) -> list[tuple[str, Any]] | BaseException:
    """A part's columns, from its Parquet footer; or what stopped reading it."""
    import polars as pl

    try:
        return list(pl.read_parquet_schema(path).items())
    except (pl.exceptions.PolarsError, OSError) as error:
        return error


def _rows(paths: list[Path]) -> int | BaseException:
    """The rows of the parts at ``paths`` together, from their Parquet footers (one scan of
    them all); or what stopped reading them."""
    import polars as pl

    if not paths:
        return 0
    try:
        return int(pl.scan_parquet(paths).select(pl.len()).collect().item())
    except (pl.exceptions.PolarsError, OSError) as error:
        return error


def _unreadable(directory: Path, name: str, error: BaseException) -> StoreError:
    return damaged(
        directory,
        f"part {safe(name, 300)} is not a Parquet file, or is cut short "
        f"({safe(_first_line(error), 200)})",
    )


def _part_rows(directory: Path, name: str) -> int:
    """The rows of the part ``name``; the ``store.damaged`` error naming it where its
    footer cannot be read."""
    count = _rows([directory / name])
    if isinstance(count, BaseException):
        raise _unreadable(directory, name, count)
    return count


def verify_parts(directory: Path, manifest: Manifest) -> None:
    """Check what the manifest says of its part files against the files: each is Parquet
    (not other bytes, not cut short), holds its table's columns with their types, and the
    ``games`` and ``records`` rows of each source are as many as the manifest counts.

    A source whose manifest entry records every part's size and rows (``part_files``, which
    ingest writes) is checked without reading a file: the rows it records add up to the
    source's counts, and each part is the size it was written (a stat). Only a part of
    another size, or a source from a manifest that records none, has its Parquet footers
    read: each part's schema, then the rows of the source's ``games`` and of its
    ``records`` in one scan (a store of a million games has over a thousand parts, and
    reading their footers took a third of a second of every command that opened it).
    Raises the ``store.damaged`` :class:`~spades_replay.store.layout.StoreError` naming the
    first source, in the manifest's order, that fails, and the part where one is to blame.
    """
    for number, source in enumerate(manifest.sources):
        recorded = _recorded(source)
        if recorded is None:
            _check_footers(directory, number, source)
            continue
        for table in ("games", "records"):
            rows = sum(recorded[name].rows for name in source.parts.get(table, ()))
            _check_count(directory, number, source, table, rows)
        resized = _resized(directory, source, recorded)
        if resized is not None:
            _check_footers(directory, number, source)
            name, size = resized
            raise damaged(
                directory,
                f"part {safe(name, 300)} is {size} bytes, not the {recorded[name].size} "
                "it was written with",
            )


def _recorded(source: SourceEntry) -> dict[str, PartFile] | None:
    """The sizes and rows of a source's parts as ingest recorded them, when its entry
    records every one."""
    files = source.part_files
    if files is None or set(files) != {name for names in source.parts.values() for name in names}:
        return None
    return files


def _resized(
    directory: Path, source: SourceEntry, recorded: dict[str, PartFile]
) -> tuple[str, int] | None:
    """The first of a source's parts whose size is not the one recorded, with its size."""
    for names in source.parts.values():
        for name in names:
            try:
                size = os.stat(directory / name).st_size
            except OSError as error:
                raise _unreadable(directory, name, error) from None
            if size != recorded[name].size:
                return name, size
    return None


def _check_count(directory: Path, number: int, source: SourceEntry, table: str, rows: int) -> None:
    claimed = source.games if table == "games" else source.records
    if rows != claimed:
        raise damaged(
            directory,
            f"sources[{number}] counts {claimed} {table} but its {table} parts hold {rows} row(s)",
        )


def _check_footers(directory: Path, number: int, source: SourceEntry) -> None:
    """Check a source's parts by their Parquet footers: each part's columns, then the rows
    of its ``games`` and ``records`` against its counts."""
    expected = {table: list(schema.items()) for table, schema in schemas().items()}
    for table, names in source.parts.items():
        for name in names:
            columns = _schema(directory / name)
            if isinstance(columns, BaseException):
                raise _unreadable(directory, name, columns)
            if columns != expected[table]:
                wrong = _columns_wrong(columns, expected[table])
                raise damaged(directory, f"part {safe(name, 300)} {wrong}")
    for table in ("games", "records"):
        names = list(source.parts.get(table, ()))
        count = _rows([directory / name for name in names])
        if isinstance(count, BaseException):
            # one at a time, to name the part that stops the scan
            count = sum(_part_rows(directory, name) for name in names)
        _check_count(directory, number, source, table, count)


def with_part_files(directory: Path, manifest: Manifest) -> Manifest:
    """``manifest`` with every source's ``part_files``: those a manifest written before
    they were kept lacks are read from the parts (their sizes, and their rows from their
    footers). For a manifest :func:`verify_parts` has just passed."""
    sources = []
    for source in manifest.sources:
        if _recorded(source) is None:
            files = {
                name: PartFile(os.stat(directory / name).st_size, _part_rows(directory, name))
                for names in source.parts.values()
                for name in names
            }
            source = replace(source, part_files=files)
        sources.append(source)
    return replace(manifest, sources=tuple(sources))


def _columns_wrong(found: list[tuple[str, Any]], wanted: list[tuple[str, Any]]) -> str:
    """What differs between a part's columns and its table's."""
    names = [name for name, _ in found]
    for name, kind in wanted:
        if name not in names:
            return f"has no column {name}"
        had = dict(found)[name]
        if had != kind:
            return f"holds column {name} as {had}, not {kind}"
    extra = [name for name in names if name not in dict(wanted)]
    if extra:
        return f"holds a column its table has not: {safe(extra[0], 100)}"
    return "holds its table's columns in another order"


@dataclass(frozen=True)
class Store:
    """An open store: its directory and manifest, and where each source's games start."""

    directory: Path
    manifest: Manifest

    @classmethod
    def open(cls, directory: str | os.PathLike[str], *, verified: bool = False) -> Store:
        """Open the store in ``directory``, its manifest and part files checked
        (:func:`verify_parts`): :class:`~spades_replay.store.layout.StoreError` when there
        is none, one of another version, or a damaged one (``store.damaged``). With
        ``verified`` the parts are not checked against the manifest again: for a reader that
        opened the same manifest with them checked (the dashboard keys everything on its
        digest)."""
        store = cls(Path(directory), open_manifest(directory))
        if not verified:
            verify_parts(store.directory, store.manifest)
        return store

    @property
    def analysis(self) -> bool:
        """Whether the store holds ``seat_analysis``."""
        return self.manifest.analysis

    def bases(self) -> list[tuple[SourceEntry, int]]:
        """Every source with the number of the store's games before it."""
        found = []
        base = 0
        for source in self.manifest.sources:
            found.append((source, base))
            base += source.games
        return found

    def part_paths(self, table: str) -> list[tuple[Path, int]]:
        """The part files of ``table``, in game order, each with its games' base number."""
        return [
            (self.directory / name, base)
            for source, base in self.bases()
            for name in source.parts.get(table, ())
        ]

    def game_parts(self, table: str, game: int) -> list[tuple[Path, int]]:
        """The part files of ``table`` that hold game number ``game``, each with its base
        number (none when the store has no such game). Ingest writes a source's tables in
        step, one part file of each per flush under the same file name, so the part of
        ``games`` whose recorded rows reach the game names the one part of ``table`` that
        holds it (none when that flush wrote no row of ``table``). A source whose manifest
        entry does not record every part's rows (those :func:`verify_parts` checks) gives
        all of its parts."""
        for source, base in self.bases():
            if not base <= game < base + source.games:
                continue
            names = source.parts.get(table, [])
            recorded = _recorded(source)
            if recorded is not None:
                before = base
                for name in source.parts.get("games", []):
                    before += recorded[name].rows
                    if game < before:
                        same = f"{PARTS}/{table}/{name.rsplit('/', 1)[-1]}"
                        return [(self.directory / same, base)] if same in names else []
            return [(self.directory / name, base) for name in names]
        return []

    def table(self, table: str) -> pl.DataFrame:
        """One table of the whole store, in input order, numbered as ``stats`` numbers it."""
        import polars as pl

        schema = schemas()[table]
        frames = []
        for path, base in self.part_paths(table):
            try:
                frame = pl.read_parquet(path)
            except (pl.exceptions.PolarsError, OSError) as error:
                raise damaged(
                    self.directory,
                    f"part {self._name(path)} cannot be read ({safe(_first_line(error), 300)})",
                ) from None
            if "game" in frame.columns and base:
                frame = frame.with_columns(pl.col("game") + base)
            frames.append(frame)
        if not frames:
            return pl.DataFrame(schema=schema)
        return pl.concat(frames, how="vertical")

    def scan(self, table: str) -> pl.LazyFrame:
        """:meth:`table` as a lazy frame: the parts are read when a query of it is collected,
        and only the columns that query needs (a part that cannot be read then raises a
        polars error or an ``OSError``: :meth:`collect` names the store)."""
        import polars as pl

        schema = schemas()[table]
        frames = []
        for source, base in self.bases():
            names = source.parts.get(table, ())
            if not names:
                continue
            frame = pl.scan_parquet([self.directory / name for name in names], schema=schema)
            if "game" in schema and base:
                frame = frame.with_columns(pl.col("game") + base)
            frames.append(frame)
        if not frames:
            return pl.LazyFrame(schema=schema)
        return pl.concat(frames, how="vertical")

    def scans(self, analysis: bool = False) -> LazyTables:
        """:meth:`tables` as lazy frames (:meth:`scan`)."""
        from spades_replay.stats.tables import LazyTables

        return LazyTables(
            self.scan("seat_hands"),
            self.scan("side_hands"),
            self.scan("games"),
            self.scan("seat_analysis") if analysis else None,
        )

    def collect(self, *plans: pl.LazyFrame) -> list[pl.DataFrame]:
        """Each query of :meth:`scan`'s frames, run in turn with polars' streaming engine
        (one at a time: its memory is that of one query's groups); the ``store.damaged``
        error when a part cannot be read. A table read twice by one query is read twice:
        shared, it would be held whole in memory (the player metrics of a million games
        peaked at 5.4 GB so, 0.9 GB without)."""
        import polars as pl

        separate = pl.QueryOptFlags(comm_subplan_elim=False)
        try:
            return [plan.collect(engine="streaming", optimizations=separate) for plan in plans]
        except (pl.exceptions.PolarsError, OSError) as error:
            raise damaged(
                self.directory, f"a part cannot be read ({safe(_first_line(error), 300)})"
            ) from None

    def _name(self, path: Path) -> str:
        return safe(path.relative_to(self.directory).as_posix(), 300)

    def tables(self, analysis: bool = False) -> Tables:
        """The stats tables (with ``seat_analysis`` when ``analysis``, which needs a store
        ingested with the analysis)."""
        from spades_replay.stats.tables import Tables

        return Tables(
            self.table("seat_hands"),
            self.table("side_hands"),
            self.table("games"),
            self.table("seat_analysis") if analysis else None,
        )

    def summary(self) -> Summary:
        """The counts ``validate`` would give on the store's files: records, valid, invalid
        by code, the files that could not be read."""
        summary = Summary(files=len(self.manifest.sources))
        for source in self.manifest.sources:
            summary.records += source.records
            summary.invalid += source.invalid
            summary.valid += source.records - source.invalid
            summary.bytes += source.size
            problem = source.problem()
            if problem is not None:
                summary.io_errors.append(problem)
        summary.codes.update(self.table("problems")["code"].to_list())
        return summary

    def invalid_reports(self) -> list[RecordReport]:
        """The report of every invalid record, in input order, as ``validate`` made it."""
        import polars as pl

        reports: list[RecordReport] = []
        records = self.table("records").filter(~pl.col("valid"))
        problems = self.table("problems")
        grouped: dict[tuple[str, int | None], list[Problem]] = {}
        for row in problems.iter_rows(named=True):
            grouped.setdefault((row["source"], row["line"]), []).append(_problem(row))
        for row in records.iter_rows(named=True):
            found = grouped.get((row["source"], row["line"]), [])
            reports.append(
                RecordReport(
                    row["source"],
                    row["line"],
                    row["game_id"],
                    row["variant"],
                    row["hands"],
                    row["complete"],
                    tuple(found),
                )
            )
        return reports
