"""Worker processes that stop cleanly: ``ordered_map`` over a pool.

Ctrl-C reaches every process of the group. The worker processes (and the fork server they
come from) are started with SIGINT ignored, so they never print a traceback; the main process
alone takes the interrupt, stops the workers and lets ``KeyboardInterrupt`` rise, so a
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
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING, Any, Generic, NoReturn, Protocol, TypeVar, cast

if TYPE_CHECKING:
    import queue
    from multiprocessing.connection import Connection
    from multiprocessing.context import ForkServerContext
    from multiprocessing.process import BaseProcess

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
    # the mask, and workers are stopped with SIGTERM), then delivered once they exist
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
    started: list[_Worker[Item, Result]] = []
    try:
        # the fork server, then the workers it forks, never see Ctrl-C
        with sigint_shielded():
            for _ in range(jobs):
                started.append(_Worker(context, function))
        iterator = iter(items)
        batches = iter(lambda: list(islice(iterator, max(chunksize, 1))), [])
        # each worker works through its batches in order: the results are taken back from
        # the workers in the order their batches were handed out
        pending: deque[_Worker[Item, Result]] = deque()
        for batch in islice(batches, jobs * AHEAD_PER_WORKER):
            pending.append(_hand_out(started, batch))
        while pending:
            results = pending.popleft().receive()
            for batch in islice(batches, 1):
                pending.append(_hand_out(started, batch))
            yield from results
        for worker in started:
            worker.finish()
    except BaseException:
        for worker in started:
            worker.stop()
        raise
    finally:
        for worker in started:
            worker.join()


def _hand_out(workers: list[_Worker[Item, Result]], batch: list[Item]) -> _Worker[Item, Result]:
    """Hand ``batch`` to the worker with the fewest batches not done (the first of them), so
    that a worker given heavy batches is not given more while another waits."""
    worker = min(workers, key=lambda each: each.unfinished())
    worker.send(batch)
    return worker


class WorkerLostError(RuntimeError):
    """A worker process ended before its work was done: killed (by the kernel for want of
    memory, or by a person), or crashed. The message gives its exit code."""


def _serve(function: Callable[[Item], Result], tasks: Connection, results: Connection) -> None:
    """A worker process: ``function`` over each batch that comes through ``tasks``, each
    batch's results sent back through ``results`` in order, until ``tasks`` is closed.

    A thread takes the batches in as they come, so that handing out work never waits for
    the batch a worker is busy with."""
    import queue
    import threading

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    inbox: queue.SimpleQueue[list[Item] | _Unreadable | None] = queue.SimpleQueue()
    threading.Thread(target=_take_in, args=(tasks, inbox), daemon=True).start()
    while (batch := inbox.get()) is not None:
        try:
            if isinstance(batch, _Unreadable):
                batch.raised()
            outcome: tuple[bool, object] = (True, [function(item) for item in batch])
        except Exception as error:  # raised again in the main process, as map() would
            outcome = (False, error)
        try:
            results.send(outcome)
        except OSError:  # the command has ended (killed): nobody reads the results
            return
        except Exception as error:  # what cannot be pickled
            what = "results" if outcome[0] else repr(outcome[1])
            results.send((False, RuntimeError(f"a worker process cannot send its {what}: {error}")))


@dataclass(frozen=True)
class _Unreadable:
    """What came through a pipe but cannot be unpickled here (an exception whose class
    takes other arguments than it passes on, say)."""

    error: Exception

    def raised(self) -> NoReturn:
        """Raise the error, saying where it came from."""
        raise RuntimeError(f"what came from another process cannot be read: {self.error!r}")


def _take_in(source: Connection, inbox: queue.SimpleQueue[Any]) -> None:
    """Put what comes through ``source`` into ``inbox`` as it comes (an :class:`_Unreadable`
    for what cannot be unpickled); ``None`` at its end (also the end of a writer stopped in
    the middle of a message)."""
    while True:
        try:
            message = source.recv()
        except (EOFError, OSError):
            inbox.put(None)
            return
        except Exception as error:  # the message was read whole: the next one follows
            message = _Unreadable(error)
        inbox.put(message)


class _Worker(Generic[Item, Result]):
    """One worker process of :func:`ordered_map`, its two pipes, and a thread that reads its
    results as they come (so that the worker goes on with its next batch while the caller is
    busy). No lock is shared with another process, so a worker can be stopped at any moment,
    whatever it was doing. (``multiprocessing.Pool`` shares one queue of results among its
    workers: stopped while one of them writes a large result, its ``terminate`` can wait
    forever.)"""

    def __init__(self, context: ForkServerContext, function: Callable[[Item], Result]) -> None:
        import queue
        import threading

        task_out, task_in = context.Pipe(duplex=False)
        result_out, result_in = context.Pipe(duplex=False)
        self._process = context.Process(
            target=_serve, args=(function, task_out, result_in), daemon=True
        )
        self._tasks = task_in
        self._results = result_out
        self._handed = 0
        self._taken = 0
        try:
            self._process.start()
        finally:
            task_out.close()
            result_in.close()
        self._outcomes: queue.SimpleQueue[tuple[bool, object] | _Unreadable | None] = (
            queue.SimpleQueue()
        )
        self._reader = threading.Thread(
            target=_take_in, args=(result_out, self._outcomes), daemon=True
        )
        self._reader.start()

    def send(self, batch: list[Item]) -> None:
        """Hand the worker a batch (:class:`WorkerLostError` when it has ended)."""
        try:
            self._tasks.send(batch)
        except OSError:  # its end of the pipe closed with it (not standard output's EPIPE)
            raise self._lost() from None
        self._handed += 1

    def unfinished(self) -> int:
        """How many of the batches handed to the worker it has not done yet."""
        return self._handed - self._taken - self._outcomes.qsize()

    def receive(self) -> list[Result]:
        """The results of the worker's oldest batch not yet received; its error raised
        again, or :class:`WorkerLostError` when the worker ended first."""
        outcome = self._outcomes.get()
        self._taken += 1
        if outcome is None:
            raise self._lost()
        if isinstance(outcome, _Unreadable):
            outcome.raised()
        done, value = outcome
        if not done:
            raise cast(BaseException, value)
        return cast("list[Result]", value)

    def _lost(self) -> WorkerLostError:
        self._process.join()
        return WorkerLostError(
            f"a worker process ended before its work was done ({_ending(self._process)})"
        )

    def finish(self) -> None:
        """No more batches: the worker ends once it has sent its last results."""
        self._tasks.close()

    def stop(self) -> None:
        """End the worker now."""
        if self._process.exitcode is None:
            self._process.terminate()

    def join(self) -> None:
        """Wait for the worker's end (its results are then all read), and close its pipes."""
        self._process.join()
        self._reader.join()
        self._tasks.close()
        self._results.close()


def _ending(process: BaseProcess) -> str:
    code = process.exitcode
    if code == -signal.SIGKILL:
        return "stopped by SIGKILL, as the kernel stops a process for want of memory"
    if code is not None and code < 0:
        return f"stopped by {signal.Signals(-code).name}"
    return f"exit code {code}"
