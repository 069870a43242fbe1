"""Worker processes that stop cleanly: ``ordered_map`` over a pool.

Ctrl-C reaches every process of the group. The worker processes (and the fork server they
come from) are started with SIGINT ignored, so they never print a traceback; the main process
alone takes the interrupt, terminates the workers and lets ``KeyboardInterrupt`` rise, so a
command can clean up (atomic writes remove their temporary files) and exit 130.

Where ``jobs`` is taken, an :class:`Executor` may stand instead of a number of processes: a
Dask cluster (:mod:`spades_replay.plumbing.cluster`) keeps the same contract, so the callers do not
know which of the two runs their work.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from itertools import islice
from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from multiprocessing.pool import AsyncResult

ProgressCallback = Callable[[int, int], None]
"""Called with (work done, work in all) as work completes, in the units the caller names
(bytes, hands, games): every long run reports its progress through one."""

Item = TypeVar("Item")
Result = TypeVar("Result")


class Executor(Protocol):
    """Runs work somewhere else (a cluster) with the contract of :func:`ordered_map`:
    results in input order, workers that stop when the generator is closed."""

    def ordered_map(
        self, function: Callable[[Item], Result], items: Iterable[Item], *, chunksize: int = 1
    ) -> Generator[Result, None, None]:
        """``map(function, items)`` on the executor's workers, results in input order."""
        ...


Jobs = int | Executor
"""Where work runs: a number of local worker processes (0: one per core), or an executor."""


def workers(jobs: Jobs, items: int | None = None) -> Jobs:
    """The worker processes ``jobs`` asks for (0: one per core), no more than ``items``
    (at least 1) when given; an executor as it is."""
    if not isinstance(jobs, int):
        return jobs
    count = jobs if jobs > 0 else os.cpu_count() or 1
    return count if items is None else min(count, max(items, 1))


AHEAD_PER_WORKER = 2
"""How many batches of work :func:`ordered_map` keeps in flight per worker process: enough
to keep every worker busy, few enough that memory is bounded by the work in flight."""


def _run_batch(function: Callable[[Item], Result], batch: Sequence[Item]) -> list[Result]:
    return [function(item) for item in batch]


def _quiet_worker() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def sigint_shielded() -> Iterator[None]:
    """Processes started inside inherit SIGINT ignored, so that none of them prints a
    traceback on Ctrl-C. Here SIGINT is also blocked meanwhile: Linux keeps a blocked signal
    pending even while it is ignored, and it is raised here as soon as the handler and the
    mask are back, so no Ctrl-C is lost. A SIGTERM is held back likewise, so that the
    command's handler sees it once the processes exist and can be stopped."""
    # (multiprocessing unblocks SIGINT once when it first starts its resource tracker,
    # which would drop the pending signal: start the tracker before blocking)
    import threading  # as multiprocessing does: a command on one core imports neither
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    main = threading.current_thread() is threading.main_thread()
    handler = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    # a SIGTERM meanwhile is held back too (not blocked: the processes started would inherit
    # the mask, and a pool stops its workers with SIGTERM), then delivered once they exist
    terms: list[int] = []
    term = signal.signal(signal.SIGTERM, lambda signum, _: terms.append(signum)) if main else None
    try:
        yield
    finally:
        if handler is not None:
            signal.signal(signal.SIGINT, handler)
        if term is not None:
            signal.signal(signal.SIGTERM, term)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        if terms:
            signal.raise_signal(signal.SIGTERM)


def ordered_map(
    function: Callable[[Item], Result],
    items: Iterable[Item],
    jobs: Jobs,
    *,
    preload: Sequence[str] = (),
    chunksize: int = 1,
) -> Generator[Result, None, None]:
    """``map(function, items)`` on ``jobs`` worker processes, results in input order.

    With ``jobs`` 1 nothing is started. Workers come from a fork server (a clean process,
    whatever threads the caller runs) that imports ``preload`` once. An :class:`Executor`
    given as ``jobs`` runs the work instead (in batches of ``chunksize`` items).

    ``items`` is read as work is handed out, here in the calling thread, and at most
    :data:`AHEAD_PER_WORKER` batches of ``chunksize`` per worker are handed out and not yet
    taken by the caller: a lazy ``items`` and a slow caller never make work pile up.
    """
    if not isinstance(jobs, int):
        yield from jobs.ordered_map(function, items, chunksize=chunksize)
        return
    if jobs == 1:
        yield from map(function, items)
        return
    import multiprocessing  # only here: a command on one core never starts a process

    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(preload))
    pool = None
    try:
        # the fork server, then the workers it forks, never see Ctrl-C
        with sigint_shielded():
            pool = context.Pool(jobs, initializer=_quiet_worker)
        iterator = iter(items)
        batches = iter(lambda: list(islice(iterator, max(chunksize, 1))), [])
        pending: deque[AsyncResult[list[Result]]] = deque()
        for batch in islice(batches, jobs * AHEAD_PER_WORKER):
            pending.append(pool.apply_async(_run_batch, (function, batch)))
        while pending:
            results = pending.popleft().get()
            for batch in islice(batches, 1):
                pending.append(pool.apply_async(_run_batch, (function, batch)))
            yield from results
        pool.close()
    except BaseException:
        if pool is not None:
            pool.terminate()
        raise
    finally:
        if pool is not None:
            pool.join()
