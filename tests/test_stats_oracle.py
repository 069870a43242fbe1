"""Every column of the player, variant and game metrics, pinned against a second, naive
implementation that reads the records' JSON (tests/support/naive_stats.py), on small
corpora: the sample corpora and the valid game fixtures, alone and together."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import polars as pl
import pytest

import spades_replay
from spades_replay.engine.rules import Rules
from spades_replay.stats.double_dummy import ANALYSIS_SCHEMA, IDENTITY
from spades_replay.stats.metrics import (
    ANALYSIS_COLUMNS,
    PLAYER_KEYS,
    analysis_counts,
    game_metrics,
    player_metrics,
    variant_metrics,
)
from spades_replay.stats.tables import Tables, rules_label, tables_of

from .conftest import FIXTURES
from .support import naive_stats

GAME_FILES = sorted((FIXTURES / "two-player").glob("*.json")) + sorted(
    (FIXTURES / "four-player").glob("*.json")
)


def _records(path: Path) -> list[dict[str, Any]]:
    data = path.read_bytes()
    if path.suffix == ".jsonl":
        return [orjson.loads(line) for line in data.splitlines() if line.strip()]
    return [orjson.loads(data)]


def _countable(record: dict[str, Any]) -> bool:
    """The records the naive count covers: valid, with plain contracts."""
    rules = record["rules"]
    return rules["double_contract_from"] is None and rules["min_team_bid"] == 0


def _corpus(name: str) -> list[dict[str, Any]]:
    if name == "games":
        records = [record for path in GAME_FILES for record in _records(path)]
        return [record for record in records if _countable(record)]
    return _records(FIXTURES / "corpus" / f"{name}.jsonl")


CORPORA = ["two-player", "four-player", "games"]


def _key(rules: dict[str, Any]) -> str:
    return rules_label(Rules(**rules))


def _same(found: Any, expected: Any) -> bool:
    if isinstance(expected, float):
        return found == pytest.approx(expected, rel=1e-12)
    return bool(found == expected)


def _tables(records: list[dict[str, Any]]) -> Any:
    return tables_of(spades_replay.replay(spades_replay.loads(orjson.dumps(r))) for r in records)


@pytest.fixture(scope="module", params=CORPORA)
def corpus(request: pytest.FixtureRequest) -> tuple[list[dict[str, Any]], Any]:
    records = _corpus(request.param)
    assert len(records) >= 10
    return records, _tables(records)


def test_every_player_metric_is_the_naive_count(
    corpus: tuple[list[dict[str, Any]], Any],
) -> None:
    records, tables = corpus
    expected = naive_stats.player_rows(records, _key)
    found = player_metrics(tables)
    assert found.height == len(expected)
    checked = set()
    for row in found.iter_rows(named=True):
        want = expected[(row["player_key"], row["variant"], row["rules"])]
        for column, value in want.items():
            assert _same(row[column], value), (row["player"], column, row[column], value)
            checked.add(column)
    assert checked == set(found.columns) - {"rules"}


def test_the_metrics_come_sorted_by_their_keys_whatever_the_order_of_the_games() -> None:
    """The player rows by variant, rules and player; the variant rows by variant and rules:
    not in the order the games first name them (here two-player first, players unsorted)."""
    records = [record for path in reversed(GAME_FILES) for record in _records(path)]
    records = [record for record in records if _countable(record)]
    records.sort(key=lambda record: record["variant"] != "two-player")
    tables = _tables(records)
    players = player_metrics(tables)
    keys = players.select("variant", "rules", "player_key").rows()
    seen = tables.seat_hands.select("variant", "rules", "player_key").unique(maintain_order=True)
    assert seen.rows() != sorted(seen.rows())
    assert keys == sorted(seen.rows())
    variants = variant_metrics(tables).select("variant", "rules").rows()
    assert variants[0][0] == "four-player"
    assert variants == sorted(set(tables.games.select("variant", "rules").rows()))


def test_every_variant_metric_is_the_naive_count(
    corpus: tuple[list[dict[str, Any]], Any],
) -> None:
    records, tables = corpus
    expected = naive_stats.variant_rows(records, _key)
    found = variant_metrics(tables)
    assert found.height == len(expected)
    checked = set()
    for row in found.iter_rows(named=True):
        want = expected[(row["variant"], row["rules"])]
        for column, value in want.items():
            assert _same(row[column], value), (row["variant"], column, row[column], value)
            checked.add(column)
    assert checked == set(found.columns) - {"rules"}


def test_every_game_metric_is_the_record(corpus: tuple[list[dict[str, Any]], Any]) -> None:
    records, tables = corpus
    found = game_metrics(tables)
    assert found.height == len(records)
    for number, (row, record) in enumerate(zip(found.iter_rows(named=True), records, strict=True)):
        game = naive_stats.game_of(record)
        names = [player["name"] for player in record["players"]]
        seats = len(names)
        sides = [
            " & ".join(
                names[seat] for seat in range(seats) if naive_stats.side_of(seat, seats) == s
            )
            for s in (0, 1)
        ]
        result = record.get("result") or {}
        scores = result.get("scores") or [
            sum(sides_[side].points for _, sides_ in game.hands) for side in (0, 1)
        ]
        expected = {
            "game_id": record.get("game_id") or f"game-{number}",
            "game": number,
            "variant": record["variant"],
            "rules": _key(record["rules"]),
            "players": ", ".join(names),
            "side_0": sides[0],
            "side_1": sides[1],
            "complete": game.complete,
            "winner": game.winner,
            "winner_players": None if game.winner is None else sides[game.winner],
            "reason": game.reason,
            "score_0": scores[0],
            "score_1": scores[1],
            "hands": len(game.hands),
            "source": None,
            "line": None,
        }
        assert set(expected) == set(found.columns)
        for column, value in expected.items():
            assert row[column] == value, (number, column, row[column], value)


def test_the_seat_and_side_tables_are_the_naive_figures(
    corpus: tuple[list[dict[str, Any]], Any],
) -> None:
    records, tables = corpus
    seat_rows = tables.seat_hands.iter_rows(named=True)
    side_rows = tables.side_hands.iter_rows(named=True)
    for record in records:
        game = naive_stats.game_of(record)
        for seats, sides in game.hands:
            for side, figures in enumerate(sides):
                row = next(side_rows)
                assert (row["side"], row["points"], row["bag_points"]) == (
                    side,
                    figures.points,
                    figures.bags,
                )
                assert (row["contract"], row["made"], row["bag_penalties"]) == (
                    figures.contract,
                    figures.made,
                    figures.penalties,
                )
            for seat in seats:
                row = next(seat_rows)
                figures = sides[seat.side]
                number = seat.bid not in (0, naive_stats.BLIND)
                assert (row["side"], row["tricks"], row["side_points"], row["side_bags"]) == (
                    seat.side,
                    seat.tricks,
                    figures.points,
                    figures.bags,
                )
                assert row["bid"] == (seat.bid if number else 0)
                assert row["contract_made"] == (figures.made if number else None)
                assert row["side_bag_penalties"] == figures.penalties
                assert row["side_won_game"] == (
                    None if game.winner is None else game.winner == seat.side
                )
                if not number:
                    assert row["nil_made"] == (seat.tricks == 0)
    assert next(seat_rows, None) is None
    assert next(side_rows, None) is None


def test_a_variant_and_rules_with_no_complete_hand_keeps_its_row() -> None:
    """A game stopped in its first hand, under rules no other game has, is still a row of
    the variant metrics (one game, no hand), beside the complete games of the same variant."""
    stopped: dict[str, Any] = orjson.loads(
        (FIXTURES / "four-player" / "unfinished.json").read_bytes()
    )
    stopped["hands"] = [stopped["hands"][0] | {"plays": stopped["hands"][0]["plays"][:9]}]
    stopped["hands"][0].pop("result", None)
    stopped["rules"]["target_score"] = 300
    complete = _corpus("four-player")[:2]
    found = variant_metrics(_tables([stopped, *complete]))
    assert found.height == 2
    row = found.filter(found["rules"] == _key(stopped["rules"])).row(0, named=True)
    assert (row["variant"], row["games"], row["complete"], row["hands"]) == ("four-player", 1, 0, 0)


def _made_up_analysis(tables: Tables) -> pl.DataFrame:
    """A ``seat_analysis`` table of the shape the solver gives, with figures made up: every
    fifth hand capped (all its seats), the tricks lost varying seat by seat, and no row at
    all for the first game (as for a game with no complete hand)."""
    rows: dict[str, list[Any]] = {name: [] for name in ANALYSIS_SCHEMA}
    for number, (game, hand, seat) in enumerate(
        tables.seat_hands.select("game", "hand", "seat").iter_rows()
    ):
        if game == 0:
            continue
        capped = (game * 3 + hand) % 5 == 0
        values = {
            "game": game,
            "hand": hand,
            "seat": seat,
            "plays": 13,
            "analysed_plays": 9 if capped else 13,
            "costly_plays": number % 3,
            "tricks_lost": (number * 7) % 4,
            "capped": capped,
            "side_par": None if capped else 6,
            "side_tricks": 7,
            "nil_makeable": None,
        }
        for name, value in values.items():
            rows[name].append(value)
    frame = pl.DataFrame(rows, schema=ANALYSIS_SCHEMA)
    return tables.seat_hands.select(IDENTITY).join(
        frame, on=["game", "hand", "seat"], how="inner", maintain_order="left"
    )


def _naive_analysis(
    analysis: pl.DataFrame, key: Any, *, per_seat: bool
) -> dict[Any, tuple[int, int, int, float | None]]:
    """The analysis columns counted row by row: per seat (each seat a hand of its own),
    or per hand (a hand once, with the tricks lost of all its seats)."""
    hands: dict[Any, dict[tuple[int, int, int | None], list[Any]]] = {}
    for row in analysis.iter_rows(named=True):
        place = (row["game"], row["hand"], row["seat"] if per_seat else None)
        hand = hands.setdefault(key(row), {}).setdefault(place, [row["capped"], 0])
        hand[1] += row["tricks_lost"]
    counted = {}
    for group, found in hands.items():
        analysed = [lost for capped, lost in found.values() if not capped]
        capped = len(found) - len(analysed)
        lost = sum(analysed)
        counted[group] = (len(analysed), capped, lost, lost / len(analysed) if analysed else None)
    return counted


def test_the_analysis_columns_are_the_naive_count(
    corpus: tuple[list[dict[str, Any]], Any],
) -> None:
    """Given a ``seat_analysis`` table, every grouping gains its four columns at its end,
    counted per seat for players and per hand for variants and games, capped hands apart;
    the other columns are those of the tables without it."""
    _, plain = corpus
    analysis = _made_up_analysis(plain)
    tables = Tables(plain.seat_hands, plain.side_hands, plain.games, analysis)
    assert analysis.get_column("capped").any()
    assert not analysis.get_column("capped").all()
    groupings = (
        (player_metrics, lambda row: (row["player_key"], row["variant"], row["rules"]), True),
        (variant_metrics, lambda row: (row["variant"], row["rules"]), False),
        (game_metrics, lambda row: row["game"], False),
    )
    for metrics, key, per_seat in groupings:
        found = metrics(tables)
        assert found.columns[-4:] == list(ANALYSIS_COLUMNS)
        assert found.drop(ANALYSIS_COLUMNS).equals(metrics(plain)), metrics.__name__
        expected = _naive_analysis(analysis, key, per_seat=per_seat)
        for row in found.iter_rows(named=True):
            want = expected.get(key(row), (0, 0, 0, None))
            got = tuple(row[column] for column in ANALYSIS_COLUMNS)
            assert got[:3] == want[:3], (metrics.__name__, key(row), got, want)
            assert got[3] == (None if want[3] is None else pytest.approx(want[3]))
        assert game_metrics(tables).row(0, named=True)["analysed_hands"] == 0


def test_the_analysis_is_counted_per_seat_unless_told_otherwise(
    corpus: tuple[list[dict[str, Any]], Any],
) -> None:
    """``analysis_counts`` counts a hand once per seat by default, as the player metrics
    ask: a hand of a four-player game counts four times."""
    _, plain = corpus
    analysis = _made_up_analysis(plain)
    expected = _naive_analysis(
        analysis, lambda row: (row["player_key"], row["variant"], row["rules"]), per_seat=True
    )
    found = analysis_counts(analysis, PLAYER_KEYS)
    assert found.height == len(expected)
    for row in found.iter_rows(named=True):
        want = expected[(row["player_key"], row["variant"], row["rules"])]
        assert tuple(row[column] for column in ANALYSIS_COLUMNS[:3]) == want[:3]
