"""Double-dummy analysis: perfect play with every hand known, and what each card cost.

:mod:`.solver` solves any position of either variant: the most tricks each side can take,
and whether a Nil can be forced to take a trick.
"""

from spades_replay.analysis.solver import (
    Position,
    SearchTimeoutError,
    Solution,
    Solver,
    equivalent_cards,
    solve,
)

__all__ = [
    "Position",
    "SearchTimeoutError",
    "Solution",
    "Solver",
    "equivalent_cards",
    "solve",
]
