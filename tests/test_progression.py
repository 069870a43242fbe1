"""One game progression: the fast replay of a record (``engine.game.iter_hands``) and the
states a recorder or a viewer drives action by action (``engine.state.apply``, through
``drive_hand`` and ``Progress``) give the same verdict on every record, the invalid ones
included: the same first rules error, at the same place. The records are the fixtures and
conformance sets, games simulated under house rules drawn over every option of format 1.1
(and relabelled with other values of each option, which most of them then break), and fuzzed
records."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, assume, given, settings

import spades_replay
from spades_replay.engine.actions import IllegalActionError
from spades_replay.engine.cards import CARD_NAMES, FULL_DECK_MASK, cards_of
from spades_replay.engine.game import Progress, iter_hands
from spades_replay.engine.rules import Rules
from spades_replay.engine.seats import Variant
from spades_replay.engine.setup import check_deal, check_deck
from spades_replay.engine.state import Phase, drive_hand, start_four_player, start_two_player
from spades_replay.errors import Code, Family, FormatError
from spades_replay.record import models
from spades_replay.record.io import dumps, loads
from spades_replay.record.problems import json_pointer
from spades_replay.replayer.convert import hand_actions_of, rules_of, variant_of
from spades_replay.replayer.validate import validate_bytes

from .conftest import CONFORMANCE, CONFORMANCE_1_1, FIXTURES
from .support.games import OPTIONS_11, simulated
from .support.mutate import mutated

FOLDERS = [
    FIXTURES / "invalid",
    FIXTURES / "two-player",
    FIXTURES / "four-player",
    CONFORMANCE / "invalid",
    CONFORMANCE / "valid",
    CONFORMANCE_1_1 / "invalid",
    CONFORMANCE_1_1 / "valid",
]


def _well_formed(path: Path) -> bool:
    try:
        loads(path.read_bytes())
    except FormatError:
        return False
    return True


RECORDS = [
    path
    for folder in FOLDERS
    for path in sorted(folder.glob("*.json"))
    if path.name != "EXPECTED.json" and _well_formed(path)
]


def _driven(record: models.AnyRecord) -> tuple[Code, str] | None:
    """The first rules error of a record driven action by action, as a recorder would."""
    variant, rules = variant_of(record), rules_of(record.rules)
    progress = Progress(variant, rules, record.first_dealer)
    last = len(record.hands) - 1
    for index, hand in enumerate(record.hands):
        if progress.over:
            return Code.GAME_OVER, json_pointer(("hands", index))
        actions = hand_actions_of(hand)
        dealer = progress.dealer()
        try:
            if variant is Variant.TWO_PLAYER:
                assert actions.deck is not None
                check_deck(actions.deck)
                start = start_two_player(rules, dealer, actions.deck, progress.scores)
            else:
                assert actions.deal is not None
                start = start_four_player(rules, dealer, check_deal(actions.deal), progress.scores)
            state = start
            for _, state in drive_hand(start, actions):  # noqa: B007 (the last state is kept)
                pass
        except IllegalActionError as error:
            return error.code, json_pointer(("hands", index, *error.at))
        if state.phase is Phase.DONE:
            bids = tuple(bid for bid in state.bids if bid is not None)
            progress, _ = progress.after_hand(bids, state.tricks_won)
        elif index != last:
            return Code.HAND_UNFINISHED, json_pointer(("hands", index, "plays"))
    return None


def _replayed(data: bytes) -> tuple[Code, str] | None:
    """The first rules error (claims aside) the validator finds."""
    report = validate_bytes(data)
    for problem in report.problems:
        if problem.code.family is Family.RULES and not problem.code.value.startswith("claim."):
            return problem.code, problem.pointer
    return None


def test_the_records_include_every_kind_of_rules_error() -> None:
    verdicts = {_replayed(path.read_bytes()) for path in RECORDS}
    codes = {verdict[0] for verdict in verdicts if verdict is not None}
    assert {code for code in Code if code.family is Family.RULES and "claim" not in code} <= codes
    assert None in verdicts


@pytest.mark.parametrize("path", RECORDS, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_both_progressions_give_the_same_verdict(path: Path) -> None:
    assert _driven(loads(path.read_bytes())) == _replayed(path.read_bytes())


def _relabelled(record: models.AnyRecord) -> Iterator[bytes]:
    """The record as played, then under each other value of each option of format 1.1."""
    data = orjson.loads(dumps(record))
    yield orjson.dumps(data)
    for option, values in OTHER_VALUES.items():
        for value in values:
            if data["rules"].get(option) != value:
                yield orjson.dumps(data | {"rules": data["rules"] | {option: value}})


OTHER_VALUES: dict[str, tuple[object, ...]] = {
    "nil_allowed": (False,),
    "blind_nil_allowed": (False,),
    "blind_nil_min_deficit": (0, 100),
    "min_team_bid": (4, 9),
    "first_lead": ("left_of_dealer", "two_of_clubs"),
    "spades_must_be_broken": (True, False),
    "double_contract_from": (5,),
}
assert set(OTHER_VALUES) == set(OPTIONS_11)


@pytest.mark.parametrize("variant", list(Variant))
def test_both_progressions_agree_on_simulated_games_under_every_option(variant: Variant) -> None:
    records = simulated(variant, 8, 21, max_hands=4)
    verdicts = set()
    for record in records:
        for data in _relabelled(record):
            verdict = _replayed(data)
            assert _driven(loads(data)) == verdict
            verdicts.add(None if verdict is None else verdict[0])
    assert None in verdicts
    assert len(verdicts) > 3, "the relabelled games break several rules"


@pytest.mark.slow
@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(mutated())
def test_both_progressions_agree_on_fuzzed_records(data: bytes) -> None:
    """Mutated records that still load (most mutations break the format instead)."""
    try:
        record = loads(data)
    except FormatError:
        record = None
    assume(record is not None)
    assert record is not None
    assert _driven(record) == _replayed(data)


@pytest.mark.parametrize(
    ("name", "index"), [("two-player/blind-nil.json", 13), ("four-player/blind-nil.json", 1)]
)
def test_an_exchange_recorded_twice_is_told_at_the_first_problem_in_the_record(
    name: str, index: int
) -> None:
    """A Blind Nil exchange recorded twice, its first copy giving away a card its seat does
    not hold: both progressions tell the card of the first copy, where the record has it,
    before the repetition in the second."""
    record = orjson.loads((FIXTURES / name).read_bytes())
    exchange = record["hands"][index]["exchanges"][0]
    seat = exchange["seat"]
    hand = spades_replay.replay(spades_replay.load(FIXTURES / name)).hands[index]
    foreign = CARD_NAMES[cards_of(FULL_DECK_MASK & ~hand.outcome.dealt[seat])[0]]
    first = {**exchange, "out": [foreign, *exchange["out"][1:]]}
    record["hands"][index]["exchanges"] = [first, exchange]
    data = orjson.dumps(record)
    want = (Code.EXCHANGE_NOT_HELD, f"/hands/{index}/exchanges/0/out/0")
    assert _replayed(data) == want
    assert _driven(loads(data)) == want


def test_the_dealer_of_any_hand_turns_from_the_first_dealer() -> None:
    four = Progress(Variant.FOUR_PLAYER, Rules(), first_dealer=1)
    assert [four.dealer(index) for index in (0, 1, 2, 6)] == [1, 2, 3, 3]
    assert four.dealer() == 1
    assert four._replace(hands_scored=2).dealer() == 3
    assert Progress(Variant.TWO_PLAYER, Rules(), first_dealer=1).dealer(3) == 0


@pytest.mark.parametrize("name", ["two-player/blind-nil.json", "four-player/blind-nil.json"])
def test_each_replayed_hand_has_its_pile_and_the_scores_it_began_at(name: str) -> None:
    """The discard pile is every card no seat holds as play begins (none in four-player);
    each hand begins at the scores the hand before it ended at."""
    record = spades_replay.load(FIXTURES / name)
    variant = variant_of(record)
    outcomes = list(
        iter_hands(
            variant,
            rules_of(record.rules),
            record.first_dealer,
            [hand_actions_of(hand) for hand in record.hands],
        )
    )
    assert len(outcomes) > 2
    assert any(outcome.exchanges for outcome in outcomes)
    for outcome in outcomes:
        held = 0
        for holding in outcome.holdings:
            held |= holding
        pile = FULL_DECK_MASK & ~held if variant is Variant.TWO_PLAYER else 0
        assert outcome.discard == pile
    assert outcomes[0].scores_before == (0, 0)
    for before, after in itertools.pairwise(outcomes):
        assert before.scores is not None
        assert after.scores_before == (before.scores[0].score, before.scores[1].score)
    assert any(outcome.scores_before != (0, 0) for outcome in outcomes)
