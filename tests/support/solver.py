"""Exhaustive searches that check the double-dummy solver: plain minimax over every legal card,
with only the engine's own rules (``legal_plays``, ``trick_winner``), no pruning, and the same
over the engine's own hand states (its ``legal_plays`` and ``apply``, so every play option of
the rules); random endgames to search; and the solver class of the compiled kernel (skipping
where numba is missing)."""

from __future__ import annotations

import functools
import random

import pytest

from spades_replay.analysis.solver import Position, Solver
from spades_replay.engine import state as engine
from spades_replay.engine.actions import PlayCard
from spades_replay.engine.cards import cards_of, mask_of, parse_card
from spades_replay.engine.rules import Rules
from spades_replay.engine.seats import Seat, Variant
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


def engine_opening(
    variant: Variant, rules: Rules, dealer: Seat, holdings: tuple[int, ...], leader: Seat
) -> engine.HandState:
    """The engine's state of a hand whose card play starts now, under ``rules``, with
    ``holdings`` (of any equal size) and ``leader`` to lead the first trick."""
    n = variant.seat_count
    return engine.HandState(
        variant, rules, dealer, engine.Phase.PLAY, leader, holdings, (1,) * n, leader, (0,) * n
    )


def _winner(before: engine.HandState, after: engine.HandState) -> Seat | None:
    """Who won the trick the last card completed, if it completed one."""
    return after.tricks[-1].winner if len(after.tricks) > len(before.tricks) else None


@functools.cache
def engine_tricks(state: engine.HandState) -> int:
    """Side 0's tricks from ``state`` on, both sides playing perfectly, every move taken from
    the engine's hand states (``legal_plays`` and ``apply``): plain minimax."""
    legal = engine.legal_plays(state)
    if not legal or state.turn is None:
        return 0
    results = []
    for card in cards_of(legal):
        after = engine.apply(state, PlayCard(state.turn, card))
        winner = _winner(state, after)
        won = winner is not None and state.variant.side_of(winner) == 0
        results.append(won + engine_tricks(after))
    return max(results) if state.variant.side_of(state.turn) == 0 else min(results)


@functools.cache
def engine_nil(state: engine.HandState, nil: Seat) -> bool:
    """Whether the side against ``nil`` can force her to win a trick from ``state`` on, every
    move taken from the engine's hand states: plain minimax."""
    legal = engine.legal_plays(state)
    if not legal or state.turn is None:
        return False
    results = []
    for card in cards_of(legal):
        after = engine.apply(state, PlayCard(state.turn, card))
        results.append(_winner(state, after) == nil or engine_nil(after, nil))
    defending = state.variant.side_of(state.turn) != state.variant.side_of(nil)
    return any(results) if defending else all(results)
