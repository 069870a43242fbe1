"""Wiring of the Corpus stats page, in AppTest, on the records and on a store: each sidebar
filter changes the data of every chart it should, read from the figures' traces (x, y and
their labels), against the player metrics of the games that pass the same filters (of the
store's tables read whole, on a store)."""

from __future__ import annotations

import base64
import sys
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from spades_replay.dashboard.stats import TOP
from streamlit.testing.v1 import AppTest

from spades_replay.stats.metrics import player_metrics
from spades_replay.stats.tables import Tables
from spades_replay.store.ingest import ingest
from spades_replay.store.read import Store

from .conftest import FIXTURES
from .support.apptest import ENTRY, charts_by_title, open_app, run_app, toggle_filter
from .support.samples import sample_tables

pytestmark = pytest.mark.slow  # every test runs the app's pages


@pytest.fixture(scope="module")
def tables() -> Tables:
    """The tables of what the dashboard opens on (the samples of fixtures/)."""
    return sample_tables()


def _expected(tables: Tables, filters: dict[str, list[str]]) -> pl.DataFrame:
    players = player_metrics(tables)
    for column, key in (("variant", "f_variant"), ("rules", "f_rules"), ("player_key", "f_player")):
        if filters.get(key):
            players = players.filter(pl.col(column).is_in(filters[key]))
    # the charts show the rows with the most hands first, the first TOP of them
    return players.sort("hands", descending=True, maintain_order=True).head(TOP)


def _rates(players: pl.DataFrame, column: str) -> list[float]:
    return [0 if value is None else value for value in players.get_column(column).to_list()]


def assert_player_charts(at: AppTest, players: pl.DataFrame) -> None:
    """Each per-player chart shows one bar per row of ``players``, in order, with its
    figures."""
    charts = charts_by_title(at)
    names = players.get_column("player").to_list()
    for title in ("Nil and Blind Nil success", "Bid accuracy", "Win rate", "Bags per hand"):
        for trace in charts[title]["data"]:
            assert len(trace["y"]) == len(names), title
            assert all(
                label.startswith(name) for label, name in zip(trace["y"], names, strict=True)
            ), title
    wins = charts["Win rate"]["data"][0]
    assert wins["x"] == pytest.approx(_rates(players, "win_rate"))
    assert wins["text"] == [
        f"{won}/{total}" if total else "-"
        for won, total in players.select("wins", "complete_games").rows()
    ]
    bags = charts["Bags per hand"]["data"][0]
    assert bags["x"] == pytest.approx(players.get_column("bags_per_hand").to_list())
    accuracy = charts["Bid accuracy"]["data"]
    for trace, column in zip(accuracy, ("exact", "over", "set"), strict=True):
        assert trace["name"] == column
        assert trace["x"] == pytest.approx(_rates(players, f"{column}_rate"))
        assert trace["text"] == [str(count) for count in players.get_column(column)]
    nil, blind = charts["Nil and Blind Nil success"]["data"]
    assert nil["x"] == pytest.approx(_rates(players, "nil_rate"))
    assert blind["x"] == pytest.approx(_rates(players, "blind_nil_rate"))


def assert_game_charts(at: AppTest, tables: Tables, filters: dict[str, list[str]]) -> None:
    """The histograms count the complete games and the side hands of the games kept: of
    the variants and rules chosen, with one of the players chosen."""
    games = tables.games
    if filters.get("f_variant"):
        games = games.filter(pl.col("variant").is_in(filters["f_variant"]))
    if filters.get("f_rules"):
        games = games.filter(pl.col("rules").is_in(filters["f_rules"]))
    if filters.get("f_player"):
        chosen = set(filters["f_player"])
        games = games.filter(
            pl.col("player_keys").map_elements(
                lambda keys: bool(chosen & set(keys.split(", "))), return_dtype=pl.Boolean
            )
        )
    sides = tables.side_hands.filter(pl.col("game").is_in(games.get_column("game").implode()))
    complete = games.filter(pl.col("complete")).height
    charts = charts_by_title(at)
    winners, losers = charts["Final scores of complete games"]["data"]
    assert sum(_values(winners["y"])) == sum(_values(losers["y"])) == complete
    points = charts["Points of a side in one hand"]["data"]
    assert sum(sum(_values(trace["y"])) for trace in points) == sides.height


def _values(data: Any) -> list[int]:
    """A trace's values, plain or as plotly's typed array."""
    if isinstance(data, dict):
        return [
            int(value) for value in np.frombuffer(base64.b64decode(data["bdata"]), data["dtype"])
        ]
    return [int(value) for value in data]


def test_every_filter_changes_the_player_charts_of_the_corpus_stats(tables: Tables) -> None:
    at = open_app("stats")
    assert at.title[0].value == "Corpus stats"
    filters: dict[str, list[str]] = {}
    assert_player_charts(at, _expected(tables, filters))
    assert_game_charts(at, tables, filters)
    steps = [
        ("f_player", "heuristic-megan"),
        ("f_variant", "two-player"),
        ("f_player", "heuristic-drew"),
    ]
    for key, value in steps:
        run_app(at.multiselect(key=key).select(value))
        filters.setdefault(key, []).append(value)
        players = _expected(tables, filters)
        assert players.height > 0
        assert set(players.get_column("player_key")) <= set(filters.get("f_player", [])) or (
            "f_player" not in filters
        )
        assert_player_charts(at, players)
        assert_game_charts(at, tables, filters)
    run_app(at.multiselect(key="f_player").unselect("heuristic-megan"))
    filters["f_player"].remove("heuristic-megan")
    drew = _expected(tables, filters)
    assert set(drew.get_column("player_key")) == {"heuristic-drew"}
    assert_player_charts(at, drew)


def test_every_filter_changes_the_player_charts_of_a_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a store the page asks the store for the games that pass the filters: the charts
    are the figures of the store's tables, read whole and narrowed here."""
    directory = tmp_path / "store"
    ingest([FIXTURES], directory)
    tables = Store.open(directory).tables()
    monkeypatch.setattr(sys, "argv", [ENTRY, "--store", str(directory)])
    at = AppTest.from_file(ENTRY, default_timeout=120)
    at.switch_page("stats.py")
    at = run_app(at)
    assert at.title[0].value == "Corpus stats"
    filters: dict[str, list[str]] = {}
    assert_player_charts(at, _expected(tables, filters))
    assert_game_charts(at, tables, filters)
    steps = [
        ("f_variant", "four-player", True),
        ("f_rules", "standard", True),
        ("f_variant", "four-player", False),
        ("f_player", "heuristic-drew", True),
    ]
    for key, value, select in steps:
        toggle_filter(at, filters, key, value, select)
        players = _expected(tables, filters)
        assert players.height > 0
        assert_player_charts(at, players)
        assert_game_charts(at, tables, filters)
