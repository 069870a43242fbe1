"""How the stats command shows metrics: terminal tables and csv, json, parquet bytes."""

from __future__ import annotations

import io
from typing import Any

import polars as pl
from rich.table import Table

from spades_replay.stats.metrics import game_metrics, player_metrics, variant_metrics
from spades_replay.stats.tables import Tables
from spades_replay.text import safe, score_line

GROUPINGS = {"player": player_metrics, "game": game_metrics, "variant": variant_metrics}


def _percent(value: float | None, count: int, total: int) -> str:
    if value is None:
        return "-"
    return f"{value:.0%} ({count}/{total})"


def _number(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _lost(value: float | None, lost: int, hands: int) -> str:
    if value is None:
        return "-"
    return f"{value:.2f} ({lost} in {hands})"


def _add_analysis_columns(table: Table, frame: pl.DataFrame) -> bool:
    """The double-dummy columns, when the metrics have them (``stats --analysis``)."""
    if "tricks_lost_per_hand" not in frame.columns:
        return False
    table.add_column("tricks lost/hand", justify="right")
    table.add_column("capped hands", justify="right")
    return True


def _analysis_cells(row: dict[str, Any]) -> list[str]:
    return [
        _lost(row["tricks_lost_per_hand"], row["tricks_lost"], row["analysed_hands"]),
        str(row["capped_hands"]),
    ]


def player_table(frame: pl.DataFrame) -> Table:
    """The per-player metrics as a terminal table: every rate beside its counts."""
    table = Table(title="Players", title_justify="left")
    for column, justify in (
        ("player", "left"),
        ("variant", "left"),
        ("rules", "left"),
        ("games", "right"),
        ("wins", "right"),
        ("hands", "right"),
        ("pts/hand", "right"),
        ("bids exact", "right"),
        ("over", "right"),
        ("set", "right"),
        ("bags/hand", "right"),
        ("penalties/game", "right"),
        ("nil made", "right"),
        ("blind nil made", "right"),
    ):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    analysed = _add_analysis_columns(table, frame)
    for row in frame.iter_rows(named=True):
        table.add_row(
            safe(row["player"], 40),
            row["variant"],
            safe(row["rules"], 60),
            str(row["games"]),
            _percent(row["win_rate"], row["wins"], row["complete_games"]),
            str(row["hands"]),
            _number(row["points_per_hand"]),
            _percent(row["exact_rate"], row["exact"], row["bids"]),
            _percent(row["over_rate"], row["over"], row["bids"]),
            _percent(row["set_rate"], row["set"], row["bids"]),
            _number(row["bags_per_hand"], 2),
            _number(row["bag_penalties_per_game"], 2),
            _percent(row["nil_rate"], row["nil_made"], row["nil_attempts"]),
            _percent(row["blind_nil_rate"], row["blind_nil_made"], row["blind_nil_attempts"]),
            *(_analysis_cells(row) if analysed else []),
        )
    return table


def game_table(frame: pl.DataFrame) -> Table:
    """The per-game rows as a terminal table."""
    table = Table(title="Games", title_justify="left")
    for column in ("game", "variant", "rules", "sides", "winner", "scores", "hands", "ended"):
        table.add_column(column)
    analysed = _add_analysis_columns(table, frame)
    for row in frame.iter_rows(named=True):
        ended = row["reason"] or "unfinished"
        table.add_row(
            safe(row["game_id"], 60),
            row["variant"],
            safe(row["rules"], 60),
            f"{safe(row['side_0'], 60)} vs {safe(row['side_1'], 60)}",
            safe(row["winner_players"] or "-", 60),
            score_line((row["score_0"], row["score_1"]), row["winner"]),
            str(row["hands"]),
            ended,
            *(_analysis_cells(row) if analysed else []),
        )
    return table


def variant_table(frame: pl.DataFrame) -> Table:
    """The per-variant metrics as a terminal table."""
    table = Table(title="Variants", title_justify="left")
    for column in (
        "variant",
        "rules",
        "games",
        "complete",
        "hands/game",
        "pts/side-hand",
        "sets",
        "bags/side-hand",
        "penalties/game",
        "nil made",
        "blind nil made",
    ):
        table.add_column(column)
    analysed = _add_analysis_columns(table, frame)
    for row in frame.iter_rows(named=True):
        table.add_row(
            row["variant"],
            safe(row["rules"], 60),
            str(row["games"]),
            str(row["complete"]),
            _number(row["hands_per_game"]),
            _number(row["points_per_side_hand"]),
            _percent(row["set_rate"], row["sets"], row["contracts"]),
            _number(row["bags_per_side_hand"], 2),
            _number(row["bag_penalties_per_game"], 2),
            _percent(row["nil_rate"], row["nil_made"], row["nil_attempts"]),
            _percent(row["blind_nil_rate"], row["blind_nil_made"], row["blind_nil_attempts"]),
            *(_analysis_cells(row) if analysed else []),
        )
    return table


TABLES = {"player": player_table, "game": game_table, "variant": variant_table}


def encode(frame: pl.DataFrame, kind: str) -> bytes:
    """A metrics frame as csv, json or parquet bytes."""
    if kind == "csv":
        return frame.write_csv().encode()
    if kind == "json":
        return frame.write_json().encode() + b"\n"
    buffer = io.BytesIO()
    frame.write_parquet(buffer)
    return buffer.getvalue()


def metrics(tables: Tables, by: str) -> pl.DataFrame:
    """The metrics frame for a grouping."""
    return GROUPINGS[by](tables)
