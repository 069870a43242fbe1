"""The double-dummy figures of the stats: the seat table and the metrics agree with
``analyze_hand`` run hand by hand; capped hands are reported and kept out of the rates; the
``stats --analysis`` command."""

from __future__ import annotations

import functools
from collections import Counter
from pathlib import Path

import orjson
import polars as pl
import pytest

import spades_replay
from spades_replay.analysis import HandAnalysis, analyze_hand
from spades_replay.cli import main
from spades_replay.replayer.replay import Replay
from spades_replay.stats.collect import StatsCollection
from spades_replay.stats.double_dummy import (
    ANALYSIS_SCHEMA,
    IDENTITY,
    capped_hands,
    hands_of,
    with_analysis,
)
from spades_replay.stats.metrics import (
    ANALYSIS_COLUMNS,
    game_metrics,
    player_metrics,
    variant_metrics,
)
from spades_replay.stats.tables import Tables, rules_label, tables_of

from .conftest import FIXTURES

MERCY = FIXTURES / "two-player" / "mercy.json"
NIL_FAILED = FIXTURES / "two-player" / "nil-failed.json"
UNFINISHED = FIXTURES / "two-player" / "unfinished.json"
FOUR_SHORT = FIXTURES / "four-player" / "tie-plays-on.json"


@functools.cache
def _replay(path: Path) -> Replay:
    return spades_replay.replay(spades_replay.load(path))


@functools.cache
def _oracle(path: Path) -> tuple[HandAnalysis, ...]:
    """Every complete hand of a game, analysed one by one."""
    return tuple(analyze_hand(hand) for hand in _replay(path).hands if hand.complete)


@functools.cache
def _analysed(*paths: Path) -> Tables:
    replays = [_replay(path) for path in paths]
    return with_analysis(tables_of(replays), hands_of(replays))


@pytest.mark.slow
def test_the_seat_table_matches_analyze_hand_seat_by_seat() -> None:
    paths = (MERCY, NIL_FAILED, UNFINISHED)
    tables = _analysed(*paths)
    table = tables.seat_analysis
    assert table is not None
    assert table.columns == [*IDENTITY, *list(ANALYSIS_SCHEMA)[3:]]
    # one row per seat per complete hand, as in seat_hands, in the same order
    assert table.select(IDENTITY).equals(tables.seat_hands.select(IDENTITY))
    rows = iter(table.iter_rows(named=True))
    nils = 0
    for game, path in enumerate(paths):
        for analysis in _oracle(path):
            for seat in range(2):
                row = next(rows)
                assert (row["game"], row["hand"], row["seat"]) == (game, analysis.number, seat)
                plays = [play for play in analysis.plays if play.seat == seat]
                assert row["plays"] == len(plays) == 13
                assert row["analysed_plays"] == 13
                assert row["costly_plays"] == sum(1 for play in plays if play.cost)
                assert row["tricks_lost"] == analysis.tricks_lost[seat]
                assert row["capped"] is False
                assert analysis.par is not None
                assert row["side_par"] == analysis.par[seat]
                assert row["side_tricks"] == analysis.made[seat]
                verdict = {nil.seat: nil.makeable for nil in analysis.nils}.get(seat)
                assert row["nil_makeable"] == verdict
                nils += verdict is not None
    assert next(rows, None) is None
    assert nils  # the fixtures hold Nils, so the verdict column is exercised


@pytest.mark.slow
def test_metrics_add_up_the_tricks_lost_of_each_player() -> None:
    tables = _analysed(MERCY, NIL_FAILED)
    lost: Counter[tuple[str, str]] = Counter()
    hands: Counter[tuple[str, str]] = Counter()
    for path in (MERCY, NIL_FAILED):
        replayed = _replay(path)
        for analysis in _oracle(path):
            for seat, count in enumerate(analysis.tricks_lost):
                key = (replayed.players[seat].key, rules_label(replayed.rules))
                lost[key] += count
                hands[key] += 1
    players = player_metrics(tables)
    assert players.columns[-4:] == list(ANALYSIS_COLUMNS)
    assert players.height == len(hands) == 4  # the two games have different rules
    for row in players.iter_rows(named=True):
        key = (row["player_key"], row["rules"])
        assert (row["analysed_hands"], row["capped_hands"]) == (hands[key], 0)
        assert row["tricks_lost"] == lost[key]
        assert row["tricks_lost_per_hand"] == pytest.approx(lost[key] / hands[key])
    by_game = game_metrics(tables)
    for game, path in enumerate((MERCY, NIL_FAILED)):
        row = by_game.row(game, named=True)
        oracle = _oracle(path)
        assert row["analysed_hands"] == len(oracle) == row["hands"]
        assert row["tricks_lost"] == sum(sum(a.tricks_lost) for a in oracle)
    variants = variant_metrics(tables)
    assert variants.get_column("analysed_hands").sum() == sum(hands.values()) // 2
    assert variants.get_column("tricks_lost").sum() == sum(lost.values())


def test_capped_hands_are_reported_and_left_out_of_every_rate() -> None:
    replays = [_replay(MERCY), _replay(FOUR_SHORT)]
    tables = with_analysis(tables_of(replays), hands_of(replays), time_cap=0.0)
    assert tables.seat_analysis is not None
    four = tables.seat_analysis.filter(pl.col("variant") == "four-player")
    # no four-player hand can be solved in no time: every one is capped, and says how far
    # the analysis got (its later plays), with the par unknown
    assert four.get_column("capped").all()
    assert four.get_column("side_par").null_count() == four.height
    capped = capped_hands(tables.seat_analysis).filter(pl.col("variant") == "four-player")
    assert capped.get_column("hand").to_list() == [1, 2, 3]
    assert set(capped.get_column("game_id")) == {"fixture-four-player-tie-plays-on"}
    assert all(0 < done < 52 for done in capped.get_column("analysed_plays"))
    assert (capped.get_column("plays") == 52).all()
    players = player_metrics(tables)
    for row in players.filter(pl.col("variant") == "four-player").iter_rows(named=True):
        assert (row["analysed_hands"], row["capped_hands"], row["tricks_lost"]) == (0, 3, 0)
        assert row["tricks_lost_per_hand"] is None
    # a cap of 0 s strikes most two-player hands too (the clock is read every 256 nodes):
    # each hand is counted once, analysed or capped
    for row in players.filter(pl.col("variant") == "two-player").iter_rows(named=True):
        assert row["analysed_hands"] + row["capped_hands"] == row["hands"]
    (game,) = game_metrics(tables).filter(pl.col("variant") == "four-player").iter_rows(named=True)
    assert (game["analysed_hands"], game["capped_hands"], game["tricks_lost"]) == (0, 3, 0)


@pytest.mark.slow
def test_a_collection_keeps_its_hands_on_workers_and_numbers_them_alike() -> None:
    paths = [MERCY, UNFINISHED, FIXTURES / "invalid" / "play-revoke.json", NIL_FAILED]
    alone = StatsCollection(paths, keep_hands=True)
    assert len(list(alone)) == 1
    pooled = StatsCollection(paths, keep_hands=True, jobs=2)
    assert len(list(pooled)) == 1
    first = alone.analysed()
    second = pooled.analysed(jobs=2)
    assert first.seat_analysis is not None
    assert second.seat_analysis is not None
    assert first.seat_analysis.equals(second.seat_analysis)
    assert first.seat_analysis.equals(_analysed(MERCY, UNFINISHED, NIL_FAILED).seat_analysis)
    with pytest.raises(ValueError, match="without keep_hands"):
        StatsCollection([MERCY]).analysed()


def test_without_analysis_the_metrics_are_as_before() -> None:
    tables = tables_of([_replay(MERCY)])
    assert tables.seat_analysis is None
    for metrics in (player_metrics, variant_metrics, game_metrics):
        assert not set(ANALYSIS_COLUMNS) & set(metrics(tables).columns)


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.slow
def test_stats_analysis_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "stats", str(MERCY), "--analysis", "--format", "json")
    assert code == 0
    rows = {row["player"]: row for row in orjson.loads(out)}
    players = _replay(MERCY).players
    for seat, player in enumerate(players):
        lost = sum(analysis.tricks_lost[seat] for analysis in _oracle(MERCY))
        assert rows[player.name]["tricks_lost"] == lost
        assert rows[player.name]["analysed_hands"] == 14
        assert rows[player.name]["capped_hands"] == 0
    assert "time cap" not in err
    code, out, _ = _run(capsys, "stats", str(MERCY), "--analysis", "--by", "variant")
    assert code == 0
    assert "lost/hand" in out
    assert "capped" in out


def test_stats_analysis_reports_capped_hands(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(
        capsys, "stats", str(FOUR_SHORT), "--analysis", "--time-cap", "0.000001", "--by", "game"
    )
    assert code == 0
    assert "3 hand(s) reached the time cap of 1e-06 s and are left out" in err
    assert "fixture-four-player-tie-plays-on hand 1 (" in err
    assert "capped hands" in out


def test_stats_analysis_usage(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "stats", str(MERCY), "--time-cap", "5")
    assert code == 2
    assert "--time-cap applies with --analysis" in err
    code, _, err = _run(capsys, "stats", str(MERCY), "--analysis", "--time-cap", "-1")
    assert code == 2
    assert "--time-cap must be 0" in err
    with pytest.raises(SystemExit):
        main(["stats", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "Off by default because it is slow" in help_text
