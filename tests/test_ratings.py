"""Skill ratings (spades_replay.stats.ratings) and the ratings command: heuristic bots end
rated above random ones, games are rated in corpus order, a store rates as its files do, and
simulate's per-seat bots."""

from __future__ import annotations

from pathlib import Path

import orjson
import polars as pl
import pytest

from spades_replay.cli import main
from spades_replay.engine.rules import Rules
from spades_replay.engine.seats import Variant
from spades_replay.play.simulate import CorpusSpec, roster, seat_kinds, write_corpus
from spades_replay.stats.collect import StatsCollection
from spades_replay.stats.leaderboard import leaderboard
from spades_replay.stats.metrics import player_metrics
from spades_replay.stats.ratings import (
    HISTORY_SCHEMA,
    RATING_SCHEMA,
    conservative,
    rated_games,
    rating_history,
    ratings,
)
from spades_replay.stats.tables import Tables
from spades_replay.store.ingest import ingest
from spades_replay.store.read import Store

from .conftest import FIXTURES


def _tables(*paths: Path) -> object:
    collection = StatsCollection(list(paths))
    list(collection)
    return collection.tables()


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four-player games, heuristic bots in seats 0 and 2 against random ones; then the
    same seats the other way round, and two-player games both ways."""
    folder = tmp_path_factory.mktemp("mixed")
    rules = Rules(lose_score=-300)
    write_corpus(
        CorpusSpec(Variant.FOUR_PLAYER, 12, 3, rules, "heuristic,random,heuristic,random"),
        folder / "a.jsonl",
    )
    write_corpus(
        CorpusSpec(Variant.FOUR_PLAYER, 12, 4, rules, "random,heuristic,random,heuristic"),
        folder / "b.jsonl",
    )
    write_corpus(
        CorpusSpec(Variant.TWO_PLAYER, 12, 5, rules, "heuristic,random"), folder / "c.jsonl"
    )
    write_corpus(
        CorpusSpec(Variant.TWO_PLAYER, 12, 6, rules, "random,heuristic"), folder / "d.jsonl"
    )
    return folder


@pytest.mark.slow
def test_every_heuristic_player_ends_above_every_random_one(mixed: Path) -> None:
    rated = ratings(_tables(mixed))  # type: ignore[arg-type]
    heuristic = rated.filter(pl.col("player_key").str.starts_with("heuristic-"))
    random = rated.filter(pl.col("player_key").str.starts_with("random-"))
    assert heuristic.height == 6
    assert random.height == 6
    assert heuristic["rating"].min() > random["rating"].max()  # type: ignore[operator]
    assert rated["rank"].to_list() == list(range(1, rated.height + 1))
    assert rated["rating"].to_list() == sorted(rated["rating"].to_list(), reverse=True)


@pytest.mark.slow
def test_a_store_rates_as_its_files_do(mixed: Path, tmp_path: Path) -> None:
    ingest([mixed], tmp_path / "store")
    from_store = ratings(Store.open(tmp_path / "store").tables())
    assert from_store.equals(ratings(_tables(mixed)))  # type: ignore[arg-type]


def test_games_are_rated_in_corpus_order_and_unfinished_ones_are_not() -> None:
    tables = _tables(FIXTURES / "two-player", FIXTURES / "four-player", FIXTURES / "corpus")
    games = rated_games(tables)  # type: ignore[arg-type]
    numbers = [game.game for game in games]
    assert numbers == sorted(numbers)
    won = tables.games.filter(pl.col("winner").is_not_null())  # type: ignore[attr-defined]
    assert numbers == won["game"].to_list()
    history = rating_history(tables)  # type: ignore[arg-type]
    assert history.schema == pl.Schema(HISTORY_SCHEMA)
    assert history["game"].to_list() == sorted(history["game"].to_list())
    final = history.group_by("player_key", maintain_order=True).last()
    rated = ratings(tables)  # type: ignore[arg-type]
    assert rated.schema == pl.Schema(RATING_SCHEMA)
    by_key = {row["player_key"]: row for row in rated.iter_rows(named=True)}
    for row in final.iter_rows(named=True):
        assert by_key[row["player_key"]]["mu"] == row["mu"]
        assert by_key[row["player_key"]]["rating"] == conservative(row["mu"], row["sigma"])
    counts = history.group_by("player_key").agg(pl.len(), pl.col("won").sum())
    for key, games_played, wins in counts.iter_rows():
        assert (by_key[key]["games"], by_key[key]["wins"]) == (games_played, wins)


def test_a_winner_gains_and_a_loser_drops() -> None:
    rated = ratings(_tables(FIXTURES / "two-player" / "mercy.json"))  # type: ignore[arg-type]
    assert rated.height == 2
    winner, loser = rated.row(0, named=True), rated.row(1, named=True)
    assert (winner["wins"], loser["wins"]) == (1, 0)
    assert winner["mu"] > 25.0 > loser["mu"]
    assert winner["sigma"] < 25.0 / 3


def test_the_command_writes_ratings_from_files_and_from_a_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = [str(FIXTURES / "four-player"), str(FIXTURES / "corpus")]
    assert main(["ratings", *paths, "--format", "json", "--no-progress"]) == 0
    from_files = orjson.loads(capsys.readouterr().out)
    ingest(paths, tmp_path / "store")
    assert main(["ratings", "--store", str(tmp_path / "store"), "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert orjson.loads(captured.out) == from_files
    assert "game(s) rated" in captured.err
    assert [row["rank"] for row in from_files] == list(range(1, len(from_files) + 1))
    assert main(["ratings", *paths, "--no-progress"]) == 0
    table = capsys.readouterr().out
    assert "mu - 3 sigma" in table
    assert "corpus order" in table
    out = tmp_path / "ratings.parquet"
    assert main(["ratings", *paths, "-o", str(out), "--no-progress"]) == 0
    assert pl.read_parquet(out).height == len(from_files)


def test_the_command_refuses_both_or_neither(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ratings"]) == 2
    assert main(["ratings", str(FIXTURES), "--store", "x"]) == 2
    assert main(["ratings", str(FIXTURES), "--format", "parquet"]) == 2
    err = capsys.readouterr().err
    assert "--store DIR" in err
    assert "needs -o FILE" in err


def test_simulate_takes_one_bot_per_seat(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert seat_kinds(Variant.FOUR_PLAYER, "random") == ("random",) * 4
    kinds = [
        bot.name for _, bot in roster(Variant.FOUR_PLAYER, "heuristic,random,heuristic,random")
    ]
    assert kinds == ["heuristic", "random", "heuristic", "random"]
    with pytest.raises(ValueError, match="3 bots for the 4 seats"):
        seat_kinds(Variant.FOUR_PLAYER, "heuristic,random,random")
    with pytest.raises(ValueError, match="unknown bot 'clever'"):
        seat_kinds(Variant.TWO_PLAYER, "clever")
    out = tmp_path / "g.jsonl"
    arguments = ["simulate", "--variant", "two-player", "--games", "2", "-o", str(out)]
    assert main([*arguments, "--bot", "heuristic,random", "--no-progress"]) == 0
    record = orjson.loads(out.read_bytes().splitlines()[0])
    assert [player["id"] for player in record["players"]] == ["heuristic-megan", "random-drew"]
    assert main([*arguments, "--bot", "heuristic,random,random"]) == 2
    assert "--bot: 3 bots for the 2 seats" in capsys.readouterr().err


def test_a_player_is_named_as_at_her_first_game_as_the_stats_name_her(tmp_path: Path) -> None:
    """Alex is "Al" in an unfinished game without a hand, "Alex" in the next and "Alexander"
    in the last: the ratings and the leaderboard, like the stats, call her "Alex"; her
    history names her as each game did."""
    lines = (FIXTURES / "corpus" / "four-player.jsonl").read_bytes().splitlines()[:2]
    unfinished = orjson.loads(lines[0])
    unfinished["game_id"] = "unfinished"
    del unfinished["result"]
    unfinished["hands"] = []
    unfinished["players"][0]["name"] = "Al"
    renamed = orjson.loads(lines[1])
    renamed["players"][0]["name"] = "Alexander"
    path = tmp_path / "games.jsonl"
    path.write_bytes(b"\n".join(map(orjson.dumps, [unfinished, orjson.loads(lines[0]), renamed])))
    tables: Tables = _tables(path)  # type: ignore[assignment]
    named = dict(ratings(tables).select("player_key", "player").iter_rows())
    assert named["heuristic-alex"] == "Alex"
    assert named == dict(player_metrics(tables).select("player_key", "player").iter_rows())
    assert named == dict(leaderboard(tables).select("player_key", "player").iter_rows())
    history = rating_history(tables).filter(pl.col("player_key") == "heuristic-alex")
    assert history["player"].to_list() == ["Alex", "Alexander"]
