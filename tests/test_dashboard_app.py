"""The dashboard run headless by Streamlit's AppTest: every page and every widget path, on
the bundled sample records (and all of fixtures/, invalid records included), and on uploads.

AppTest runs no JavaScript: tests/test_dashboard_browser.py proves the pages draw in a
browser. Here every run is followed by a check that the script raised nothing.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

import orjson
import polars as pl
import pytest
from spades_replay.dashboard import data as dashboard_data
from spades_replay.dashboard import replay as dashboard_replay
from spades_replay.dashboard.markup import card_md, md
from streamlit.testing.v1 import AppTest

import spades_replay
from spades_replay.analysis import KERNEL_VARIABLE, Solver, analyze_hand, position_before
from spades_replay.analysis import play as analysis_play
from spades_replay.analysis import solver as analysis_solver
from spades_replay.engine.actions import PlayCard
from spades_replay.engine.cards import cards_of
from spades_replay.plumbing.corpus import sample_paths
from spades_replay.replayer.replay import HandReplay, Replay
from spades_replay.replayer.validate import CorpusValidation
from spades_replay.stats.collect import StatsCollection
from spades_replay.stats.double_dummy import hands_of, with_analysis
from spades_replay.stats.metrics import player_metrics
from spades_replay.stats.tables import short_rules_label, tables_of
from spades_replay.text import card_label

from .conftest import FIXTURES, INVALID_FIXTURES, fixture_records
from .support.apptest import (
    ENTRY,
    board_data,
    board_start,
    board_step,
    charts_of,
    drawn,
    markdown_of,
    open_app,
    pick_game,
    player_keys,
    run_app,
    table_of,
    tell,
    tell_until_analysed,
)

pytestmark = pytest.mark.slow  # every test runs the app's pages

VALID = (FIXTURES / "two-player" / "mercy.json").read_bytes()
HOSTILE_NAME = "**Eve** [click](https://evil.example) :red[x] <b>"


def _hostile() -> bytes:
    record = orjson.loads(VALID)
    record["players"][0] = {"name": HOSTILE_NAME}
    record["game_id"] = "[evil](https://evil.example)"
    return orjson.dumps(record)


def _words(parts: list[Any]) -> str:
    """A sentence of the board's data as text, its cards as the dashboard writes them."""
    return "".join(part if isinstance(part, str) else card_label(part["c"]) for part in parts)


@pytest.fixture
def app() -> AppTest:
    """The dashboard on its default data (the samples of fixtures/), on the Replay page."""
    return open_app()


def _fixture_counts() -> tuple[int, int]:
    """Valid games and their complete hands in the sample records of fixtures/ (what the
    dashboard opens on by default), counted by the validator."""
    validation = CorpusValidation(sample_paths(FIXTURES), keep_valid=True)
    valid = [report for report in validation if report.valid]
    complete = 0
    for report in valid:
        assert report.source is not None
        data = Path(report.source).read_bytes()
        if report.line is not None:
            data = _line(report.source, report.line)
        complete += spades_replay.replay(spades_replay.loads(data)).result.hands
    return len(valid), complete


INVALID_FILES = len(list((FIXTURES / "invalid").glob("*.json")))
"""The invalid records the dashboard finds under fixtures/ (one file each; EXPECTED.json, not
a record, is one of them)."""


def _line(path: str, line: int) -> bytes:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as stream:
        return bytes(stream.read().splitlines()[line - 1])


def test_opens_clean_on_the_sample_records_of_the_fixtures(app: AppTest) -> None:
    """The default dashboard shows the valid samples, not fixtures/invalid: no warning."""
    games, hands = _fixture_counts()
    assert app.sidebar.markdown[0].value == (
        f"**{games}** valid game(s), **{hands}** complete hand(s)"
    )
    assert not app.sidebar.warning
    assert not app.sidebar.error
    shown = app.sidebar.text[0].value.splitlines()
    assert [Path(path).name for path in shown] == ["corpus", "four-player", "two-player"]
    picker = app.selectbox(key="game")
    assert len(picker.options) == games
    assert picker.options[0].startswith("four-player-s12-000000 · four-player · Alex & Charlie")
    assert board_start(app) == (1, 0)
    first = board_step(app, 1, 0)
    assert (first["phase"], first["broken"], first["text"]) == (
        "bidding",
        False,
        ["The cards are dealt."],
    )
    assert len(board_data(app)["game"]["hands"][0]["steps"]) == 58


def _first_game() -> Replay:
    first = (FIXTURES / "corpus" / "four-player.jsonl").read_bytes().splitlines()[0]
    return spades_replay.replay(spades_replay.loads(first))


def test_the_board_is_sent_every_step_of_every_hand(app: AppTest) -> None:
    replay = _first_game()
    game = board_data(app)["game"]
    assert [hand["number"] for hand in game["hands"]] == [1, 2, 3, 4]
    hand = replay.hands[0]
    data = game["hands"][0]
    assert data["marks"] == list(hand.trick_marks)
    first = hand.outcome.play.tricks[0]
    during = data["steps"][hand.trick_marks[0] + 2]["trick"]
    assert [card for _, card in during["plays"]] == list(first.cards[:2])
    assert not during["complete"]
    assert [len(row) for row in data["score"]] == [3] * 8  # the score sheet: 8 lines, 2 sides
    done = data["steps"][hand.trick_marks[1]]
    assert done["trick"]["complete"]
    assert _words(done["text"]).endswith("wins trick 1.")
    # the data is built once: a run after a step sends the same steps
    before = [hand["steps"] for hand in board_data(app)["game"]["hands"]]
    tell(app, 1, 30)
    assert [hand["steps"] for hand in board_data(app)["game"]["hands"]] == before


def test_the_position_the_board_tells_moves_the_chart_and_the_address(app: AppTest) -> None:
    replay = _first_game()
    # the chart waits for the board to be drawn in the browser, then comes with every run
    assert charts_of(app) == []
    (chart,) = charts_of(drawn(app))
    assert chart["layout"]["title"]["text"] == "Running score"
    assert [trace["y"][-1] for trace in chart["data"]] == list(replay.result.scores)
    assert chart["layout"]["shapes"][-1]["x0"] == 1
    tell(app, 3, 7)
    (chart,) = charts_of(app)
    assert chart["layout"]["shapes"][-1]["x0"] == 3
    assert (app.query_params["hand"], app.query_params["step"]) == ("3", "7")
    # a run of the whole page starts the board where it was told to be
    run_app(app.selectbox(key="view").select(2))
    assert board_start(app) == (3, 7)


def test_one_seats_view_hides_the_other_hands(app: AppTest) -> None:
    replay = _first_game()
    for hand in board_data(app)["game"]["hands"]:
        assert all(isinstance(cards, list) for cards in hand["steps"][0]["hands"])
    run_app(app.selectbox(key="view").select(1))
    assert app.selectbox(key="view").value == 1
    game = board_data(app)["game"]
    assert game["viewer"] == 1
    for number, hand in enumerate(game["hands"], start=1):
        dealt = replay.hands[number - 1].outcome.dealt
        assert hand["steps"][0]["hands"] == [13, sorted(cards_of(dealt[1])), 13, 13]
        assert hand["analysis"] is None
    words = [caption.value for caption in app.main.caption]
    assert any(text.startswith("Double dummy reads every hand") for text in words)


def test_a_two_player_game_shows_its_draft_and_the_end_of_an_unfinished_hand(
    app: AppTest,
) -> None:
    pick_game(app, "two-player-unfinished")
    assert board_start(app) == (1, 0)
    game = board_data(app)["game"]
    assert game["seats"] == 2
    first = game["hands"][0]
    assert _words(first["steps"][0]["text"]).startswith("The deck is shuffled, face down")
    drafts = [entry for entry in first["log"] if entry["kind"] == "draft"]
    assert len(drafts) == 26
    assert " keeps " in _words(first["steps"][drafts[3]["step"]]["text"])
    last = game["hands"][-1]
    assert last["number"] == 3
    assert not last["complete"]
    assert last["score"] is None


def test_game_charts_draw_the_picked_game_from_its_tables() -> None:
    at = open_app("charts")
    assert at.title[0].value == "Game charts"
    pick_game(at, "fixture-two-player-standard-game")
    scores, bags, parts = charts_of(at)
    assert [len(chart["data"]) for chart in (scores, bags, parts)] == [2, 3, 10]
    replay = spades_replay.replay(
        spades_replay.load(FIXTURES / "two-player" / "standard-game.json")
    )
    assert scores["data"][0]["y"][-1] == replay.result.scores[0]
    assert scores["layout"]["shapes"][0]["y0"] == 500
    assert bags["data"][2]["x"] == [8, 12, 15, 20]
    sheet = table_of(at, "contract_points")
    assert sheet.shape == (42, 12)
    # headed by SCORE_PARTS' labels, as every table of the dashboard heads them
    config = json.loads(next(f for f in at.dataframe if "contract_points" in f.value).proto.columns)
    assert config["contract_points"]["label"] == "Contract (points)"
    assert config["penalty_points"]["label"] == "Bag penalties (points)"


def test_corpus_stats_chart_every_metric_and_follow_the_filters() -> None:
    at = open_app("stats")
    assert at.title[0].value == "Corpus stats"
    collection = StatsCollection(sample_paths(FIXTURES))
    assert list(collection) == []
    games = collection.tables().games
    assert [metric.value for metric in at.metric][:2] == [
        str(games.height),
        str(games.filter(pl.col("complete")).height),
    ]
    charts = charts_of(at)
    assert [chart["layout"]["title"]["text"] for chart in charts] == [
        "Win rate",  # two columns: the left one's charts, then the right one's
        "Nil and Blind Nil success",
        "Bid accuracy",
        "Bags per hand",
        "Final scores of complete games",
        "Points of a side in one hand",
    ]
    assert [len(chart["data"]) for chart in charts] == [1, 2, 3, 1, 2, 2]
    # rates run 0 to 100 %; each histogram has its own panel
    for chart in charts[:3]:
        assert chart["layout"]["xaxis"]["range"] == [0, 1]
    for chart in charts[4:]:
        assert [trace["xaxis"] for trace in chart["data"]] == ["x", "x2"]
    # each figure is explained in a line beside it
    captions = [caption.value for caption in at.caption]
    assert any(line.startswith("The share of her finished games she won") for line in captions)
    assert any("**A side's hand**" in line for line in captions)
    players = table_of(at, "games")
    metrics = player_metrics(collection.tables()).sort(
        "hands", descending=True, maintain_order=True
    )
    assert players.shape[0] == metrics.height
    # the charts show the top rows by hands; the reader may ask for more
    top = min(12, metrics.height)
    win = charts[0]["data"][0]
    assert len(win["y"]) == top
    assert win["x"] == [rate or 0 for rate in metrics.head(top).get_column("win_rate")]
    run_app(at.number_input(key="stats_top").set_value(metrics.height))
    assert len(charts_of(at)[0]["data"][0]["y"]) == metrics.height
    run_app(at.multiselect(key="f_variant").select("two-player"))
    two_player = games.filter(pl.col("variant") == "two-player").height
    assert at.metric[0].value == str(two_player)
    assert set(table_of(at, "games")["variant"]) == {"two-player"}
    run_app(at.multiselect(key="f_player").select("heuristic-megan"))
    megan = player_metrics(collection.tables()).filter(
        pl.col("player_key") == "heuristic-megan", pl.col("variant") == "two-player"
    )
    shown = table_of(at, "games")
    assert list(shown["player"]) == ["Megan"] * megan.height
    # rule sets by their short labels, spelled out in the legend under the tables
    assert sorted(shown["rules"]) == sorted(
        short_rules_label(key) for key in megan.get_column("rules")
    )
    legend = [caption.value for caption in at.caption if caption.value.startswith("Rules: ")]
    assert legend
    assert "**mercy**: lose\\_score\\=\\-200" in legend[0]
    # headers for people
    config = json.loads(next(f for f in at.dataframe if "games" in f.value).proto.columns)
    assert config["bags_per_hand"]["label"] == "Bags per hand"
    assert config["win_rate"]["type_config"]["type"] == "progress"
    # every rate a percentage with one decimal: Streamlit writes two decimals fewer than the step
    rates = [
        name
        for name, column in config.items()
        if column.get("type_config", {}).get("format") == "percent"
    ]
    assert {"win_rate", "exact_rate", "nil_rate"} <= set(rates)
    assert {config[name]["type_config"]["step"] for name in rates} == {0.001}
    # her id opens her page
    assert config["player_key"]["type_config"]["type"] == "link"
    assert player_keys(shown) == megan.get_column("player_key").to_list()


def test_the_filters_narrow_each_other_and_say_what_they_let_go() -> None:
    at = open_app("stats")
    collection = StatsCollection(sample_paths(FIXTURES))
    assert list(collection) == []
    tables = collection.tables()
    everyone = set(tables.seat_hands.get_column("player_key"))
    assert "Megan (heuristic-megan)" in at.multiselect(key="f_player").options
    run_app(at.multiselect(key="f_variant").select("four-player"))
    four = tables.seat_hands.filter(pl.col("variant") == "four-player")
    offered = at.multiselect(key="f_player").options
    assert "heuristic-megan" not in " ".join(offered)
    assert len(offered) == four.get_column("player_key").n_unique() < len(everyone)
    rules = at.multiselect(key="f_rules").options
    assert len(rules) == four.get_column("rules").n_unique()
    # a player chosen first, then a variant she never plays: she is let go, and it is said
    run_app(at.multiselect(key="f_variant").unselect("four-player"))
    run_app(at.multiselect(key="f_player").select("heuristic-megan"))
    run_app(at.multiselect(key="f_variant").select("four-player"))
    assert at.multiselect(key="f_player").value == []
    let_go = [c.value for c in at.sidebar.caption if c.value.startswith("Let go")]
    assert let_go
    assert "Megan" in let_go[0]
    assert at.metric[0].value == str(tables.games.filter(pl.col("variant") == "four-player").height)


def test_filters_narrow_the_game_picker(app: AppTest) -> None:
    run_app(app.multiselect(key="f_rules").select("lose_score=-200"))
    options = app.selectbox(key="game").options
    assert [label.split(" · ")[0] for label in options] == [
        "fixture-four-player-mercy",
        "fixture-two-player-mercy",
    ]
    run_app(app.multiselect(key="f_variant").select("four-player"))
    assert app.multiselect(key="f_rules").value == ["lose_score=-200"]
    assert [label.split(" · ")[0] for label in app.selectbox(key="game").options] == [
        "fixture-four-player-mercy"
    ]


def test_a_bad_upload_shows_its_error_never_a_traceback() -> None:
    at = open_app("validate")
    assert at.title[0].value == "Validate"
    run_app(at.file_uploader(key="upload").set_value(("bad.json", b"{oops", "application/json")))
    assert at.error[0].value == f"**{md('bad.json')}**: 1 of 1 record(s) invalid, 0 valid."
    assert "code `format.json`" in at.error[1].value
    run_app(at.file_uploader(key="upload").set_value(("x.jsonl.gz", b"nope", "application/gzip")))
    name = md("x.jsonl.gz")
    said = md("cannot decompress x.jsonl.gz: it is not gzip-compressed data", 1000)
    assert at.error[0].value == f"**{name}**: {said} `io.compression`"
    for data, said in [
        (
            b"hello world",
            "not JSON at all: it begins 'hello world', where a record begins with '{'",
        ),
        (b"", "not valid JSON: the input is empty"),
    ]:
        run_app(at.file_uploader(key="upload").set_value(("notes.json", data, "application/json")))
        assert md(said, 2000) in at.error[1].value


def test_one_upload_twice_is_shown_once() -> None:
    at = open_app("validate")
    hostile = _hostile()
    files = [("a.json", hostile, "application/json"), ("b.json", hostile, "application/json")]
    run_app(at.file_uploader(key="upload").set_value(files))
    assert [box.value for box in at.success][:1] == [f"**{md('a.json')}**: 1 record(s), all valid."]
    assert not any(md("b.json") in box.value for box in at.success)
    assert at.info[0].value == (
        f"**{md('b.json')}** holds the same bytes as **{md('a.json')}**: shown once, above."
    )


def test_the_uploads_of_a_session_are_bounded() -> None:
    """At most 20 files of one upload are read, and 64 MiB of uploads in a session: what
    is left unread is said, never held."""
    at = open_app("validate")
    many = [(f"{n:02d}.json", VALID, "application/json") for n in range(22)]
    run_app(at.file_uploader(key="upload").set_value(many))
    assert at.warning[0].value.startswith("22 files in one upload: the first 20 are read.")
    shown = [box.value for box in at.success if "record(s), all valid" in box.value]
    assert len(shown) == 1  # the 20 read are the same bytes: shown once
    assert len(at.info) == 19
    big = 15 << 20
    files = [(f"{name}.json", bytes([ord(name)]) * big, "application/json") for name in "abcde"]
    run_app(at.file_uploader(key="upload").set_value(files))
    warnings = [box.value for box in at.warning]
    assert warnings == [
        f"**{md('e.json')}** left unread: a session holds at most 64 MiB of uploads, and "
        "60.0 MiB are held. Remove some uploads to read it."
    ]
    assert len(at.error) >= 4  # the four read: not JSON, each reported
    run_app(at.file_uploader(key="sidebar_upload").set_value(("f.json", VALID, "application/json")))
    assert any("**" + md("f.json") + "** left unread" in box.value for box in at.sidebar.warning)


def test_every_error_of_an_upload_with_its_place_and_rule() -> None:
    at = open_app("validate")
    revoke = (FIXTURES / "invalid" / "play-revoke.json").read_bytes()
    corpus = b"\n".join([orjson.dumps(orjson.loads(VALID)), orjson.dumps(orjson.loads(revoke))])
    run_app(at.file_uploader(key="upload").set_value(("two.jsonl", corpus, "application/jsonl")))
    assert at.error[0].value == f"**{md('two.jsonl')}**: 1 of 2 record(s) invalid, 1 valid."
    problem = at.error[1].value
    expected = json.loads((FIXTURES / "invalid" / "EXPECTED.json").read_text())["play-revoke.json"]
    assert problem.startswith(f"{md('two.jsonl')}, line 2")
    assert "rule: " in problem
    assert "code `play.revoke`" in problem
    assert expected["place"].split(",")[0] in problem
    table = table_of(at, "pointer")
    assert list(table["code"]) == ["play.revoke"]


def test_a_problem_writes_its_cards_as_the_page_does_and_a_quoted_value_as_written() -> None:
    """The engine's message names cards as the legal cards beside it are written (A♣ and
    K♦, not AC beside K♦); a format problem quotes the record's own text unchanged."""
    at = open_app("validate")
    revoke = (FIXTURES / "invalid" / "play-revoke.json").read_bytes()
    card = (FIXTURES / "invalid" / "format-card.json").read_bytes()
    corpus = b"\n".join(orjson.dumps(orjson.loads(record)) for record in (revoke, card))
    run_app(at.file_uploader(key="upload").set_value(("two.jsonl", corpus, "application/jsonl")))
    revoked, quoted = at.error[1].value, at.error[2].value
    assert f"{md('played A♣ but must follow diamonds (holds K♦, A♦)')}" in revoked
    assert f"legal: {md('K♦ A♦')}" in revoked
    assert md("'10H' is not a card") in quoted
    table = table_of(at, "pointer")
    assert list(table["problem"]) == [
        "played A♣ but must follow diamonds (holds K♦, A♦)",
        "'10H' is not a card (rank 2-9, T, J, Q, K or A, then suit C, D, H or S)",
    ]
    assert list(table["legal"]) == ["K♦ A♦", ""]


def test_a_valid_upload_opens_in_the_replay_page() -> None:
    at = open_app("validate")
    hostile = _hostile()
    run_app(at.multiselect(key="f_variant").select("four-player"))
    run_app(at.file_uploader(key="upload").set_value(("evil.json", hostile, "application/json")))
    assert at.success[0].value == f"**{md('evil.json')}**: 1 record(s), all valid."
    digest = hashlib.sha256(hostile).hexdigest()
    run_app(at.button(key=f"open {digest}").click())
    assert board_start(at) == (1, 0)  # the Replay page's board
    assert at.multiselect(key="f_variant").value == []
    assert at.selectbox(key="game").value.startswith(f"upload|{digest[:16]}|")
    assert at.sidebar.markdown[0].value.startswith(f"**{_fixture_counts()[0] + 1}** valid game(s)")
    text = markdown_of(at)
    # the board sets names as text, never as markup; Markdown gets them escaped
    assert board_data(at)["game"]["players"][0] == HOSTILE_NAME
    assert "[click](" not in text
    assert f"**{md('[evil](https://evil.example)', 120)}**" in text


def test_the_validate_page_lists_the_invalid_records_of_the_loaded_data(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "argv", [ENTRY, str(FIXTURES)])
    at = open_app("validate")
    invalid = len(INVALID_FIXTURES) - 1  # EXPECTED.json is no record: named apart
    assert f"**{invalid}** of {fixture_records() - 1} record(s) are invalid" in markdown_of(at)
    assert "Not records, skipped" in at.info[0].value
    assert "EXPECTED" in at.info[0].value
    assert len(at.main.error) == 20
    assert table_of(at, "pointer").shape[0] >= invalid


def test_the_sidebar_upload_adds_games_to_every_page(app: AppTest) -> None:
    hostile = _hostile()
    run_app(app.file_uploader(key="sidebar_upload").set_value(("e.json", hostile, "text/json")))
    assert app.sidebar.markdown[0].value.startswith(f"**{_fixture_counts()[0] + 1}** valid game(s)")
    pick_game(app, "[evil](https://evil.example)")
    assert app.selectbox(key="view").options[1].startswith(f"Seat 0: {HOSTILE_NAME}'s view")
    assert HOSTILE_NAME in app.multiselect(key="f_player").options


def test_a_page_that_fails_keeps_the_sidebars_uploads_and_filters(
    app: AppTest, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the sidebar's widgets are drawn after the page: a page that raises must still draw
    # them, or the session would let their values go
    run_app(app.file_uploader(key="sidebar_upload").set_value(("e.json", VALID, "text/json")))
    run_app(app.multiselect(key="f_variant").select("two-player"))
    counted = app.sidebar.markdown[0].value

    def fails() -> None:
        raise RuntimeError("the page failed")

    monkeypatch.setattr(dashboard_replay, "render", fails)
    app.run()
    assert [exception.value for exception in app.exception] == ["the page failed"]
    assert app.sidebar.multiselect(key="f_variant").value == ["two-player"]
    assert app.sidebar.markdown[0].value == counted
    monkeypatch.undo()
    run_app(app)
    assert app.sidebar.markdown[0].value == counted
    assert app.multiselect(key="f_variant").value == ["two-player"]
    assert all("two-player" in label for label in app.selectbox(key="game").options)


def test_paths_that_cannot_be_read_are_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "argv", [ENTRY, str(tmp_path), str(tmp_path / "missing.jsonl")])
    at = open_app()
    assert at.sidebar.error[0].value.startswith("no such file or directory")
    assert at.info[0].value.startswith("No valid game is loaded")


def test_a_larger_corpus_loads_and_its_progress_bar_goes_away(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = tmp_path / "many.jsonl"
    lines = (FIXTURES / "corpus" / "four-player.jsonl").read_bytes()
    corpus.write_bytes(lines * 4)
    monkeypatch.setattr(sys, "argv", [ENTRY, str(corpus)])
    at = open_app("stats")
    assert at.metric[0].value == "100"
    assert [bar.value for bar in at.get("progress")] == []
    tables = tables_of(
        spades_replay.replay(spades_replay.loads(line)) for line in lines.splitlines() * 4
    )
    assert table_of(at, "complete_games").shape[0] == player_metrics(tables).height == 4


# double-dummy analysis


def _step_of_play(hand: HandReplay, index: int) -> int:
    """The timeline step at which card ``index`` (0-based) of the hand is played."""
    plays = [step.index for step in hand.timeline if isinstance(step.action, PlayCard)]
    return plays[index]


def _mercy() -> Replay:
    return spades_replay.replay(spades_replay.load(FIXTURES / "two-player" / "mercy.json"))


def test_a_two_player_hand_is_analysed_on_the_fly(app: AppTest) -> None:
    pick_game(app, "fixture-two-player-mercy")
    hand = _mercy().hands[0]
    analysis = analyze_hand(hand)
    assert analysis.par is not None
    costly = next(play for play in analysis.plays if play.cost)
    tell(app, 1, _step_of_play(hand, costly.index))
    # every card of the hand carries its cost on the board, the par beside each contract
    marked = board_data(app)["game"]["hands"][0]["analysis"]
    assert marked["marks"][str(costly.index)] == f"-{costly.cost}"
    assert set(marked["marks"]) == {str(play.index) for play in analysis.plays if play.cost}
    assert marked["par"] == list(analysis.par)
    # the card just played: what it cost and what was best
    summary = next(text.value for text in app.main.markdown if " played " in text.value)
    assert f"it cost **{costly.cost}** trick(s)" in summary
    assert f"Best: {' '.join(card_md(card) for card in costly.best_cards)}." in summary
    # the best alternatives, on demand: every legal card with its value
    assert not [frame for frame in app.dataframe if "tricks" in frame.value.columns]
    run_app(app.toggle(key="alternatives").set_value(True))
    shown = table_of(app, "tricks")
    values = Solver(hand.variant).card_values(position_before(hand, costly.index))
    assert sorted(zip(shown["card"], shown["tricks"], strict=True)) == sorted(
        (card_label(card), str(value)) for card, value in values.items()
    )
    best = {card_label(card) for card in costly.best_cards}
    assert {
        card for card, note in zip(shown["card"], shown["note"], strict=True) if "best" in note
    } == best
    played = shown[shown["note"].str.contains("played")]
    assert list(played["cost"]) == [f"-{costly.cost}"]


def test_a_nil_shows_its_verdict_beside_the_bid(app: AppTest) -> None:
    pick_game(app, "fixture-two-player-tie-plays-on")
    replayed = spades_replay.replay(
        spades_replay.load(FIXTURES / "two-player" / "tie-plays-on.json")
    )
    (nil,) = analyze_hand(replayed.hands[4]).nils
    tell(app, 5, len(replayed.hands[4].timeline) - 1)
    verdict = "makeable" if nil.makeable else "doomed"
    verdicts = board_data(app)["game"]["hands"][4]["analysis"]["verdicts"]
    assert verdicts[nil.seat] == f"{verdict} double dummy"
    assert verdicts[1 - nil.seat] == ""
    notes = markdown_of(app)
    assert f"Nil of Drew (seat {nil.seat}): **{verdict}** from the start of play" in notes


@pytest.fixture
def pure_python_app(monkeypatch: pytest.MonkeyPatch) -> AppTest:
    """The dashboard with the compiled double-dummy kernel turned off."""
    monkeypatch.setenv(KERNEL_VARIABLE, "python")
    return open_app()


def test_a_four_player_hand_is_analysed_at_once_with_the_compiled_kernel() -> None:
    pytest.importorskip("numba")
    par = analyze_hand(_first_game().hands[0]).par
    assert par is not None
    dashboard_data.background.clear()  # what earlier tests had analysed is forgotten
    app = open_app()
    assert not [button for button in app.button if button.key == "analyse_hand"]
    # analysed in the background: the page does not wait for it, and says so
    assert board_data(app)["game"]["hands"][0]["analysis"] is None
    assert any("in the background" in caption.value for caption in app.caption)
    marked = tell_until_analysed(app, 1, 5)
    assert marked["par"] == list(par)
    assert "?" not in marked["marks"].values()
    assert not any("in the background" in caption.value for caption in app.caption)


class SearchClock:
    """A clock for the double-dummy search that advances ten milliseconds each time it is read
    (the solver reads it every 256 nodes): a time cap strikes after the same search on any
    machine, however fast."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        self.now += 0.01
        return self.now


def test_a_four_player_hand_waits_for_its_button_and_says_when_capped(
    pure_python_app: AppTest, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = SearchClock()
    for module in (analysis_solver, analysis_play):
        monkeypatch.setattr(module, "time", clock)
    app = pure_python_app
    assert app.button(key="analyse_hand").label == "Analyse this hand"
    assert app.number_input(key="hand_time_cap").value == 30.0
    assert board_data(app)["game"]["hands"][0]["analysis"] is None
    run_app(app.number_input(key="hand_time_cap").set_value(0.1))
    run_app(app.button(key="analyse_hand").click())
    marked = tell_until_analysed(app, 1, 1)
    (warning,) = [w.value for w in app.main.warning if w.value.startswith("The time cap")]
    skipped = int(re.search(r"the first (\d+) of 52 cards", warning).group(1))  # type: ignore[union-attr]
    assert 0 < skipped < 52
    assert "the later cards keep their costs" in warning
    assert marked["par"] is None
    for index in range(52):
        assert (marked["marks"].get(str(index), "").startswith("?")) == (index < skipped), index
    # a capped hand can be asked for again, with another cap
    assert app.button(key="analyse_hand").label == "Analyse again with this cap"


def test_corpus_stats_analyse_on_request_and_report_capped_hands() -> None:
    at = open_app("stats")
    # every sample hand would take hours: no button, but the filters or a terminal
    assert "analyse_corpus" not in [button.key for button in at.button]
    assert any("this page waits for" in warning.value for warning in at.main.warning)
    assert "spades-replay ingest " in at.code[0].value
    assert "--analysis --time-cap 10" in at.code[0].value
    assert any("are four-player" in warning.value for warning in at.main.warning)
    run_app(at.multiselect(key="f_rules").select("target_score=200"))
    assert not any("are four-player" in warning.value for warning in at.main.warning)
    run_app(at.number_input(key="corpus_jobs").set_value(1))
    assert at.button(key="analyse_corpus").label == "Analyse 5 hand(s)"
    assert "chart_tricks_lost" not in json.dumps([chart["layout"] for chart in charts_of(at)])
    run_app(at.button(key="analyse_corpus").click())
    replayed = spades_replay.replay(
        spades_replay.load(FIXTURES / "two-player" / "tie-plays-on.json")
    )
    expected = player_metrics(with_analysis(tables_of([replayed]), hands_of([replayed])))
    chart = charts_of(at)[-1]
    assert chart["layout"]["title"]["text"] == "Tricks lost by misplays per hand (double dummy)"
    (bars,) = chart["data"]
    assert bars["x"] == expected.get_column("tricks_lost_per_hand").to_list()
    assert bars["text"] == [
        f"{lost} in 5 hand(s)" for lost in expected.get_column("tricks_lost").to_list()
    ]
    table = table_of(at, "tricks_lost_per_hand")
    assert list(table["tricks_lost"]) == expected.get_column("tricks_lost").to_list()
    assert list(table["capped_hands"]) == [0, 0]
    # the analysis stays on as long as the games, cap and workers stay the same
    run_app(at.multiselect(key="f_player").select("heuristic-megan"))
    assert at.button(key="analyse_corpus").label == "Analyse 5 hand(s)"
    assert list(table_of(at, "tricks_lost_per_hand")["player"]) == ["Megan"]
    # four-player hands stopped by the cap are reported and counted apart
    run_app(at.multiselect(key="f_player").unselect("heuristic-megan"))
    run_app(at.multiselect(key="f_rules").unselect("target_score=200").select("target_score=150"))
    run_app(at.number_input(key="corpus_time_cap").set_value(0.1))
    run_app(at.button(key="analyse_corpus").click())
    assert any(
        warning.value.startswith("3 hand(s) reached the time cap of 0.1 s")
        for warning in at.main.warning
    )
    capped = table_of(at, "cards analysed")
    assert list(capped["hand"]) == [1, 2, 3]
    (bars,) = charts_of(at)[-1]["data"]
    assert bars["text"] == ["no hand analysed, 3 capped"] * 4
    assert list(table_of(at, "tricks_lost_per_hand")["analysed_hands"]) == [0] * 4
