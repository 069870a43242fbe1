"""What the dashboard opens on (the samples of fixtures/), read for the tests' expectations:
their stats tables, their records as plain JSON, and tables narrowed as the dashboard's
filters narrow them."""

from __future__ import annotations

import gzip
from functools import cache
from pathlib import Path
from typing import Any

import orjson
import polars as pl

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


def narrowed(tables: Tables, chosen: dict[str, list[str]]) -> Tables:
    """The tables of the games of the variants and rules chosen (the sidebar's and the
    page's: ``f_variant``, ``lb_variant``...) with one of the players chosen."""
    games = tables.games
    for key in ("f_variant", "lb_variant"):
        if chosen.get(key):
            games = games.filter(pl.col("variant").is_in(chosen[key]))
    for key in ("f_rules", "lb_rules"):
        if chosen.get(key):
            games = games.filter(pl.col("rules").is_in(chosen[key]))
    if chosen.get("f_player"):
        wanted = set(chosen["f_player"])
        games = games.filter(
            pl.col("player_keys").map_elements(
                lambda keys: bool(wanted & set(keys.split(", "))), return_dtype=pl.Boolean
            )
        )
    kept = games.get_column("game").implode()
    return Tables(
        tables.seat_hands.filter(pl.col("game").is_in(kept)),
        tables.side_hands.filter(pl.col("game").is_in(kept)),
        games,
    )
