"""Wiring of the Game charts and Replay pages, in AppTest: the sidebar's filters narrow the
game picker, the game picked changes every chart, and the Replay page's spoiler-free switch
cuts its running score to the hands before the one shown. Each chart's traces (x and y) are
read against the claims of the record itself (its JSON, read apart from the tool), never
against the tables the page was drawn from."""

from __future__ import annotations

from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from .support.apptest import charts_by_title, charts_of, drawn, open_app, pick_game, run_app
from .support.samples import sample_records

pytestmark = pytest.mark.slow  # every test runs the app's pages


RECORDS = sample_records()


def _picked(at: AppTest) -> str:
    """The game id of the game picked."""
    picker = at.selectbox(key="game")
    assert picker.index is not None
    game_id: str = picker.options[picker.index].split(" ")[0]
    return game_id


def _complete(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The hands of the record that carry their claimed result, in order."""
    return [hand for hand in record["hands"] if "result" in hand]


def assert_game_charts(at: AppTest, game_id: str) -> None:
    """The running score, the bags and the points by hand of ``game_id``, each side's line
    and bars, are the record's own claims hand by hand."""
    hands = _complete(RECORDS[game_id])
    numbers = list(range(1, len(hands) + 1))
    charts = charts_by_title(at)
    sides = len(hands[0]["result"]["scores"])
    scores = charts["Running score"]["data"]
    bags = [trace for trace in charts["Bags"]["data"] if trace["name"] != "bag penalty"]
    assert len(scores) == len(bags) == sides
    for side in range(sides):
        assert scores[side]["x"] == [0, *numbers]
        assert scores[side]["y"] == [0, *(hand["result"]["scores"][side] for hand in hands)]
        assert bags[side]["x"] == [0, *numbers]
        assert bags[side]["y"] == [0, *(hand["result"]["bags"][side] for hand in hands)]
    points = charts["Points by hand"]["data"]
    totals = [trace for trace in points if trace["name"] == "hand total"]
    parts = [trace for trace in points if trace["name"] != "hand total"]
    assert len(totals) == sides
    per_side = len(parts) // sides
    for side, total in enumerate(totals):
        assert total["x"] == numbers
        assert total["y"] == [hand["result"]["points"][side] for hand in hands]
        mine = parts[side * per_side : (side + 1) * per_side]
        assert [sum(values) for values in zip(*(trace["y"] for trace in mine), strict=True)] == (
            total["y"]
        )


def test_the_filters_and_the_game_picked_change_every_game_chart() -> None:
    at = open_app("charts")
    assert at.title[0].value == "Game charts"
    assert_game_charts(at, _picked(at))
    run_app(at.sidebar.multiselect(key="f_variant").select("two-player"))
    options = at.selectbox(key="game").options
    assert options
    assert all(RECORDS[label.split(" ")[0]]["variant"] == "two-player" for label in options)
    assert RECORDS[_picked(at)]["variant"] == "two-player"
    assert_game_charts(at, _picked(at))
    last = options[-1].split(" ")[0]
    pick_game(at, last)
    assert _picked(at) == last
    assert_game_charts(at, last)
    run_app(at.sidebar.multiselect(key="f_player").select("heuristic-megan"))
    for label in at.selectbox(key="game").options:
        record = RECORDS[label.split(" ")[0]]
        assert "heuristic-megan" in {player.get("id") for player in record["players"]}
    assert_game_charts(at, _picked(at))


def test_spoiler_free_cuts_the_running_score_of_the_replay_page() -> None:
    """Opened at hand 3 of a game, the running score shows every hand; spoiler-free, only the
    two before it; and back again."""
    game = "two-player-s11-000002"
    hands = _complete(RECORDS[game])
    at = drawn(open_app(query={"game": game, "hand": "3"}))
    assert _picked(at) == game

    def lines() -> list[list[Any]]:
        (chart,) = [c for c in charts_of(at) if c["layout"]["title"]["text"] == "Running score"]
        return [trace["y"] for trace in chart["data"] if trace["x"][:1] == [0]]

    whole = [[0, *(hand["result"]["scores"][side] for hand in hands)] for side in range(2)]
    assert lines() == whole
    run_app(at.toggle(key="spoiler_free").set_value(True))
    assert lines() == [line[:3] for line in whole]
    run_app(at.toggle(key="spoiler_free").set_value(False))
    assert lines() == whole
