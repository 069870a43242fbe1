"""The solver on the compiled kernel (:mod:`.kernel`, numba).

:class:`CompiledSolver` answers the same questions as :class:`~.solver.Solver`, through the same
public methods (only the search underneath is compiled), so the two can be compared on any
position. Importing this module needs numba (the optional extra ``fast``).
"""

from __future__ import annotations

import functools
import time

import numpy as np

from spades_replay.analysis import kernel
from spades_replay.analysis.position import SUIT_OF, Position
from spades_replay.analysis.solver import DEADLINE_CHECK, SearchTimeoutError, Solver
from spades_replay.engine.seats import Variant

__all__ = ["CHUNK", "CompiledSolver", "warm_up"]

CHUNK = 20_000
"""Trick-start nodes the kernel searches before the first reading of the clock; each further
chunk of the same search is twice as long."""


@functools.cache
def warm_up() -> float:
    """Load the compiled kernel (compiling it on the first run on a machine, when numba has
    nothing cached yet) by solving two small positions; the seconds it took. Once per
    process: later calls return at once."""
    started = time.monotonic()
    for variant in Variant:
        n = variant.seat_count
        holdings = tuple(0b11 << (2 * seat) for seat in range(n))
        CompiledSolver(variant).tricks(Position(variant, holdings, 0))
        CompiledSolver(variant).nil_forced(Position(variant, holdings, 0), 1)
    return time.monotonic() - started


class CompiledSolver(Solver):
    """:class:`~.solver.Solver` with its search compiled: the same answers, faster."""

    def __init__(self, variant: Variant, *, deadline: float | None = None) -> None:
        super().__init__(variant, deadline=deadline)
        n = variant.seat_count
        self._state = np.zeros(kernel.STATE_SIZE, dtype=np.int64)
        self._state[kernel.SEATS] = n
        self._hand_array = np.zeros(n, dtype=np.int64)
        self._suit_array = np.zeros(4, dtype=np.int64)
        self._side0_array = np.array(self._side0, dtype=np.int64)
        self._buffers = kernel.new_buffers()
        self._compiled_table = kernel.new_table()
        self._read_at = 0

    def clear(self) -> None:
        """Forget every stored result."""
        super().clear()
        self._compiled_table = kernel.new_table()

    def _search(self, position: Position, target: int) -> bool:
        """The kernel's search, in chunks of :data:`CHUNK` nodes with the clock read after
        each (a search cut short stores nothing; the next chunk starts again from the
        position, finding the finished subtrees in the table), and before a search once 256
        nodes were searched since the last reading, as the pure-Python solver reads it."""
        if self.deadline is not None and self.nodes - self._read_at > DEADLINE_CHECK:
            self._read_at = self.nodes
            if time.monotonic() > self.deadline:
                raise SearchTimeoutError
        gone, table, best, best_seat, contested = self._load(position)
        state = self._state
        state[kernel.NIL] = self._nil
        state[kernel.NIL_SEAT] = self._nil_seat
        state[kernel.NIL_PARTNER] = self._nil_partner
        state[kernel.TABLE_ID] = 1 + self._nil_seat if self._nil else 0
        hands = self._hand_array
        suits = self._suit_array
        wants = np.array(self._wants, dtype=np.int64)
        heads, links, bounds = self._compiled_table
        trick = position.trick
        chunk = CHUNK
        while True:
            hands[:] = self._hands
            suits[:] = self._suits
            state[kernel.TIMEOUT] = 0
            state[kernel.BUDGET] = state[kernel.NODES] + chunk
            result = kernel.search(
                state,
                hands,
                suits,
                self._side0_array,
                wants,
                self._buffers,
                heads,
                links,
                bounds,
                position.to_move,
                len(trick),
                SUIT_OF[trick[0]] if trick else -1,
                best,
                best_seat,
                contested,
                position.spades_broken,
                target,
                position.tricks_left,
                table,
                gone,
                0,
            )
            self.nodes = int(state[kernel.NODES])
            if not state[kernel.TIMEOUT]:
                return bool(result)
            if self.deadline is not None and time.monotonic() > self.deadline:
                raise SearchTimeoutError
            chunk *= 2  # each start redoes the unfinished path: growing chunks always finish
