"""What a new user meets first: errors and exit codes, misspelt options, and output read by
people, each as a user saw it."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from spades_replay.cli import main
from spades_replay.errors import RulesError
from spades_replay.play.recorder import Recorder

from .conftest import FIXTURES

GAME = FIXTURES / "four-player" / "standard-game.json"
HUGE = "99999999999999999999999999"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        code = main(list(args))
    except SystemExit as stop:
        code = int(stop.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("command", ["validate", "stats", "rescore"])
def test_a_huge_limit_is_a_usage_error(capsys: pytest.CaptureFixture[str], command: str) -> None:
    code, out, err = run(capsys, command, str(GAME), "--max-record-bytes", HUGE)
    assert code == 2
    assert f"argument --max-record-bytes: must be at most {1 << 30}, got {HUGE}" in err
    assert "Traceback" not in err
    assert out == ""


def test_a_huge_limit_makes_no_store(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    store = tmp_path / "st"
    code, _, err = run(capsys, "ingest", str(GAME), "--store", str(store), "--max-depth", HUGE)
    assert code == 2
    assert "--max-depth: must be at most 1024" in err
    assert not store.exists()


def test_ingest_of_nothing_readable_makes_no_store(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    store = tmp_path / "st"
    code, _, err = run(capsys, "ingest", str(tmp_path / "nope.json"), "--store", str(store))
    assert code == 2
    assert "no such file or directory" in err
    assert not store.exists()


@pytest.mark.parametrize(
    "extra", [("stats",), ("stats", "--format", "csv"), ("rescore", "--rule", "target_score=300")]
)
def test_a_path_error_alone(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, extra: tuple[str, ...]
) -> None:
    code, out, err = run(capsys, extra[0], str(tmp_path / "nope.json"), *extra[1:])
    assert code == 2
    assert out == ""
    assert "no such file or directory" in err
    for said in ("score change", "counted", "rescored"):
        assert said not in err


@pytest.mark.parametrize("command", [("stats",), ("rescore", "--rule", "target_score=300")])
def test_no_records_alone(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: tuple[str, ...]
) -> None:
    code, out, err = run(capsys, command[0], str(tmp_path), *command[1:])
    assert code == 3
    assert out == ""
    assert err.strip().startswith("spades-replay: no records found in")
    for said in ("score change", "counted"):
        assert said not in err


def test_an_empty_openspiel_file_imports_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    empty = tmp_path / "histories.txt"
    empty.write_text("\n")
    target = tmp_path / "games.jsonl"
    code, _, err = run(capsys, "import", "openspiel", str(empty), "-o", str(target))
    assert code == 3
    assert "no games found" in err
    assert not target.exists()


def test_a_corrupt_gz_is_named_in_words(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    corrupt = tmp_path / "games.jsonl.gz"
    corrupt.write_bytes(b"\x9b$ not gzip at all")
    cut = tmp_path / "cut.json.gz"
    cut.write_bytes(gzip.compress(GAME.read_bytes())[:-20])
    code, out, err = run(capsys, "validate", str(corrupt), str(cut))
    assert code == 2
    assert f"cannot decompress {corrupt}: it is not gzip-compressed data" in out + err
    assert f"cannot decompress {cut}: the compressed data stops early" in out + err
    assert "b'" not in out + err
    code, _, err = run(capsys, "import", "openspiel", str(corrupt), "-o", str(tmp_path / "x.jsonl"))
    assert code == 2
    assert f"cannot decompress {corrupt}: it is not gzip-compressed data" in err


def test_the_recorder_says_the_hand_is_over() -> None:
    deck = [rank + suit for suit in "CDHS" for rank in "23456789TJQKA"]
    rec = Recorder("four-player", ["Alex", "Beth", "Charlie", "David"], game_id="t")
    rec.start_hand(deal=[deck[seat::4] for seat in range(4)])
    for bid in (3, 3, 3, 3):
        rec.bid(rec.turn, bid)
    while rec.phase == "play":
        rec.play(rec.turn, rec.legal_plays()[0])
    with pytest.raises(RulesError, match=r"tries to play a card, but the hand is over"):
        rec.play(0, "2C")


def test_a_misspelt_option_gets_a_hint(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "validate", str(GAME), "--fromat", "json")
    assert code == 2
    assert "usage: spades-replay validate" in err
    assert "unknown option --fromat; did you mean --format?" in err


def test_a_misspelt_option_of_a_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "export", "openspiel", str(GAME), "-o", "x.txt", "--fromat", "x")
    assert code == 2
    assert "usage: spades-replay export" in err
    assert "unknown option --fromat; did you mean --format?" in err


def test_prefixes_are_not_options(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "replay", str(GAME), "--gam", "1")
    assert code == 2
    assert "unknown option --gam; did you mean --game?" in err


def test_bare_command_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys)
    assert code == 2
    for command in ("validate", "replay", "stats", "dashboard", "ingest", "query"):
        assert f"    {command}" in out


@pytest.mark.parametrize(
    "command",
    [("migrate", "{dir}", "-o", "{out}"), ("export", "openspiel", "{dir}", "-o", "{out}")],
)
def test_nothing_to_convert_exits_3(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: tuple[str, ...]
) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    out = tmp_path / "out.txt"
    words = [word.format(dir=folder, out=out) for word in command]
    code, _, err = run(capsys, *words)
    assert code == 3
    assert "no records found in" in err
    assert not out.exists()
