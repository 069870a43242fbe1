"""The dashboard's figures, read through their data: every trace, value and line checked
against the stats tables they are drawn from."""

from __future__ import annotations

import dataclasses
from collections import Counter
from functools import cache
from typing import Any

import polars as pl
import pytest
from spades_replay.dashboard import figures

import spades_replay
from spades_replay.replayer.replay import PlayerInfo, Replay
from spades_replay.stats.double_dummy import hands_of, with_analysis
from spades_replay.stats.metrics import player_metrics
from spades_replay.stats.tables import Tables, tables_of

from .conftest import FIXTURES


@cache
def _replay(name: str) -> Replay:
    return spades_replay.replay(spades_replay.load(FIXTURES / f"{name}.json"))


@cache
def _tables(*names: str) -> Tables:
    return tables_of([_replay(name) for name in names])


def _side(frame: pl.DataFrame, side: int, column: str) -> list[int]:
    return frame.filter(pl.col("side") == side).sort("hand").get_column(column).to_list()


def test_running_scores_start_at_zero_and_follow_each_side() -> None:
    rows = _tables("two-player/standard-game").side_hands
    figure = figures.running_scores(rows, target=500)
    assert [trace.type for trace in figure.data] == ["scatter", "scatter"]
    for side, trace in enumerate(figure.data):
        assert list(trace.x) == [0, *_side(rows, side, "hand")]
        assert list(trace.y) == [0, *_side(rows, side, "score")]
    assert figure.data[0].name == "Megan (side 0)"
    assert figure.data[1].name == "Drew (side 1)"
    assert [shape.y0 for shape in figure.layout.shapes] == [500]
    assert figure.layout.annotations[0].text == "target 500"


def test_running_scores_draw_the_mercy_line_when_the_rules_have_one() -> None:
    replay = _replay("two-player/mercy")
    rows = _tables("two-player/mercy").side_hands
    figure = figures.running_scores(rows, replay.rules.target_score, replay.rules.lose_score)
    assert [shape.y0 for shape in figure.layout.shapes] == [500, -200]
    assert [note.text for note in figure.layout.annotations] == ["target 500", "mercy -200"]
    assert figure.data[1].y[-1] == replay.result.scores[1]


def test_running_scores_mark_the_hand_asked_for() -> None:
    rows = _tables("two-player/standard-game").side_hands
    figure = figures.running_scores(rows, target=500, marked=3)
    assert [(shape.x0, shape.x1) for shape in figure.layout.shapes][1:] == [(3, 3)]
    assert [note.text for note in figure.layout.annotations] == ["target 500", "hand 3"]


def test_bags_mark_every_bag_penalty_where_it_was_paid() -> None:
    rows = _tables("two-player/standard-game").side_hands
    figure = figures.bags_by_hand(rows, bag_limit=10)
    lines, penalties = figure.data[:2], figure.data[2]
    assert len(figure.data) == 3
    for side, trace in enumerate(lines):
        assert list(trace.y) == [0, *_side(rows, side, "bags")]
    assert penalties.name == "bag penalty"
    assert list(zip(penalties.x, penalties.y, penalties.text, strict=True)) == [
        (8, 0, "-100"),
        (12, 1, "-100"),
        (15, 0, "-100"),
        (20, 1, "-100"),
    ]
    # each marker has the colour of the side that paid
    assert list(penalties.marker.color) == [figures.SIDE_COLOURS[side] for side in (1, 0, 1, 0)]
    assert [shape.y0 for shape in figure.layout.shapes] == [10]


def test_bags_keep_an_empty_penalty_trace_when_none_was_paid() -> None:
    rows = _tables("two-player/nil-failed").side_hands.filter(pl.col("hand") <= 2)
    assert rows.get_column("bag_penalties").sum() == 0
    figure = figures.bags_by_hand(rows, bag_limit=10)
    assert len(figure.data) == 3
    assert list(figure.data[2].x) == []


def test_points_by_part_add_up_to_each_hands_total() -> None:
    rows = _tables("four-player/standard-game").side_hands
    figure = figures.points_by_part(rows)
    assert len(figure.data) == 10
    assert figure.layout.barmode == "relative"
    for side in (0, 1):
        traces = figure.data[side * 5 : side * 5 + 5]
        assert {trace.xaxis for trace in traces} == {"x" if side == 0 else "x2"}
        bars, total = traces[:4], traces[4]
        assert [bar.name for bar in bars] == ["contract", "bags", "Nil", "bag penalties"]
        assert all(bar.showlegend == (side == 0) for bar in bars)
        sums = [sum(values) for values in zip(*(bar.y for bar in bars), strict=True)]
        assert sums == list(total.y) == _side(rows, side, "points")
        assert list(bars[3].y) == _side(rows, side, "penalty_points")
    assert [note.text for note in figure.layout.annotations] == [
        "Alex &amp; Charlie (side 0)",
        "Beth &amp; David (side 1)",
    ]


def test_nil_success_gives_rates_beside_their_counts() -> None:
    players = player_metrics(_tables("four-player/standard-game"))
    figure = figures.nil_success(players)
    nil, blind = figure.data
    # one row per player, top to bottom in the table's order
    assert nil.orientation == "h"
    assert figure.layout.yaxis.autorange == "reversed"
    assert list(nil.y) == ["Alex", "Beth", "Charlie", "David"]
    assert list(nil.x) == [0, 1.0, 0.0, 0.0]
    assert list(nil.text) == ["-", "2/2", "0/1", "0/1"]
    assert list(blind.x) == [0, 0.0, 0, 0.5]
    assert list(blind.text) == ["-", "0/1", "-", "1/2"]
    # a bar of no width has its label beside it (inside, Plotly would draw none)
    assert list(nil.textposition) == ["outside", "inside", "outside", "outside"]
    assert list(blind.textposition) == ["outside", "outside", "outside", "inside"]


def test_bid_accuracy_stacks_exact_over_and_set_to_the_whole() -> None:
    players = player_metrics(_tables("two-player/standard-game"))
    figure = figures.bid_accuracy(players)
    assert [trace.name for trace in figure.data] == ["exact", "over", "set"]
    assert figure.layout.barmode == "stack"
    drew = list(figure.data[0].y).index("Drew")
    assert [trace.text[drew] for trace in figure.data] == ["4", "10", "5"]
    assert sum(trace.x[drew] for trace in figure.data) == pytest.approx(1.0)
    assert figure.data[2].x[drew] == pytest.approx(5 / 19)


def test_win_rates_and_bags_per_hand_come_from_the_player_metrics() -> None:
    players = player_metrics(_tables("two-player/standard-game", "two-player/mercy"))
    wins = figures.win_rates(players)
    assert len(wins.data) == 1
    # the same two players under two rule sets: four rows, told apart by their rules' labels
    assert list(wins.data[0].y) == [
        "Drew · two-player · mercy",
        "Megan · two-player · mercy",
        "Drew · two-player · standard",
        "Megan · two-player · standard",
    ]
    assert list(wins.data[0].text) == ["1/1", "0/1", "0/1", "1/1"]
    assert list(wins.data[0].x) == [1.0, 0.0, 0.0, 1.0]
    bags = figures.bags_per_hand(players)
    assert list(bags.data[0].x) == players.get_column("bags_per_hand").to_list()


def test_per_player_charts_grow_with_the_players() -> None:
    few = player_metrics(_tables("two-player/standard-game"))
    many = player_metrics(
        _tables("four-player/standard-game", "four-player/mercy", "four-player/pooled-nil")
    )
    assert figures.win_rates(few).layout.height == 320
    assert many.height == 12
    assert figures.win_rates(many).layout.height == 120 + 24 * 12
    assert figures.nil_success(many).layout.height == 120 + 24 * 2 * 12


def test_final_scores_split_winners_from_losers_and_skip_unfinished_games() -> None:
    names = ("two-player/standard-game", "two-player/mercy", "two-player/unfinished")
    games = _tables(*names).games
    figure = figures.final_scores(figures.final_score_counts(games))
    winners, losers = figure.data
    results = [_replay(name).result for name in names[:2]]
    assert _tallied(winners) == Counter(r.scores[r.winner] for r in results if r.winner is not None)
    assert _tallied(losers) == Counter(
        r.scores[1 - r.winner] for r in results if r.winner is not None
    )


def _tallied(trace: Any) -> Counter[int]:
    """What a histogram of tallied values counts: each distinct value and its count."""
    assert trace.histfunc == "sum"
    assert list(trace.x) == sorted(trace.x)
    return Counter(dict(zip(trace.x.tolist(), trace.y.tolist(), strict=True)))


def test_hand_points_have_one_histogram_per_variant() -> None:
    tables = _tables("two-player/standard-game", "four-player/standard-game")
    figure = figures.hand_points(figures.hand_point_counts(tables.side_hands))
    assert [trace.name for trace in figure.data] == ["two-player", "four-player"]
    for trace, variant in zip(figure.data, ("two-player", "four-player"), strict=True):
        points = tables.side_hands.filter(pl.col("variant") == variant).get_column("points")
        assert _tallied(trace) == Counter(points.to_list())
    assert sum(figure.data[0].y) == 42
    assert sum(figure.data[1].y) == 24


def test_names_from_records_reach_plotly_as_text_never_as_markup() -> None:
    replay = _replay("two-player/standard-game")
    evil = '<a href="https://evil.example">Eve</a><br>'
    players = (PlayerInfo(evil), replay.players[1])
    tables = tables_of([dataclasses.replace(replay, players=players)])
    trace = figures.running_scores(tables.side_hands, 500).data[0]
    assert trace.name == '&lt;a href="https://evil.example"&gt;Eve&lt;/a&gt;&lt;br&gt; (side 0)'
    labels = figures.player_labels(player_metrics(tables))
    assert "<" not in "".join(labels)


def test_player_labels_tell_apart_players_of_the_same_name() -> None:
    frame = pl.DataFrame(
        {
            "player": ["Ann", "Ann", "Ann", "Bo"],
            "player_key": ["a1", "a2", "a1", "bo"],
            "variant": ["two-player", "two-player", "four-player", "two-player"],
            "rules": ["standard"] * 4,
        }
    )
    assert figures.player_labels(frame) == [
        "Ann · two-player · standard (a1)",
        "Ann · two-player · standard (a2)",
        "Ann · four-player · standard (a1)",
        "Bo · two-player · standard (bo)",
    ]
    assert figures.player_labels(frame.slice(3)) == ["Bo"]


@pytest.mark.slow
def test_tricks_lost_per_hand_beside_their_counts_and_the_capped_hands() -> None:
    replays = [_replay("two-player/mercy"), _replay("four-player/tie-plays-on")]
    tables = with_analysis(tables_of(replays), hands_of(replays), time_cap=0.0)
    assert tables.seat_analysis is not None
    # a cap of no time stops every four-player hand (and perhaps some two-player ones):
    # make the two-player side of the test exact by analysing that game without a cap
    exact = with_analysis(tables_of(replays[:1]), hands_of(replays[:1]))
    assert exact.seat_analysis is not None
    players = pl.concat(
        [
            player_metrics(exact),
            player_metrics(tables).filter(pl.col("variant") == "four-player"),
        ]
    )
    figure = figures.tricks_lost(players)
    (bars,) = figure.data
    assert bars.orientation == "h"
    assert list(bars.y) == figures.player_labels(players)
    rates = players.get_column("tricks_lost_per_hand").to_list()
    assert list(bars.x) == [rate if rate is not None else 0 for rate in rates]
    lost = players.get_column("tricks_lost").to_list()
    assert list(bars.text) == [
        f"{lost[0]} in 14 hand(s)",
        f"{lost[1]} in 14 hand(s)",
        *["no hand analysed, 3 capped"] * 4,
    ]
    assert figure.layout.title.text == "Tricks lost by misplays per hand (double dummy)"
    assert tuple(figure.layout.xaxis.range) == (0, max(bars.x) * 1.5)


def _every_figure() -> list[Any]:
    """Every figure of the Game charts and Corpus stats pages, on the fixtures."""
    tables = _tables("two-player/standard-game", "four-player/standard-game", "two-player/mercy")
    players = player_metrics(tables)
    rows = _tables("two-player/standard-game").side_hands
    return [
        figures.running_scores(rows, 500),
        figures.bags_by_hand(rows, 10),
        figures.points_by_part(rows),
        figures.nil_success(players),
        figures.bid_accuracy(players),
        figures.win_rates(players),
        figures.bags_per_hand(players),
        figures.final_scores(figures.final_score_counts(tables.games)),
        figures.hand_points(figures.hand_point_counts(tables.side_hands)),
    ]


def test_every_legend_sits_at_the_foot_of_its_figure_and_every_title_at_the_top() -> None:
    for figure in _every_figure():
        layout = figure.layout
        assert layout.title.text
        assert (layout.title.x, layout.title.xanchor) == (0, "left")
        assert (layout.legend.yref, layout.legend.y, layout.legend.yanchor) == (
            "container",
            0,
            "bottom",
        )


def test_rates_run_from_0_to_100_percent() -> None:
    players = player_metrics(_tables("four-player/standard-game", "two-player/mercy"))
    for chart in (figures.nil_success, figures.bid_accuracy, figures.win_rates):
        axis = chart(players).layout.xaxis
        assert (tuple(axis.range), axis.tickformat) == ((0, 1), ".0%")


def test_histograms_stand_side_by_side_on_one_scale() -> None:
    tables = _tables("two-player/standard-game", "four-player/standard-game")
    for figure, panels in (
        (figures.final_scores(figures.final_score_counts(tables.games)), ["winner", "loser"]),
        (
            figures.hand_points(figures.hand_point_counts(tables.side_hands)),
            ["two-player", "four-player"],
        ),
    ):
        assert [trace.xaxis for trace in figure.data] == ["x", "x2"]
        assert [note.text for note in figure.layout.annotations] == panels
        # two panels, side by side, on the same x scale and one y axis
        assert figure.layout.xaxis.domain[1] < figure.layout.xaxis2.domain[0]
        assert figure.layout.xaxis.range == figure.layout.xaxis2.range
        assert figure.layout.yaxis2.matches == "y"
        assert figure.layout.barmode is None
        # the same bins in both panels, holding every value
        first, second = figure.data
        assert first.xbins == second.xbins
        assert first.autobinx is False
        values = [*first.x, *second.x]
        assert first.xbins.start < min(values) <= max(values) < first.xbins.end
