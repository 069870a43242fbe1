"""Work on a Dask cluster (``dask.distributed``), with the contract of
:func:`spades_replay.plumbing.parallel.ordered_map`: results in input order, whatever finishes
first;
the work cancelled when the caller stops (Ctrl-C included), so nothing is left running.

:func:`open_cluster` connects to a running scheduler (``tcp://host:8786``) or starts a
``LocalCluster`` of worker processes for the run (``local``, ``local:N``). The cluster is an
:class:`~spades_replay.plumbing.parallel.Executor`: pass it where a function takes ``jobs``.

Dask is an optional dependency (``pip install 'spades-replay[cluster]'``): it is imported
here only when a cluster is opened, so the ``--jobs`` paths never load it. What is sent to the
workers is small (a :class:`~spades_replay.plumbing.corpus.Task` names a file and a byte range, and
the workers read the files themselves), so every worker needs the corpus on a path it can
read, as the client does (docs/scale.md).
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from itertools import islice
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from spades_replay.plumbing.parallel import sigint_shielded

if TYPE_CHECKING:
    from distributed import Client, Future, LocalCluster

Item = TypeVar("Item")
Result = TypeVar("Result")

INSTALL_HINT = "pip install 'spades-replay[cluster]'"
CONNECT_TIMEOUT = 5.0
"""Seconds to reach a scheduler (and for it to have a worker) before giving up."""
AHEAD_PER_THREAD = 4
"""Batches in flight per worker thread: enough to keep every worker busy while the results
are taken in order, few enough that little waits in memory."""
REFRESH_SECONDS = 2.0
"""How often the number of worker threads is asked again (workers may come and go)."""


class ClusterError(Exception):
    """The cluster cannot be used: Dask missing, a bad address, a scheduler out of reach,
    or work lost with its workers. The message says which, naming the address."""


def parse_address(address: str) -> int | str:
    """The number of local workers ``local`` / ``local:N`` asks for, or the address of a
    scheduler as given (``tcp://host:port``, ``host:port``, any address Dask takes)."""
    text = address.strip()
    if text == "local":
        return os.cpu_count() or 1
    if text.startswith("local:"):
        count = text.removeprefix("local:")
        if not (count.isascii() and count.isdigit()) or int(count) < 1:
            raise ClusterError(f"--scheduler {address!r}: local:N needs N, a number of workers")
        return int(count)
    if not text or any(space in text for space in " \t\n"):
        raise ClusterError(
            f"--scheduler {address!r}: give tcp://HOST:PORT, local or local:N (docs/scale.md)"
        )
    return text


def _run_batch(function: Callable[[Any], Any], batch: Sequence[Any]) -> list[Any]:
    return [function(item) for item in batch]


class Cluster:
    """A connection to a Dask scheduler, and the ``LocalCluster`` behind it when the run
    started one. Use it as a context manager: leaving it closes what it opened."""

    def __init__(
        self,
        client: Client,
        address: str,
        local: LocalCluster | None = None,
        settings: contextlib.AbstractContextManager[Any] | None = None,
    ) -> None:
        self.client = client
        self.address = address
        self._local = local
        self._settings = settings
        self._threads = 0
        self._asked = float("-inf")

    def __enter__(self) -> Cluster:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Disconnect, and stop the local cluster if this run started it."""
        self.client.close()
        if self._local is not None:
            self._local.close()
        if self._settings is not None:
            self._settings.__exit__(None, None, None)

    def threads(self) -> int:
        """The worker threads of the cluster now (asked at most every few seconds)."""
        now = time.monotonic()
        if now - self._asked > REFRESH_SECONDS:
            self._threads = sum(self.client.nthreads().values())
            self._asked = now
        return self._threads

    def ordered_map(
        self, function: Callable[[Item], Result], items: Iterable[Item], *, chunksize: int = 1
    ) -> Generator[Result, None, None]:
        """``map(function, items)`` on the cluster's workers in batches of ``chunksize``
        items, results in input order. A batch lost with its worker is run again elsewhere
        (Dask does it); closing the generator cancels the batches in flight."""
        from distributed import CancelledError, KilledWorker
        from distributed.comm.core import CommClosedError

        batches = _batched(items, max(chunksize, 1))
        pending: deque[Future[list[Result]]] = deque()

        def top_up() -> None:
            wanted = max(2, AHEAD_PER_THREAD * self.threads())
            while len(pending) < wanted:
                batch = next(batches, None)
                if batch is None:
                    return
                pending.append(self.client.submit(_run_batch, function, batch, pure=False))

        try:
            top_up()
            while pending:
                results = pending.popleft().result()
                top_up()
                yield from results
        except (KilledWorker, CancelledError) as error:
            raise ClusterError(
                f"the Dask cluster at {self.address} lost the work: {error}"
            ) from None
        except CommClosedError as error:
            raise ClusterError(f"lost the Dask scheduler at {self.address}: {error}") from None
        finally:
            # (a scheduler already lost has nothing left to cancel)
            if pending:
                with contextlib.suppress(OSError):
                    self.client.cancel(list(pending))


def _batched(items: Iterable[Item], size: int) -> Iterator[list[Item]]:
    iterator = iter(items)
    while batch := list(islice(iterator, size)):
        yield batch


def open_cluster(address: str, *, timeout: float = CONNECT_TIMEOUT) -> Cluster:
    """Connect to the scheduler at ``address``, or start a ``LocalCluster`` of N worker
    processes (one thread each) for ``local:N``. Raises :class:`ClusterError` with a clear
    message when Dask is not installed or the scheduler cannot be reached in ``timeout``
    seconds."""
    target = parse_address(address)
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError:
        raise ClusterError(f"--scheduler needs Dask: {INSTALL_HINT}") from None
    if isinstance(target, int):
        # Worker processes forked from a fork server (which has Dask loaded) stop in a tenth
        # of a second where spawned ones take two: the setting holds while the cluster lives,
        # so that a worker started again after a crash comes from the same place.
        settings = dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"})
        # the worker processes (and the fork server) never see Ctrl-C: the command alone
        # takes it and cancels the work
        local = None
        try:
            with sigint_shielded():
                local = LocalCluster(
                    n_workers=target,
                    threads_per_worker=1,
                    processes=True,
                    # the scheduler's web server on a free port: 8787, Dask's default,
                    # may be another cluster's
                    dashboard_address=":0",
                    memory_limit=0,
                    silence_logs=logging.ERROR,
                )
            return Cluster(Client(local), f"local:{target}", local, settings)
        except BaseException:
            if local is not None:
                local.close()
            settings.__exit__(None, None, None)
            raise
    try:
        client = Client(target, timeout=timeout)
    except (OSError, ValueError) as error:
        raise ClusterError(f"cannot reach the Dask scheduler at {target}: {error}") from None
    try:
        client.wait_for_workers(1, timeout=timeout)
    except (OSError, TimeoutError):
        client.close()
        raise ClusterError(
            f"the Dask scheduler at {target} has no worker (start one: dask worker {target})"
        ) from None
    return Cluster(client, target)
