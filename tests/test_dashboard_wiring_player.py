"""Wiring of the Player page, in AppTest: the player picked (in the page, or in the
address), her form's "last ... games" and "rolling over ... games", and the sidebar's filters
each change the form and rating charts' traces and every table of hers. Each is counted
again here from the records' JSON (her seat, bids, tricks and the winner claimed); only the
ratings come from the ratings module, of the games the test keeps itself."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from spades_replay.stats.ratings import rating_history
from spades_replay.stats.tables import Tables, short_rules_label

from .support.apptest import charts_of, markdown_of, open_app, run_app, table_of
from .support.samples import narrowed, sample_records, sample_tables

pytestmark = pytest.mark.slow  # every test runs the app's pages


RECORDS = sample_records()


@pytest.fixture(scope="module")
def tables() -> Tables:
    """The tables of what the dashboard opens on: its games, in its order (the records'
    figures are read from their JSON, not from these)."""
    return sample_tables()


def _key(player: dict[str, Any]) -> str:
    return str(player.get("id") or player["name"])


def _side(seat: int, seats: int) -> int:
    return seat if seats == 2 else seat % 2


@dataclass
class Game:
    """One game of hers with a complete hand, from its record."""

    game_id: str
    variant: str
    rules: str
    won: bool | None
    nils: list[tuple[int, str, int, bool, int]]
    """Her Nil and Blind Nil hands: hand number, kind, tricks, made, points."""
    partners: list[tuple[str, str]]
    opponents: list[tuple[str, str]]


def her_games(tables: Tables, key: str, chosen: dict[str, list[str]]) -> list[Game]:
    """Her games that pass the sidebar's filters ``chosen``, in the dashboard's order."""
    found = []
    for game_id, variant, rules in tables.games.select("game_id", "variant", "rules").rows():
        if chosen.get("f_variant") and variant not in chosen["f_variant"]:
            continue
        if chosen.get("f_rules") and rules not in chosen["f_rules"]:
            continue
        record = RECORDS[game_id]
        players = record["players"]
        keys = [_key(player) for player in players]
        hands = [hand for hand in record["hands"] if "points" in hand.get("result", {})]
        if key not in keys or not hands:
            continue
        seat, seats = keys.index(key), len(players)
        side = _side(seat, seats)
        winner = (record.get("result") or {}).get("winner")
        nils = []
        for number, hand in enumerate(hands, 1):
            bid, tricks = hand["bids"][seat], hand["result"]["tricks"][seat]
            if bid in (0, "blind_nil"):
                kind = "Blind Nil" if bid == "blind_nil" else "Nil"
                bonus = record["rules"]["blind_nil_bonus" if bid == "blind_nil" else "nil_bonus"]
                nils.append((number, kind, tricks, tricks == 0, bonus if tricks == 0 else -bonus))
        found.append(
            Game(
                game_id,
                variant,
                rules,
                None if winner is None else winner == side,
                nils,
                [
                    (keys[other], players[other]["name"])
                    for other in range(seats)
                    if other != seat and _side(other, seats) == side
                ],
                [
                    (keys[other], players[other]["name"])
                    for other in range(seats)
                    if _side(other, seats) != side
                ],
            )
        )
    return found


def _rate(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _close(found: list[Any], expected: list[Any]) -> bool:
    """Two lists of figures agree (a missing one is null, or NaN in a table)."""
    if len(found) != len(expected):
        return False
    for a, b in zip(found, expected, strict=True):
        if b is None:
            if not (a is None or (isinstance(a, float) and math.isnan(a))):
                return False
        elif a != pytest.approx(b):
            return False
    return True


def _record_rows(games: list[Game], which: str) -> list[tuple[str, int, int, int, float | None]]:
    """Her record with each partner or opponent: name, games, finished, wins, win rate;
    most games first, then by key."""
    tally: dict[str, list[Any]] = defaultdict(lambda: ["", 0, 0, 0])
    for game in games:
        for key, name in getattr(game, which):
            row = tally[key]
            row[0] = name
            row[1] += 1
            row[2] += game.won is not None
            row[3] += bool(game.won)
    ordered = sorted(tally.items(), key=lambda item: (-item[1][1], item[0]))
    return [(name, n, done, won, _rate(won, done)) for _, (name, n, done, won) in ordered]


def assert_player(
    at: AppTest, tables: Tables, key: str, span: int, window: int, chosen: dict[str, list[str]]
) -> None:
    """The page shows ``key`` over the games that pass ``chosen``: her figures by variant
    and rules, her form over her last ``span`` games rolling over ``window``, her rating,
    her Nil line, partners, opponents, Nil hands and games."""
    assert at.selectbox(key="player").value == key
    games = her_games(tables, key, chosen)
    assert games
    # by variant and rules
    by_rules: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0, 0, 0])
    for game in games:
        row = by_rules[(game.variant, short_rules_label(game.rules))]
        row[0] += 1
        row[1] += game.won is not None
        row[2] += bool(game.won)
        row[3] += sum(kind == "Nil" for _, kind, *_ in game.nils)
        row[4] += sum(kind == "Nil" and made for _, kind, _, made, _ in game.nils)
        row[5] += sum(kind == "Blind Nil" for _, kind, *_ in game.nils)
        row[6] += sum(kind == "Blind Nil" and made for _, kind, _, made, _ in game.nils)
    metrics = table_of(at, "nil_attempts")
    shown = {
        (row["variant"], row["rules"]): [
            row["games"],
            row["wins"],
            row["nil_attempts"],
            row["nil_made"],
            row["blind_nil_attempts"],
            row["blind_nil_made"],
        ]
        for _, row in metrics.iterrows()
    }
    assert shown == {
        where: [n, won, nil, nil_made, blind, blind_made]
        for where, (n, _, won, nil, nil_made, blind, blind_made) in by_rules.items()
    }
    assert _close(
        list(metrics["win_rate"]),
        [
            _rate(by_rules[(v, r)][2], by_rules[(v, r)][1])
            for v, r in zip(metrics["variant"], metrics["rules"], strict=True)
        ],
    )
    # the form: at each of her games, the games of the window ending there
    numbers = list(range(1, len(games) + 1))
    wins, nils = [], []
    for end in range(len(games)):
        last = games[max(0, end - window + 1) : end + 1]
        finished = [game for game in last if game.won is not None]
        wins.append(_rate(sum(bool(game.won) for game in finished), len(finished)))
        bids = [nil for game in last for nil in game.nils]
        nils.append(_rate(sum(nil[3] for nil in bids), len(bids)))
    charts = {chart["layout"]["title"]["text"]: chart for chart in charts_of(at)}
    (form,) = [chart for title, chart in charts.items() if title.startswith("Form of")]
    assert (
        f"her last {min(span, len(games))} games, rolling over {window}"
        in (form["layout"]["title"]["text"])
    )
    win_trace, nil_trace = form["data"]
    assert win_trace["x"] == nil_trace["x"] == numbers[-span:]
    assert _close(win_trace["y"], wins[-span:])
    assert _close(nil_trace["y"], nils[-span:])
    # her rating after each game she finished, of the games kept
    kept = [game.game_id for game in games]
    shown = narrowed(tables, chosen)
    number_of = dict(shown.games.select("game", "game_id").rows())
    history = rating_history(shown).filter(pl.col("player_key") == key)
    ratings = {number_of[game]: rating for game, rating in history.select("game", "rating").rows()}
    finished_numbers = [n for n, game in zip(numbers, games, strict=True) if game.won is not None]
    (rating,) = [chart for title, chart in charts.items() if title.startswith("Rating of")]
    assert rating["data"][0]["x"] == finished_numbers
    assert rating["data"][0]["y"] == pytest.approx([ratings[kept[n - 1]] for n in finished_numbers])
    # her Nil line over her last games, and its halves
    last = games[-span:]
    half = len(last) // 2
    text = markdown_of(at)
    assert f"**Nil and Blind Nil success over her last {len(last)} games**" in text
    for part in (last, last[:half], last[half:]):
        bids = [nil for game in part for nil in game.nils]
        made = sum(nil[3] for nil in bids)
        told = f"({made} made of {len(bids)})" if bids else "no bid"
        assert told in text
    # partners and opponents
    for which, name in (("partners", "partner"), ("opponents", "opponent")):
        frame = table_of(at, name)
        expected = _record_rows(games, which)
        assert list(frame[name]) == [row[0] for row in expected], which
        for column, index in (("games", 1), ("finished", 2), ("wins", 3)):
            assert list(frame[column]) == [row[index] for row in expected], (which, column)
        assert _close(list(frame["win_rate"]), [row[4] for row in expected]), which
    # her Nil hands
    frame = table_of(at, "nil_points")
    expected_nils = [(game.game_id, *nil) for game in games for nil in game.nils]
    assert [
        (game_id, hand, kind, tricks, bool(made), points)
        for game_id, hand, kind, tricks, made, points in frame[
            ["game_id", "hand", "kind", "tricks", "made", "nil_points"]
        ].itertuples(index=False)
    ] == expected_nils
    # her games, to open on the Replay page
    outcome = {True: "won", False: "lost", None: "unfinished"}
    assert at.selectbox(key="player_game").options == [
        f"{game.game_id} · {game.variant} · {outcome[game.won]}" for game in games
    ]


def test_the_player_and_her_form_widgets_change_every_figure(tables: Tables) -> None:
    at = open_app("player")
    assert at.title[0].value == "Player"
    chosen: dict[str, list[str]] = {}
    key = at.selectbox(key="player").value
    assert key == "heuristic-alex"  # the first by name
    assert_player(at, tables, key, 200, 50, chosen)
    run_app(at.number_input(key="player_window").set_value(5))
    assert_player(at, tables, key, 200, 5, chosen)
    run_app(at.number_input(key="player_span").set_value(11))
    assert_player(at, tables, key, 11, 5, chosen)
    run_app(at.selectbox(key="player").select("heuristic-megan"))
    assert_player(at, tables, "heuristic-megan", 11, 5, chosen)
    run_app(at.sidebar.multiselect(key="f_rules").select("standard"))
    chosen["f_rules"] = ["standard"]
    assert_player(at, tables, "heuristic-megan", 11, 5, chosen)
    run_app(at.number_input(key="player_span").set_value(200))
    assert_player(at, tables, "heuristic-megan", 200, 5, chosen)


def test_the_player_in_the_address_is_shown(tables: Tables) -> None:
    at = open_app("player", {"player": "heuristic-beth"})
    assert_player(at, tables, "heuristic-beth", 200, 50, {})
