"""The double-dummy solver against plain exhaustive minimax, on thousands of small endgames.

The reference below is as simple as possible: every legal card, every trick, no pruning, only
the engine's own rules (``legal_plays``, ``trick_winner``). The default run checks a few
thousand random endgames of both variants in a few seconds; set ``SPADES_SOLVER_CROSSCHECK``
to a number of endgames per size (e.g. ``SPADES_SOLVER_CROSSCHECK=2000``) for a bigger run,
which also tries larger endgames (five tricks in two-player, four in four-player).

Every check runs on both kernels: the pure-Python solver and the compiled one (numba; skipped
only where numba is not installed).
"""

from __future__ import annotations

import os
import random
import time

import pytest

from spades_replay.analysis.dispatch import solve
from spades_replay.analysis.position import opening
from spades_replay.analysis.solver import Position, SearchTimeoutError, Solver, equivalent_cards
from spades_replay.engine.cards import cards_of, mask_of, names_of, parse_card
from spades_replay.engine.seats import Variant
from spades_replay.engine.tricks import CLUB_TWO, opening_leader

from .support.games import PLAY_OPTIONS, random_rules
from .support.solver import (
    compiled_solver,
    engine_nil,
    engine_opening,
    engine_tricks,
    exhaustive_nil,
    hand,
    random_endgame,
    reference,
)

TWO = Variant.TWO_PLAYER
FOUR = Variant.FOUR_PLAYER
BIG = int(os.environ.get("SPADES_SOLVER_CROSSCHECK", "0"))


@pytest.fixture(params=["python", "compiled"])
def kind(request: pytest.FixtureRequest) -> type[Solver]:
    """The solver class of each kernel."""
    return Solver if request.param == "python" else compiled_solver()


SIZES = [(TWO, 1, 300), (TWO, 2, 600), (TWO, 3, 900), (TWO, 4, 300)]
SIZES += [(FOUR, 1, 300), (FOUR, 2, 600), (FOUR, 3, 150)]
if BIG:
    SIZES = [(variant, tricks, BIG) for variant, tricks, _ in SIZES]
    SIZES += [(TWO, 5, BIG), (FOUR, 4, max(1, BIG // 10))]


@pytest.mark.parametrize(("variant", "tricks", "count"), SIZES)
def test_tricks_agree_with_exhaustive_minimax(
    variant: Variant, tricks: int, count: int, kind: type[Solver]
) -> None:
    rng = random.Random(f"{variant}-{tricks}")
    shared = kind(variant)  # one table for every endgame: stored results must transfer
    for _ in range(count):
        position = random_endgame(rng, variant, tricks)
        expected = reference(position)
        total = sum(position.tricks_won) + position.tricks_left
        assert shared.tricks(position) == (expected, total - expected), position
        assert kind(variant).tricks(position, guess=rng.randrange(14))[0] == expected


@pytest.mark.parametrize(("variant", "tricks", "count"), SIZES[:3] + SIZES[4:6])
def test_card_values_agree_with_exhaustive_minimax(
    variant: Variant, tricks: int, count: int, kind: type[Solver]
) -> None:
    rng = random.Random(f"cards-{variant}-{tricks}")
    solver = kind(variant)
    for _ in range(count // 3):
        position = random_endgame(rng, variant, tricks)
        side = variant.side_of(position.to_move)
        values = solver.card_values(position)
        assert set(values) == set(cards_of(position.legal_plays()))
        for card, value in values.items():
            after = position.play(card)
            side0 = reference(after)
            total = sum(after.tricks_won) + after.tricks_left
            assert value == (side0 if side == 0 else total - side0), (position, card)
            assert solver.at_least(after, side, value)
            assert not solver.at_least(after, side, value + 1)


NIL_SIZES = [(TWO, 2, 300), (TWO, 3, 600), (TWO, 4, 200), (FOUR, 2, 400), (FOUR, 3, 100)]
if BIG:
    NIL_SIZES = [(variant, tricks, BIG) for variant, tricks, _ in NIL_SIZES]


@pytest.mark.parametrize(("variant", "tricks", "count"), NIL_SIZES)
def test_nil_verdicts_agree_with_exhaustive_search(
    variant: Variant, tricks: int, count: int, kind: type[Solver]
) -> None:
    rng = random.Random(f"nil-{variant}-{tricks}")
    solvers = kind(variant)
    verdicts = set()
    for _ in range(count):
        position = random_endgame(rng, variant, tricks)
        nil = rng.randrange(variant.seat_count)
        expected = exhaustive_nil(
            variant,
            nil,
            position.holdings,
            position.leader,
            position.trick,
            position.spades_broken,
        )
        assert solvers.nil_forced(position, nil) == expected, (position, nil)
        verdicts.add(expected)
    assert verdicts == {True, False}


OPENING_SIZES = [(TWO, 2, 200), (TWO, 3, 150), (FOUR, 2, 200), (FOUR, 3, 40)]


@pytest.mark.parametrize(("variant", "tricks", "count"), OPENING_SIZES)
def test_openings_under_every_option_agree_with_the_engines_hands(
    variant: Variant, tricks: int, count: int, kind: type[Solver]
) -> None:
    """The start of a hand's card play (cut to a few tricks, 2C dealt) under house rules
    drawn over every option of format 1.1: the analysis' opening position, searched by the
    solver, against minimax over the engine's own hand states, whose every move (the first
    lead, spades before they are broken) the engine decides."""
    rng = random.Random(f"opening-{variant}-{tricks}")
    n = variant.seat_count
    solver = kind(variant)
    drawn = set()
    for _ in range(count):
        rules = random_rules(rng)
        deck = [CLUB_TWO, *rng.sample(range(1, 52), n * tricks - 1)]
        rng.shuffle(deck)
        holdings = tuple(mask_of(deck[seat * tricks : (seat + 1) * tricks]) for seat in range(n))
        dealer = rng.randrange(n)
        leader = opening_leader(variant, rules, dealer, holdings)
        position = opening(variant, holdings, leader, rules)
        state = engine_opening(variant, rules, dealer, holdings, leader)
        assert solver.tricks(position)[0] == engine_tricks(state), (rules, position)
        nil = rng.randrange(n)
        assert solver.nil_forced(position, nil) == engine_nil(state, nil), (rules, position)
        drawn.add(tuple(getattr(rules, option) for option in PLAY_OPTIONS))
    assert len(drawn) == 4, "every value of every play option was drawn"


def test_four_player_partner_helps_the_nil_bidder(kind: type[Solver]) -> None:
    # Beth (seat 1) bid Nil and holds only the 9C. Alex leads the 2C; David (her partner,
    # seat 3) holds the AC and covers her 9C if Charlie ducks below it.
    position = Position(
        FOUR,
        holdings=(hand("2C"), hand("9C"), hand("3C"), hand("AC")),
        leader=0,
    )
    assert not kind(FOUR).nil_forced(position, 1)
    # without the ace beside her, Charlie plays low and the 9C wins
    alone = Position(FOUR, holdings=(hand("2C"), hand("9C"), hand("3C"), hand("4D")), leader=0)
    assert kind(FOUR).nil_forced(alone, 1)


def test_a_top_spade_always_wins_its_trick(kind: type[Solver]) -> None:
    # Drew bid Nil with the ace of spades: it wins whenever she plays it
    position = Position(TWO, holdings=(hand("KS 2H 3H"), hand("AS 4H 5H")), leader=0)
    assert kind(TWO).nil_forced(position, 1)
    # and her hearts are higher: she takes every trick
    assert kind(TWO).tricks(position) == (0, 3)
    # without the ace she ducks both hearts and Megan's KS wins the last trick
    ducking = Position(TWO, holdings=(hand("KS 6H 7H"), hand("QS 4H 5H")), leader=0)
    assert not kind(TWO).nil_forced(ducking, 1)


def test_spades_cannot_be_led_until_broken(kind: type[Solver]) -> None:
    # Megan must lead her KD, which Drew ruffs; once spades are broken she draws his trump
    holdings = (hand("KD TS"), hand("2C 5S"))
    assert kind(TWO).tricks(Position(TWO, holdings, leader=0)) == (1, 1)
    broken = Position(TWO, holdings, leader=0, spades_broken=True)
    assert kind(TWO).tricks(broken) == (2, 0)


def test_mid_trick_and_tricks_won_so_far(kind: type[Solver]) -> None:
    # Alex led the KH; Beth, Charlie and David still to play; 9 tricks already won
    position = Position(
        FOUR,
        holdings=(hand("2C"), hand("AH 3C"), hand("4H 5C"), hand("2S 6C")),
        leader=0,
        trick=(parse_card("KH"),),
        tricks_won=(3, 2, 2, 2),
    )
    assert position.to_move == 1
    assert position.tricks_left == 2
    assert kind(FOUR).tricks(position) == (5, 6)


def test_equivalent_cards_are_adjacent_among_the_unplayed() -> None:
    # Megan holds 9H, JH and 2H; the TH is gone, so 9H and JH are equivalent; Drew's 5H
    # separates the 2H from them
    position = Position(TWO, holdings=(hand("9H JH 2H"), hand("5H AD QD")), leader=0)
    assert names_of(equivalent_cards(position, parse_card("9H"))) == "9H JH"
    assert names_of(equivalent_cards(position, parse_card("2H"))) == "2H"
    # a card on the table is still in play: with the TH led, 9H and JH differ
    led = Position(TWO, holdings=(hand("TH AD"), hand("9H JH")), leader=0).play(parse_card("TH"))
    assert names_of(equivalent_cards(led, parse_card("9H"))) == "9H"
    with pytest.raises(ValueError, match="does not hold"):
        equivalent_cards(led, parse_card("2C"))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"holdings": (hand("AS"),)}, "needs 2 holdings"),
        ({"holdings": (hand("AS"), hand("AS"))}, "AS held by two seats"),
        ({"holdings": (hand("AS"), hand("KS 2C"))}, "seat 1 holds 2 card"),
        ({"leader": 2}, "no seat 2"),
        ({"trick": (parse_card("QS"),)}, "spades are broken"),
        ({"trick": (parse_card("AS"),), "spades_broken": True}, "not a free card"),
        ({"tricks_won": (13, 0)}, "more than 13 tricks"),
        ({"tricks_won": (1,)}, "tricks_won needs 2"),
        ({"holdings": (1 << 60, hand("KS"))}, "not a set of cards"),
    ],
)
def test_impossible_positions_are_refused(kwargs: dict[str, object], message: str) -> None:
    arguments: dict[str, object] = {
        "variant": TWO,
        "holdings": (hand("AS"), hand("KS")),
        "leader": 0,
    }
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=message):
        Position(**arguments)  # type: ignore[arg-type]


def test_illegal_plays_and_wrong_variants_are_refused(kind: type[Solver]) -> None:
    position = Position(TWO, holdings=(hand("AS 2H"), hand("KS 3H")), leader=0)
    with pytest.raises(ValueError, match="may not play AS"):
        position.play(parse_card("AS"))
    with pytest.raises(ValueError, match="may not play 99"):
        position.play(99)
    with pytest.raises(ValueError, match="two-player solver cannot search a four-player"):
        kind(TWO).tricks(Position(FOUR, (hand("AS"), hand("KS"), hand("QS"), hand("JS")), 0))
    with pytest.raises(ValueError, match="no seat 5"):
        kind(TWO).nil_forced(position, 5)


def test_a_deadline_stops_either_kernel_with_sound_bounds(
    kind: type[Solver], monkeypatch: pytest.MonkeyPatch
) -> None:
    if kind is not Solver:
        # the compiled kernel reads the clock between chunks of nodes: make them tiny
        monkeypatch.setattr("spades_replay.analysis.compiled.CHUNK", 1)
    position = random_endgame(random.Random(11), FOUR, 8)
    solver = kind(FOUR, deadline=time.monotonic())
    proved = [0, 13]
    with pytest.raises(SearchTimeoutError):
        solver.side0_tricks(position, proved=proved)
    exact = Solver(FOUR).side0_tricks(position)
    assert proved[0] <= exact <= proved[1]
    # what was stored before the deadline is sound: the same solver, given time, agrees
    solver.deadline = None
    assert solver.side0_tricks(position) == exact


def test_a_time_cap_is_reported_with_the_bounds_proved() -> None:
    rng = random.Random(11)
    position = random_endgame(rng, FOUR, 13)
    capped = solve(position, time_cap=0.0)
    assert capped.capped
    assert capped.tricks is None
    low, high = capped.side0_bounds
    assert 0 <= low <= high <= 13
    assert capped.to_dict()["capped"] is True
    small = random_endgame(rng, TWO, 4)
    exact = solve(small)
    assert not exact.capped
    assert exact.tricks is not None
    assert exact.side0_bounds == (exact.tricks[0], exact.tricks[0])
    assert exact.tricks[0] == reference(small)
