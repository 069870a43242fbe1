"""The dashboard's parts that need no Streamlit run: what a replay step shows (board), safe
text (markup), filters (selection), reading records and uploads (data), and the
``spades-replay dashboard`` command up to the point where it becomes the server."""

from __future__ import annotations

import argparse
import dataclasses
import doctest
import gzip
import hashlib
import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

import orjson
import polars as pl
import pytest
from spades_replay.dashboard import (
    board,
    data,
    headers,
    markup,
    selection,
    sidebar,
    timeline,
    widgets,
)
from spades_replay.dashboard import replay as replay_page
from spades_replay.dashboard.markup import cards_md

import spades_replay
from spades_replay.analysis import (
    HandAnalysis,
    NilAnalysis,
    NilSwing,
    PlayAnalysis,
    Solver,
    analyze_hand,
    position_before,
)
from spades_replay.cli import dashboard_cmd, main
from spades_replay.engine.actions import Exchange, PlayCard
from spades_replay.engine.cards import cards_of, parse_card
from spades_replay.engine.state import Phase
from spades_replay.plumbing.limits import Limits
from spades_replay.replayer.replay import Replay, next_mark, previous_mark
from spades_replay.stats.tables import rules_label
from spades_replay.text import card_label, score_sheet

from .conftest import FIXTURES, ROOT


@cache
def _replay(name: str) -> Replay:
    return spades_replay.replay(spades_replay.load(FIXTURES / f"{name}.json"))


@pytest.mark.parametrize(
    "module", [board, headers, markup, replay_page, selection], ids=lambda module: module.__name__
)
def test_docstring_examples(module: object) -> None:
    failures, tried = doctest.testmod(module, raise_on_error=False)  # type: ignore[arg-type]
    assert tried
    assert not failures


# markup


def test_a_pick_sent_under_labels_the_picker_no_longer_shows_changes_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Switching spoiler-free relabels the game picker. A pick the browser sent under the
    old labels reaches the callback as the label itself (Streamlit hands on a label it does
    not know as it came): it picks no game, and the session keeps its own."""
    state = {
        "game": "two-player-s11-000002 · two-player · Alex vs Beth · 512 to 301",
        "shared: game": "file|0|two-player-s11-000001",
        "shared: game number": 0,
    }
    before = dict(state)
    monkeypatch.setattr(widgets.st, "session_state", state)
    widgets._new_game({"file|0|two-player-s11-000001": 0, "file|1|two-player-s11-000002": 1})
    assert state == before


def test_untrusted_text_comes_out_of_markdown_as_it_went_in() -> None:
    evil = "**Eve** [x](https://evil.example) ![i](https://t.example/p.png) :red[r] $x$ <b>"
    escaped = markup.md(evil)
    for piece in ("**", "[x]", "](", "![", ":red[", "$x$", "<b>"):
        assert piece not in escaped
    # every backslash escapes the punctuation after it: removing them gives the text back
    assert escaped.replace("\\", "").replace(markup.JOINER, "") == evil
    assert markup.md("bell\x07\nnext") == "bell\\\\x07\\\\x0anext"


def test_a_holding_is_grouped_by_suit_spades_first_red_suits_in_red() -> None:
    mask = sum(1 << parse_card(card) for card in ("2C", "AS", "TH", "KD", "3S"))
    assert markup.hand_md(mask) == "**A♠** **3♠**\u2003:red[**10♥**]\u2003**2♣**\u2003:red[**K♦**]"


# board


def test_trick_marks_stop_before_the_first_card_and_after_every_trick() -> None:
    hand = _replay("four-player/standard-game").hands[0]
    marks = timeline.hand_data(_replay("four-player/standard-game"), hand, None)["marks"]
    steps = hand.timeline
    assert marks == list(hand.trick_marks)
    assert len(marks) == 14
    assert isinstance(steps[marks[0] + 1].action, PlayCard)
    assert not isinstance(steps[marks[0]].action, PlayCard)
    for number, mark in enumerate(marks[1:], start=1):
        assert len(steps[mark].state.tricks) == number
        assert steps[mark].state.trick == ()
    assert marks[-1] == len(steps) - 1
    assert next_mark(hand.trick_marks, 0, len(steps) - 1) == marks[0]
    assert next_mark(hand.trick_marks, marks[3], len(steps) - 1) == marks[4]
    assert previous_mark(hand.trick_marks, marks[3] + 2) == marks[3]


def _cards_in(value: Any) -> set[int]:
    """Every card named anywhere in some of the board's data (``{"c": card}`` parts, and
    the card fields of steps and log entries)."""
    found: set[int] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("c", "card", "kept", "thrown") and isinstance(item, int):
                found.add(item)
            elif key in ("out", "in") and isinstance(item, list):
                found.update(item)
            else:
                found |= _cards_in(item)
    elif isinstance(value, list):
        for item in value:
            found |= _cards_in(item)
    return found


def test_the_board_data_holds_every_step_of_every_hand() -> None:
    replay = _replay("four-player/standard-game")
    game = timeline.game_data(replay, None)
    assert game["seats"] == 4
    assert game["players"] == [player.name for player in replay.players]
    assert game["sideOf"] == [0, 1, 0, 1]
    assert game["cards"]["ranks"][12] + game["cards"]["suits"][3] == card_label(parse_card("AS"))
    assert len(game["hands"]) == len(replay.hands)
    hand = replay.hands[0]
    data = game["hands"][0]
    assert len(data["steps"]) == len(hand.timeline)
    assert data["dealer"] == hand.outcome.dealer
    for step, state in zip(data["steps"], (step.state for step in hand.timeline), strict=True):
        assert step["hands"] == [cards_of(holding) for holding in state.holdings]
        assert step["won"] == list(state.tricks_won)
        assert step["turn"] == state.turn
    first = hand.outcome.play.tricks[0]
    marks = data["marks"]
    during = data["steps"][marks[0] + 2]["trick"]
    assert (during["number"], during["leader"], during["complete"]) == (1, first.leader, False)
    assert [card for _, card in during["plays"]] == list(first.cards[:2])
    done = data["steps"][marks[1]]["trick"]
    assert (done["complete"], done["winner"]) == (True, first.winner)
    assert data["steps"][0]["trick"] is None
    assert data["steps"][0]["text"] == ["The cards are dealt."]
    play = data["steps"][marks[0] + 1]["text"]
    assert play[1] == {"c": first.cards[0]}
    cards = [entry for entry in data["log"] if entry["kind"] == "card"]
    assert [entry["card"] for entry in cards[:4]] == list(first.cards)
    assert [entry["play"] for entry in cards] == list(range(52))
    assert data["score"] == board.score_rows(replay, hand.scores)
    assert data["before"] == {"scores": [0, 0], "bags": [0, 0]}
    assert game["hands"][1]["before"]["scores"] == [side.score for side in hand.scores]


def test_a_seat_sees_only_her_own_hand() -> None:
    replay = _replay("four-player/standard-game")
    hand = replay.hands[0]
    alone = timeline.hand_data(replay, hand, 2)
    for step, state in zip(alone["steps"], (step.state for step in hand.timeline), strict=True):
        assert step["hands"][2] == cards_of(state.holdings[2])
        for seat in (0, 1, 3):
            assert step["hands"][seat] == state.holdings[seat].bit_count()
    # the cards of the others she is ever told of are those played, once played
    played = {card for trick in hand.outcome.play.tricks for card in trick.cards}
    dealt = set(cards_of(hand.outcome.dealt[2]))
    assert _cards_in(alone) <= played | dealt


def test_the_draft_shows_a_seat_only_what_she_saw() -> None:
    replay = _replay("two-player/standard-game")
    hand = replay.hands[0]
    dealer = hand.outcome.dealer
    everyone = [e for e in timeline.hand_data(replay, hand, None)["log"] if e["kind"] == "draft"]
    assert len(everyone) == 26
    assert all(entry["kept"] is not None and entry["thrown"] is not None for entry in everyone)
    mine = [e for e in timeline.hand_data(replay, hand, dealer)["log"] if e["kind"] == "draft"]
    for row, full in zip(mine, everyone, strict=True):
        if row["seat"] != dealer:
            assert row["kept"] is None
            assert row["thrown"] is None
        else:
            assert row["kept"] == full["kept"]
            assert (row["thrown"] is None) == row["keep"]
    opponent = next(step.index for step in hand.timeline[1:] if step.action.seat != dealer)
    words = timeline.describe(replay, hand, opponent, dealer)
    assert words == [f"{replay.players[1 - dealer].name} (seat {1 - dealer}) takes a draft turn."]
    assert _cards_in(words) == set()


def test_a_blind_nil_exchange_is_seen_by_the_partners_only() -> None:
    replay = _replay("four-player/blind-nil")
    hand = next(hand for hand in replay.hands if hand.outcome.exchanges)
    exchange = hand.outcome.exchanges[0]
    bidder, partner = exchange.seat, exchange.seat ^ 2
    opponents = (bidder + 1) % 4, (bidder + 3) % 4
    viewers = [(None, True), (bidder, True), (partner, True)]
    viewers += [(seat, False) for seat in opponents]
    for viewer, seen in viewers:
        parts = timeline.exchange_parts(replay, exchange, viewer)
        assert (parts[0] == "puts away ") is seen, viewer
        assert (parts == ["exchanges 3 card(s) with her partner."]) is not seen
        (entry,) = [
            e for e in timeline.hand_data(replay, hand, viewer)["log"] if e["kind"] == "exchange"
        ]
        assert (entry["out"] == list(exchange.out)) is seen
        assert (entry["out"] == len(exchange.out)) is not seen
    step = next(step for step in hand.timeline if isinstance(step.action, Exchange))
    assert timeline.describe(replay, hand, step.index, None)[1] == "puts away "


def test_the_analysis_goes_to_the_full_view_only() -> None:
    replay = _replay("two-player/mercy")
    analysis = _mercy_analysis()
    full = timeline.hand_data(replay, replay.hands[0], None, analysis)["analysis"]
    assert full["marks"] == {str(i): mark for i, mark in board.play_marks(analysis).items()}
    assert full["marks"]
    assert full["par"] == list(analysis.par)
    assert full["verdicts"] == ["", ""]
    assert timeline.hand_data(replay, replay.hands[0], 0, analysis)["analysis"] is None
    game = timeline.game_data(replay, 1, {1: analysis})
    assert game["hands"][0]["analysis"] is None


def test_each_card_carries_what_the_par_strip_and_the_best_cards_show() -> None:
    replay = _replay("two-player/mercy")
    analysis = _mercy_analysis()
    plays = timeline.hand_data(replay, replay.hands[0], None, analysis)["analysis"]["plays"]
    assert len(plays) == len(analysis.plays)
    for shown, play in zip(plays, analysis.plays, strict=True):
        assert shown["seat"] == play.seat
        assert shown["cost"] == play.cost
        assert shown["best"] == list(play.best_cards)
        # each side's final trick count after the card: the mover's side makes its value
        assert shown["after"][play.seat] == play.value
        assert sum(shown["after"]) == timeline.TRICKS
    # the last card leaves what was made
    assert plays[-1]["after"] == list(analysis.made)
    # a card the time cap left unanalysed has neither
    capped = dataclasses.replace(analysis, plays=(_play(best=None, value=None),))
    (unanalysed,) = timeline.hand_data(replay, replay.hands[0], None, capped)["analysis"]["plays"]
    assert (unanalysed["cost"], unanalysed["after"]) == (None, None)


def test_the_score_table_is_the_hands_score_sheet() -> None:
    replay = _replay("two-player/standard-game")
    hand = next(hand for hand in replay.hands if hand.scores and hand.scores[1].bag_penalties)
    assert hand.scores is not None
    rows = {row[""]: row for row in board.score_rows(replay, hand.scores)}
    megan, drew = "seat 0: Megan", "seat 1: Drew"
    assert rows["score"][megan] == str(hand.scores[0].score)
    assert rows["score"][drew] == str(hand.scores[1].score)
    assert rows["bag penalty"][drew] == "-100"
    assert rows["hand"][drew] == f"{hand.scores[1].points:+d}"
    assert [row[""] for row in board.score_rows(replay, hand.scores)] == [
        label for label, _, _ in score_sheet(hand.scores)
    ]
    assert board.scores_before(replay, replay.hands[0]) == ((0, 0), (0, 0))


def test_phases_and_result_in_words() -> None:
    replay = _replay("four-player/standard-game")
    end = replay.hands[0].timeline[-1].state
    assert board.phase_label(end) == "hand over"
    assert end.phase is Phase.DONE
    assert board.result_md(replay).startswith("**Alex \\& Charlie** reached the target")
    assert board.result_md(_replay("two-player/unfinished")).startswith("Unfinished:")


# board: the double-dummy analysis


@cache
def _mercy_analysis() -> HandAnalysis:
    return analyze_hand(_replay("two-player/mercy").hands[0])


def _play(**changes: Any) -> PlayAnalysis:
    """A card of the mercy game's first hand, analysed, with some fields changed."""
    return dataclasses.replace(_mercy_analysis().plays[2], **changes)


def test_each_card_is_marked_with_its_cost() -> None:
    costly = _play()
    assert costly.cost == 1
    assert board.play_mark(costly) == "-1"
    assert board.play_mark(_play(best=costly.value)) == ""
    assert board.play_mark(_play(best=None, value=None)) == "?"
    swings = (NilSwing(0, False), NilSwing(1, True))
    assert board.play_mark(_play(nil_swings=swings)) == "-1 nil- nil+"
    analysis = _mercy_analysis()
    marks = board.play_marks(analysis)
    assert marks == {play.index: f"-{play.cost}" for play in analysis.plays if play.cost}
    assert board.play_marks(None) == {}


def test_the_nil_verdicts_and_the_notes_of_a_hand() -> None:
    replay = _replay("two-player/mercy")
    analysis = _mercy_analysis()
    capped = dataclasses.replace(analysis, par=None, capped=True)
    assert timeline.hand_data(replay, replay.hands[0], None, capped)["analysis"]["par"] is None
    nil = NilAnalysis(1, False, True, 0, True)
    with_nil = dataclasses.replace(analysis, nils=(nil,))
    assert board.nil_verdict(with_nil, 1) == "makeable double dummy"
    assert board.nil_verdict(with_nil, 0) == ""
    assert board.nil_verdict(None, 1) == ""
    doomed = dataclasses.replace(analysis, nils=(dataclasses.replace(nil, makeable=False),))
    assert board.nil_verdict(doomed, 1) == "doomed double dummy"
    unknown = dataclasses.replace(analysis, nils=(dataclasses.replace(nil, makeable=None),))
    assert board.nil_verdict(unknown, 1) == "no verdict: time cap"
    notes = board.analysis_notes(replay, with_nil)
    assert notes[0] == "Nil of Drew (seat 1): **makeable** from the start of play; made."
    assert notes[-1] == "Tricks lost by misplays: Megan **{}** · Drew **{}**".format(
        *analysis.tricks_lost
    )


def test_what_a_card_cost_and_the_best_cards() -> None:
    replay = _replay("two-player/mercy")
    costly = _play()
    text = board.played_md(replay, costly)
    assert text.startswith(f"Drew (seat 1) played {cards_md([costly.card])}: it cost **1**")
    assert (
        f"Before it she could make **{costly.best}** trick(s), after it **{costly.value}**." in text
    )
    assert f"Best: {cards_md(costly.best_cards)}." in text
    assert "a best play" in board.played_md(replay, _play(best=costly.value))
    assert "not analysed" in board.played_md(replay, _play(best=None, value=None))
    live = board.played_md(replay, _play(nil_live=True, nil_swings=(NilSwing(0, False),)))
    assert "It lost Megan (seat 0)'s makeable Nil." in live
    assert "A Nil was live" in live


def test_the_alternatives_best_first() -> None:
    hand = _replay("two-player/mercy").hands[0]
    play = _play()
    values = tuple(Solver(hand.variant).card_values(position_before(hand, play.index)).items())
    rows = board.alternative_rows(values, play.card)
    assert [row["tricks"] for row in rows] == sorted((row["tricks"] for row in rows), reverse=True)
    best = {card_label(card) for card in play.best_cards}
    assert {row["card"] for row in rows if "best" in row["note"]} == best
    (played,) = [row for row in rows if "played" in row["note"]]
    assert (played["card"], played["cost"]) == (card_label(play.card), "-1")


# selection


@cache
def _loaded() -> data.Loaded:
    files = sorted(str(path) for path in (FIXTURES / "two-player").glob("*.json"))
    files += sorted(str(path) for path in (FIXTURES / "four-player").glob("*.json"))
    return data.read_files([(path, "digest") for path in files])


def test_filters_keep_the_games_of_a_variant_rules_and_players() -> None:
    loaded = _loaded()
    tables, seats = loaded.tables, loaded.seats
    assert selection.apply(tables, seats, selection.Filters()) is tables
    two = selection.apply(tables, seats, selection.Filters(variants=("two-player",)))
    assert set(two.games.get_column("variant")) == {"two-player"}
    assert set(two.seat_hands.get_column("variant")) == {"two-player"}
    assert two.games.height == len(list((FIXTURES / "two-player").glob("*.json")))
    mercy = selection.Filters(rules=("lose_score=-200",))
    mercy_games = [  # counted from the records themselves
        path
        for path in FIXTURES.glob("*-player/*.json")
        if rules_label(spades_replay.replay(spades_replay.load(path)).rules) == "lose_score=-200"
    ]
    assert mercy_games
    assert selection.apply(tables, seats, mercy).games.height == len(mercy_games)
    alex = seats.filter(pl.col("player") == "Alex").item(0, "player_key")
    only = selection.apply(tables, seats, selection.Filters(players=(alex,)))
    assert set(only.games.get_column("variant")) == {"four-player"}
    # every four-player game, unfinished ones too: she sat in them all
    assert only.games.height == len(list((FIXTURES / "four-player").glob("*.json")))
    assert set(only.side_hands.get_column("game")) <= set(only.games.get_column("game"))


def test_labels_to_pick_games_and_players_by() -> None:
    loaded = _loaded()
    labels = selection.game_labels(loaded.tables.games)
    assert labels[0].startswith("fixture-two-player-blind-nil · two-player · Megan vs Drew · ")
    assert any("unfinished" in label for label in labels)
    options = selection.player_options(loaded.seats)
    assert options["heuristic-megan"] == "Megan (heuristic-megan)"


def test_each_filter_offers_only_what_the_filters_above_it_leave() -> None:
    loaded = _loaded()
    games = loaded.tables.games
    players = sidebar.seat_players(loaded.seats, games)
    every = selection.offered(games, players, selection.Filters())
    assert set(every.variants) == {"two-player", "four-player"}
    four = selection.offered(games, players, selection.Filters(("four-player",)))
    four_games = games.filter(pl.col("variant") == "four-player")
    assert four.rules == sorted(set(four_games.get_column("rules")))
    four_keys = set(
        loaded.seats.filter(
            pl.col("game").is_in(four_games.get_column("game").implode())
        ).get_column("player_key")
    )
    assert set(four.players) == four_keys
    assert "heuristic-megan" in every.players
    assert "heuristic-megan" not in four.players
    mercy = selection.offered(
        games, players, selection.Filters(("four-player",), ("lose_score=-200",))
    )
    assert set(mercy.players) <= four_keys


def test_the_filters_are_offered_from_each_variant_and_rule_set_once() -> None:
    """The sidebar hands the filters one row per variant and rule set, the variants in the
    engine's order, the rule sets as they first come: what every game would offer, without
    going through every game of a large store at each run."""
    games = pl.DataFrame(
        {
            "variant": ["two-player", "four-player", "two-player", "four-player", "two-player"],
            "rules": ["b", "a", "b", "c", "a"],
        }
    )
    kinds = sidebar._in_order(games)
    assert kinds.rows() == [
        ("two-player", "b"),
        ("two-player", "a"),
        ("four-player", "a"),
        ("four-player", "c"),
    ]
    assert sidebar._in_order(kinds).rows() == kinds.rows()
    players = pl.DataFrame(
        schema=dict.fromkeys(["player_key", "player", "variant", "rules"], pl.String)
    )
    for filters in (selection.Filters(), selection.Filters(("two-player",))):
        assert selection.offered(kinds, players, filters) == selection.offered(
            games, players, filters
        )


def test_when_no_game_passes_the_filter_that_excluded_them_is_named() -> None:
    loaded = _loaded()
    tables, seats = loaded.tables, loaded.seats

    def count(filters: selection.Filters) -> int:
        return selection.game_numbers(tables, seats, filters).len()

    Filters = selection.Filters  # noqa: N806 (the class, by its name)
    assert selection.excluding(count, Filters(("two-player",))) is None
    assert selection.excluding(count, Filters(("two-player",), ("nope",))) == "rules"
    assert selection.excluding(count, Filters((), (), ("nobody",))) == "player"
    megan_four = Filters(("four-player",), (), ("heuristic-megan",))
    assert selection.excluding(count, megan_four) == "player"
    assert selection.excluding(count, Filters(("three-player",))) == "variant"
    assert selection.excluding(lambda _: 0, megan_four) is None  # nothing loaded at all


def test_every_page_says_which_filter_left_no_game() -> None:
    loaded = _loaded()
    Filters = selection.Filters  # noqa: N806 (the class, by its name)

    def context(filters: selection.Filters) -> widgets.Context:
        return widgets.Context((), loaded, filters, loaded.tables, {})

    said = widgets.excluded(context(Filters(("two-player",), ("nope",))), "No game to show")
    assert said.startswith("No game to show: the rules filter in the sidebar excluded")
    said = widgets.excluded(context(Filters((), (), ("nobody",))), "No player to show")
    assert said.startswith("No player to show: the player filter")
    nothing = selection.apply(loaded.tables, loaded.seats, Filters(("nope",)))
    empty = dataclasses.replace(loaded, tables=nothing)
    said = widgets.excluded(
        widgets.Context((), empty, Filters(), empty.tables, {}), "No game to count"
    )
    assert said.startswith("No valid game is loaded: give paths")


def test_results_put_the_winners_score_first() -> None:
    """Side 1 won the mercy game -258 to 416: every result says 416 to -258."""
    replay = _replay("two-player/mercy")
    assert replay.result.winner == 1
    assert replay.result.scores == (-258, 416)
    assert ": 416 to -258 after" in board.result_md(replay)
    labels = selection.game_labels(_loaded().tables.games)
    (mercy,) = [label for label in labels if label.startswith("fixture-two-player-mercy ")]
    assert mercy.endswith("won by Drew, 416 to -258")


# data


def _upload(name: str, payload: bytes) -> data.Upload:
    return data.Upload.of(name, payload)


def test_an_upload_of_one_record_or_a_corpus_is_read_in_memory() -> None:
    record = (FIXTURES / "two-player" / "mercy.json").read_bytes()
    bad = (FIXTURES / "invalid" / "play-revoke.json").read_bytes()
    one = data.read_upload(_upload("game.json", record))
    assert (len(one.refs), len(one.invalid), one.records) == (1, 0, 1)
    assert one.refs[0].where == "upload game.json"
    lines = b"\n".join([orjson.dumps(orjson.loads(record)), b"", orjson.dumps(orjson.loads(bad))])
    corpus = data.read_upload(_upload("games.jsonl", lines + b"\n"))
    assert [ref.line for ref in corpus.refs] == [1]
    assert [(report.line, report.problems[0].code.value) for report in corpus.invalid] == [
        (3, "play.revoke")
    ]
    packed = data.read_upload(_upload("games.jsonl.gz", gzip.compress(lines)))
    assert [ref.line for ref in packed.refs] == [1]
    assert len(packed.invalid) == 1
    assert packed.tables.games.get_column("source").to_list() == ["games.jsonl.gz"]
    assert packed.tables.games.get_column("line").to_list() == [1]


def test_bad_uploads_are_problems_not_errors() -> None:
    not_json = data.read_upload(_upload("bad.json", b"{oops"))
    assert not_json.invalid[0].problems[0].code.value == "format.json"
    broken = data.read_upload(_upload("games.jsonl.gz", b"not gzip at all"))
    assert broken.problems[0].code.value == "io.compression"
    huge = data.read_upload(data.Upload.too_big("huge.json", data.UPLOAD_BYTES + 1))
    assert huge.problems[0].code.value == "format.limit"
    assert "spades-replay dashboard PATH" in huge.problems[0].message
    squeezed = gzip.compress(b" " * (data.UPLOAD_BYTES + 1))
    bomb = data.read_upload(_upload("bomb.jsonl.gz", squeezed))
    assert bomb.problems[0].code.value == "io.expansion"
    lifted = data.read_upload(_upload("bomb.jsonl.gz", squeezed), Limits(expansion=10_000))
    assert lifted.problems[0].code.value == "format.limit"
    long_line = b'{"x": "' + b"a" * 100 + b'"}'
    small = data.read_upload(_upload("x.jsonl", long_line), Limits(record_bytes=50))
    assert small.invalid[0].problems[0].code.value == "format.limit"


def test_reading_files_reports_progress_and_exact_places() -> None:
    corpus = str(FIXTURES / "corpus" / "mixed.jsonl.gz")
    heard: list[tuple[int, int, int]] = []
    loaded = data.read_files(
        [(corpus, "d1"), ("/no/such.json", "d2")],
        progress=lambda done, total, records: heard.append((done, total, records)),
    )
    assert loaded.records == len(heard) > 0
    assert heard[-1][0] == heard[-1][1]  # the gzip trailer gave the size to expect
    assert [ref.line for ref in loaded.refs] == list(range(1, len(loaded.refs) + 1))
    assert loaded.problems[0].code.value == "io.unreadable"


def test_loads_combine_with_games_numbered_on() -> None:
    record = (FIXTURES / "four-player" / "mercy.json").read_bytes()
    first = _loaded()
    second = data.read_upload(_upload("extra.json", record))
    both = data.combine([first, second])
    count = len(first.refs)
    assert both.refs == (*first.refs, *second.refs)
    assert both.tables.games.get_column("game").to_list() == list(range(count + 1))
    assert set(both.tables.side_hands.filter(pl.col("game") == count).get_column("hand")) == set(
        second.tables.side_hands.get_column("hand")
    )
    assert both.seats.filter(pl.col("game") == count).height == 4
    empty = data.combine([])
    assert empty.tables.games.height == 0
    assert empty.refs == ()


def test_the_app_reads_its_paths_from_streamlits_arguments_else_the_fixtures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry = str(ROOT / "dashboard" / "app.py")
    assert data.data_paths([entry, "a.jsonl", "logs"], entry) == ("a.jsonl", "logs")
    monkeypatch.chdir(ROOT)
    samples = ("corpus", "four-player", "two-player")  # fixtures/invalid is left out
    assert data.data_paths(["pytest", "-q"], entry) == tuple(f"fixtures/{n}" for n in samples)
    monkeypatch.chdir(tmp_path)
    assert data.data_paths([entry], entry) == tuple(str(FIXTURES / n) for n in samples)
    elsewhere = tmp_path / "site" / "dashboard"
    elsewhere.mkdir(parents=True)
    assert data.data_paths([], str(elsewhere / "app.py")) == ()


def test_a_corpus_analysis_reads_its_games_again_and_names_those_it_cannot(
    tmp_path: Path,
) -> None:
    record = (FIXTURES / "two-player" / "tie-plays-on.json").read_bytes()
    same = tmp_path / "same.json"
    same.write_bytes(record)
    edited = tmp_path / "edited.json"
    edited.write_bytes(record)
    corpus = FIXTURES / "corpus" / "two-player.jsonl"
    lines = corpus.read_bytes()
    games = [
        (0, data.GameRef(data.FILE, str(same), None, hashlib.sha256(record).hexdigest())),
        (1, data.GameRef(data.FILE, str(edited), None, "the digest of an earlier version")),
        (2, data.GameRef(data.FILE, str(tmp_path / "gone.json"), None, "d")),
        (3, data.GameRef(data.UPLOAD, "closed.json", None, "an upload no longer open")),
        (4, data.GameRef(data.FILE, str(corpus), 2, hashlib.sha256(lines).hexdigest())),
    ]
    hands, unread = data.games_of(games, {})
    second = spades_replay.replay(spades_replay.loads(lines.splitlines()[1]))
    assert hands.games == [0] * 5 + [4] * second.result.hands
    assert unread == (str(edited), str(tmp_path / "gone.json"), "upload closed.json")


def test_an_upload_digest_is_the_sha256_of_its_bytes() -> None:
    upload = _upload("x.json", b"abc")
    assert upload.digest == hashlib.sha256(b"abc").hexdigest()
    assert upload.size == 3


# the command


def _arguments(*argv: str) -> argparse.Namespace:
    from spades_replay.cli import build_parser

    return build_parser("dashboard").parse_args(["dashboard", *argv])


def test_the_server_takes_no_larger_upload_than_the_widgets() -> None:
    """Streamlit's own cap (200 MB unless told) would take a request that bypasses the
    upload widgets; the server is told the widgets' cap."""
    command = dashboard_cmd.streamlit_command(_arguments(), [], "at {port}")
    cap = command[command.index("--server.maxUploadSize") + 1]
    assert int(cap) << 20 == data.UPLOAD_BYTES


def test_the_command_serves_the_installed_entry_script_on_localhost() -> None:
    command = dashboard_cmd.streamlit_command(_arguments(), ["fixtures"], "at {port}")
    assert command[:6] == [
        sys.executable,
        "-m",
        "spades_replay.dashboard.serve",
        "--announce",
        "at {port}",
        "run",
    ]
    assert Path(command[6]) == ROOT / "dashboard" / "app.py"
    options = dict(zip(command[7:-2:2], command[8:-2:2], strict=True))
    assert options == {
        "--server.headless": "true",
        "--server.address": "127.0.0.1",
        "--browser.gatherUsageStats": "false",
        "--client.toolbarMode": "minimal",
        "--logger.hideWelcomeMessage": "true",
        "--server.maxUploadSize": "16",
        "--runner.postScriptGC": "false",
    }
    assert command[-2:] == ["--", "fixtures"]
    wide = dashboard_cmd.streamlit_command(
        _arguments("--port", "9000", "--address", "0.0.0.0"), [], ""
    )
    assert wide[wide.index("--server.port") + 1] == "9000"
    assert "0.0.0.0" in wide


def test_the_command_without_the_extra_names_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = dashboard_cmd.find_spec
    monkeypatch.setattr(
        dashboard_cmd, "find_spec", lambda name: None if name == "plotly" else real(name)
    )
    assert main(["dashboard", "fixtures"]) == 2
    assert capsys.readouterr().err == (
        "spades-replay: error: the dashboard needs plotly: pip install 'spades-replay[dashboard]'\n"
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "no PATH given and no fixtures/ folder here"),
        (["nowhere.jsonl"], "no such file or directory: nowhere.jsonl"),
        (["--port", "70000", "."], "--port must be from 1 to 65535, not 70000"),
    ],
)
def test_the_command_refuses_what_it_cannot_serve(
    argv: list[str],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["dashboard", *argv]) == 2
    assert message in capsys.readouterr().err


def test_the_command_defaults_to_the_fixtures_of_a_checkout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)
    assert dashboard_cmd.data_paths([]) == [
        "fixtures/corpus",
        "fixtures/four-player",
        "fixtures/two-player",
    ]


def test_a_busy_port_is_refused_when_asked_for(capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert not dashboard_cmd.port_free("127.0.0.1", port)
        assert main(["dashboard", "--port", str(port), str(ROOT / "fixtures")]) == 2
        assert capsys.readouterr().err == (
            f"spades-replay: error: port {port} on 127.0.0.1 is in use; choose another with "
            "--port\n"
        )


def test_the_address_is_said_once_the_server_listens(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """It opens no browser itself, and prints no address before it becomes the server and
    that binds a port (the next free one when 8501 is taken): the server prints it."""
    became: list[list[str]] = []
    monkeypatch.setattr(dashboard_cmd.os, "execve", lambda _, argv, __: became.append(argv))
    assert main(["dashboard", str(ROOT / "fixtures" / "two-player")]) is None
    assert "http://" not in capsys.readouterr().err
    (argv,) = became
    assert "--server.port" not in argv  # Streamlit moves on past a busy port by itself
    announcement = argv[argv.index("--announce") + 1]
    assert announcement.endswith("open http://127.0.0.1:{port}/ in a browser (Ctrl-C stops it)")

    from spades_replay.dashboard import serve
    from streamlit import config

    started: list[object] = []
    monkeypatch.setattr(config, "get_option", lambda name: 8502)
    server = object.__new__(serve.Server)
    serve.announcing(started.append, announcement)(server)
    assert started == [server]
    assert "open http://127.0.0.1:8502/ in a browser" in capsys.readouterr().err


@pytest.mark.parametrize("viewer", [None, 0, 1, 2, 3])
def test_the_board_is_sent_the_game_data_as_json_would_write_it(viewer: int | None) -> None:
    # the board's game is written once with orjson and sent in bytes after a line of the
    # run's fields: each must read back as the standard library's JSON of the same data
    from spades_replay.dashboard import board_widget

    replay = _replay("four-player/standard-game")
    fields = {"token": "t", "heard": {"hand": 1, "step": 0}, "note": "a\nb"}
    game = board_widget._data("standard", viewer, (), replay, {})
    sent = board_widget.payload(fields, game)
    head, body = sent.split(b"\n", 1)
    assert json.loads(head) == fields
    expected = timeline.game_data(replay, viewer)
    assert json.loads(body) == json.loads(json.dumps(expected))
