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
from spades_replay.analysis.position import TWO_OF_CLUBS, Position, opening
from spades_replay.analysis.solver import Solver
from spades_replay.engine.cards import mask_of
from spades_replay.engine.seats import Variant

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
        TWO_OF_CLUBS
        if rng.random() < 0.5 and position.holdings[position.leader] >> TWO_OF_CLUBS & 1
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
            position.tricks_won, TWO_OF_CLUBS,
        )  # fmt: skip
        after = position.play(TWO_OF_CLUBS)
        assert forced.legal_plays() == 1 << TWO_OF_CLUBS
        assert solver.tricks(forced)[0] == reference(after)
        assert list(solver.card_values(forced)) == [TWO_OF_CLUBS]
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
    free = opening(FOUR, holdings, 0, spades_must_be_broken=False, two_of_clubs_leads=True)
    assert free.spades_broken
    assert free.forced == TWO_OF_CLUBS
    assert free.legal_plays() == 1
    with pytest.raises(ValueError, match="may not play 3C"):
        free.play(1)
    # a leader without the two of clubs is not forced to anything
    assert opening(FOUR, holdings, 1, two_of_clubs_leads=True).forced is None
    with pytest.raises(ValueError, match="cannot be made to play"):
        Position(FOUR, holdings, 1, forced=TWO_OF_CLUBS)


def test_spades_need_not_be_broken_when_the_rules_say_so() -> None:
    # Megan leads: with spades unbroken she must lead her KD into Drew's ruff
    holdings = (mask_of([11 + 13, 8 + 39]), mask_of([0, 3 + 39]))
    assert Solver(TWO).tricks(opening(TWO, holdings, 0)) == (1, 1)
    assert Solver(TWO).tricks(opening(TWO, holdings, 0, spades_must_be_broken=False)) == (2, 0)


def test_the_kernel_is_chosen_in_one_place(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KERNEL_VARIABLE, "python")
    assert kernel_name() == "python"
    assert type(new_solver(FOUR)) is Solver
    monkeypatch.delenv(KERNEL_VARIABLE)
    compiled = compiled_solver()
    assert kernel_name() == "compiled"
    assert type(new_solver(TWO)) is compiled
