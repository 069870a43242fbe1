"""What the dashboard opens on (the samples of fixtures/), read for the tests' expectations:
their stats tables, and their records as plain JSON."""

from __future__ import annotations

import gzip
from functools import cache
from pathlib import Path
from typing import Any

import orjson

from spades_replay.plumbing.corpus import sample_paths
from spades_replay.stats.collect import StatsCollection
from spades_replay.stats.tables import Tables

from ..conftest import FIXTURES


@cache
def sample_tables() -> Tables:
    """The stats tables of the samples of fixtures/, in the dashboard's order (every sample
    is valid)."""
    collection = StatsCollection(sample_paths(FIXTURES))
    assert list(collection) == []
    return collection.tables()


def _read(path: Path) -> list[dict[str, Any]]:
    raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    if path.suffix == ".json":
        return [orjson.loads(raw)]
    return [orjson.loads(line) for line in raw.splitlines() if line.strip()]


@cache
def sample_records() -> dict[str, dict[str, Any]]:
    """Every sample record the dashboard opens on, by game id, read as plain JSON."""
    found: dict[str, dict[str, Any]] = {}
    for folder in ("corpus", "two-player", "four-player"):
        for path in sorted((FIXTURES / folder).iterdir()):
            found.update((record["game_id"], record) for record in _read(path))
    return found
