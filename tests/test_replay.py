"""Replay: per-hand results, the game result, the timeline, claims, and determinism."""

from __future__ import annotations

import copy
import hashlib
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

import spades_replay
from spades_replay.engine.actions import PlayCard
from spades_replay.engine.state import Phase
from spades_replay.errors import Code
from spades_replay.record.io import from_data
from spades_replay.replayer.replay import check
from spades_replay.replayer.validate import validate_bytes

from .conftest import CONFORMANCE, FIXTURES, ROOT

VALID = sorted((CONFORMANCE / "valid").glob("*.json"))
TWO = CONFORMANCE / "valid" / "two-player-06.json"
FOUR = CONFORMANCE / "valid" / "four-player-01.json"
TWO_UNFINISHED = CONFORMANCE / "valid" / "two-player-10-unfinished.json"


def data_of(path: Path) -> dict[str, Any]:
    value: dict[str, Any] = orjson.loads(path.read_bytes())
    return value


def codes_of(data: dict[str, Any]) -> list[tuple[Code, str]]:
    report = validate_bytes(orjson.dumps(data))
    return [(problem.code, problem.pointer) for problem in report.problems]


@pytest.mark.parametrize("path", VALID, ids=lambda path: path.name)
def test_replay_json_is_identical_every_time(path: Path) -> None:
    first = spades_replay.replay(spades_replay.load(path)).to_json()
    second = spades_replay.replay(spades_replay.load(path)).to_json()
    assert first == second


def test_replay_json_is_identical_in_another_process() -> None:
    here = hashlib.sha256(spades_replay.replay(spades_replay.load(FOUR)).to_json()).hexdigest()
    code = (
        "import hashlib, spades_replay, sys;"
        f"r = spades_replay.replay(spades_replay.load({str(FOUR)!r}));"
        "print(hashlib.sha256(r.to_json()).hexdigest())"
    )
    for seed in ("0", "12345"):
        out = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": seed, "PATH": ""},
        ).stdout.strip()
        assert out == here


def test_section_4_report_for_every_hand() -> None:
    replayed = spades_replay.replay(spades_replay.load(FOUR))
    data = replayed.to_dict()
    hand = data["hands"][0]
    assert set(hand) >= {"bids", "tricks", "sides", "trick_log", "holdings", "dealer", "leader"}
    side = hand["sides"][0]
    assert set(side) >= {
        "contract",
        "contract_points",
        "overtricks",
        "nils",
        "nil_points",
        "bag_penalties",
        "points",
        "score",
        "bags",
    }
    assert set(data["result"]) == {"complete", "winner", "reason", "scores", "bags", "hands"}
    record = spades_replay.load(FOUR)
    for hand_data, hand_record in zip(data["hands"], record.hands, strict=True):
        assert hand_record.result is not None
        assert hand_data["tricks"] == list(hand_record.result.tricks or ())
        assert [s["points"] for s in hand_data["sides"]] == list(hand_record.result.points or ())


def test_unfinished_record() -> None:
    replayed = spades_replay.replay(spades_replay.load(TWO_UNFINISHED))
    assert not replayed.result.complete
    assert replayed.result.winner is None
    last = replayed.hands[-1]
    assert not last.complete
    assert last.scores is None
    assert replayed.result.hands == len(replayed.hands) - 1
    assert last.timeline[-1].state.phase is Phase.PLAY


@pytest.mark.parametrize("path", [TWO, FOUR], ids=["two-player", "four-player"])
def test_timeline_scrubs_both_ways(path: Path) -> None:
    replayed = spades_replay.replay(spades_replay.load(path))
    timeline = replayed.timeline
    assert timeline == tuple(step for hand in replayed.hands for step in hand.timeline)
    for hand in replayed.hands:
        steps = hand.timeline
        assert steps[0].action is None
        assert [step.index for step in steps] == list(range(len(steps)))
        assert steps[-1].state.phase is Phase.DONE
        assert steps[-1].state.tricks_won == hand.tricks_won
        plays = [step for step in steps if isinstance(step.action, PlayCard)]
        assert len(plays) == len(hand.actions.plays)
        first_play = steps.index(plays[0])
        assert steps[first_play - 1].state.holdings == hand.outcome.holdings
    backwards = [step.state for step in reversed(timeline)]
    assert backwards[::-1] == [step.state for step in timeline]
    assert replayed.hands[0].timeline is replayed.hands[0].timeline


def test_claim_errors_are_all_reported() -> None:
    data = data_of(TWO)
    data["hands"][0]["result"]["tricks"] = [0, 13]
    data["hands"][2]["result"]["bags"] = [99, 99]
    data["result"]["scores"] = [1, 2]
    assert codes_of(data) == [
        (Code.CLAIM_TRICKS, "/hands/0/result/tricks"),
        (Code.CLAIM_BAGS, "/hands/2/result/bags"),
        (Code.CLAIM_FINAL_SCORES, "/result/scores"),
    ]


def test_claims_are_optional() -> None:
    data = data_of(TWO)
    for hand in data["hands"]:
        del hand["result"]
    del data["result"]
    assert codes_of(data) == []
    data["hands"][0]["result"] = {"points": data_of(TWO)["hands"][0]["result"]["points"]}
    assert codes_of(data) == []


def test_result_claimed_for_an_unfinished_game() -> None:
    data = data_of(TWO_UNFINISHED)
    data["result"] = {"winner": 0, "scores": [0, 0]}
    assert codes_of(data) == [(Code.CLAIM_GAME_NOT_OVER, "/result")]


def test_result_claimed_for_an_unfinished_hand() -> None:
    data = data_of(TWO_UNFINISHED)
    data["hands"][-1]["result"] = {"tricks": [1, 1]}
    assert codes_of(data) == [(Code.CLAIM_UNFINISHED_HAND, "/hands/2/result")]


def test_only_the_last_hand_may_stop_early() -> None:
    data = data_of(TWO)
    data["hands"][1]["plays"] = data["hands"][1]["plays"][:10]
    del data["hands"][1]["result"]
    assert codes_of(data)[0] == (Code.HAND_UNFINISHED, "/hands/1/plays")


def test_a_hand_after_the_game_was_won() -> None:
    data = data_of(TWO)
    data["hands"].append(copy.deepcopy(data["hands"][0]))
    del data["hands"][-1]["result"]
    assert codes_of(data)[0] == (Code.GAME_OVER, f"/hands/{len(data['hands']) - 1}")


def test_a_record_with_no_hands_is_an_unfinished_game() -> None:
    data = data_of(FOUR)
    data["hands"] = []
    del data["result"]
    replayed, problems = check(from_data(data))
    assert problems == ()
    assert replayed is not None
    assert (replayed.result.complete, replayed.result.scores) == (False, (0, 0))


def test_replay_raises_with_every_problem() -> None:
    data = data_of(TWO)
    data["hands"][0]["result"]["tricks"] = [0, 13]
    data["result"]["winner"] = 1 - data["result"]["winner"]
    with pytest.raises(spades_replay.RulesError) as caught:
        spades_replay.replay(from_data(data))
    assert [p.code for p in caught.value.problems] == [Code.CLAIM_TRICKS, Code.CLAIM_WINNER]


def test_cards_of_the_public_api_round_trip_all_52() -> None:
    from spades_replay import Card
    from spades_replay.engine.cards import CARD_NAMES, DECK

    for card in DECK:
        name = CARD_NAMES[card]
        parsed = Card.parse(name)
        assert parsed == card
        assert (str(parsed), repr(parsed), parsed.rank + parsed.suit) == (
            name,
            f"Card({name!r})",
            name,
        )
        assert eval(repr(parsed), {"Card": Card}) == parsed
    with pytest.raises(ValueError, match="not 52"):
        Card(52)


def test_the_timeline_speaks_cards() -> None:
    """``step.card``, ``trick``, ``tricks`` and ``holdings`` say in cards what the engine's
    state holds as ints and bitmasks."""
    from spades_replay import Card, hand_cards
    from spades_replay.engine.actions import PlayCard
    from spades_replay.engine.cards import cards_of

    r = spades_replay.replay(spades_replay.load(FIXTURES / "four-player" / "standard-game.json"))
    hand = r.hands[0]
    for step in hand.timeline:
        state = step.state
        assert step.trick == state.trick
        assert all(isinstance(card, Card) for card in step.trick)
        assert step.tricks == tuple(trick.cards for trick in state.tricks)
        assert step.holdings == tuple(cards_of(mask) for mask in state.holdings)
        assert step.holdings == tuple(hand_cards(mask) for mask in state.holdings)
        if isinstance(step.action, PlayCard):
            assert step.card == step.action.card
            assert str(step.card) in str(step.action)
        else:
            assert step.card is None
    played = [str(step.card) for step in hand.timeline if step.card is not None]
    assert len(played) == 52
    first_trick = next(step for step in hand.timeline if len(step.state.tricks) == 1)
    assert [str(card) for card in first_trick.tricks[0]] == played[:4]


def test_the_readme_library_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    readme = (ROOT / "README.md").read_text()
    block = readme.split("## The library")[1].split("```python\n")[1].split("```")[0]
    path = str(FIXTURES / "two-player" / "mercy.json")
    exec(block.replace('"game.json"', repr(path)), {})
    out = capsys.readouterr().out
    assert "seat 1 plays" in out
    assert re.search(r"\(Card\('[2-9TJQKA][CDHS]'\)", out)


def test_json_data_is_refused_with_what_to_do() -> None:
    """A dict (JSON as parsed) or None is not a record: a TypeError that says to load it,
    not an AttributeError from deep inside."""
    data = orjson.loads(FOUR.read_bytes())
    for wrong in (data, None):
        for function in (spades_replay.replay, spades_replay.check, spades_replay.rescore):
            with pytest.raises(TypeError, match=r"spades_replay\.load or loads"):
                function(wrong)
