"""The leaderboard: its figures (spades_replay.stats.leaderboard), its Wilson intervals, and
the Leaderboard page run headless (AppTest) on the sample records and on a store of more
than 100 games: the table, the charts with their titles and 0-100 % rates, filters that
narrow each other and say which one left nothing."""

from __future__ import annotations

import sys
from pathlib import Path

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from spades_replay.plumbing.corpus import sample_paths
from spades_replay.stats.collect import StatsCollection
from spades_replay.stats.leaderboard import LEADERBOARD_SCHEMA, chance_above, leaderboard, wilson
from spades_replay.stats.metrics import player_metrics
from spades_replay.stats.ratings import ratings
from spades_replay.stats.tables import Tables
from spades_replay.store.ingest import ingest
from spades_replay.store.read import Store

from .conftest import FIXTURES
from .support.apptest import ENTRY, board, charts_of, open_app, player_keys, run_app, table_of


def _tables(*paths: Path) -> Tables:
    collection = StatsCollection(list(paths))
    list(collection)
    return collection.tables()


def test_wilson_intervals_hold_the_rate_and_narrow_with_games() -> None:
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(3, 4)
    assert low < 0.75 < high
    big_low, big_high = wilson(600, 1000)
    assert low < big_low < 0.6 < big_high < high
    assert wilson(0, 10)[0] == 0.0
    assert wilson(10, 10)[1] == pytest.approx(1.0)


def test_the_leaderboard_agrees_with_the_metrics_and_the_ratings() -> None:
    tables = _tables(FIXTURES / "corpus")
    board = leaderboard(tables)
    assert board.columns == list(LEADERBOARD_SCHEMA)
    assert board["rank"].to_list() == list(range(1, board.height + 1))
    rated = ratings(tables)
    assert board.select("player_key", "rating").equals(rated.select("player_key", "rating"))
    metrics = (
        player_metrics(tables)
        .group_by("player_key")
        .agg(pl.col("games").sum(), pl.col("wins").sum(), pl.col("nil_attempts").sum())
    )
    joined = board.join(metrics, on="player_key", suffix="_metrics")
    assert joined.height == board.height
    for row in joined.iter_rows(named=True):
        assert row["games"] == row["games_metrics"]
        assert row["wins"] == row["wins_metrics"]
        assert row["nil_attempts"] == row["nil_attempts_metrics"]
        assert row["win_low"] <= row["win_rate"] <= row["win_high"]
    fewer = leaderboard(tables, min_games=board["games"].max() + 1)  # type: ignore[operator]
    assert fewer.height == 0


@pytest.mark.slow
def test_the_page_shows_the_table_and_charts_and_its_filters_narrow_each_other() -> None:
    at = open_app("leaderboard")
    assert at.title[0].value == "Leaderboard"
    expected = leaderboard(_tables(*sample_paths(FIXTURES)))
    shown = table_of(at, "rating")
    assert player_keys(shown) == expected["player_key"].to_list()
    # who is best, and how sure we are, in a line above the table
    best, second = expected.row(0, named=True), expected.row(1, named=True)
    line = next(text.value for text in at.markdown if "Best rated" in text.value)
    chance = chance_above(best["mu"], best["sigma"], second["mu"], second["sigma"])
    assert line.startswith(f"**Best rated: {best['player']}** (")
    assert f"rating {best['rating']:.2f}" in line
    assert f"a **{chance:.1%}** chance that her skill is above the next player's" in line
    assert f"({second['player']}, rating {second['rating']:.2f})" in line
    assert f"95 % interval {best['win_low']:.1%} to {best['win_high']:.1%}" in line
    charts = charts_of(at)
    assert [chart["layout"]["title"]["text"] for chart in charts] == [
        "Skill rating: mu with mu ± 3 sigma",
        "Win rate with its 95 % interval",
    ]
    assert charts[1]["layout"]["xaxis"]["range"] == [0, 1]
    assert all(chart["layout"]["showlegend"] is False for chart in charts)
    assert all(chart["layout"]["xaxis"]["title"]["text"] for chart in charts)
    every_rule_set = at.multiselect(key="lb_rules").options
    run_app(at.multiselect(key="lb_variant").select("two-player"))
    narrowed = at.multiselect(key="lb_rules").options
    assert 0 < len(narrowed) <= len(every_rule_set)
    players = set(player_keys(table_of(at, "rating")))
    two_player = _tables(*sample_paths(FIXTURES)).games.filter(pl.col("variant") == "two-player")
    keys = {key for keys in two_player["player_keys"] for key in keys.split(", ")}
    assert players <= keys
    run_app(at.number_input(key="lb_min").set_value(100_000))
    assert "the minimum of games excluded everyone" in at.warning[0].value


@pytest.mark.slow
def test_the_page_on_a_store_of_more_than_100_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = (FIXTURES / "corpus" / "four-player.jsonl").read_bytes()
    (tmp_path / "many.jsonl").write_bytes(lines * 5)
    ingest([tmp_path / "many.jsonl", FIXTURES / "corpus" / "two-player.jsonl"], tmp_path / "s")
    monkeypatch.setattr(sys, "argv", [ENTRY, "--store", str(tmp_path / "s")])
    at = AppTest.from_file(ENTRY, default_timeout=120)
    at.switch_page("leaderboard.py")
    at = run_app(at)
    assert int(at.metric[0].value) == table_of(at, "rating").shape[0] > 0
    assert len(charts_of(at)) == 2
    run_app(at.number_input(key="lb_top").set_value(2))
    assert [len(chart["data"][0]["y"]) for chart in charts_of(at)] == [2, 2]


@pytest.mark.slow
def test_a_game_opened_from_the_player_page_of_a_large_store_is_the_one_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The picker lists 100 games a page: a game of hers past the first page still opens,
    listed first, rather than the first game of the page."""
    from spades_replay.dashboard.selection import game_tokens

    from spades_replay.stats import player

    lines = (FIXTURES / "corpus" / "four-player.jsonl").read_bytes()
    (tmp_path / "many.jsonl").write_bytes(lines * 5)
    ingest([tmp_path / "many.jsonl"], tmp_path / "s")
    monkeypatch.setattr(sys, "argv", [ENTRY, "--store", str(tmp_path / "s")])
    at = AppTest.from_file(ENTRY, default_timeout=120)
    at.session_state["player"] = "heuristic-beth"
    at.switch_page("player.py")
    at = run_app(at)
    tables = Store.open(tmp_path / "s").tables()
    games = player.games_of(tables, "heuristic-beth").select("game", "game_id")
    last, _ = games.row(games.height - 1)
    assert last >= 100
    (game_id,) = game_tokens(tables.games, [last])  # the corpus five times: "id~5"
    run_app(at.selectbox(key="player_game").set_value(last))
    at = run_app(at.button(key="player_open_game").click())
    assert board(at)
    picker = at.selectbox(key="game")
    assert picker.options[picker.index].startswith(game_id + " ")


def test_the_analysis_estimate_and_its_words() -> None:
    from spades_replay.dashboard.stats import ANALYSIS_BOUND, analysis_estimate, duration

    assert analysis_estimate(100, 0, 10.0, 1) == pytest.approx(3.0)
    assert analysis_estimate(0, 10, 10.0, 2) == pytest.approx(50.0)
    assert analysis_estimate(0, 10, 60.0, 1) == pytest.approx(110.0)
    assert analysis_estimate(0, 278_151, 10.0, 2) > ANALYSIS_BOUND
    assert [duration(40), duration(720), duration(5 * 3600), duration(3 * 86400)] == [
        "40 s",
        "12 min",
        "5.0 h",
        "3.0 days",
    ]


def test_one_players_record() -> None:
    from spades_replay.stats import player

    tables = _tables(FIXTURES / "corpus")
    key = "heuristic-beth"
    games = player.games_of(tables, key)
    board = leaderboard(tables).filter(pl.col("player_key") == key).row(0, named=True)
    assert games.height == board["games"]
    form = player.form(tables, key, window=5)
    assert form["number"].to_list() == list(range(1, games.height + 1))
    assert all(0 <= rate <= 1 for rate in form["rolling_win_rate"].drop_nulls())
    last = form.tail(5)
    won = games.tail(5).filter(pl.col("won").is_not_null())
    assert last["rolling_win_rate"][-1] == won["won"].sum() / won.height
    assert form["rating"].drop_nulls()[-1] == board["rating"]
    partners = player.partners(tables, key)
    four = games.filter(pl.col("variant") == "four-player").height
    assert partners["games"].sum() == four
    opponents = player.opponents(tables, key)
    two = games.height - four
    assert opponents["games"].sum() == 2 * four + two
    nils = player.nil_hands(tables, key)
    assert nils.height == board["nil_attempts"] + board["blind_nil_attempts"]
    assert nils["made"].sum() == board["nil_made"] + board["blind_nil_made"]
    # her Nil success over her last games, and in their two halves
    change = player.nil_change(tables, key, last=9)
    assert change["span"].to_list() == ["last", "first half", "second half"]
    assert change["games"].to_list() == [9, 4, 5]
    late = set(games.tail(9)["game"])
    hers = nils.filter(pl.col("game").is_in(late))
    assert change.row(0, named=True) == {
        "span": "last",
        "games": 9,
        "bids": hers.height,
        "made": hers["made"].sum(),
        "rate": hers["made"].sum() / hers.height if hers.height else None,
    }
    assert change["bids"][1] + change["bids"][2] == hers.height
    assert change["made"][1] + change["made"][2] == hers["made"].sum()
    everything = player.nil_change(tables, key, last=10_000)
    assert everything["games"][0] == games.height
    assert everything["bids"][0] == nils.height


@pytest.mark.slow
def test_the_player_page_opens_from_the_leaderboard_and_links_to_the_replay() -> None:
    at = open_app("leaderboard")
    run_app(at.selectbox(key="lb_open").set_value("heuristic-beth"))
    at = run_app(at.button(key="lb_open_page").click())
    assert at.title[0].value == "Player"
    assert at.selectbox(key="player").value == "heuristic-beth"
    charts = charts_of(at)
    titles = [chart["layout"]["title"]["text"] for chart in charts]
    from spades_replay.stats import player

    tables = _tables(*sample_paths(FIXTURES))
    played = player.games_of(tables, "heuristic-beth").height
    assert titles == [
        f"Form of Beth (heuristic-beth): her last {min(200, played)} games, rolling over 50",
        "Rating of Beth (heuristic-beth) after each game",
    ]
    assert charts[0]["layout"]["yaxis"]["range"] == [0, 1]
    assert all(chart["layout"]["xaxis"]["title"]["text"] for chart in charts)
    partners = table_of(at, "partner")
    assert list(partners["partner"]) == ["David"]
    # AppTest reruns the page it opened, not one switched to: open the Player page afresh
    at = AppTest.from_file(ENTRY, default_timeout=60)
    at.session_state["player"] = "heuristic-beth"
    at.switch_page("player.py")
    at = run_app(at)
    assert at.selectbox(key="player").value == "heuristic-beth"
    # the form over her last 10 games, and her Nil success over them in a line
    at = run_app(at.number_input(key="player_span").set_value(10))
    form = charts_of(at)[0]
    assert form["layout"]["title"]["text"].endswith("her last 10 games, rolling over 50")
    assert form["data"][0]["x"] == list(range(played - 9, played + 1))
    change = player.nil_change(tables, "heuristic-beth", 10).rows(named=True)
    line = next(text.value for text in at.markdown if "Nil and Blind Nil success" in text.value)
    assert line.startswith("**Nil and Blind Nil success over her last 10 games**: ")
    assert f"({change[0]['made']} made of {change[0]['bids']})" in line
    assert f"in the first {change[1]['games']} of them" in line
    game = at.selectbox(key="player_game").value
    at = run_app(at.button(key="player_open_game").click())
    assert board(at)  # the Replay page's board (it has no title)
    ids = dict(player.games_of(tables, "heuristic-beth").select("game", "game_id").iter_rows())
    picker = at.selectbox(key="game")
    assert picker.options[picker.index].startswith(ids[game] + " ")
