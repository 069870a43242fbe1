"""The compiled kernel against the pure-Python reference, the kernel choice, and the play
options of the rules (spades need not be broken; the two of clubs opens the hand).

The exhaustive cross-check (tests/test_solver.py) covers small endgames on both kernels; here
the two kernels are compared with each other on larger random positions, where exhaustive
search would be too slow: trick counts, Nil verdicts and every card's value, each kernel with
one solver shared across all the positions of a size (stored results must transfer).
"""

from __future__ import annotations

import random

import pytest

from spades_replay.analysis import KERNEL_VARIABLE, kernel_name, new_solver
from spades_replay.analysis.position import Position, opening
from spades_replay.analysis.solver import Solver
from spades_replay.engine.cards import mask_of
from spades_replay.engine.rules import TWO_OF_CLUBS, Rules
from spades_replay.engine.seats import Variant
from spades_replay.engine.tricks import CLUB_TWO

from .support.solver import compiled_solver, exhaustive_nil, random_endgame, reference

TWO = Variant.TWO_PLAYER
FOUR = Variant.FOUR_PLAYER


def _random_rules(rng: random.Random, position: Position) -> Position:
    """The position with random play options: spades broken from the start (rules where
    they need not be) and, when the leader holds the two of clubs at a trick start, that
    card forced (the opening lead under "two_of_clubs")."""
    if position.trick:
        return position
    forced = (
        CLUB_TWO
        if rng.random() < 0.5 and position.holdings[position.leader] >> CLUB_TWO & 1
        else None
    )
    return Position(
        position.variant,
        position.holdings,
        position.leader,
        (),
        position.spades_broken or rng.random() < 0.3,
        position.tricks_won,
        forced,
    )


@pytest.mark.parametrize(
    ("variant", "tricks", "count"),
    [(TWO, 5, 1000), (TWO, 7, 300), (FOUR, 4, 800), (FOUR, 5, 300), (FOUR, 6, 80)],
)
def test_the_kernels_agree_on_random_positions(variant: Variant, tricks: int, count: int) -> None:
    rng = random.Random(f"kernels-{variant}-{tricks}")
    python, compiled = Solver(variant), compiled_solver()(variant)
    for _ in range(count):
        position = _random_rules(rng, random_endgame(rng, variant, tricks))
        assert compiled.tricks(position) == python.tricks(position), position
        nil = rng.randrange(variant.seat_count)
        assert compiled.nil_forced(position, nil) == python.nil_forced(position, nil), position
    for _ in range(count // 10):
        position = _random_rules(rng, random_endgame(rng, variant, tricks))
        assert compiled.card_values(position) == python.card_values(position), position


@pytest.mark.parametrize("kind", ["python", "compiled"])
@pytest.mark.parametrize(("variant", "tricks"), [(TWO, 3), (FOUR, 2), (FOUR, 3)])
def test_a_forced_two_of_clubs_is_the_only_play(variant: Variant, tricks: int, kind: str) -> None:
    solver = (Solver if kind == "python" else compiled_solver())(variant)
    rng = random.Random(f"forced-{variant}-{tricks}")
    checked = 0
    while checked < 60:
        position = random_endgame(rng, variant, tricks)
        if position.trick or not position.holdings[position.leader] & 1:
            continue
        forced = Position(
            variant, position.holdings, position.leader, (), position.spades_broken,
            position.tricks_won, CLUB_TWO,
        )  # fmt: skip
        after = position.play(CLUB_TWO)
        assert forced.legal_plays() == 1 << CLUB_TWO
        assert solver.tricks(forced)[0] == reference(after)
        assert list(solver.card_values(forced)) == [CLUB_TWO]
        nil = rng.randrange(variant.seat_count)
        expected = exhaustive_nil(
            variant, nil, after.holdings, after.leader, after.trick, after.spades_broken
        )
        assert solver.nil_forced(forced, nil) == expected
        checked += 1


def test_the_opening_follows_the_play_options() -> None:
    holdings = tuple(mask_of(range(seat * 13, seat * 13 + 13)) for seat in range(4))
    plain = opening(FOUR, holdings, 3)
    assert not plain.spades_broken
    assert plain.forced is None
    # seat 3 holds only spades: with spades free she may lead one at once, as she may anyway
    rules = Rules(spades_must_be_broken=False, first_lead=TWO_OF_CLUBS)
    free = opening(FOUR, holdings, 0, rules)
    assert free.spades_broken
    assert free.forced == CLUB_TWO
    assert free.legal_plays() == 1
    with pytest.raises(ValueError, match="may not play 3C"):
        free.play(1)
    # the engine's leader under "two_of_clubs" holds it: any other opening is impossible
    with pytest.raises(ValueError, match="cannot be made to play"):
        opening(FOUR, holdings, 1, rules)
    # the option is four-player only: a two-player leader holding 2C may lead anything
    two = (mask_of(range(13)), mask_of(range(13, 26)))
    free_two = opening(TWO, two, 0, rules)
    assert free_two.forced is None
    assert free_two.legal_plays() == two[0]


def test_spades_need_not_be_broken_when_the_rules_say_so() -> None:
    # Megan leads: with spades unbroken she must lead her KD into Drew's ruff
    holdings = (mask_of([11 + 13, 8 + 39]), mask_of([0, 3 + 39]))
    assert Solver(TWO).tricks(opening(TWO, holdings, 0)) == (1, 1)
    free = opening(TWO, holdings, 0, Rules(spades_must_be_broken=False))
    assert Solver(TWO).tricks(free) == (2, 0)


def test_the_kernel_is_chosen_in_one_place(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KERNEL_VARIABLE, "python")
    assert kernel_name() == "python"
    assert type(new_solver(FOUR)) is Solver
    monkeypatch.delenv(KERNEL_VARIABLE)
    compiled = compiled_solver()
    assert kernel_name() == "compiled"
    assert type(new_solver(TWO)) is compiled
