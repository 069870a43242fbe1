"""Exhaustive searches that check the double-dummy solver: plain minimax over every legal card,
with only the engine's own rules (``legal_plays``, ``trick_winner``), no pruning; random
endgames to search; and the solver class of the compiled kernel (skipping where numba is
missing)."""

from __future__ import annotations

import functools
import random

import pytest

from spades_replay.analysis.solver import Position, Solver
from spades_replay.engine.cards import cards_of, mask_of, parse_card
from spades_replay.engine.seats import Variant
from spades_replay.engine.tricks import legal_plays, trick_winner


def compiled_solver() -> type[Solver]:
    pytest.importorskip("numba")
    from spades_replay.analysis.compiled import CompiledSolver

    return CompiledSolver


def hand(text: str) -> int:
    """A holding from card names: ``hand("AS KH 2C")``."""
    return mask_of(parse_card(name) for name in text.split())


@functools.cache
def exhaustive_tricks(
    variant: Variant,
    holdings: tuple[int, ...],
    leader: int,
    trick: tuple[int, ...],
    broken: bool,
) -> int:
    """Side 0's tricks from here, both sides playing perfectly: plain minimax."""
    n = variant.seat_count
    seat = (leader + len(trick)) % n
    if not holdings[seat]:
        return 0
    led = trick[0] // 13 if trick else None
    results = []
    for card in cards_of(legal_plays(holdings[seat], led, broken)):
        rest = list(holdings)
        rest[seat] &= ~(1 << card)
        played = (*trick, card)
        now_broken = broken or card >= 39
        if len(played) < n:
            results.append(exhaustive_tricks(variant, tuple(rest), leader, played, now_broken))
        else:
            winner = trick_winner(played, leader, n)
            won = variant.side_of(winner) == 0
            results.append(won + exhaustive_tricks(variant, tuple(rest), winner, (), now_broken))
    return max(results) if variant.side_of(seat) == 0 else min(results)


@functools.cache
def exhaustive_nil(
    variant: Variant,
    nil: int,
    holdings: tuple[int, ...],
    leader: int,
    trick: tuple[int, ...],
    broken: bool,
) -> bool:
    """Whether the side against ``nil`` can force her to win a trick: plain minimax."""
    n = variant.seat_count
    seat = (leader + len(trick)) % n
    if not holdings[seat]:
        return False
    led = trick[0] // 13 if trick else None
    results = []
    for card in cards_of(legal_plays(holdings[seat], led, broken)):
        rest = list(holdings)
        rest[seat] &= ~(1 << card)
        played = (*trick, card)
        now_broken = broken or card >= 39
        if len(played) < n:
            results.append(exhaustive_nil(variant, nil, tuple(rest), leader, played, now_broken))
        else:
            winner = trick_winner(played, leader, n)
            results.append(
                winner == nil or exhaustive_nil(variant, nil, tuple(rest), winner, (), now_broken)
            )
    defending = variant.side_of(seat) != variant.side_of(nil)
    return any(results) if defending else all(results)


def random_endgame(rng: random.Random, variant: Variant, tricks: int) -> Position:
    """``tricks`` tricks left, dealt at random, some of the first trick already played."""
    n = variant.seat_count
    deck = rng.sample(range(52), n * tricks)
    holdings = tuple(mask_of(deck[seat * tricks : (seat + 1) * tricks]) for seat in range(n))
    won = [0] * n
    for _ in range(13 - tricks):
        won[rng.randrange(n)] += 1
    position = Position(
        variant,
        holdings,
        leader=rng.randrange(n),
        spades_broken=rng.random() < 0.5,
        tricks_won=tuple(won),
    )
    for _ in range(rng.randrange(n)):
        position = position.play(rng.choice(cards_of(position.legal_plays())))
    return position


def reference(position: Position) -> int:
    """Side 0's final count by exhaustive search."""
    future = exhaustive_tricks(
        position.variant,
        position.holdings,
        position.leader,
        position.trick,
        position.spades_broken,
    )
    return position.side_tricks[0] + future
