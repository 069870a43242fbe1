"""Stats: tables agree with the replay, metrics agree with counts made by hand from the raw
records, and the command's four formats."""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import polars as pl
import pytest

import spades_replay
from spades_replay.cli import main
from spades_replay.engine.seats import Variant
from spades_replay.play.simulate import CorpusSpec, write_corpus
from spades_replay.stats.collect import StatsCollection
from spades_replay.stats.metrics import game_metrics, player_metrics, variant_metrics
from spades_replay.stats.tables import rules_label, tables_of

from .conftest import FIXTURES

STANDARD_TWO = FIXTURES / "two-player" / "standard-game.json"
STANDARD_FOUR = FIXTURES / "four-player" / "standard-game.json"


def hand_count(path: Path) -> dict[str, Counter[str]]:
    """Count Nil bids and their outcomes, bids made, and wins straight from the record's
    bids and claimed tricks: an oracle independent of the replay."""
    data: dict[str, Any] = orjson.loads(path.read_bytes())
    seats = len(data["players"])
    counts: dict[str, Counter[str]] = {p["name"]: Counter() for p in data["players"]}
    for hand in data["hands"]:
        tricks = hand["result"]["tricks"]
        for seat, bid in enumerate(hand["bids"]):
            name = data["players"][seat]["name"]
            counts[name]["hands"] += 1
            if bid in (0, "blind_nil"):
                kind = "nil" if bid == 0 else "blind_nil"
                counts[name][f"{kind}_attempts"] += 1
                counts[name][f"{kind}_made"] += tricks[seat] == 0
            else:
                counts[name]["bids"] += 1
    winner = data["result"]["winner"]
    for seat, player in enumerate(data["players"]):
        side = seat if seats == 2 else seat % 2
        counts[player["name"]]["wins"] = int(side == winner)
    return counts


@pytest.mark.parametrize("path", [STANDARD_TWO, STANDARD_FOUR], ids=["two", "four"])
def test_player_metrics_match_a_count_by_hand(path: Path) -> None:
    expected = hand_count(path)
    metrics = player_metrics(tables_of([spades_replay.replay(spades_replay.load(path))]))
    assert metrics.height == len(expected)
    for row in metrics.iter_rows(named=True):
        counted = expected[row["player"]]
        for column in (
            "hands",
            "bids",
            "nil_attempts",
            "nil_made",
            "blind_nil_attempts",
            "blind_nil_made",
            "wins",
        ):
            assert row[column] == counted[column], (row["player"], column)
        assert row["games"] == 1
        assert row["exact"] + row["over"] + row["set"] == row["bids"]
        if row["nil_attempts"]:
            assert row["nil_rate"] == row["nil_made"] / row["nil_attempts"]
        else:
            assert row["nil_rate"] is None


def test_a_bag_penalty_counted_by_hand() -> None:
    """Bags in the claims drop by the bag limit exactly when a penalty is paid."""
    data = orjson.loads(STANDARD_TWO.read_bytes())
    penalties = [0, 0]
    bags_before = [0, 0]
    for hand in data["hands"]:
        for side in (0, 1):
            if hand["result"]["bags"][side] < bags_before[side]:
                penalties[side] += 1
            bags_before[side] = hand["result"]["bags"][side]
    sides = tables_of([spades_replay.replay(spades_replay.load(STANDARD_TWO))]).side_hands
    counted = sides.group_by("side").agg(pl.col("bag_penalties").sum()).sort("side")
    assert counted["bag_penalties"].to_list() == penalties
    assert sum(penalties) > 0


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("corpus")
    write_corpus(CorpusSpec(Variant.TWO_PLAYER, 12, seed=21), folder / "two.jsonl")
    write_corpus(CorpusSpec(Variant.FOUR_PLAYER, 12, seed=22), folder / "four.jsonl")
    return folder


def test_tables_agree_with_the_replay_on_every_game(corpus: Path) -> None:
    replays = [
        spades_replay.replay(spades_replay.loads(line))
        for name in ("four.jsonl", "two.jsonl")
        for line in (corpus / name).read_bytes().splitlines()
    ]
    tables = tables_of(replays)
    totals = tables.side_hands.group_by(["game", "side"]).agg(pl.col("points").sum())
    for game, replayed in enumerate(replays):
        for side in (0, 1):
            points = totals.filter((pl.col("game") == game) & (pl.col("side") == side))
            assert points["points"].item() == replayed.result.scores[side]
        row = tables.games.filter(pl.col("game") == game).row(0, named=True)
        assert (row["complete"], row["winner"]) == (
            replayed.result.complete,
            replayed.result.winner,
        )
        assert (row["score_0"], row["score_1"]) == replayed.result.scores
        seats = tables.seat_hands.filter(pl.col("game") == game)
        assert seats.height == replayed.variant.seat_count * replayed.result.hands
        assert seats["tricks"].sum() == 13 * replayed.result.hands


@pytest.mark.slow
def test_collection_reports_invalid_and_is_the_same_with_two_jobs(
    corpus: Path, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.jsonl"
    lines = (corpus / "two.jsonl").read_bytes().splitlines()
    bad.write_bytes(lines[0] + b"\n{oops\n" + lines[1] + b"\n")
    one = StatsCollection([corpus, bad])
    invalid = list(one)
    assert [(report.source, report.line) for report in invalid] == [(str(bad), 2)]
    two = StatsCollection([corpus, bad], jobs=2)
    assert list(two) == invalid
    assert one.tables().games.equals(two.tables().games)
    assert one.tables().seat_hands.equals(two.tables().seat_hands)
    assert one.tables().games.height == 26
    assert one.tables().games["game"].to_list() == list(range(26))


def test_variant_and_game_metrics(corpus: Path) -> None:
    collection = StatsCollection([corpus])
    list(collection)
    tables = collection.tables()
    variants = variant_metrics(tables)
    assert variants["variant"].to_list() == ["four-player", "two-player"]
    assert variants["games"].to_list() == [12, 12]
    games = game_metrics(tables)
    assert games.height == 24
    assert "player_keys" not in games.columns


def test_rules_labels() -> None:
    record = spades_replay.load(FIXTURES / "four-player" / "pooled-nil.json")
    assert rules_label(spades_replay.replay(record).rules) == (
        "bag_limit=5 bag_penalty=50 failed_nil_tricks_help_partner=true"
    )


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_stats_command_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "stats", str(STANDARD_TWO), str(STANDARD_FOUR))
    assert code == 0
    for name in ("Megan", "Drew", "Alex", "Beth", "Charlie", "David"):
        assert name in out
    assert "2 game(s) counted" in err


@pytest.mark.parametrize("kind", ["csv", "json", "parquet"])
def test_stats_command_files(tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str) -> None:
    target = tmp_path / f"players.{kind}"
    code, _, _ = run(
        capsys, "stats", str(FIXTURES / "two-player"), "--format", kind, "-o", str(target)
    )
    assert code == 0
    data = target.read_bytes()
    if kind == "csv":
        frame = pl.read_csv(io.BytesIO(data))
    elif kind == "json":
        frame = pl.DataFrame(orjson.loads(data))
    else:
        frame = pl.read_parquet(io.BytesIO(data))
    assert set(frame["player"].to_list()) == {"Megan", "Drew"}
    assert {"nil_rate", "nil_attempts", "win_rate", "wins"} <= set(frame.columns)
    assert [p.name for p in tmp_path.iterdir()] == [target.name]


def test_stats_command_reports_invalid_records(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys,
        "stats",
        str(FIXTURES / "invalid" / "play-revoke.json"),
        str(STANDARD_TWO),
        "--by",
        "game",
        "--format",
        "csv",
    )
    assert code == 1
    assert "play-revoke.json: invalid, left out" in err
    assert "[play.revoke]" in err
    rows = pl.read_csv(io.BytesIO(out.encode()))
    assert rows.height == 1


def test_stats_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "stats", str(STANDARD_TWO), "--format", "parquet")
    assert code == 2
    assert "needs -o FILE" in err
    code, _, err = run(capsys, "stats", "/no/such/dir")
    assert code == 2
    assert "[io.not-found]" in err


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.slow
def test_game_sources_point_at_their_lines(corpus: Path, tmp_path: Path, jobs: int) -> None:
    """Each game's line is right however the corpus is cut into ranges for the workers."""
    lines = (corpus / "two.jsonl").read_bytes().splitlines()
    path = tmp_path / "games.jsonl"
    path.write_bytes(b"\n".join([lines[0], b"", *lines[1:]]) + b"\n")
    collection = StatsCollection([path], jobs=jobs, chunk_bytes=30_000)
    assert list(collection) == []
    games = collection.tables().games
    assert games["line"].to_list() == [1, *range(3, len(lines) + 2)]
    assert set(games["source"].to_list()) == {str(path)}
    for game_id, line in zip(games["game_id"], games["line"], strict=True):
        assert spades_replay.loads(path.read_bytes().splitlines()[line - 1]).game_id == game_id


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_game_without_an_id_is_named_after_its_number_in_its_file(
    corpus: Path, tmp_path: Path, jobs: int
) -> None:
    """``game-N`` is the game's number in its file, however the file is cut into ranges."""
    lines = [
        orjson.dumps({key: value for key, value in orjson.loads(line).items() if key != "game_id"})
        for line in (corpus / "four.jsonl").read_bytes().splitlines()
    ]
    path = tmp_path / "games.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    collection = StatsCollection([path], jobs=jobs, chunk_bytes=2 * max(map(len, lines)))
    assert list(collection) == []
    tables = collection.tables()
    names = [f"game-{game}" for game in range(len(lines))]
    assert tables.games["game_id"].to_list() == names
    for frame in (tables.side_hands, tables.seat_hands):
        rows = frame.select("game", "game_id").unique().sort("game")
        assert rows["game_id"].to_list() == names


@pytest.mark.parametrize("kind", ["csv", "json", "parquet"])
def test_stats_output_format_follows_the_extension(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    """``-o players.parquet`` without ``--format`` writes parquet, not the text table."""
    target = tmp_path / f"players.{kind.upper()}"
    code, _, _ = run(capsys, "stats", str(FIXTURES / "two-player"), "-o", str(target))
    assert code == 0
    data = target.read_bytes()
    if kind == "csv":
        frame = pl.read_csv(io.BytesIO(data))
    elif kind == "json":
        frame = pl.DataFrame(orjson.loads(data))
    else:
        assert data.startswith(b"PAR1")
        frame = pl.read_parquet(io.BytesIO(data))
    assert set(frame["player"].to_list()) == {"Megan", "Drew"}


def test_stats_refuses_a_format_that_contradicts_the_extension(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "players.parquet"
    code, _, err = run(capsys, "stats", str(STANDARD_TWO), "--format", "csv", "-o", str(target))
    assert code == 2
    assert "--format csv does not match the extension" in err
    assert not target.exists()
    text = tmp_path / "players.txt"
    code, _, _ = run(capsys, "stats", str(STANDARD_TWO), "-o", str(text))
    assert code == 0
    assert "Megan" in text.read_text()
    code, _, err = run(capsys, "stats", str(STANDARD_TWO), "--format", "table", "-o", str(target))
    assert code == 2
    assert "--format table does not match" in err
    unknown = tmp_path / "players.xlsx"
    code, _, err = run(capsys, "stats", str(STANDARD_TWO), "-o", str(unknown))
    assert code == 2
    assert "cannot tell the format of" in err
    assert not unknown.exists()
    code, _, _ = run(capsys, "stats", str(STANDARD_TWO), "--format", "csv", "-o", str(unknown))
    assert code == 0
    assert unknown.read_text().startswith("player")


def _view(by: str, width: int, names: list[str] | None = None) -> tuple[str, Any]:
    from rich.console import Console

    from spades_replay.cli import stats_view

    collection = StatsCollection([FIXTURES / "two-player", FIXTURES / "four-player"])
    assert list(collection) == []
    frame = stats_view.metrics(collection.tables().lazy(), by).collect()
    view = stats_view.table(frame, by, width, names)
    console = Console(file=io.StringIO(), width=width, color_system=None)
    console.print(view.renderable)
    return console.file.getvalue(), view  # type: ignore[attr-defined]


@pytest.mark.parametrize("by", ["player", "game", "variant"])
@pytest.mark.parametrize("width", [80, 120, 160])
def test_the_stats_table_fits_the_width_and_never_cuts_a_cell(by: str, width: int) -> None:
    text, view = _view(by, width)
    assert all(len(line) <= width for line in text.splitlines())
    assert "…" not in text
    if view.left_out:
        assert f"left out for width: {', '.join(view.left_out)}" in " ".join(text.split())


def test_rule_sets_show_short_labels_with_a_legend() -> None:
    text, view = _view("player", 80)
    assert "rules" not in view.left_out  # the fixtures hold several rule sets
    assert "│ mercy" in text
    assert "lose_score=-200" not in text.split("rules:")[0]  # only in the legend
    legend = " ".join(text.split("rules:")[1].split())
    assert "mercy = lose_score=-200" in legend
    assert "to150 = target_score=150" in legend


def test_games_show_every_id_whole(tmp_path: Path) -> None:
    """Two games whose ids begin alike, and two games with one id, stay distinct."""
    record = orjson.loads(STANDARD_TWO.read_bytes())
    for number, game_id in enumerate(["a-long-game-id-from-a-server-0001"] * 2):
        record["game_id"] = game_id
        (tmp_path / f"{number}.json").write_bytes(orjson.dumps(record))
    from rich.console import Console

    from spades_replay.cli import stats_view

    collection = StatsCollection([tmp_path])
    list(collection)
    frame = stats_view.metrics(collection.tables().lazy(), "game").collect()
    view = stats_view.table(frame, "game", 80)
    console = Console(file=io.StringIO(), width=80, color_system=None)
    console.print(view.renderable)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "source" not in view.left_out
    assert "0.json" in text
    assert "1.json" in text


def test_stats_columns_option(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "stats", str(FIXTURES / "two-player"), "--columns", "player,nil made,rules"
    )
    assert code == 0
    header = next(line for line in out.splitlines() if "player" in line)
    assert [cell.strip() for cell in header.split("┃")[1:4]] == ["player", "nil made", "rules"]
    assert "wins" not in out
    code, _, err = run(capsys, "stats", str(STANDARD_TWO), "--columns", "player,luck")
    assert code == 2
    assert "unknown column 'luck'" in err
    assert "blind nil made" in err
    code, _, err = run(capsys, "stats", str(STANDARD_TWO), "--columns", "player", "--format", "csv")
    assert code == 2
    assert "--columns applies to the table" in err
