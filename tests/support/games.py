"""Games for the tests: house rules drawn at random over every option of format 1.1, games
simulated under them (for the differential tests), and where a hand plays its cards."""

from __future__ import annotations

import gzip
import random
from collections.abc import Iterator

from hypothesis import strategies as st

from spades_replay.engine.actions import PlayCard
from spades_replay.engine.rules import Rules
from spades_replay.engine.seats import Variant
from spades_replay.play.bots import RandomBot
from spades_replay.play.simulate import simulate_game
from spades_replay.record import models
from spades_replay.replayer.replay import HandReplay

from ..conftest import FIXTURES

RULES = st.builds(
    Rules,
    target_score=st.sampled_from([100, 250, 500]),
    bag_limit=st.integers(1, 12),
    bag_penalty=st.sampled_from([0, 50, 100]),
    nil_bonus=st.sampled_from([50, 100]),
    blind_nil_bonus=st.sampled_from([100, 200]),
    blind_nil_exchange=st.integers(0, 4),
    failed_nil_tricks_count_as_bags=st.booleans(),
    failed_nil_tricks_help_partner=st.booleans(),
    lose_score=st.sampled_from([None, -100, -300]),
    nil_allowed=st.booleans(),
    blind_nil_allowed=st.booleans(),
    blind_nil_min_deficit=st.sampled_from([None, 0, 50, 200]),
    min_team_bid=st.sampled_from([0, 4, 9, 13]),
    first_lead=st.sampled_from(["left_of_dealer", "two_of_clubs"]),
    spades_must_be_broken=st.booleans(),
    double_contract_from=st.sampled_from([None, 5, 10]),
)
"""House rules over every option of format 1.1 (a hypothesis strategy)."""

OPTIONS_11 = (
    "nil_allowed",
    "blind_nil_allowed",
    "blind_nil_min_deficit",
    "min_team_bid",
    "first_lead",
    "spades_must_be_broken",
    "double_contract_from",
)
"""The options format 1.1 added."""
PLAY_OPTIONS = ("first_lead", "spades_must_be_broken")
"""The options of format 1.1 that shape the card play (the others judge bids or score)."""


def random_rules(rng: random.Random) -> Rules:
    """House rules drawn at random, every option of format 1.1 (a low target keeps the games
    short)."""
    target = rng.choice([100, 200, 300, 500])
    return Rules(
        target_score=target,
        bag_limit=rng.choice([3, 5, 10]),
        bag_penalty=rng.choice([0, 50, 100]),
        nil_bonus=rng.choice([0, 50, 100]),
        blind_nil_bonus=rng.choice([100, 200]),
        blind_nil_exchange=rng.choice([0, 1, 2, 3, 13]),
        failed_nil_tricks_count_as_bags=rng.random() < 0.5,
        failed_nil_tricks_help_partner=rng.random() < 0.5,
        lose_score=rng.choice([None, -100, -200]),
        nil_allowed=rng.random() < 0.7,
        blind_nil_allowed=rng.random() < 0.7,
        blind_nil_min_deficit=rng.choice([None, None, 0, 50, 100]),
        min_team_bid=rng.choice([0, 0, 2, 4, 9]),
        first_lead=rng.choice(["left_of_dealer", "two_of_clubs"]),
        spades_must_be_broken=rng.random() < 0.7,
        double_contract_from=rng.choice([None, None, 5, 10]),
    )


def simulated(
    variant: Variant, count: int, seed: int, max_hands: int = 12
) -> list[models.AnyRecord]:
    """Games under random house rules, half of them between random players (who bid Nil
    and Blind Nil and exchange more often than the heuristic ones)."""
    rng = random.Random(seed)
    records = []
    for index in range(count):
        bots = [RandomBot(0.2) for _ in range(variant.seat_count)] if index % 2 else None
        records.append(
            simulate_game(
                variant,
                seed=rng.randrange(2**32),
                rules=random_rules(rng),
                bots=bots,
                max_hands=max_hands,
            )
        )
    return records


def fixture_records() -> Iterator[tuple[str, bytes]]:
    """Every record of fixtures/: each file, and each line of each corpus, named by where
    it is (``corpus/four-player.jsonl:3``)."""
    for path in sorted(FIXTURES.rglob("*")):
        if path.suffix == ".json":
            yield str(path.relative_to(FIXTURES)), path.read_bytes()
        elif path.name.endswith((".jsonl", ".jsonl.gz")):
            raw = path.read_bytes()
            text = gzip.decompress(raw) if path.suffix == ".gz" else raw
            for number, line in enumerate(text.splitlines(), start=1):
                if line.strip():
                    yield f"{path.relative_to(FIXTURES)}:{number}", line


def card_steps(hand: HandReplay) -> list[int]:
    """The step of each card played in ``hand``, by its place in the hand's plays."""
    return [step.index for step in hand.timeline if isinstance(step.action, PlayCard)]
