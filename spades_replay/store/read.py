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
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spades_replay.errors import Code, Problem
from spades_replay.replayer.validate import RecordReport, Summary
from spades_replay.store.layout import Manifest, SourceEntry, open_manifest

if TYPE_CHECKING:
    import polars as pl

    from spades_replay.stats.tables import Tables


def schemas() -> dict[str, dict[str, Any]]:
    """The columns of every table, in order, with their polars types."""
    from spades_replay.stats.double_dummy import ANALYSIS_SCHEMA, IDENTITY
    from spades_replay.stats.tables import GAME_SCHEMA, SEAT_HAND_SCHEMA, SIDE_HAND_SCHEMA
    from spades_replay.store.ingest import PROBLEM_SCHEMA, RECORD_SCHEMA

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


@dataclass(frozen=True)
class Store:
    """An open store: its directory and manifest, and where each source's games start."""

    directory: Path
    manifest: Manifest

    @classmethod
    def open(cls, directory: str | os.PathLike[str]) -> Store:
        """Open the store in ``directory`` (:class:`~spades_replay.store.layout.StoreError`
        when there is none, or one of another version)."""
        return cls(Path(directory), open_manifest(directory))

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

    def table(self, table: str) -> pl.DataFrame:
        """One table of the whole store, in input order, numbered as ``stats`` numbers it."""
        import polars as pl

        schema = schemas()[table]
        frames = []
        for path, base in self.part_paths(table):
            frame = pl.read_parquet(path)
            if "game" in frame.columns and base:
                frame = frame.with_columns(pl.col("game") + base)
            frames.append(frame)
        if not frames:
            return pl.DataFrame(schema=schema)
        return pl.concat(frames, how="vertical")

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
            if source.io_error is not None:
                summary.io_errors.append(
                    Problem(
                        Code(str(source.io_error["code"])),
                        str(source.io_error["message"]),
                        source=source.path,
                    )
                )
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
