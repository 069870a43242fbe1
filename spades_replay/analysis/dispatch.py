"""The solver on the best kernel available: the compiled one (:mod:`.compiled`, numba) when it
is installed and not refused, else the pure-Python reference (:mod:`.solver`); and
:func:`solve`, one position on that kernel. Both kernels give the same answers (the compiled
one is tested against the reference).

This module sits above both kernels, so that neither imports the other's chooser.
"""

from __future__ import annotations

import functools
import os
import time

from spades_replay.analysis.position import Position
from spades_replay.analysis.solver import SearchTimeoutError, Solution, Solver
from spades_replay.engine.seats import Variant

__all__ = ["KERNEL_VARIABLE", "kernel_name", "new_solver", "prepare_kernel", "solve"]

KERNEL_VARIABLE = "SPADES_SOLVER_KERNEL"
"""Set to ``python`` to force the pure-Python solver even when the compiled one is there."""


@functools.cache
def _compiled_class() -> type[Solver] | None:
    """The compiled solver's class, or ``None`` when numba is not installed."""
    try:
        from spades_replay.analysis.compiled import CompiledSolver
    except ImportError:
        return None
    return CompiledSolver


def kernel_name() -> str:
    """The kernel :func:`new_solver` uses: ``"compiled"`` (numba) or ``"python"``."""
    if os.environ.get(KERNEL_VARIABLE, "").strip().lower() == "python":
        return "python"
    return "python" if _compiled_class() is None else "compiled"


def new_solver(variant: Variant, *, deadline: float | None = None) -> Solver:
    """A solver on the best kernel available: the compiled one when numba is installed and
    :data:`KERNEL_VARIABLE` does not say ``python``, else the pure-Python reference. Both
    give the same answers (the compiled one is tested against the reference).

    The first compiled solver of a process loads the compiled code first (see
    :func:`prepare_kernel`), so set ``deadline`` from the clock after this call."""
    if kernel_name() == "python":
        return Solver(variant, deadline=deadline)
    prepare_kernel()
    compiled = _compiled_class()
    assert compiled is not None
    return compiled(variant, deadline=deadline)


def prepare_kernel() -> float:
    """Load the compiled kernel if :func:`new_solver` will use it: from numba's disk cache
    (a second or two), or by compiling it on the first run on a machine (tens of seconds).
    Once per process; the seconds it took (0 with the pure-Python kernel or once done)."""
    if kernel_name() == "python":
        return 0.0
    from spades_replay.analysis.compiled import warm_up

    return warm_up()


def solve(position: Position, *, time_cap: float | None = None) -> Solution:
    """The most tricks each side can take from ``position``, within ``time_cap`` seconds if
    given (the result then says whether it was capped, with the bounds proved so far)."""
    solver = new_solver(position.variant)
    started = time.monotonic()
    solver.deadline = None if time_cap is None else started + time_cap
    proved = [0, 0]
    try:
        low = solver.side0_tricks(position, proved=proved)
    except SearchTimeoutError:
        return Solution(
            None, (proved[0], proved[1]), True, solver.nodes, time.monotonic() - started
        )
    total = sum(position.tricks_won) + position.tricks_left
    return Solution((low, total - low), (low, low), False, solver.nodes, time.monotonic() - started)
