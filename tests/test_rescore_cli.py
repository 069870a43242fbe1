"""``spades-replay rescore``: per-game figures, the corpus summary, every format, exit codes."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import orjson
import pytest

import spades_replay
from spades_replay.cli import main
from spades_replay.cli.rescore_cmd import csv_columns
from spades_replay.replayer.rescore import CorpusRescore, rescore

from .conftest import CONFORMANCE, FIXTURES

MERCY = str(FIXTURES / "two-player" / "mercy.json")
CORPORA = [
    str(FIXTURES / "corpus" / "two-player.jsonl"),
    str(FIXTURES / "corpus" / "four-player.jsonl"),
]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["rescore", "--no-progress", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_one_game_table_shows_both_outcomes_the_end_and_the_parts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, MERCY, "--rule", "target_score=200")
    assert code == 0
    row = next(line for line in out.splitlines() if "fixture-two-player-mercy" in line)
    assert re.search(r"-258 / 416 │ Drew +│ hand 14 \(mercy\)", row), row
    assert re.search(r"181 / 208 │ Drew +│ hand 4 \(target\)", row), row
    assert "Points by part: fixture-two-player-mercy" in out
    assert "bag penalties" in out
    assert "1 game(s) rescored with target_score=200: 0 change winner, 1 end earlier" in out
    assert "side 0 score change: mean +439.00" in out
    assert "│ Drew   │     1 │     100% (1/1) │    100% (1/1) │" in out
    assert "1 game(s) rescored" in err


def test_a_game_that_no_longer_ends(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, MERCY, "--rule", "lose_score=null")
    assert code == 0
    assert "no end in 14 hand(s)" in out
    assert "nobody yet" in out
    assert "1 change winner" in out
    assert "1 no longer end within the hands played" in out


def test_json_holds_every_game_and_the_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *CORPORA, "--rule", "target_score=300", "--format", "json")
    assert code == 0
    document = orjson.loads(out)
    assert document["changes"] == {"target_score": 300}
    games = [
        rescore(spades_replay.loads(line), target_score=300)
        for path in CORPORA
        for line in Path(path).read_bytes().splitlines()
        if line.strip()
    ]
    assert len(document["games"]) == len(games) > 5
    for shown, game in zip(document["games"], games, strict=True):
        assert {key: shown[key] for key in shown if key not in ("source", "line")} == orjson.loads(
            orjson.dumps(game.to_dict())
        )
    assert document["games"][0]["source"] == CORPORA[0]
    assert document["games"][0]["line"] == 1
    expected = orjson.loads(orjson.dumps(CorpusRescore().extend(games).to_dict()))
    assert document["summary"] == expected
    assert document["summary"]["winner_changed"] == sum(game.winner_changed for game in games)


def test_csv_one_row_per_game_and_the_summary_on_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, MERCY, "--rule", "nil_bonus=50", "--format", "csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == csv_columns()
    (row,) = rows
    game = rescore(spades_replay.load(MERCY), nil_bonus=50)
    assert row["game_id"] == "fixture-two-player-mercy"
    assert row["line"] == ""
    assert int(row["rescored_score_0"]) == game.rescored.scores[0]
    assert int(row["rescored_nil_points_0"]) == game.rescored.parts(0)["nil_points"]
    assert int(row["played_nil_points_0"]) == -200
    assert row["winner_changed"] == str(game.winner_changed).lower()
    assert "1 game(s) rescored with nil_bonus=50" in err


@pytest.mark.slow
def test_output_file_is_the_same_whatever_the_jobs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = [Path(path).read_bytes() for path in CORPORA]
    outputs = []
    for jobs in ("1", "2"):
        target = tmp_path / f"out-{jobs}.json"
        code, out, _ = run(
            capsys,
            *CORPORA,
            "--rule",
            "bag_limit=5",
            "--format",
            "json",
            "-o",
            str(target),
            "--jobs",
            jobs,
        )
        assert code == 0
        assert out == ""
        outputs.append(target.read_bytes())
    assert outputs[0] == outputs[1]
    table = tmp_path / "table.txt"
    assert run(capsys, *CORPORA, "-o", str(table))[0] == 0
    assert "Games rescored" in table.read_text()
    assert "points by part: one row per game with --format csv or json" in table.read_text()
    assert [Path(path).read_bytes() for path in CORPORA] == before


@pytest.mark.parametrize(
    ("rules", "words"),
    [
        (["nil_allowed=false"], "nil_allowed shaped what was legal and cannot be changed"),
        (["first_lead=1"], "first_lead shaped what was legal"),
        (["target=300"], "'target' is not an option (did you mean 'target_score'?)"),
        (["target_score"], "--rule takes KEY=VALUE"),
        (["target_score=lots"], "must be a whole number from 1 to 100000, got 'lots'"),
        (["target_score=0"], "error: --rule target_score=0: 'target_score' must be at least 1"),
        (["target_score=true"], "'target_score' must be a whole number from 1 to 100000"),
        (["lose_score=-200000"], "'lose_score' must be at least -100000, got -200000"),
        (
            ["target_score=300", "lose_score=300"],
            "error: lose_score (300) must be below target_score (300)",
        ),
        (
            ["lose_score=600"],
            f"error: {MERCY}: lose_score (600) must be below target_score (500)",
        ),
    ],
)
def test_usage_errors_say_why(
    capsys: pytest.CaptureFixture[str], rules: list[str], words: str
) -> None:
    settings = [part for rule in rules for part in ("--rule", rule)]
    code, out, err = run(capsys, MERCY, *settings)
    assert code == 2
    assert words in err
    assert "Traceback" not in err
    assert out == ""


def test_invalid_records_are_reported_and_left_out(capsys: pytest.CaptureFixture[str]) -> None:
    invalid = str(CONFORMANCE / "invalid" / "two-player-revoke.json")
    code, out, err = run(capsys, MERCY, invalid, "--rule", "target_score=300")
    assert code == 1
    assert f"{invalid}: invalid, left out" in err
    assert "[play.revoke]" in err
    assert "1 game(s) rescored, 1 invalid record(s) left out" in err
    assert "1 game(s) rescored with target_score=300" in out


def test_a_missing_path_is_an_io_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, MERCY, "/no/such/file")
    assert code == 2
    assert "/no/such/file" in err


def test_names_from_records_are_never_markup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = orjson.loads(Path(MERCY).read_bytes())
    record["players"][0] = {"name": "[bold red]Eve[/] \x1b[31m"}
    path = tmp_path / "hostile.json"
    path.write_bytes(orjson.dumps(record))
    code, out, _ = run(capsys, str(path))
    assert code == 0
    assert "[bold red]Eve[/] \\x1b[31m" in out
    assert "\x1b" not in out


def test_changed_lists_only_the_games_whose_winner_changes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, *CORPORA, "--rule", "target_score=200", "--format", "json")
    assert code == 0
    every = orjson.loads(out)
    code, out, err = run(
        capsys, *CORPORA, "--rule", "target_score=200", "--format", "json", "--changed"
    )
    assert code == 0
    changed = orjson.loads(out)
    assert changed["summary"] == every["summary"]
    assert changed["games"] == [game for game in every["games"] if game["winner_changed"]]
    assert 0 < len(changed["games"]) < len(every["games"])
    assert f"{every['summary']['games']} game(s) rescored" in err


def test_the_output_extension_names_the_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``-o games.csv`` writes csv without ``--format``; a contradiction is a usage error."""
    target = tmp_path / "games.csv"
    code, _, _ = run(capsys, MERCY, "--rule", "target_score=200", "-o", str(target))
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(target.read_text())))
    assert [row["game_id"] for row in rows] == ["fixture-two-player-mercy"]
    code, _, err = run(capsys, MERCY, "--format", "json", "-o", str(tmp_path / "games.csv"))
    assert code == 2
    assert "does not match the extension" in err
    assert not (tmp_path / "games.json").exists()


def test_no_records_is_its_own_outcome(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, str(tmp_path))
    assert code == 3
    assert "no records found" in err
