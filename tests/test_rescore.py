"""What-if rescoring (spades_replay.replayer.rescore): the reference's answers to every question of
tests/conformance-1.1/rescore, the options it must refuse, and rescoring under a game's own
rules giving exactly its recorded scores, for every fixture and for simulated games."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import spades_replay
from spades_replay.engine.rules import SCORING_OPTIONS, Rules
from spades_replay.engine.scoring import end_reason
from spades_replay.engine.seats import Variant
from spades_replay.play.simulate import simulate_game
from spades_replay.plumbing.corpus import Task, is_corpus, read_task
from spades_replay.record import models
from spades_replay.record.io import loads
from spades_replay.replayer.rescore import (
    CorpusRescore,
    RescoreError,
    Spread,
    outcome_under,
    rescore,
)
from spades_replay.replayer.validate import check_bytes

from .conftest import CONFORMANCE, CONFORMANCE_1_1, FIXTURES, SHARED

RESCORE = CONFORMANCE_1_1 / "rescore"
QUESTIONS = json.loads((RESCORE / "RESCORE.json").read_text())
REFUSED = json.loads((RESCORE / "REFUSED.json").read_text())


def _load(name: str) -> models.AnyRecord:
    return spades_replay.load(RESCORE / name)


def test_the_folder_is_the_references_own() -> None:
    shared = SHARED / "conformance-1.1" / "rescore"
    if not shared.is_dir():
        pytest.skip("the shared originals are not beside this checkout")
    ours = sorted(path.name for path in RESCORE.iterdir())
    assert ours == sorted(path.name for path in shared.iterdir())
    for name in ours:
        assert (RESCORE / name).read_bytes() == (shared / name).read_bytes(), name


QUESTION_CASES = [
    pytest.param(name, number, question, id=f"{name}-{number}")
    for name, questions in QUESTIONS.items()
    for number, question in enumerate(questions)
]


@pytest.mark.parametrize(("name", "number", "question"), QUESTION_CASES)
def test_every_question_of_the_reference(
    name: str, number: int, question: dict[str, object]
) -> None:
    options = question["options"]
    answer = question["answer"]
    assert isinstance(options, dict)
    assert isinstance(answer, dict)
    what_if = rescore(_load(name), **options)
    outcome = what_if.rescored
    assert list(outcome.scores) == answer["scores"]
    assert outcome.winner == answer["winner"]
    assert outcome.end_hand == answer["end_hand"]
    assert [list(scores) for scores in outcome.hand_scores] == answer["hand_scores"]
    assert what_if.changes == options


def test_the_questions_cover_every_answer_kind() -> None:
    answers = [question["answer"] for questions in QUESTIONS.values() for question in questions]
    assert any(answer["end_hand"] is None for answer in answers)
    assert any(answer["winner"] is not None for answer in answers)
    assert len(QUESTION_CASES) >= 20


@pytest.mark.parametrize("case", REFUSED, ids=lambda case: f"{case['file']}-{case['options']}")
def test_every_refused_option_is_refused_saying_why(case: dict[str, object]) -> None:
    options = case["options"]
    assert isinstance(options, dict)
    (name,) = options
    with pytest.raises(RescoreError) as raised:
        rescore(_load(str(case["file"])), **options)
    message = str(raised.value)
    assert message.startswith(f"{name} shaped what was legal and cannot be changed by rescoring")
    assert ", ".join(SCORING_OPTIONS) in message


@pytest.mark.parametrize(
    "name",
    sorted(
        {"blind_nil_exchange", "nil_allowed", "blind_nil_allowed", "blind_nil_min_deficit"}
        | {"min_team_bid", "first_lead", "spades_must_be_broken"}
    ),
)
def test_every_option_that_shaped_legality_is_refused(name: str) -> None:
    value = Rules().as_dict()[name]
    with pytest.raises(RescoreError, match=f"^{name} shaped what was legal"):
        rescore(_load("four-player-00.json"), **{name: value})


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"target_scor": 300}, "'target_scor' is not an option (did you mean 'target_score'?)"),
        ({"target_score": 0}, "'target_score' must be at least 1, got 0"),
        (
            {"target_score": "300"},
            "'target_score' must be a whole number from 1 to 100000, got '300'",
        ),
        ({"lose_score": 600}, "lose_score (600) must be below target_score (500)"),
        ({"double_contract_from": 14}, "'double_contract_from' must be at most 13, got 14"),
    ],
)
def test_bad_values_are_refused(options: dict[str, object], words: str) -> None:
    with pytest.raises(RescoreError) as raised:
        rescore(_load("two-player-00.json"), **options)  # type: ignore[arg-type]
    assert words in str(raised.value)


def test_an_invalid_record_raises_its_rules_error() -> None:
    record = spades_replay.load(CONFORMANCE / "invalid" / "two-player-revoke.json")
    with pytest.raises(spades_replay.RulesError):
        rescore(record, target_score=300)


def _records() -> Iterator[tuple[str, bytes]]:
    folders = (
        FIXTURES,
        CONFORMANCE / "valid",
        CONFORMANCE_1_1 / "valid",
        RESCORE,
    )
    for folder in folders:
        for path in sorted(folder.rglob("*.json*")):
            if "invalid" in path.parts or path.name.isupper() or path.stem.isupper():
                continue
            if path.name in ("RESCORE.json", "REFUSED.json", "EXPECTED.json"):
                continue
            for source in read_task(Task(str(path), is_corpus(path))):
                if not source.blank:
                    yield f"{path.relative_to(folder.parent)}:{source.line}", source.data


RECORDS = list(_records())


def _claims_match(record: models.AnyRecord, what_if: spades_replay.Rescore) -> None:
    outcome = what_if.rescored
    claimed = [hand.result for hand in record.hands if hand.result is not None]
    scored = dict(enumerate(outcome.hands))
    for index, hand in enumerate(record.hands):
        claim = hand.result
        if claim is None or claim.scores is None:
            continue
        first, second = scored[index]
        assert tuple(claim.scores) == (first.score, second.score)
        if claim.points is not None:
            assert tuple(claim.points) == (first.points, second.points)
        if claim.bags is not None:
            assert tuple(claim.bags) == (first.bags, second.bags)
    if record.result is not None:
        assert outcome.winner == record.result.winner
        assert outcome.scores == tuple(record.result.scores)
    assert len(claimed) <= len(outcome.hands)


def test_there_are_records_to_rescore() -> None:
    assert len(RECORDS) > 100
    assert any("corpus" in place for place, _ in RECORDS)


@pytest.mark.parametrize(("place", "data"), RECORDS, ids=[place for place, _ in RECORDS])
def test_own_rules_give_exactly_the_recorded_scores(place: str, data: bytes) -> None:
    report, replayed = check_bytes(data, place)
    assert replayed is not None, report.problems
    what_if = rescore(replayed)
    assert what_if.rescored == what_if.original
    assert what_if.rescored.hand_scores == tuple(
        (outcome.scores[0].score, outcome.scores[1].score)
        for outcome in replayed.outcomes
        if outcome.scores is not None
    )
    assert what_if.rescored.winner == replayed.result.winner
    assert what_if.rescored.scores == replayed.result.scores
    assert not what_if.winner_changed
    assert what_if.score_change == (0, 0)
    _claims_match(loads(data), what_if)


SIMULATED_RULES = (
    Rules(),
    Rules(lose_score=-200, target_score=300),
    Rules(failed_nil_tricks_help_partner=True, failed_nil_tricks_count_as_bags=False),
    Rules(double_contract_from=5, bag_limit=5, bag_penalty=50),
    Rules(nil_bonus=50, blind_nil_bonus=100, blind_nil_min_deficit=100),
)


@pytest.mark.parametrize("variant", list(Variant))
@pytest.mark.parametrize("rules", SIMULATED_RULES, ids=repr)
def test_own_rules_give_the_scores_of_simulated_games(variant: Variant, rules: Rules) -> None:
    for seed in range(3):
        record = simulate_game(variant, seed=seed, rules=rules, max_hands=40)
        what_if = rescore(record)
        replayed = spades_replay.replay(record)
        assert what_if.rescored == what_if.original
        assert what_if.rescored.scores == replayed.result.scores
        assert what_if.rescored.end_hand == (
            replayed.result.hands if replayed.result.complete else None
        )


def test_a_lower_target_ends_the_game_earlier_with_the_parts_of_each_side() -> None:
    game = spades_replay.load(FIXTURES / "two-player" / "mercy.json")
    what_if = rescore(game, target_score=200)
    assert what_if.original.end_hand == 14
    assert what_if.original.reason == "mercy"
    assert what_if.rescored.end_hand == 4
    assert what_if.rescored.reason == "target"
    assert what_if.rescored.hand_scores == what_if.original.hand_scores[:4]
    parts = what_if.rescored.parts(1)
    assert parts["points"] == 208
    assert sum(parts[name] for name in parts if name != "points") == 208
    assert what_if.original.parts(0)["points"] == -258
    data = what_if.to_dict()
    assert data["rescored"]["end_hand"] == 4
    assert data["changes"] == {"target_score": 200}
    assert data["score_change"] == [181 + 258, 208 - 416]
    assert not data["winner_changed"]


def test_without_the_mercy_rule_the_game_no_longer_ends() -> None:
    game = spades_replay.load(FIXTURES / "two-player" / "mercy.json")
    what_if = rescore(game, lose_score=None)
    assert what_if.rescored.end_hand is None
    assert what_if.rescored.winner is None
    assert what_if.winner_changed
    assert len(what_if.rescored.hands) == what_if.hands_scored == 14


def test_the_unfinished_last_hand_is_never_scored() -> None:
    game = _load("four-player-04-unfinished.json")
    replayed = spades_replay.replay(game)
    assert not replayed.outcomes[-1].complete
    what_if = rescore(replayed, target_score=100_000)
    assert len(what_if.rescored.hands) == replayed.result.hands == len(replayed.outcomes) - 1


def test_a_corpus_summary_counts_changes_and_wins(tmp_path: Path) -> None:
    names = ("mercy.json", "standard-game.json", "tie-plays-on.json")
    games = [
        rescore(spades_replay.load(FIXTURES / "two-player" / name), lose_score=None)
        for name in names
    ]
    summary = CorpusRescore().extend(games)
    assert summary.games == 3
    assert summary.winner_changed == sum(game.winner_changed for game in games) == 1
    assert summary.no_longer_ends == 1
    changes = [game.score_change[0] for game in games]
    spread = summary.spread(0)
    assert spread.mean == pytest.approx(sum(changes) / 3)
    assert (spread.low, spread.high) == (min(changes), max(changes))
    rows = {row.key: row for row in summary.player_rows()}
    for key, row in rows.items():
        played = [game for game in games if key in {p.key for p in game.players}]
        assert row.games == len(played)
        assert row.wins_before == sum(key in game.winners(game.original) for game in played)
        assert row.wins_after == sum(key in game.winners(game.rescored) for game in played)
        assert row.rate_after == row.wins_after / row.games
    assert sum(row.wins_before for row in rows.values()) == 3
    assert sum(row.wins_after for row in rows.values()) == 2


def test_spread_of_nothing_and_of_numbers() -> None:
    assert Spread.of([]) == Spread(0.0, 0.0, 0, 0)
    spread = Spread.of([2, 4, 4, 4, 5, 5, 7, 9])
    assert (spread.mean, spread.std, spread.low, spread.high) == (5.0, 2.0, 2, 9)


REPLAYS = [replayed for _, data in RECORDS for replayed in (check_bytes(data)[1],) if replayed]


@settings(max_examples=150)
@given(
    game=st.sampled_from(REPLAYS),
    target=st.integers(1, 2_000),
    lose=st.one_of(st.none(), st.integers(-2_000, 0)),
)
def test_the_end_of_the_game_moves_and_nothing_else(
    game: spades_replay.Replay, target: int, lose: int | None
) -> None:
    """Target and mercy line change no hand's score: the running scores rescored are those
    as played, up to the first hand after which a side has won under the new ones."""
    what_if = rescore(game, target_score=target, lose_score=lose)
    played = outcome_under(game, game.rules.replace(target_score=10**9, lose_score=None))
    every = played.hand_scores
    assert every[: len(what_if.original.hand_scores)] == what_if.original.hand_scores
    rules = game.rules.replace(target_score=target, lose_score=lose)
    ends = [number for number, scores in enumerate(every, 1) if end_reason(rules, scores)]
    end = ends[0] if ends else None
    assert what_if.rescored.end_hand == end
    assert what_if.rescored.hand_scores == every[: end or len(every)]
    if end is not None:
        first, second = every[end - 1]
        assert what_if.rescored.winner == (0 if first > second else 1)
        assert what_if.rescored.reason == end_reason(rules, every[end - 1])
