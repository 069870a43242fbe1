"""Wiring of the What-if page, in AppTest: each scoring option changed, and each sidebar
filter, changes the game's rescored running score, the corpus metrics, the games whose
winner changes and the win-rate chart's traces. Each figure is checked against the other of
the two ways to rescore: on the records the page replays each game, so the test scores the
stats tables (``rescore_tables``); on a store the page scores its tables, so the test
replays each record. The games are narrowed by the test itself."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

import spades_replay
from spades_replay.engine.rules import RuleValue
from spades_replay.plumbing.corpus import Task, expand, is_corpus, read_task, sample_paths
from spades_replay.replayer.rescore import CorpusRescore, Rescore, rescore
from spades_replay.replayer.validate import check_bytes
from spades_replay.stats.collect import StatsCollection
from spades_replay.stats.tables import Tables
from spades_replay.store.ingest import ingest
from spades_replay.store.read import Store
from spades_replay.store.rescore import rescore_tables

from .conftest import FIXTURES
from .support.apptest import (
    ENTRY,
    charts_of,
    labelled,
    markdown_of,
    open_app,
    pick_game,
    player_keys,
    run_app,
    table_of,
)

pytestmark = pytest.mark.slow  # every test runs the app's pages

MERCY = "fixture-two-player-mercy"
"""The game picked: two-player, standard but for a lose score of -200."""
TARGET = "Target score"
MERCY_RULE = "Mercy rule: a side at the lose score loses"

Chosen = dict[str, list[str]]
"""The sidebar's filters chosen, by widget key (``f_variant``, ``f_player``)."""


def _kept(variant: str, keys: Iterable[str], chosen: Chosen) -> bool:
    """Whether a game of ``variant`` with the players ``keys`` passes the filters."""
    if chosen.get("f_variant") and variant not in chosen["f_variant"]:
        return False
    return not chosen.get("f_player") or bool(set(chosen["f_player"]) & set(keys))


def _outcome(game: Rescore, rescored: bool) -> tuple[str, str]:
    """What a line of the table of winners changed starts and ends with: the scores, the
    winner's first; how the game ended."""
    outcome = game.rescored if rescored else game.original
    first, second = outcome.scores[::-1] if outcome.winner == 1 else outcome.scores
    if outcome.winner is None:
        return f"{first} to {second}", f"no winner within {game.hands_scored} hand(s)"
    return f"{first} to {second}", f"in hand {outcome.end_hand} ({outcome.reason})"


def assert_whatif(
    at: AppTest,
    picked: Rescore,
    games: list[Rescore],
    chosen: Chosen,
) -> None:
    """The page shows ``picked`` rescored, and over ``games`` (every game shown, rescored,
    in the page's order): the metrics, each side's score change, the games whose winner
    changes, and each player's win rate (of the players chosen, if any) as played and
    rescored, in the table and the chart."""
    chart = next(
        c
        for c in charts_of(at)
        if c["layout"]["title"]["text"] != "Win rate as played and rescored"
    )
    for side in (0, 1):
        assert chart["data"][2 + side]["y"] == [
            0,
            *(scores[side] for scores in picked.rescored.hand_scores),
        ]
    summary = CorpusRescore().extend(games)
    assert summary.games == len(games) > 0
    assert [metric.value for metric in at.metric] == [
        str(summary.games),
        str(summary.winner_changed),
        str(summary.ends_earlier),
        str(summary.no_longer_ends),
    ]
    text = markdown_of(at)
    for side in (0, 1):
        spread = summary.spread(side)
        assert f"Side {side} score change: mean **{spread.mean:+.1f}**" in text
    changed = [game for game in games if game.winner_changed]
    assert len(changed) == summary.winner_changed > 0
    table = table_of(at, "rescored")
    assert list(table["game_id"]) == [game.game_id for game in changed]
    for column, rescored in (("as_played", False), ("rescored", True)):
        for line, game in zip(table[column], changed, strict=True):
            start, end = _outcome(game, rescored)
            assert line.startswith(start), (line, start)
            assert line.endswith(end), (line, end)
    rows = summary.player_rows()
    if chosen.get("f_player"):
        rows = [row for row in rows if row.key in chosen["f_player"]]
    players = table_of(at, "wins_after")
    assert player_keys(players) == [row.key for row in rows]
    for column, values in (
        ("games", [row.games for row in rows]),
        ("wins_before", [row.wins_before for row in rows]),
        ("wins_after", [row.wins_after for row in rows]),
    ):
        assert list(players[column]) == values, column
    wins = next(
        c
        for c in charts_of(at)
        if c["layout"]["title"]["text"] == "Win rate as played and rescored"
    )
    before, after = wins["data"]
    for trace, rates, won in (
        (before, [row.rate_before for row in rows], [row.wins_before for row in rows]),
        (after, [row.rate_after for row in rows], [row.wins_after for row in rows]),
    ):
        assert all(label.startswith(row.name) for label, row in zip(trace["y"], rows, strict=True))
        assert trace["x"] == pytest.approx(rates)
        assert trace["text"] == [f"{w}/{row.games}" for w, row in zip(won, rows, strict=True)]


Expected = Callable[[dict[str, RuleValue], Chosen], tuple[Rescore, list[Rescore]]]
"""The game picked and every game shown, rescored with the changes, of the games that pass
the filters chosen."""


def _settled(at: AppTest) -> AppTest:
    """Run the page again until the games shown are prepared (on a store, in the
    background)."""
    for _ in range(600):
        if not any(str(info.value).startswith("Preparing the") for info in at.info):
            return at
        time.sleep(0.2)
        run_app(at)
    raise AssertionError("the games shown were not prepared")


def walk(at: AppTest, expected: Expected) -> None:
    """Pick the mercy game, change its options one by one and narrow the games by the
    sidebar's filters, checking the page against ``expected(changes, chosen)`` after each
    step."""

    def run(runnable: Any) -> None:
        _settled(run_app(runnable))

    pick_game(at, MERCY)
    assert at.info[0].value.startswith("Change a scoring option above")
    changes: dict[str, RuleValue] = {}
    chosen: Chosen = {}

    def check() -> None:
        _settled(at)
        picked, games = expected(changes, chosen)
        assert picked.game_id == MERCY
        assert_whatif(at, picked, games, chosen)

    run(labelled(at.number_input, TARGET).set_value(300))
    changes["target_score"] = 300
    check()
    run(at.sidebar.multiselect(key="f_player").select("heuristic-megan"))
    chosen["f_player"] = ["heuristic-megan"]
    check()
    run(labelled(at.checkbox, MERCY_RULE).uncheck())
    changes["lose_score"] = None
    check()
    run(at.sidebar.multiselect(key="f_player").unselect("heuristic-megan"))
    chosen = {}
    check()
    run(labelled(at.number_input, "Bag penalty").set_value(50))
    changes["bag_penalty"] = 50
    run(at.sidebar.multiselect(key="f_variant").select("two-player"))
    chosen["f_variant"] = ["two-player"]
    check()


@pytest.fixture(scope="module")
def tables() -> Tables:
    """The tables of what the dashboard opens on (the samples of fixtures/)."""
    collection = StatsCollection(sample_paths(FIXTURES))
    assert list(collection) == []
    return collection.tables()


def test_the_options_and_the_filters_change_what_if_on_the_records(tables: Tables) -> None:
    """On the records (the page replays each game), against the stats tables scored."""

    def expected(changes: dict[str, RuleValue], chosen: Chosen) -> tuple[Rescore, list[Rescore]]:
        whole = rescore_tables(tables, changes)
        (picked,) = whole.each(
            tables.games.filter(pl.col("game_id") == MERCY).get_column("game").to_list()
        )
        kept = [
            game
            for game, variant, keys in tables.games.select("game", "variant", "player_keys").rows()
            if _kept(variant, keys.split(", "), chosen)
        ]
        return picked, list(whole.each(kept))

    walk(open_app("whatif"), expected)


def _replays() -> list[spades_replay.Replay]:
    """Every valid record of fixtures/, replayed."""
    replays = []
    for path in expand([FIXTURES]):
        for source in read_task(Task(str(path), is_corpus(Path(path)))):
            if not source.blank:
                replayed = check_bytes(source.data, str(path), source.line)[1]
                if replayed is not None:
                    replays.append(replayed)
    return replays


def test_the_options_and_the_filters_change_what_if_on_a_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a store (the page scores its tables), against each record replayed and
    rescored, in the store's order of games."""
    directory = tmp_path / "store"
    ingest([FIXTURES], directory)
    order = {
        game_id: number
        for number, game_id in Store.open(directory).tables().games.select("game", "game_id").rows()
    }
    replays = sorted(_replays(), key=lambda replayed: order[replayed.game_id])
    assert len(replays) == len(order)

    def expected(changes: dict[str, RuleValue], chosen: Chosen) -> tuple[Rescore, list[Rescore]]:
        (picked,) = [rescore(r, **changes) for r in replays if r.game_id == MERCY]
        kept = [
            rescore(replayed, **changes)
            for replayed in replays
            if _kept(replayed.variant.value, (p.key for p in replayed.players), chosen)
        ]
        return picked, kept

    monkeypatch.setattr(sys, "argv", [ENTRY, "--store", str(directory)])
    at = AppTest.from_file(ENTRY, default_timeout=120)
    at.switch_page("whatif.py")
    at = run_app(at)

    walk(at, expected)
