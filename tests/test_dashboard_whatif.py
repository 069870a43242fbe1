"""The What-if page run headless by Streamlit's AppTest, on the bundled fixtures: the scoring
options as widgets starting from the game's rules, the game's chart and points by part, and the
corpus with the same changes. (tests/test_dashboard_browser.py draws it in a browser.)"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import polars as pl
import pytest
from spades_replay.dashboard import figures
from spades_replay.dashboard import whatif as whatif_page
from streamlit.testing.v1 import AppTest

import spades_replay
from spades_replay.engine.rules import OPTION, SCORING_OPTIONS
from spades_replay.plumbing.corpus import Task, expand, is_corpus, read_task
from spades_replay.replayer.rescore import CorpusRescore, rescore
from spades_replay.replayer.validate import check_bytes
from spades_replay.stats.tables import Tables
from spades_replay.store.ingest import ingest
from spades_replay.store.read import Store
from spades_replay.store.rescore import Prepared, prepare

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

MERCY = FIXTURES / "two-player" / "mercy.json"


def _fixture_replays() -> list[spades_replay.Replay]:
    replays = []
    for path in expand([FIXTURES]):
        for source in read_task(Task(str(path), is_corpus(Path(path)))):
            if source.blank:
                continue
            replayed = check_bytes(source.data, str(path), source.line)[1]
            if replayed is not None:
                replays.append(replayed)
    return replays


@pytest.fixture
def whatif() -> AppTest:
    """The What-if page on the mercy game of fixtures/two-player."""
    at = open_app("whatif")
    return pick_game(at, "fixture-two-player-mercy")


def test_the_page_starts_from_the_games_own_rules(whatif: AppTest) -> None:
    assert whatif.title[0].value == "What-if"
    assert labelled(whatif.number_input, "Target score").value == 500
    assert labelled(whatif.checkbox, "Mercy rule: a side at the lose score loses").value
    assert labelled(whatif.number_input, "Lose score").value == -200
    assert not labelled(whatif.checkbox, "Doubled contracts: 20 a trick from").value
    assert labelled(whatif.number_input, "Contract of at least (tricks)").disabled
    text = markdown_of(whatif)
    assert "Changes: **no change**" in text
    assert "won by Drew in hand 14 \\(mercy\\)" in text
    (chart,) = charts_of(whatif)
    assert len(chart["data"]) == 6
    assert chart["data"][0]["y"] == chart["data"][2]["y"]
    assert chart["data"][4]["x"] == chart["data"][5]["x"] == [14]
    assert whatif.info[0].value.startswith("Change a scoring option above")


def test_a_lower_target_ends_the_game_earlier_and_rescores_the_corpus(whatif: AppTest) -> None:
    run_app(labelled(whatif.number_input, "Target score").set_value(200))
    text = markdown_of(whatif)
    assert "Changes: **target\\_score\\=200**" in text
    assert "208 to 181\\, won by Drew in hand 4 \\(target\\)" in text
    charts = charts_of(whatif)
    game, wins = charts
    expected = rescore(spades_replay.load(MERCY), target_score=200)
    assert game["data"][2]["y"] == [0, *(pair[0] for pair in expected.rescored.hand_scores)]
    assert game["data"][5]["x"] == [4]
    assert game["data"][5]["y"] == [208]
    parts = table_of(whatif, "part")
    assert list(parts["part"]) == ["Contract", "Bags", "Nil", "Bag penalties", "Total"]
    assert list(parts["Drew rescored"]) == list(expected.rescored.parts(1).values())
    summary = CorpusRescore().extend(
        rescore(replayed, target_score=200) for replayed in _fixture_replays()
    )
    metrics = [metric.value for metric in whatif.metric]
    assert metrics == [
        str(summary.games),
        str(summary.winner_changed),
        str(summary.ends_earlier),
        str(summary.no_longer_ends),
    ]
    assert summary.games == 71
    assert len(wins["data"]) == 2
    players = table_of(whatif, "wins_after")
    assert player_keys(players) == sorted(summary.players)
    assert list(players["wins_after"]) == [row.wins_after for row in summary.player_rows()]
    assert wins["data"][1]["x"] == [row.rate_after for row in summary.player_rows()]
    assert summary.winner_changed > 0
    assert table_of(whatif, "rescored").shape[0] == summary.winner_changed


def test_without_the_mercy_rule_the_game_no_longer_ends(whatif: AppTest) -> None:
    run_app(labelled(whatif.checkbox, "Mercy rule: a side at the lose score loses").uncheck())
    text = markdown_of(whatif)
    assert "Changes: **lose\\_score\\=none**" in text
    assert "\\, no winner within 14 hand\\(s\\)" in text
    assert "**the winner changes**" in text
    game = charts_of(whatif)[0]
    assert game["data"][5]["x"] == []
    changed = table_of(whatif, "rescored")
    assert "fixture-two-player-mercy" in list(changed["game_id"])
    assert whatif.metric[3].value != "0"


def test_a_value_the_rules_refuse_is_an_error_on_the_page(whatif: AppTest) -> None:
    run_app(labelled(whatif.number_input, "Lose score").set_value(600))
    assert "lose\\_score \\(600\\) must be below target\\_score \\(500\\)" in whatif.error[0].value
    assert charts_of(whatif) == []


def test_the_player_filter_narrows_the_players(whatif: AppTest) -> None:
    run_app(labelled(whatif.number_input, "Bag penalty").set_value(50))
    run_app(whatif.multiselect(key="f_player").select("heuristic-megan"))
    players = table_of(whatif, "wins_after")
    assert player_keys(players) == ["heuristic-megan"]
    megan = _fixture_replays()
    played = [
        replayed for replayed in megan if "heuristic-megan" in {p.key for p in replayed.players}
    ]
    assert list(players["games"]) == [len(played)]


def test_the_score_figure_overlays_both_outcomes_and_marks_the_ends() -> None:
    game = rescore(spades_replay.load(MERCY), target_score=200, lose_score=None)
    figure = figures.whatif_scores(game)
    assert len(figure.data) == 6
    played_0, played_1, rescored_0, rescored_1, end_played, end_rescored = figure.data
    assert list(played_1.y) == [0, *(pair[1] for pair in game.original.hand_scores)]
    assert list(rescored_0.y) == [0, *(pair[0] for pair in game.rescored.hand_scores)]
    assert list(rescored_0.x) == list(range(5))
    assert (played_0.line.dash, rescored_0.line.dash, rescored_1.line.dash) == (
        "solid",
        "dash",
        "dash",
    )
    assert played_0.line.color == rescored_0.line.color != played_1.line.color
    assert (list(end_played.x), list(end_played.y)) == ([14], [416])
    assert (list(end_rescored.x), list(end_rescored.y)) == ([4], [208])
    lines = {shape.y0 for shape in figure.layout.shapes}
    assert lines == {500, 200, -200}
    texts = {annotation.text for annotation in figure.layout.annotations}
    assert texts == {"target 500 (as played)", "target 200 (rescored)", "mercy -200 (as played)"}


def test_the_score_figure_of_a_game_that_no_longer_ends_has_no_end_marker() -> None:
    game = rescore(spades_replay.load(MERCY), lose_score=None)
    figure = figures.whatif_scores(game)
    assert len(figure.data) == 6
    assert list(figure.data[5].x) == []
    assert {annotation.text for annotation in figure.layout.annotations} == {
        "target 500",
        "mercy -200 (as played)",
    }


def test_the_win_rate_figure_pairs_each_player_before_and_after() -> None:
    games = [
        rescore(spades_replay.load(FIXTURES / "two-player" / name), lose_score=None)
        for name in ("mercy.json", "standard-game.json")
    ]
    rows = [row.to_dict() for row in CorpusRescore().extend(games).player_rows()]
    frame = pl.DataFrame(rows)
    figure = figures.whatif_win_rates(frame)
    before, after = figure.data
    assert (before.name, after.name) == ("as played", "rescored")
    assert list(before.y) == [row["player"] for row in rows]
    assert list(before.x) == [row["win_rate_before"] for row in rows]
    assert list(after.text) == [f"{row['wins_after']}/{row['games']}" for row in rows]
    same = frame.with_columns(pl.lit("Drew").alias("player"))
    assert len(set(figures.whatif_win_rates(same).data[0].y)) == frame.height


def test_every_scoring_option_of_the_table_has_its_widget(whatif: AppTest) -> None:
    """The widgets are built from the option table: one per scoring option, labelled with its
    title, starting from the game's own value."""
    widgets = [*whatif.number_input, *whatif.toggle, *whatif.selectbox]
    keyed = {
        widget.key.rsplit("|", 1)[-1]: widget
        for widget in widgets
        if widget.key and widget.key.startswith("whatif|")
    }
    assert set(keyed) == set(SCORING_OPTIONS)
    rules = spades_replay.load(MERCY).rules
    for name in SCORING_OPTIONS:
        assert keyed[name].label.startswith(OPTION[name].title)
        if getattr(rules, name) is not None:
            assert keyed[name].value == getattr(rules, name)
    assert keyed["failed_nil_tricks_help_partner"].label.endswith("(four-player)")


def test_an_option_of_words_gets_a_choice() -> None:
    def script() -> None:

        import streamlit as st
        from spades_replay.dashboard.whatif import option_widget

        from spades_replay.engine.rules import OPTION, Effect

        row = OPTION["first_lead"]._replace(effect=Effect.SCORES)
        st.write(option_widget(st.container(), row, "two_of_clubs", "lead"))

    at = AppTest.from_function(script).run()
    assert at.selectbox(key="lead").options == ["left_of_dealer", "two_of_clubs"]
    assert at.selectbox(key="lead").value == "two_of_clubs"
    assert at.selectbox(key="lead").label == "First lead (four-player)"


def _on_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The dashboard's next AppTest opens on a store of the fixtures."""
    ingest([FIXTURES], tmp_path / "store")
    monkeypatch.setattr(sys, "argv", [ENTRY, "--store", str(tmp_path / "store")])


def _info(at: AppTest) -> str:
    return "\n".join(str(info.value) for info in at.info)


def test_the_store_is_prepared_for_what_if_as_soon_as_it_is_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opening the dashboard on a store (on its first page, Replay) starts preparing every
    game in the background; the What-if page then answers its first change at once, from
    that preparation (the page prepares nothing itself)."""
    prepared: list[tuple[int, str]] = []
    done = threading.Event()

    def preparing(tables: Tables) -> Prepared:
        result = prepare(tables)
        prepared.append((tables.games.height, threading.current_thread().name))
        done.set()
        return result

    monkeypatch.setattr(whatif_page, "prepare", preparing)
    _on_store(tmp_path, monkeypatch)
    at = run_app(AppTest.from_file(ENTRY, default_timeout=120))
    assert all(title.value != "What-if" for title in at.title)  # the Replay page
    assert done.wait(120)
    games = Store.open(tmp_path / "store").tables().games.height
    assert prepared == [(games, "what-if preparation")]
    # another session, on the What-if page: the server's preparation is kept for every one
    at = AppTest.from_file(ENTRY, default_timeout=120)
    at.switch_page("whatif.py")
    at = run_app(at)
    at = run_app(labelled(at.number_input, "Target score").set_value(300))
    assert "Preparing the" not in _info(at)
    assert at.metric[0].value == str(games)
    assert len(prepared) == 1


def test_the_what_if_page_never_waits_for_the_preparation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the games are prepared, the page draws the game picked rescored and says the
    rest is on its way; once the preparation is done, the next run shows every game's
    figures."""
    release = threading.Event()

    def slow(tables: Tables) -> Prepared:
        release.wait(120)
        return prepare(tables)

    monkeypatch.setattr(whatif_page, "prepare", slow)
    _on_store(tmp_path, monkeypatch)
    try:
        at = AppTest.from_file(ENTRY, default_timeout=120)
        at.switch_page("whatif.py")
        at = run_app(at)
        at = run_app(labelled(at.number_input, "Target score").set_value(300))
        assert "Changes: **target\\_score\\=300**" in markdown_of(at)
        assert "**Rescored:**" in markdown_of(at)
        assert "Preparing the 71 game(s) shown for What-if in the background" in _info(at)
        assert list(at.metric) == []
    finally:
        release.set()
    for _ in range(600):
        at = run_app(at)
        if "Preparing the" not in _info(at):
            break
        time.sleep(0.2)
    summary = CorpusRescore().extend(
        rescore(replayed, target_score=300) for replayed in _fixture_replays()
    )
    assert [metric.value for metric in at.metric[:2]] == [
        str(summary.games),
        str(summary.winner_changed),
    ]
