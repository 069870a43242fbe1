"""Seeded bots and the simulate command: deterministic, valid, and realistic."""

from __future__ import annotations

import gzip
from collections import Counter
from pathlib import Path

import pytest

import spades_replay
from spades_replay.cli import main
from spades_replay.engine.cards import mask_of, parse_card
from spades_replay.engine.seats import Variant
from spades_replay.play.bots import HeuristicBot, RandomBot, estimate_tricks
from spades_replay.play.simulate import CorpusSpec, game_seed, simulate_corpus, simulate_game
from spades_replay.replayer.validate import CorpusValidation
from tests.support.events import game_events


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(Variant))
def test_heuristic_games_are_realistic(variant: Variant) -> None:
    """Across a small corpus: bags, sets, made and failed Nils, bag penalties, games to 500."""
    events: Counter[str] = Counter()
    hands = 0
    for seed in range(30):
        replayed = spades_replay.replay(simulate_game(variant, seed=seed))
        events.update(game_events(replayed))
        hands += len(replayed.hands)
    assert events["won"] >= 27
    for wanted in ("contract-set", "bag-penalty", "nil-made", "blind-nil-made"):
        assert events[wanted] >= 3, (wanted, events)
    assert events["nil-failed"] + events["blind-nil-failed"] >= 3, events
    assert 5 <= hands / 30 <= 25


def test_the_estimate_counts_honours_and_spades() -> None:
    strong = mask_of(parse_card(c) for c in "AS KS QS JS TS 9S AH KH AD KD AC KC QC".split())
    weak = mask_of(parse_card(c) for c in "2S 3S 2H 3H 4H 5H 2D 3D 4D 2C 3C 4C 5C".split())
    assert estimate_tricks(strong) >= 8
    assert estimate_tricks(weak) < 0.5


@pytest.mark.slow
def test_same_seed_same_bytes_and_seeds_per_game() -> None:
    spec = CorpusSpec(Variant.FOUR_PLAYER, 4, seed=9)
    first = list(simulate_corpus(spec))
    assert first == list(simulate_corpus(spec, jobs=2))
    longer = list(simulate_corpus(CorpusSpec(Variant.FOUR_PLAYER, 6, seed=9)))
    assert longer[:4] == first
    assert game_seed(9, 3) != game_seed(3, 9)
    with pytest.raises(ValueError, match="0 or more"):
        game_seed(-9, 0)
    random_games = [
        simulate_game("two-player", seed=5, bots=[RandomBot(), HeuristicBot()]) for _ in range(2)
    ]
    assert random_games[0] == random_games[1]


def test_simulate_command_writes_a_valid_corpus(tmp_path: Path) -> None:
    target = tmp_path / "games.jsonl.gz"
    code = main(
        [
            "simulate",
            "--variant",
            "two-player",
            "--games",
            "5",
            "--seed",
            "2",
            "--rule",
            "target_score=300",
            "--rule",
            "lose_score=-150",
            "-o",
            str(target),
        ]
    )
    assert code == 0
    lines = gzip.decompress(target.read_bytes()).splitlines()
    assert len(lines) == 5
    record = spades_replay.loads(lines[0])
    assert (record.rules.target_score, record.rules.lose_score) == (300, -150)
    validation = CorpusValidation([target])
    assert list(validation) == []
    assert validation.summary.valid == 5
    assert [p.name for p in tmp_path.iterdir()] == ["games.jsonl.gz"]  # no temporary left


@pytest.mark.slow
def test_simulate_into_a_directory_with_jobs(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    args = [
        "simulate",
        "--variant",
        "four-player",
        "--games",
        "3",
        "--seed",
        "4",
        "--bot",
        "random",
        "--max-hands",
        "3",
    ]
    assert main([*args, "-o", str(one)]) == 0
    assert main([*args, "--jobs", "2", "-o", str(two)]) == 0
    names = sorted(path.name for path in one.iterdir())
    assert names == sorted(path.name for path in two.iterdir())
    assert len(names) == 3
    for name in names:
        assert (one / name).read_bytes() == (two / name).read_bytes()


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--rule", "target=3"], "'target' is not an option (did you mean 'target_score'?)"),
        (["--rule", "target_score"], "takes KEY=VALUE"),
        (["--rule", "target_score=high"], "must be a whole number from 1 to 100000, got 'high'"),
        (["--rule", "lose_score=900"], "must be below target_score"),
        (["--rule", "bag_limit=0"], "bag_limit"),
        (["--games", "-1"], "--games must be 0 or more"),
        (["--seed", "-9"], "--seed must be 0 or more"),  # else the games of seed 9
    ],
)
def test_simulate_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: list[str], message: str
) -> None:
    args = ["simulate", "--variant", "two-player", "--games", "1", "-o", str(tmp_path / "x.jsonl")]
    code = main([*args, *option])
    assert code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x.jsonl").exists()


def test_a_folder_with_a_corpus_name_is_refused_before_any_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``-o out.jsonl`` names a corpus file: a folder of that name is said to be one, not
    'game 4 could not be written into it' after every game was played."""
    (tmp_path / "out.jsonl").mkdir()
    out = str(tmp_path / "out.jsonl")
    assert main(["simulate", "--variant", "two-player", "--games", "3", "-o", out]) == 2
    assert "out.jsonl: it is a directory" in capsys.readouterr().err
    assert list((tmp_path / "out.jsonl").iterdir()) == []


def test_simulate_unwritable_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "simulate",
            "--variant",
            "two-player",
            "--games",
            "1",
            "-o",
            str(tmp_path / "missing" / "x.jsonl"),
        ]
    )
    assert code == 2
    assert "cannot write" in capsys.readouterr().err


def _simulate(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["simulate", "--no-progress", *args])
    return code, capsys.readouterr().err


def test_simulate_says_how_many_games_ended_unfinished(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "random.jsonl"
    args = ["--variant", "two-player", "--games", "3", "--bot", "random", "--max-hands", "2"]
    code, err = _simulate(capsys, *args, "-o", str(target))
    assert code == 0
    assert "3 of 3 game(s) are unfinished: no side won within --max-hands 2 hands" in err
    assert "lose_score" in err
    validation = CorpusValidation([target])
    list(validation)
    assert validation.summary.unfinished == 3


def test_the_readme_simulate_examples_finish_their_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's examples, fewer games: every game ends, and nothing is said of it."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    examples = [
        line.partition(" #")[0].split()[1:]
        for line in readme.replace("\\\n", " ").splitlines()
        if line.startswith("spades-replay simulate")
    ]
    assert any("random" in example for example in examples)
    for number, args in enumerate(examples):
        at = args.index("--games")
        args[at + 1] = "6"
        out = args.index("-o")
        args[out + 1] = str(tmp_path / f"{number}-{Path(args[out + 1]).name}")
        code, err = _simulate(capsys, *args[1:])
        assert code == 0, err
        assert "unfinished" not in err
        validation = CorpusValidation([args[out + 1]])
        list(validation)
        assert (validation.summary.complete, validation.summary.unfinished) == (6, 0)


@pytest.mark.parametrize("name", ["out.txt", "games.json"])
def test_simulate_refuses_an_output_that_names_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    code, err = _simulate(
        capsys, "--variant", "two-player", "--games", "1", "-o", str(tmp_path / name)
    )
    assert code == 2
    assert "neither a corpus" in err
    assert list(tmp_path.iterdir()) == []
