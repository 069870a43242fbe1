"""Property tests: random legal games, played through the engine one action at a time under
random house rules (every option of format 1.1 included), round-trip through the record format
and replay identically."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

import spades_replay
from spades_replay.engine.actions import PlayCard
from spades_replay.engine.rules import Rules
from spades_replay.engine.seats import Variant
from spades_replay.play.bots import RandomBot
from spades_replay.play.simulate import simulate_game
from spades_replay.record.io import dumps, loads

from .support.games import RULES


@given(
    variant=st.sampled_from(list(Variant)),
    seed=st.integers(0, 2**32),
    rules=RULES,
    blind_rate=st.sampled_from([0.0, 0.2, 0.5]),
)
@pytest.mark.slow
def test_random_games_round_trip_and_replay_identically(
    variant: Variant, seed: int, rules: Rules, blind_rate: float
) -> None:
    bots = [RandomBot(blind_nil_rate=blind_rate) for _ in variant.seats]
    record = simulate_game(variant, seed=seed, bots=bots, rules=rules, max_hands=6)
    text = dumps(record)
    again = loads(text)
    assert again == record
    assert dumps(again) == text
    first = spades_replay.replay(again)
    second = spades_replay.replay(loads(text))
    assert first.to_json() == second.to_json()
    assert first.result.complete is (record.result is not None)
    data = orjson.loads(text)
    score, bags = [0, 0], [0, 0]
    for hand, recorded in zip(first.hands, data["hands"], strict=True):
        if not hand.complete:
            continue
        leader = next(s.action.seat for s in hand.timeline if isinstance(s.action, PlayCard))
        counted = count_tricks(recorded["plays"], len(data["players"]), leader)
        assert sum(counted) == 13
        assert tuple(counted) == hand.tricks_won == tuple(recorded["result"]["tricks"])
        scores = hand.scores
        assert scores is not None
        for side, part in enumerate(scores):
            assert part.points == (
                part.contract_points + part.bag_points + part.nil_points + part.penalty_points
            )
            assert part.bag_points == part.overtricks + part.nil_bags
            assert part.nil_points == sum(nil.points for nil in part.nils)
            assert part.penalty_points == -part.bag_penalties * rules.bag_penalty
            score[side] += part.points
            bags[side] += part.bag_points - part.bag_penalties * rules.bag_limit
            assert 0 <= bags[side] < rules.bag_limit
            assert (part.score, part.bags) == (score[side], bags[side])
            claimed = recorded["result"]
            assert (claimed["points"][side], claimed["scores"][side]) == (part.points, score[side])
    assert first.result.scores == tuple(score)


RANKS = "23456789TJQKA"


def count_tricks(plays: list[str], seats: int, leader: int) -> list[int]:
    """Each seat's tricks, counted from the cards played in order: the highest spade takes
    the trick, else the highest card of the suit led, and its player leads the next."""
    won = [0] * seats
    for start in range(0, len(plays), seats):
        trick = plays[start : start + seats]
        led = trick[0][1]
        trumps = [card for card in trick if card[1] == "S"]
        best = max(
            trumps or [card for card in trick if card[1] == led],
            key=lambda card: RANKS.index(card[0]),
        )
        leader = (leader + trick.index(best)) % seats
        won[leader] += 1
    return won


@pytest.mark.slow
@given(seed=st.integers(0, 2**32), variant=st.sampled_from(list(Variant)))
def test_simulation_is_deterministic(seed: int, variant: Variant) -> None:
    def play() -> bytes:
        bots = [RandomBot(blind_nil_rate=0.3) for _ in variant.seats]
        return dumps(simulate_game(variant, seed=seed, bots=bots, max_hands=3))

    assert play() == play()
