"""How the stats command shows metrics: terminal tables and csv, json, parquet bytes.

A terminal table never cuts a cell: it shows the columns that fit the width, the key ones
first (who or what the row is, and the headline figures), and names the ones it left out;
``--columns`` picks them by name, and csv, json and parquet carry every column. Rule sets
appear by their short labels, spelled out in a legend under the table.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import polars as pl
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from spades_replay.stats.metrics import game_plan, player_plan, variant_plan
from spades_replay.stats.tables import LazyTables, rules_legend, short_rules_label
from spades_replay.text import player_labels, rate_label, safe

GROUPINGS = {"player": player_plan, "game": game_plan, "variant": variant_plan}

Row = dict[str, Any]


def _number(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _lost(value: float | None, lost: int, hands: int) -> str:
    if value is None:
        return "-"
    return f"{value:.2f} ({lost} in {hands})"


@dataclass(frozen=True, slots=True)
class Column:
    """One column a table can show: its name (for ``--columns``, also its header), whether it
    is a key column (shown first, whatever the width), and how a row gives its cell. When
    the width is short, the other columns are taken by ``fill`` (1 before 2), each shown in
    its place."""

    name: str
    cell: Callable[[Row], str]
    key: bool = False
    right: bool = True
    fill: int = 1


def _rate(value: str, count: str, total: str) -> Callable[[Row], str]:
    return lambda row: rate_label(row[value], row[count], row[total])


ANALYSIS_COLUMNS = (
    Column(
        "tricks lost/hand",
        lambda row: _lost(row["tricks_lost_per_hand"], row["tricks_lost"], row["analysed_hands"]),
        key=True,
    ),
    Column("capped hands", lambda row: str(row["capped_hands"])),
)
"""The double-dummy columns, when the metrics have them (``stats --analysis``)."""

RULES = Column("rules", lambda row: short_rules_label(row["rules"]), right=False)
VARIANT = Column("variant", lambda row: row["variant"], key=True, right=False)

PLAYER_COLUMNS = (
    Column("player", lambda row: row["player_label"], key=True, right=False),
    VARIANT,
    RULES,
    Column("games", lambda row: str(row["games"]), key=True),
    Column("wins", _rate("win_rate", "wins", "complete_games"), key=True),
    Column("hands", lambda row: str(row["hands"]), fill=2),
    Column("pts/hand", lambda row: _number(row["points_per_hand"]), key=True),
    Column("bids exact", _rate("exact_rate", "exact", "bids")),
    Column("over", _rate("over_rate", "over", "bids"), fill=2),
    Column("set", _rate("set_rate", "set", "bids"), fill=2),
    Column("bags/hand", lambda row: _number(row["bags_per_hand"], 2)),
    Column("penalties/game", lambda row: _number(row["bag_penalties_per_game"], 2), fill=2),
    Column("nil made", _rate("nil_rate", "nil_made", "nil_attempts")),
    Column("blind nil made", _rate("blind_nil_rate", "blind_nil_made", "blind_nil_attempts")),
)
"""When the width is short, the player table keeps bid accuracy, bags and Nil before the
hands count and the rest of the bids (``fill``)."""

GAME_COLUMNS = (
    Column("game", lambda row: safe(row["game_id"]), key=True, right=False),
    VARIANT,
    RULES,
    Column(
        "sides",
        lambda row: f"{safe(row['side_0'], 60)} / {safe(row['side_1'], 60)}",
        right=False,
    ),
    Column("winner", lambda row: safe(row["winner_players"] or "-", 60), key=True, right=False),
    Column("scores", lambda row: f"{row['score_0']} / {row['score_1']}", key=True),
    Column("hands", lambda row: str(row["hands"])),
    Column("ended", lambda row: row["reason"] or "unfinished", right=False),
    Column(
        "source",
        lambda row: (
            safe(row["source"] or "-", 200) + (f":{row['line']}" if row["line"] is not None else "")
        ),
        right=False,
    ),
)

VARIANT_COLUMNS = (
    VARIANT,
    Column("rules", RULES.cell, key=True, right=False),
    Column("games", lambda row: str(row["games"]), key=True),
    Column("complete", lambda row: str(row["complete"]), key=True),
    Column("hands/game", lambda row: _number(row["hands_per_game"])),
    Column("pts/side-hand", lambda row: _number(row["points_per_side_hand"])),
    Column("sets", _rate("set_rate", "sets", "contracts")),
    Column("bags/side-hand", lambda row: _number(row["bags_per_side_hand"], 2)),
    Column("penalties/game", lambda row: _number(row["bag_penalties_per_game"], 2)),
    Column("nil made", _rate("nil_rate", "nil_made", "nil_attempts")),
    Column("blind nil made", _rate("blind_nil_rate", "blind_nil_made", "blind_nil_attempts")),
)

COLUMNS = {"player": PLAYER_COLUMNS, "game": GAME_COLUMNS, "variant": VARIANT_COLUMNS}
TITLES = {"player": "Players", "game": "Games", "variant": "Variants"}


def columns_of(by: str, frame: pl.DataFrame) -> tuple[Column, ...]:
    """Every column the table of grouping ``by`` can show for ``frame``."""
    analysed = "tricks_lost_per_hand" in frame.columns
    return COLUMNS[by] + (ANALYSIS_COLUMNS if analysed else ())


def column_names(by: str, analysis: bool) -> list[str]:
    """The names ``--columns`` accepts for grouping ``by``."""
    return [column.name for column in COLUMNS[by] + (ANALYSIS_COLUMNS if analysis else ())]


def _fit(columns: Sequence[Column], widths: dict[str, int], width: int) -> list[Column]:
    """The key columns, then the others by ``fill`` while the table stays within ``width``:
    shown in their own order."""
    # a rich table with a box takes 1 character, then 3 per column (a border, two spaces)
    used = 1
    chosen: set[str] = set()
    for column in sorted(columns, key=lambda column: (not column.key, column.fill)):
        need = widths[column.name] + 3
        if column.key or used + need <= width:
            chosen.add(column.name)
            used += need
    return [column for column in columns if column.name in chosen]


def _alike(frame: pl.DataFrame, by: str) -> dict[str, str]:
    """The columns ``variant`` and ``rules`` where every row holds the same value (said once
    under the table instead of taking a column), with that value; never those a row of
    grouping ``by`` is named by."""
    alike = {}
    for name in ("variant", "rules"):
        values = frame.get_column(name).unique().to_list()
        if name != by and not (by == "variant" and name == "rules") and len(values) == 1:
            value = values[0]
            label = short_rules_label(value) if name == "rules" else value
            alike[name] = label if label == value else f"{label} ({safe(value, 500)})"
    return alike


@dataclass(frozen=True)
class View:
    """A rendered table: what to print, and the columns left out for want of width."""

    renderable: RenderableType
    left_out: tuple[str, ...]


def table(frame: pl.DataFrame, by: str, width: int, names: Sequence[str] | None = None) -> View:
    """The metrics of grouping ``by`` as a terminal table ``width`` characters wide at most:
    the columns ``names`` (in that order), else those that fit, key columns first; with the
    legend of the rule sets it shows."""
    every = columns_of(by, frame)
    keys = set()
    if frame.get_column("rules").n_unique() > 1:
        keys.add("rules")  # rows that differ only by their rules need it to tell them apart
    alike = _alike(frame, by) if names is None else {}
    every = tuple(column for column in every if column.name not in alike)
    if by == "game" and frame.get_column("game_id").is_duplicated().any():
        keys.add("source")  # two games with one id: where each comes from tells them apart
    every = tuple(replace(c, key=True) if c.name in keys else c for c in every)
    rows = list(frame.iter_rows(named=True))
    if by == "player":
        labels = player_labels((row["player"], row["player_key"]) for row in rows)
        rows = [{**row, "player_label": labels[row["player_key"]]} for row in rows]
    cells = {column.name: [column.cell(row) for row in rows] for column in every}
    if names is not None:
        by_name = {column.name: column for column in every}
        shown = [by_name[name] for name in names]
        left_out: tuple[str, ...] = ()
    else:
        widths = {
            column.name: max([len(column.name), *map(len, cells[column.name])]) for column in every
        }
        shown = _fit(every, widths, width)
        left_out = tuple(column.name for column in every if column not in shown)
    result = Table(title=TITLES[by], title_justify="left")
    for column in shown:
        result.add_column(
            column.name,
            justify="right" if column.right else "left",
            overflow="fold",
            no_wrap=column.name in ("game", "player"),  # who or what the row is: never cut
        )
    for index in range(len(rows)):
        result.add_row(*(cells[column.name][index] for column in shown))
    parts: list[RenderableType] = [result]
    if alike:
        said = ", ".join(f"{name} {value}" for name, value in alike.items())
        parts.append(Text(f"every row: {said}", style="dim"))
    if any(column.name == "scores" for column in shown):
        parts.append(Text("scores: in the order of the sides (first side / second)", style="dim"))
    if any(column.name == "rules" for column in shown):
        legend = [
            f"  {short} = {safe(key, 500)}"
            for short, key in rules_legend(frame.get_column("rules").to_list())
            if short != key
        ]
        if legend:
            parts.append(Text("\n".join(["rules:", *legend]), style="dim"))
    if left_out:
        parts.append(
            Text(
                f"left out for width: {', '.join(left_out)} (--columns to choose, "
                "--format csv or json for every column)",
                style="dim",
            )
        )
    return View(Group(*parts), left_out)


def encode(frame: pl.DataFrame, kind: str) -> bytes:
    """A metrics frame as csv, json or parquet bytes."""
    if kind == "csv":
        return frame.write_csv().encode()
    if kind == "json":
        return frame.write_json().encode() + b"\n"
    buffer = io.BytesIO()
    frame.write_parquet(buffer)
    return buffer.getvalue()


def metrics(tables: LazyTables, by: str) -> pl.LazyFrame:
    """The query of the metrics for a grouping."""
    return GROUPINGS[by](tables)
