"""The columns of the store's own tables, ``records`` and ``problems``, in order, with their
polars types (the stats tables' are :mod:`spades_replay.stats.tables`'): apart from the
ingest, so that a command that only reads a store (``query``) need not import it."""

from __future__ import annotations

from typing import Any

import polars as pl

RECORD_SCHEMA: dict[str, Any] = {
    "source": pl.String,
    "line": pl.Int64,
    "offset": pl.Int64,
    "game": pl.Int64,
    "game_id": pl.String,
    "variant": pl.String,
    "valid": pl.Boolean,
    "hands": pl.Int64,
    "complete": pl.Boolean,
    "problems": pl.Int64,
}
"""The columns of ``records``: one row per record, valid or not (docs/store.md)."""

PROBLEM_SCHEMA: dict[str, Any] = {
    "source": pl.String,
    "line": pl.Int64,
    "offset": pl.Int64,
    "game_id": pl.String,
    "variant": pl.String,
    "problem": pl.Int64,
    "code": pl.String,
    "family": pl.String,
    "message": pl.String,
    "pointer": pl.String,
    "place": pl.String,
    "rule": pl.String,
    "legal": pl.List(pl.String),
    "hand": pl.Int64,
    "trick": pl.Int64,
    "card": pl.Int64,
    "seat": pl.Int64,
    "player": pl.String,
}
"""The columns of ``problems``: one row per problem of every invalid record."""
