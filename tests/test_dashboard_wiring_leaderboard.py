"""Wiring of the Leaderboard page, in AppTest: its own filters (variant, rules, a minimum of
games), the sidebar's, and the number of players charted each change the table's rows and
columns and the two charts' traces (x, y and the bars), against the leaderboard of the
games that pass the same filters, narrowed here from the whole tables."""

from __future__ import annotations

import math
from typing import Any

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from spades_replay.stats.leaderboard import leaderboard
from spades_replay.stats.tables import Tables

from .support.apptest import charts_of, open_app, player_keys, run_app, table_of, toggle_filter
from .support.samples import narrowed, sample_tables

pytestmark = pytest.mark.slow  # every test runs the app's pages


@pytest.fixture(scope="module")
def tables() -> Tables:
    """The tables of what the dashboard opens on (the samples of fixtures/)."""
    return sample_tables()


def _games_played(tables: Tables) -> dict[str, int]:
    """How many games each player sat in, counted from the games table's player lists
    (games with a complete hand: the leaderboard measures no other)."""
    measured = set(tables.seat_hands.get_column("game").to_list())
    counts: dict[str, int] = {}
    for game, keys in tables.games.select("game", "player_keys").iter_rows():
        if game in measured:
            for key in keys.split(", "):
                counts[key] = counts.get(key, 0) + 1
    return counts


def _same(shown: Any, expected: Any) -> bool:
    """One cell of a table shown equals the one expected (a missing figure is NaN there)."""
    if expected is None:
        return shown is None or (isinstance(shown, float) and math.isnan(shown))
    if isinstance(expected, float):
        return bool(shown == pytest.approx(expected))
    return bool(shown == expected)


def assert_table(at: AppTest, board: pl.DataFrame) -> None:
    """The table shows ``board``: the same players in the same order, every column."""
    shown = table_of(at, "rating")
    assert list(shown.columns) == board.columns
    assert player_keys(shown) == board.get_column("player_key").to_list()
    for column in board.columns:
        if column == "player_key":
            continue
        values = shown[column].tolist()
        expected = board.get_column(column).to_list()
        assert len(values) == len(expected), column
        assert all(_same(a, b) for a, b in zip(values, expected, strict=True)), (
            column,
            values,
            expected,
        )


def assert_charts(at: AppTest, board: pl.DataFrame) -> None:
    """The ratings chart and the win-rate chart show the players of ``board`` in order:
    the skill with 3 sigma each way; the win rate with its 95 % interval."""
    ratings, wins = charts_of(at)
    names = board.get_column("player").to_list()
    for chart in (ratings, wins):
        (trace,) = chart["data"]
        assert len(trace["y"]) == len(names)
        assert all(label.startswith(name) for label, name in zip(trace["y"], names, strict=True))
    (skill,) = ratings["data"]
    assert skill["x"] == pytest.approx(board.get_column("mu").to_list())
    assert skill["error_x"]["array"] == pytest.approx(
        [3 * sigma for sigma in board.get_column("sigma").to_list()]
    )
    (won,) = wins["data"]
    rates = [0.0 if rate is None else rate for rate in board.get_column("win_rate").to_list()]
    assert won["x"] == pytest.approx(rates)
    highs = board.get_column("win_high").to_list()
    lows = board.get_column("win_low").to_list()
    assert won["error_x"]["array"] == pytest.approx(
        [high - rate for high, rate in zip(highs, rates, strict=True)]
    )
    assert won["error_x"]["arrayminus"] == pytest.approx(
        [rate - low for rate, low in zip(rates, lows, strict=True)]
    )


def _expected(tables: Tables, chosen: dict[str, list[str]], min_games: int) -> pl.DataFrame:
    kept = narrowed(tables, chosen)
    board = leaderboard(kept, min_games)
    counts = _games_played(kept)
    assert board.height > 0
    assert dict(board.select("player_key", "games").iter_rows()) == {
        key: count for key, count in counts.items() if count >= min_games
    }
    return board


def test_every_filter_changes_the_table_and_the_charts_of_the_leaderboard(
    tables: Tables,
) -> None:
    at = open_app("leaderboard")
    assert at.title[0].value == "Leaderboard"
    chosen: dict[str, list[str]] = {}
    whole = _expected(tables, chosen, 1)
    assert whole.height == 6
    assert_table(at, whole)
    assert_charts(at, whole)

    run_app(at.number_input(key="lb_min").set_value(36))
    fewer = _expected(tables, chosen, 36)
    assert 0 < fewer.height < whole.height
    assert_table(at, fewer)
    assert_charts(at, fewer)
    run_app(at.number_input(key="lb_min").set_value(1))

    steps = [
        ("lb_variant", "two-player"),
        ("lb_rules", "target_score=200"),
        ("lb_rules", "lose_score=-200"),
    ]
    for key, value in steps:
        run_app(at.multiselect(key=key).select(value))
        chosen.setdefault(key, []).append(value)
        board = _expected(tables, chosen, 1)
        assert_table(at, board)
        assert_charts(at, board)
    assert _expected(tables, chosen, 1).get_column("games").to_list() == [2, 2]

    run_app(at.multiselect(key="lb_rules").unselect("target_score=200").unselect("lose_score=-200"))
    run_app(at.multiselect(key="lb_variant").unselect("two-player"))
    chosen = {}
    assert_table(at, whole)

    steps = [
        ("f_player", "heuristic-megan", True),
        ("f_rules", "standard", True),
        ("f_player", "heuristic-megan", False),
        ("f_rules", "target_score=150", True),
        ("f_variant", "four-player", True),
    ]
    for key, value, select in steps:
        toggle_filter(at, chosen, key, value, select)
        board = _expected(tables, chosen, 1)
        assert_table(at, board)
        assert_charts(at, board)

    run_app(at.number_input(key="lb_top").set_value(2))
    board = _expected(tables, chosen, 1)
    assert board.height > 2
    assert_table(at, board)
    assert_charts(at, board.head(2))
