"""``analyze PATH --all``: every game of a corpus, its hands analysed as one stream of work."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import pytest

from spades_replay.cli import main
from tests.conftest import FIXTURES

TWO_PLAYER = FIXTURES / "corpus" / "two-player.jsonl"


def run(capfdbinary: pytest.CaptureFixture[bytes], *argv: str) -> tuple[int, bytes, bytes]:
    capfdbinary.readouterr()
    code = main(list(argv))
    sys.stdout.flush()
    captured = capfdbinary.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """Two games of the two-player corpus with a record that is not one between them."""
    lines = TWO_PLAYER.read_bytes().splitlines(keepends=True)
    path = tmp_path / "games.jsonl"
    path.write_bytes(lines[0] + b'{"format": "chess"}\n' + lines[1])
    return path


def test_every_game_is_one_json_line_as_analyze_gives_it_alone(
    capfdbinary: pytest.CaptureFixture[bytes], corpus: Path
) -> None:
    code, out, err = run(capfdbinary, "analyze", str(corpus), "--all", "--format", "json")
    assert code == 1
    assert b"games.jsonl:2: invalid, skipped" in err
    games = [orjson.loads(line) for line in out.splitlines()]
    assert len(games) == 2
    for number, game in zip((1, 3), games, strict=True):
        alone = run(capfdbinary, "analyze", str(corpus), "--game", str(number), "--format", "json")
        assert alone[0] == 0
        assert orjson.loads(alone[1]) == game


def test_text_names_each_game_and_reports_the_invalid_record(
    capfdbinary: pytest.CaptureFixture[bytes], corpus: Path
) -> None:
    code, out, _ = run(capfdbinary, "analyze", str(corpus), "--all")
    assert code == 1
    assert out.count(b"Double-dummy analysis") == 2
    assert b"game two-player-s11-000000" in out
    assert b"games.jsonl:2: invalid, skipped" in out


def test_all_takes_neither_game_nor_hand(
    capfdbinary: pytest.CaptureFixture[bytes], corpus: Path
) -> None:
    code, out, err = run(capfdbinary, "analyze", str(corpus), "--all", "--hand", "1")
    assert code == 2
    assert b"leave out --game and --hand" in err
    assert out == b""


def test_a_missing_path_is_a_usage_error(
    capfdbinary: pytest.CaptureFixture[bytes], tmp_path: Path
) -> None:
    code, _, err = run(capfdbinary, "analyze", str(tmp_path / "none.jsonl"), "--all")
    assert code == 2
    assert b"no such file or directory" in err


def test_a_path_without_records_exits_3(
    capfdbinary: pytest.CaptureFixture[bytes], tmp_path: Path
) -> None:
    """As every command that reads records: nothing was analysed, and it says so."""
    (tmp_path / "empty").mkdir()
    (tmp_path / "blank.jsonl").write_bytes(b"\n\n")
    for path in (tmp_path / "empty", tmp_path / "blank.jsonl"):
        code, out, err = run(capfdbinary, "analyze", str(path), "--all", "--format", "json")
        assert code == 3
        assert out == b""
        assert b"no records found" in err
