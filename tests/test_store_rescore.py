"""What-if from the store (spades_replay.store.rescore) gives exactly the answers of the
replaying rescore, game by game: on the fixtures, both conformance sets and simulated
corpora, under random scoring options; and ``rescore --store`` writes what ``rescore PATH``
writes."""

from __future__ import annotations

import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import pytest
from streamlit.testing.v1 import AppTest

from spades_replay.cli import main
from spades_replay.engine.rules import Rules, RuleValue
from spades_replay.engine.seats import Variant
from spades_replay.play.simulate import CorpusSpec, write_corpus
from spades_replay.replayer.rescore import CorpusRescore, Rescore, RescoreError, rescore
from spades_replay.replayer.validate import CorpusValidation, Sink, Verified
from spades_replay.store.ingest import ingest
from spades_replay.store.read import Store
from spades_replay.store.rescore import prepare, rescore_tables

from .conftest import CONFORMANCE, CONFORMANCE_1_1, FIXTURES
from .support.apptest import ENTRY, run_app, table_of


@dataclass
class _Records:
    records: list[Any] = field(default_factory=list)

    def add(self, game: Verified, path: str, line: int | None) -> None:
        self.records.append(game.record)


def _valid_records(paths: list[Path]) -> list[Any]:
    found: list[Any] = []

    def take(sink: Sink, _lines_before: int) -> None:
        assert isinstance(sink, _Records)
        found.extend(sink.records)

    validation = CorpusValidation(paths, sink=_Records, on_sink=take)
    list(validation)
    return found


def _random_options(rng: random.Random) -> dict[str, RuleValue]:
    """Some scoring options changed at random (values the format takes with any rules)."""
    choices: dict[str, list[RuleValue]] = {
        "target_score": [100, 200, 250, 300, 500, 1000],
        "lose_score": [None, -100, -200, -500],
        "bag_limit": [1, 3, 5, 7, 10],
        "bag_penalty": [0, 50, 100, 150],
        "nil_bonus": [0, 50, 100, 200],
        "blind_nil_bonus": [0, 100, 200, 300],
        "failed_nil_tricks_count_as_bags": [True, False],
        "failed_nil_tricks_help_partner": [True, False],
        "double_contract_from": [None, 4, 7, 10, 13],
    }
    names = rng.sample(sorted(choices), rng.randint(1, len(choices)))
    return {name: rng.choice(choices[name]) for name in sorted(names)}


ENDING_ONLY: list[dict[str, RuleValue]] = [
    {"target_score": 300},
    {"target_score": 200, "lose_score": -100},
    {"lose_score": None},
]
"""Changes of where games end alone: every hand scores as played (the store takes the
scores as played then, and works out only the ends)."""


def _same_game(ours: Rescore, theirs: Rescore, game: int) -> None:
    """Equal, but for what the tables do not hold (a missing id, a key without an id)."""
    assert ours.game_id == (theirs.game_id or ours.game_id), game
    assert [info.key for info in ours.players] == [info.key for info in theirs.players]
    assert [info.name for info in ours.players] == [info.name for info in theirs.players]
    mine = {**ours.to_dict(), "game_id": None}
    reference = {**theirs.to_dict(), "game_id": None}
    assert mine == reference, game
    assert ours.original == theirs.original, game
    assert ours.rescored == theirs.rescored, game


def _check(directory: Path, paths: list[Path], seeds: range) -> int:
    ingest(paths, directory)
    tables = Store.open(directory).tables()
    prepared = prepare(tables)
    records = _valid_records(paths)
    assert len(records) == tables.games.height
    checked = 0
    drawn = [_random_options(random.Random(seed)) for seed in seeds]
    for options in [*drawn, *ENDING_ONLY]:
        try:
            ours = rescore_tables(tables, options, prepared=prepared)
        except RescoreError:
            refused = 0
            for record in records:
                try:
                    rescore(record, **options)
                except RescoreError:
                    refused += 1
            assert refused, options
            continue
        theirs = [rescore(record, **options) for record in records]
        for number, reference in enumerate(theirs):
            _same_game(ours.game(number), reference, number)
            row = ours.games.row(number, named=True)
            assert row["winner_changed"] == reference.winner_changed
            assert row["rescored_end_hand"] == reference.rescored.end_hand
            assert (row["rescored_score_0"], row["rescored_score_1"]) == reference.rescored.scores
        assert ours.summary.to_dict() == CorpusRescore().extend(theirs).to_dict(), options
        checked += 1
    return checked


@pytest.mark.parametrize(
    "paths",
    [
        pytest.param([FIXTURES], id="fixtures"),
        pytest.param([CONFORMANCE], id="conformance"),
        pytest.param([CONFORMANCE_1_1], id="conformance-1.1"),
    ],
)
def test_the_store_rescores_as_replaying_does(tmp_path: Path, paths: list[Path]) -> None:
    assert _check(tmp_path / "store", paths, range(12)) > 0


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(Variant))
def test_simulated_corpora_rescore_as_replaying_does(tmp_path: Path, variant: Variant) -> None:
    corpus = tmp_path / "games.jsonl"
    rules = Rules(lose_score=-200, bag_limit=5, double_contract_from=7)
    write_corpus(
        CorpusSpec(
            variant,
            40,
            11,
            rules,
            "heuristic,random"
            if variant is Variant.TWO_PLAYER
            else "heuristic,random,heuristic,heuristic",
        ),
        corpus,
    )
    plain = tmp_path / "plain.jsonl"
    write_corpus(CorpusSpec(variant, 30, 5), plain)
    assert _check(tmp_path / "store", [corpus, plain], range(20)) > 0


def test_under_its_own_rules_every_game_keeps_its_scores(tmp_path: Path) -> None:
    ingest([FIXTURES], tmp_path / "store")
    ours = rescore_tables(Store.open(tmp_path / "store").tables(), {})
    assert ours.summary.winner_changed == 0
    frame = ours.games
    assert frame["score_change_0"].to_list() == [0] * frame.height
    assert frame["rescored_end_hand"].to_list() == frame["played_end_hand"].to_list()


def test_a_refused_option_names_the_game(tmp_path: Path) -> None:
    ingest([FIXTURES / "two-player"], tmp_path / "store")
    tables = Store.open(tmp_path / "store").tables()
    with pytest.raises(RescoreError, match="nil_allowed shaped what was legal"):
        rescore_tables(tables, {"nil_allowed": False})
    with pytest.raises(RescoreError, match=r"\.json: lose_score \(600\) must be below"):
        rescore_tables(tables, {"lose_score": 600})


@pytest.mark.parametrize("kind", ["json", "csv"])
def test_the_command_on_a_store_writes_what_it_writes_on_the_files(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = [str(FIXTURES / "two-player"), str(FIXTURES / "corpus")]
    store = tmp_path / "store"
    ingest(paths, store)
    rules = ["--rule", "target_score=300", "--rule", "bag_limit=5"]
    assert main(["rescore", *paths, *rules, "--format", kind, "--no-progress"]) == 0
    from_files = capsys.readouterr().out
    assert main(["rescore", "--store", str(store), *rules, "--format", kind]) == 0
    from_store = capsys.readouterr().out
    if kind == "json":
        files, stored = orjson.loads(from_files), orjson.loads(from_store)
        assert stored["summary"] == files["summary"]
        assert len(stored["games"]) == len(files["games"]) > 0
        for mine, reference in zip(stored["games"], files["games"], strict=True):
            assert mine == {**reference, "game_id": mine["game_id"]}
            assert reference["game_id"] in (None, mine["game_id"])
    else:
        assert from_store == from_files


@pytest.mark.slow
def test_the_what_if_page_on_a_store_answers_from_its_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page on a store gives the replaying rescore's figures, and never replays the
    corpus to get them (only the game shown is read again)."""
    ingest([FIXTURES], tmp_path / "store")
    records = _valid_records([FIXTURES])
    summary = CorpusRescore().extend(rescore(record, target_score=200) for record in records)
    replayed: list[object] = []
    monkeypatch.setattr(
        "spades_replay.dashboard.data.rescore_games",
        lambda *arguments: replayed.append(arguments),
    )
    monkeypatch.setattr(sys, "argv", [ENTRY, "--store", str(tmp_path / "store")])
    at = AppTest.from_file(ENTRY, default_timeout=120)
    at.switch_page("whatif.py")
    at = run_app(at)
    target = next(widget for widget in at.number_input if widget.label == "Target score")
    at = run_app(target.set_value(200))
    # the games are prepared in the background: the page says so until they are
    for _ in range(600):
        if not any("Preparing the" in str(info.value) for info in at.info):
            break
        time.sleep(0.2)
        at = run_app(at)
    assert [metric.value for metric in at.metric] == [
        str(summary.games),
        str(summary.winner_changed),
        str(summary.ends_earlier),
        str(summary.no_longer_ends),
    ]
    assert replayed == []
    players = table_of(at, "wins_after")
    assert list(players["wins_after"]) == [row.wins_after for row in summary.player_rows()]
    assert table_of(at, "rescored").shape[0] == summary.winner_changed > 0
