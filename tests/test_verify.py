"""The differential test: the fast verifier against the engine's ``check()``.

This is the verifier's contract. On every record it says "clean" only when ``check()`` finds
no problem, and then its figures are the engine's to the last field; it says "not clean" for
every record ``check()`` rejects (and may say so for a valid record it leaves to the engine:
one with an unfinished hand). End to end, ``verify_bytes`` (the fast
path) gives the same report as ``check_bytes`` (the engine alone), and the stats rows built
from the verifier's figures equal those built from a full replay.

The records: every fixture and conformance record (1.0 and 1.1), simulated games of both
variants under random house rules (every option of format 1.1) and with random players, every
mutation kind of the fuzz test (a few hundred here; ``./dev fuzz`` runs them by the ten
thousand), and targeted exchange, draft, play and claim mutants, and mutants that break or
change each house rule that shapes what is legal (bids, the first lead, spades breaking).
"""

from __future__ import annotations

import copy
import dataclasses
import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings

from spades_replay.engine.cards import CARD_NAMES as ENGINE_CARD_NAMES
from spades_replay.engine.rules import Rules
from spades_replay.engine.seats import Variant
from spades_replay.errors import FormatError
from spades_replay.play.bots import RandomBot
from spades_replay.play.simulate import simulate_game
from spades_replay.record import models
from spades_replay.record.io import dumps, loads
from spades_replay.replayer.replay import check, figures_of
from spades_replay.replayer.validate import check_bytes, validate_bytes, verify_bytes
from spades_replay.replayer.verify import CARD_NAMES, GameFigures, rules_of_data, verify
from spades_replay.stats.collect import RowSink
from spades_replay.stats.tables import TableRows

from .conftest import CONFORMANCE, CONFORMANCE_1_1, FIXTURES, other_verifier_kernels
from .support.games import fixture_records, random_rules, simulated
from .support.mutate import mutated

EXAMPLES = int(os.environ.get("SPADES_FUZZ_EXAMPLES", "300"))
OTHER_KERNELS = other_verifier_kernels()


def unsure(record: models.AnyRecord) -> bool:
    """Whether the verifier may leave a valid record to the engine: it has an unfinished
    hand."""
    full = 26 if record.variant == "two-player" else 52
    return any(len(hand.plays) != full for hand in record.hands)


def parsed(record: models.AnyRecord) -> Any:
    """A record as the verifier takes it: its JSON, parsed by orjson."""
    return orjson.loads(dumps(record))


def agree(record: models.AnyRecord) -> GameFigures | None:
    """Assert that the verifier, on every kernel built here, and ``check()`` agree on a
    loaded record."""
    figures = verify(parsed(record))
    for kernel in OTHER_KERNELS:
        assert verify(parsed(record), kernel) == figures, f"the {kernel.name} kernel disagrees"
    # the verdict and the result without the hands' figures are the same
    without = verify(parsed(record), hands=False)
    assert without == (None if figures is None else figures._replace(hands=()))
    replayed, problems = check(record)
    if figures is not None:
        assert not problems, f"the verifier accepts what check() rejects: {problems[0]}"
        assert replayed is not None
        assert figures == figures_of(replayed)
    else:
        assert problems or unsure(record), "the verifier rejects a valid record"
    return figures


def agree_bytes(data: bytes) -> bool:
    """Assert that the fast path and the engine's path report the same on some bytes, and
    that the verifier agrees with ``check()`` on the record; whether it was valid."""
    report, verified = verify_bytes(data, "x.jsonl", 7)
    expected, replayed = check_bytes(data, "x.jsonl", 7)
    assert report == expected == validate_bytes(data, "x.jsonl", 7)
    assert (verified is None) == (replayed is None)
    if verified is not None:
        assert replayed is not None
        assert verified.figures == figures_of(replayed)
    try:
        record = loads(data)
    except FormatError:
        return False
    agree(record)
    return report.valid


FIXTURE_RECORDS = list(fixture_records())
CONFORMANCE_RECORDS = sorted(
    path
    for folder in (CONFORMANCE, CONFORMANCE_1_1)
    for path in folder.rglob("*.json")
    if path.name not in ("EXPECTED.json", "RESCORE.json", "REFUSED.json")
)


def test_the_sets_are_there() -> None:
    assert len(FIXTURE_RECORDS) > 50
    assert sum(CONFORMANCE in path.parents for path in CONFORMANCE_RECORDS) > 60
    assert sum(CONFORMANCE_1_1 in path.parents for path in CONFORMANCE_RECORDS) > 80


@pytest.mark.parametrize(("name", "data"), FIXTURE_RECORDS, ids=[n for n, _ in FIXTURE_RECORDS])
def test_fixtures(name: str, data: bytes) -> None:
    agree_bytes(data)


@pytest.mark.parametrize(
    "path", CONFORMANCE_RECORDS, ids=lambda path: f"{path.parent.parent.name}/{path.name}"
)
def test_conformance(path: Path) -> None:
    agree_bytes(path.read_bytes())


def test_the_tables_take_the_engine_card_order() -> None:
    assert CARD_NAMES == ENGINE_CARD_NAMES


def test_valid_complete_fixtures_are_verified_without_the_engine() -> None:
    """The fast path is taken: every valid fixture whose hands are all finished is clean."""
    clean = 0
    for _, data in FIXTURE_RECORDS:
        report, _ = check_bytes(data)
        if not report.valid:
            continue
        record = loads(data)
        if not unsure(record):
            assert verify(orjson.loads(data)) is not None
            clean += 1
    assert clean > 30


SIMULATED = {
    Variant.TWO_PLAYER: simulated(Variant.TWO_PLAYER, 24, 11),
    Variant.FOUR_PLAYER: simulated(Variant.FOUR_PLAYER, 40, 12),
}


@pytest.mark.parametrize("variant", list(Variant))
def test_simulated_games_under_random_house_rules(variant: Variant) -> None:
    for record in SIMULATED[variant]:
        assert agree(record) is not None, "a simulated game is clean"
        assert agree_bytes(dumps(record))


DEFAULTS = Rules()


@pytest.mark.parametrize("variant", list(Variant))
def test_simulated_games_draw_every_option(variant: Variant) -> None:
    """Every option of the rules is off its default in some simulated game."""
    drawn = [rules_of_data(parsed(record).get("rules")) for record in SIMULATED[variant]]
    for option in (field.name for field in dataclasses.fields(Rules)):
        assert any(getattr(rules, option) != getattr(DEFAULTS, option) for rules in drawn), option


def test_simulated_games_hold_exchanges() -> None:
    """The random players exchange, so the exchange code is exercised (and mutated below)."""
    for variant in Variant:
        assert any(hand.exchanges for record in SIMULATED[variant] for hand in record.hands)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(mutated())
@pytest.mark.slow
def test_every_fuzz_mutation_kind(data: bytes) -> None:
    agree_bytes(data)


# Targeted mutants: small changes to the parts the verifier checks its own way.


def _bases() -> list[dict[str, Any]]:
    """Valid records rich in exchanges, Nil bids and claims."""
    records = [*SIMULATED[Variant.TWO_PLAYER], *SIMULATED[Variant.FOUR_PLAYER]]
    chosen = [record for record in records if any(hand.exchanges for hand in record.hands)]
    datas = [orjson.loads(dumps(record)) for record in chosen[:6]]
    for name in ("two-player/blind-nil.json", "four-player/blind-nil.json"):
        data = orjson.loads((FIXTURES / name).read_bytes())
        # from the hand before the first exchange on, a few hands (they still replay; the
        # running scores and bags start again from zero, so only the claims of tricks stay)
        start = max(0, next(i for i, hand in enumerate(data["hands"]) if "exchanges" in hand) - 1)
        data["hands"] = data["hands"][start : start + 4]
        data["first_dealer"] = (data.get("first_dealer", 0) + start) % len(data["players"])
        for hand in data["hands"]:
            for key in ("points", "scores", "bags"):
                hand.get("result", {}).pop(key, None)
        data.pop("result", None)
        datas.append(data)
    return datas


BASES = _bases()


def _exchange_mutants(data: dict[str, Any], rng: random.Random) -> Iterator[dict[str, Any]]:
    seats = len(data["players"])
    for index, hand in enumerate(data["hands"]):
        exchanges = hand.get("exchanges") or []
        for number, exchange in enumerate(exchanges):

            def mutant(
                index: int = index, number: int = number
            ) -> tuple[dict[str, Any], dict[str, Any]]:
                copied = copy.deepcopy(data)
                return copied, copied["hands"][index]["exchanges"][number]

            for seat in range(seats):
                if seat != exchange["seat"]:
                    copied, target = mutant()
                    target["seat"] = seat
                    yield copied
            for side in ("out", "in"):
                for position in range(len(exchange[side])):
                    for card in rng.sample(models.CARD_NAMES, 6):
                        copied, target = mutant()
                        target[side][position] = card
                        yield copied
                    copied, target = mutant()
                    del target[side][position]
                    yield copied
                    copied, target = mutant()
                    target[side].append(target[side][position])
                    yield copied
            copied, target = mutant()
            target["out"], target["in"] = target["in"], target["out"]
            yield copied
            copied, _ = mutant()
            copied["hands"][index]["exchanges"].append(copy.deepcopy(exchange))
            yield copied
            copied, target = mutant()
            copied["hands"][index]["bids"][target["seat"]] = 2
            yield copied
            other = exchange["seat"] ^ 2 if seats == 4 else 1 - exchange["seat"]
            copied, target = mutant()
            copied["hands"][index]["bids"][other] = "blind_nil"
            yield copied
            for position in (0, 1):
                copied, target = mutant()
                copied["hands"][index]["bids"][other] = "blind_nil"
                exchanges_now = copied["hands"][index]["exchanges"]
                exchanges_now.insert(position, {"seat": other, "out": [], "in": []})
                yield copied
            copied, target = mutant()
            target["out"].extend(["2C", "3D"])
            target["in"].extend(["4H", "5S"])
            yield copied
        if len(exchanges) > 1:
            copied = copy.deepcopy(data)
            copied["hands"][index]["exchanges"].reverse()
            yield copied
        for seat in range(seats):
            copied = copy.deepcopy(data)
            copied["hands"][index].setdefault("exchanges", []).append(
                {"seat": seat, "out": [], "in": []}
            )
            yield copied
        if not exchanges and index < 4:
            for seat in range(seats):
                copied = copy.deepcopy(data)
                copied["hands"][index]["bids"][seat] = "blind_nil"
                deal = copied["hands"][index].get("deal")
                out, taken = (deal[seat][:1], deal[seat ^ 2][:1]) if deal else ([], [])
                copied["hands"][index]["exchanges"] = [{"seat": seat, "out": out, "in": taken}]
                yield copied


def _draft_and_play_mutants(data: dict[str, Any], rng: random.Random) -> Iterator[dict[str, Any]]:
    for index, hand in enumerate(data["hands"][:3]):
        if "draft" in hand:
            for turn in rng.sample(range(26), 8):
                copied = copy.deepcopy(data)
                draft = copied["hands"][index]["draft"]
                flipped = "D" if draft[turn] == "K" else "K"
                copied["hands"][index]["draft"] = draft[:turn] + flipped + draft[turn + 1 :]
                yield copied
            for _ in range(4):
                copied = copy.deepcopy(data)
                deck = copied["hands"][index]["deck"]
                i, j = rng.sample(range(52), 2)
                deck[i], deck[j] = deck[j], deck[i]
                yield copied
                copied = copy.deepcopy(data)
                copied["hands"][index]["deck"][i] = deck[j]
                yield copied
        else:
            for _ in range(4):
                copied = copy.deepcopy(data)
                deal = copied["hands"][index]["deal"]
                a, b = rng.sample(range(4), 2)
                i, j = rng.randrange(13), rng.randrange(13)
                deal[a][i], deal[b][j] = deal[b][j], deal[a][i]
                yield copied
                copied = copy.deepcopy(data)
                copied["hands"][index]["deal"][a][i] = deal[b][j]
                yield copied
        plays = hand["plays"]
        for _ in range(8):
            copied = copy.deepcopy(data)
            cards = copied["hands"][index]["plays"]
            i, j = rng.sample(range(len(plays)), 2)
            cards[i], cards[j] = cards[j], cards[i]
            yield copied
        copied = copy.deepcopy(data)
        copied["hands"][index]["plays"] = plays[:-1]
        yield copied


def _claim_mutants(data: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for index, hand in enumerate(data["hands"][:4]):
        for key in ("tricks", "points", "scores", "bags"):
            claim = hand.get("result", {}).get(key)
            if claim is None:
                continue
            for position in range(len(claim)):
                for delta in (-1, 1):
                    copied = copy.deepcopy(data)
                    values = copied["hands"][index]["result"][key]
                    values[position] = min(13, max(0, values[position] + delta))
                    yield copied
            copied = copy.deepcopy(data)
            del copied["hands"][index]["result"][key]
            yield copied
    claim = data.get("result")
    if claim is not None:
        copied = copy.deepcopy(data)
        copied["result"]["winner"] = 1 - claim["winner"]
        yield copied
        copied = copy.deepcopy(data)
        copied["result"]["scores"][0] += 1
        yield copied
        copied = copy.deepcopy(data)
        copied["hands"] = copied["hands"][:-1]
        yield copied
        copied = copy.deepcopy(data)
        copied["hands"].append(copy.deepcopy(copied["hands"][-1]))
        yield copied


@pytest.mark.parametrize("base", range(len(BASES)))
@pytest.mark.slow
def test_targeted_mutants(base: int) -> None:
    data = BASES[base]
    rng = random.Random(base)
    mutants = [
        *_exchange_mutants(data, rng),
        *_draft_and_play_mutants(data, rng),
        *_claim_mutants(data),
    ]
    valid = sum(agree_bytes(orjson.dumps(mutant)) for mutant in mutants)
    assert len(mutants) > 40
    assert valid < len(mutants)


# House-rule mutants: the options that shape what is legal, broken or changed.

OPTION_VALUES: dict[str, list[Any]] = {
    "nil_allowed": [True, False],
    "blind_nil_allowed": [True, False],
    "blind_nil_min_deficit": [None, 0, 30, 100, 200],
    "min_team_bid": [0, 2, 4, 9, 13],
    "first_lead": ["left_of_dealer", "two_of_clubs"],
    "spades_must_be_broken": [True, False],
    "double_contract_from": [None, 5, 10],
}


def _house_bases(variant: Variant, seed: int) -> list[dict[str, Any]]:
    """Short games between random players (who bid Nil and Blind Nil often) under random
    house rules."""
    rng = random.Random(seed)
    return [
        orjson.loads(
            dumps(
                simulate_game(
                    variant,
                    seed=rng.randrange(2**32),
                    rules=random_rules(rng),
                    bots=[RandomBot(0.3) for _ in variant.seats],
                    max_hands=6,
                )
            )
        )
        for _ in range(6)
    ]


HOUSE_BASES = [
    *_house_bases(Variant.TWO_PLAYER, 21),
    *_house_bases(Variant.FOUR_PLAYER, 22),
]


def _cut(data: dict[str, Any], index: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """A copy of the game up to hand ``index`` with no claims for that hand or the game, so
    that a change to the hand decides the verdict alone; and that hand."""
    copied = copy.deepcopy(data)
    copied["hands"] = copied["hands"][: index + 1]
    copied.pop("result", None)
    hand = copied["hands"][index]
    hand.pop("result", None)
    return copied, hand


def _rule_mutants(data: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The game relabelled with every other value of each option."""
    for option, values in OPTION_VALUES.items():
        for value in values:
            if data["rules"][option] != value:
                copied = copy.deepcopy(data)
                copied["rules"][option] = value
                yield copied
                copied, _ = _cut(copied, len(copied["hands"]) - 1)
                yield copied


def _bid_mutants(data: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Each bid of the first hands replaced by Nil, Blind Nil (with no exchange) and small
    numbers: Nil where it is not allowed, Blind Nil without the deficit, a short team."""
    for index, hand in enumerate(data["hands"][:4]):
        for seat in range(len(hand["bids"])):
            for bid in (0, "blind_nil", 1, 2, 4):
                if hand["bids"][seat] == bid:
                    continue
                copied, target = _cut(data, index)
                if hand["bids"][seat] == "blind_nil":
                    target.pop("exchanges", None)
                target["bids"][seat] = bid
                yield copied
        if len(hand["bids"]) == 4:
            for team in ((0, 0), (0, 1), (1, 1), (0, "blind_nil")):
                for side in (0, 1):
                    copied, target = _cut(data, index)
                    target.pop("exchanges", None)
                    target["bids"][side], target["bids"][side + 2] = team
                    yield copied


def _first_lead_mutants(data: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The first card of a hand swapped with another of its trick or a later one, and (in a
    four-player hand without exchanges) with a later card of the leader's own."""
    for index, hand in enumerate(data["hands"][:3]):
        plays = hand["plays"]
        for other in (1, 2, 3, 4, 9):
            if other < len(plays):
                copied, target = _cut(data, index)
                target["plays"][0], target["plays"][other] = plays[other], plays[0]
                yield copied
        if "deal" not in hand or "exchanges" in hand or not plays:
            continue
        own = next(cards for cards in hand["deal"] if plays[0] in cards)
        for card in own[:6]:
            if card != plays[0] and card in plays:
                other = plays.index(card)
                copied, target = _cut(data, index)
                target["plays"][0], target["plays"][other] = plays[other], plays[0]
                yield copied


@pytest.mark.parametrize("base", range(len(HOUSE_BASES)))
def test_house_rule_mutants(base: int) -> None:
    data = HOUSE_BASES[base]
    assert agree_bytes(orjson.dumps(data))
    mutants = [*_rule_mutants(data), *_bid_mutants(data), *_first_lead_mutants(data)]
    verdicts = [agree_bytes(orjson.dumps(mutant)) for mutant in mutants]
    assert any(verdicts)
    assert not all(verdicts)


def test_house_rule_mutants_break_every_option() -> None:
    """The house-rule mutants reach every rule code of the options that shape what is
    legal, so the verifier is held equal to the engine on each."""
    codes = set()
    for data in HOUSE_BASES:
        mutants = [*_rule_mutants(data), *_bid_mutants(data), *_first_lead_mutants(data)]
        for mutant in mutants:
            report, _ = check_bytes(orjson.dumps(mutant))
            codes.update(problem.code.value for problem in report.problems)
    for code in (
        "bid.nil-not-allowed",
        "bid.blind-nil-not-allowed",
        "bid.blind-nil-deficit",
        "bid.min-team-bid",
        "play.first-lead",
        "play.spades-not-broken",
    ):
        assert code in codes, code


def rows_by_replay(records: list[models.AnyRecord]) -> TableRows:
    rows = TableRows()
    for game, record in enumerate(records):
        replayed, problems = check(record)
        assert replayed is not None
        assert not problems
        rows.add_replay(replayed, game, "corpus.jsonl", game + 1)
    return rows


def rows_by_verifier(records: list[models.AnyRecord]) -> TableRows:
    sink = RowSink()
    for game, record in enumerate(records):
        _, verified = verify_bytes(dumps(record))
        assert verified is not None
        sink.add(verified, "corpus.jsonl", game + 1)
    assert sink.count == len(records)
    return sink.rows


def test_rows_from_figures_equal_rows_from_replays() -> None:
    records = [
        *SIMULATED[Variant.TWO_PLAYER],
        *SIMULATED[Variant.FOUR_PLAYER],
        *(loads(data) for _, data in FIXTURE_RECORDS if check_bytes(data)[0].valid),
    ]
    fast = rows_by_verifier(records).tables()
    slow = rows_by_replay(records).tables()
    assert fast.games.height == len(records)
    assert fast.seat_hands.equals(slow.seat_hands)
    assert fast.side_hands.equals(slow.side_hands)
    assert fast.games.equals(slow.games)


def test_row_sink_keeps_hands_by_replaying() -> None:
    record = SIMULATED[Variant.FOUR_PLAYER][0]
    sink = RowSink(keep_hands=True)
    _, verified = verify_bytes(dumps(record))
    assert verified is not None
    sink.add(verified, "game.json", None)
    assert sink.hands is not None
    complete = sum(1 for hand in verified.figures.hands if hand.scores is not None)
    assert len(sink.hands.hands) == complete
