"""What a new user meets first: errors and exit codes, misspelt options, and output read by
people, each as a user saw it."""

from __future__ import annotations

import gzip
import io
import re
from pathlib import Path

import orjson
import pytest
from rich.console import Console

from spades_replay.cli import main, stats_view
from spades_replay.cli.query_cmd import render_table
from spades_replay.errors import RulesError
from spades_replay.play.recorder import Recorder
from spades_replay.replayer.validate import check_bytes
from spades_replay.stats.collect import StatsCollection
from spades_replay.text import player_labels

from .conftest import FIXTURES, ROOT

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


def _long_id_corpus(tmp_path: Path) -> tuple[Path, str]:
    record = orjson.loads((FIXTURES / "four-player" / "blind-nil.json").read_bytes())
    game_id = "four-player-s12-" + "0123456789" * 17
    record["game_id"] = game_id
    corpus = tmp_path / "long.jsonl"
    corpus.write_bytes(orjson.dumps(record) + b"\n")
    return corpus, game_id


@pytest.mark.parametrize(
    "command",
    [
        ("rescore", "--rule", "target_score=300"),
        ("rescore", "--rule", "target_score=300", "--changed"),
        ("stats", "--by", "game"),
    ],
)
def test_ids_are_never_cut(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: tuple[str, ...]
) -> None:
    corpus, game_id = _long_id_corpus(tmp_path)
    code, out, _ = run(capsys, command[0], str(corpus), *command[1:])
    assert code == 0
    if "--changed" not in command:
        assert game_id in out
    target = tmp_path / "out.txt"
    code, _, _ = run(capsys, command[0], str(corpus), *command[1:], "-o", str(target))
    assert code == 0
    if "--changed" not in command:
        assert game_id in target.read_text()


def test_scores_in_the_order_of_the_sides(capsys: pytest.CaptureFixture[str]) -> None:
    game = str(FIXTURES / "four-player" / "blind-nil.json")
    _, out, _ = run(capsys, "stats", game, "--by", "game")
    assert "scores: in the order of the sides" in out
    row = next(line for line in out.splitlines() if "blind-nil" in line)
    assert "Alex & Charlie / Beth & David" in row
    assert "-66 / 511" in row
    _, out, _ = run(capsys, "rescore", game, "--rule", "target_score=300")
    assert "every score in the order of the sides" in out
    row = next(line for line in out.splitlines() if "blind-nil" in line)
    assert "-66 / 511" in row
    assert "3 / 318" in row
    assert "+69 / -193" in row


def test_booleans_rates_and_players_written_alike(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    house = str(FIXTURES / "four-player" / "house-rules.json")
    _, out, _ = run(capsys, "replay", house)
    assert "blind_nil_allowed=false" in out
    _, out, _ = run(capsys, "rescore", house, "--format", "csv")
    assert "False" not in out
    assert ",false," in out
    corpus = tmp_path / "games.jsonl"
    run(capsys, "simulate", "--variant", "four-player", "--games", "3", "-o", str(corpus))
    _, stats, _ = run(capsys, "stats", str(corpus))
    _, rescored, _ = run(capsys, "rescore", str(corpus))
    for out in (stats, rescored):
        alex = next(line for line in out.splitlines() if line.startswith("│ Alex "))
        assert "heuristic-alex" not in alex
        assert re.search(r"\b\d+% \(\d+/3\)", alex), alex


def test_two_players_of_one_name_are_told_apart() -> None:
    labels = player_labels([("Drew", "d1"), ("Drew", "d2"), ("Alex", "a")])
    assert labels == {"d1": "Drew (d1)", "d2": "Drew (d2)", "a": "Alex"}


def test_query_numbers_are_right_aligned() -> None:
    console = Console(width=60, color_system=None, file=io.StringIO())
    console.print(render_table(["game", "hands"], [("a", 3), ("b", 120)]))
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "│ a    │     3 │" in text
    assert "│ b    │   120 │" in text


def test_the_80_column_stats_table_keeps_the_figures(capsys: pytest.CaptureFixture[str]) -> None:
    collection = StatsCollection([str(FIXTURES / "four-player" / "standard-game.json")])
    list(collection)
    frame = stats_view.metrics(collection.tables().lazy(), "player").collect()
    console = Console(width=80, color_system=None, file=io.StringIO())
    console.print(stats_view.table(frame, "player", 80).renderable)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    header = next(line for line in text.splitlines() if "player" in line)
    for shown in ("wins", "pts/hand", "bids exact", "bags/hand"):
        assert shown in header
    assert "variant" not in header
    assert "rules" not in header
    assert "every row: variant four-player, rules standard" in text
    assert max(len(line) for line in text.splitlines()) <= 80


def test_migrate_keeps_each_folder_name(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "out"
    four, two = FIXTURES / "four-player", FIXTURES / "two-player"
    code, _, _ = run(capsys, "migrate", str(four), str(two), "-o", str(out))
    assert code == 0
    assert (out / "four-player" / "blind-nil.json").is_file()
    assert (out / "two-player" / "blind-nil.json").is_file()


def test_migrate_names_a_clash(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for folder in ("a", "b"):
        (tmp_path / folder / "game.json").write_bytes(GAME.read_bytes())
    out = tmp_path / "out"
    game_a, game_b = tmp_path / "a" / "game.json", tmp_path / "b" / "game.json"
    code, _, err = run(capsys, "migrate", str(game_a), str(game_b), "-o", str(out))
    assert code == 2
    assert f"{game_a} and {game_b} would both be written to {out / 'game.json'}" in err
    assert not out.exists()


def test_export_counts_each_reason_once(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "hands.txt"
    two, four = FIXTURES / "two-player", FIXTURES / "four-player"
    code, _, err = run(capsys, "export", "openspiel", str(two), str(four), "-o", str(out))
    assert code == 1
    refusals = [line for line in err.splitlines() if line.startswith("refused")]
    games = len(list(two.glob("*.json")))
    assert (
        f"refused {games} game(s): OpenSpiel's spades is four-player partnership Spades only "
        f"(first: {two / 'blind-nil.json'}: a two-player game cannot be exported)"
    ) in refusals
    reasons = [line.partition(": ")[2].partition(" (first")[0] for line in refusals]
    assert len(reasons) == len(set(reasons))
    assert len(refusals) < games


def test_simulated_openspiel_games_export_and_round_trip(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    games = tmp_path / "games.jsonl"
    code, _, _ = run(
        capsys, "simulate", "--variant", "four-player", "--games", "4", "--bot", "openspiel",
        "--seed", "2", "-o", str(games),
    )  # fmt: skip
    assert code == 0
    first, back, second = (tmp_path / name for name in ("1.jsonl", "back.jsonl", "2.jsonl"))
    code, out, err = run(
        capsys, "export", "openspiel", str(games), "-o", str(first), "--format", "jsonl"
    )
    assert code == 0
    assert "refused" not in out + err
    assert run(capsys, "import", "openspiel", str(first), "-o", str(back))[0] == 0
    assert (
        run(capsys, "export", "openspiel", str(back), "-o", str(second), "--format", "jsonl")[0]
        == 0
    )
    assert second.read_bytes() == first.read_bytes()
    ids = [orjson.loads(line)["id"] for line in first.read_bytes().splitlines()]
    assert ids[0] == "four-player-s2-000000 hand 1"


def test_openspiel_bots_refuse_other_rules(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = str(tmp_path / "g.jsonl")
    args = ("simulate", "--variant", "four-player", "--games", "1", "--bot", "openspiel", "-o", out)
    code, _, err = run(capsys, *args, "--rule", "bag_limit=5")
    assert code == 2
    assert "OpenSpiel cannot play the game has bag_limit 5, OpenSpiel plays 10" in err
    code, _, err = run(capsys, *args[:2], "two-player", *args[3:])
    assert code == 2
    assert "--bot openspiel plays four-player games" in err


def test_the_readme_says_how_long_the_tests_take_and_the_quick_loop() -> None:
    readme = (ROOT / "README.md").read_text()
    quick_start = readme.partition("## Quick start")[2].partition("\n## ")[0]
    assert "about 15 minutes" in quick_start
    assert '\n./dev test -m "not slow"' in quick_start
    first_block = quick_start.partition("```sh\n")[2].partition("```")[0]
    assert [line.split()[:2] for line in first_block.splitlines()] == [
        ["./dev", "dashboard"],
        ["./dev", "test"],
    ]
    assert '"slow:' in (ROOT / "pyproject.toml").read_text()  # the marker the loop leaves out


def test_text_that_is_not_json_is_said_in_words(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    empty, notes = tmp_path / "empty.json", tmp_path / "notes.json"
    empty.write_bytes(b"")
    notes.write_bytes(b"hello world\n")
    code, out, _ = run(capsys, "validate", str(empty), str(notes))
    assert code == 1
    assert "not valid JSON: the input is empty" in out
    assert "not JSON at all: it begins 'hello world', where a record begins with '{'" in out
    assert "zero-length" not in out


def _with(path: list[str | int], written: str) -> bytes:
    record = orjson.loads(GAME.read_bytes())
    place = record
    for key in path[:-1]:
        place = place[key]
    place[path[-1]] = "@@"
    return orjson.dumps(record).replace(b'"@@"', written.encode())


@pytest.mark.parametrize(
    ("path", "written", "said"),
    [
        (["hands", 0, "bids", 0], str(2**70), f"{2**70} is not a bid"),
        (["hands", 0, "bids", 0], str(10**400), "a number too large to read: 1000000000"),
        (["hands", 0, "result", "scores", 0], "1.5e300", "whole number, got a number too large"),
        (["hands", 0, "result", "scores", 0], "12.5", "'scores' must be a whole number, got 12.5"),
    ],
)  # fmt: skip
def test_numbers_are_said_as_written_or_too_large(
    path: list[str | int], written: str, said: str
) -> None:
    report, _ = check_bytes(_with(path, written), "x.json", None)
    (problem,) = report.problems
    assert said in problem.message
    assert "e+" not in problem.message
    assert "infinity" not in problem.message


def test_a_huge_openspiel_action_is_too_large(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    histories = tmp_path / "h.txt"
    histories.write_text(f"[{2**70}, 1, 2]\n")
    code, _, err = run(
        capsys, "import", "openspiel", str(histories), "-o", str(tmp_path / "g.jsonl")
    )
    assert code == 1
    assert "action 0: a number too large is not an action" in err


def test_a_bad_card_is_one_fault_with_one_message() -> None:
    report, _ = check_bytes((FIXTURES / "invalid" / "format-card.json").read_bytes(), "x", None)
    assert [problem.code.value for problem in report.problems] == ["format.card"]
