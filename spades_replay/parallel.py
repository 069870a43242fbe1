"""Worker processes that stop cleanly: ``ordered_map`` over a pool.

Ctrl-C reaches every process of the group. The worker processes (and the fork server they
come from) are started with SIGINT ignored, so they never print a traceback; the main process
alone takes the interrupt, terminates the workers and lets ``KeyboardInterrupt`` rise, so a
command can clean up (atomic writes remove their temporary files) and exit 130.
"""

from __future__ import annotations

import multiprocessing
import signal
import threading
from collections.abc import Callable, Generator, Iterable, Sequence
from multiprocessing import resource_tracker
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


def _quiet_worker() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def ordered_map(
    function: Callable[[Item], Result],
    items: Iterable[Item],
    jobs: int,
    *,
    preload: Sequence[str] = (),
    chunksize: int = 1,
) -> Generator[Result, None, None]:
    """``map(function, items)`` on ``jobs`` worker processes, results in input order.

    With ``jobs`` 1 nothing is started. Workers come from a fork server (a clean process,
    whatever threads the caller runs) that imports ``preload`` once.
    """
    if jobs == 1:
        yield from map(function, items)
        return
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(preload))
    pool = None
    try:
        # The new processes (the fork server, then the workers it forks) inherit SIGINT
        # ignored, so none of them prints a traceback. Here SIGINT is also blocked meanwhile:
        # Linux keeps a blocked signal pending even while it is ignored, and it is raised
        # here as soon as the handler and the mask are back, so no Ctrl-C is lost.
        # (multiprocessing unblocks SIGINT once when it first starts its resource tracker,
        # which would drop the pending signal: start the tracker before blocking)
        resource_tracker.ensure_running()
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        main = threading.current_thread() is threading.main_thread()
        handler = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
        try:
            pool = context.Pool(jobs, initializer=_quiet_worker)
        finally:
            if handler is not None:
                signal.signal(signal.SIGINT, handler)
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        yield from pool.imap(function, items, chunksize)
        pool.close()
    except BaseException:
        if pool is not None:
            pool.terminate()
        raise
    finally:
        if pool is not None:
            pool.join()
