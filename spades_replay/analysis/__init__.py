"""Double-dummy analysis: perfect play with every hand known, and what each card cost.

:mod:`.solver` solves any position of either variant (the most tricks each side can take,
whether a Nil can be forced to take a trick), over :mod:`.position` (positions and equivalent
cards), :mod:`.ordering` (move ordering) and :mod:`.table` (the transposition table);
:mod:`.play` judges every card of a replayed hand against it. Results are plain frozen
dataclasses with ``to_dict()``.

    from spades_replay.analysis import analyze_replay
    for hand in analyze_replay(spades_replay.replay(record), time_cap=60):
        print(hand.number, hand.par, hand.made, hand.tricks_lost)
"""

from spades_replay.analysis.dispatch import (
    KERNEL_VARIABLE,
    kernel_name,
    new_solver,
    prepare_kernel,
    solve,
)
from spades_replay.analysis.play import (
    HandAnalysis,
    NilAnalysis,
    NilSwing,
    PlayAnalysis,
    analyze_hand,
    analyze_hands,
    analyze_replay,
    position_before,
)
from spades_replay.analysis.position import Position, equivalent_cards
from spades_replay.analysis.solver import SearchTimeoutError, Solution, Solver

__all__ = [
    "KERNEL_VARIABLE",
    "HandAnalysis",
    "NilAnalysis",
    "NilSwing",
    "PlayAnalysis",
    "Position",
    "SearchTimeoutError",
    "Solution",
    "Solver",
    "analyze_hand",
    "analyze_hands",
    "analyze_replay",
    "equivalent_cards",
    "kernel_name",
    "new_solver",
    "position_before",
    "prepare_kernel",
    "solve",
]
