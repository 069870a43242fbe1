"""``ordered_map`` on local worker processes: results in order, errors raised again, and a
run that can always be stopped, whatever its workers are doing."""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable

import pytest

from spades_replay.cli import main, validate_cmd
from spades_replay.plumbing.parallel import WorkerLostError, _hand_out, _Worker, ordered_map

from .conftest import ROOT
from .support.closing import BIG


def _large(index: int) -> bytes:
    time.sleep(random.uniform(0, 0.02))
    return bytes([index % 256]) * BIG


def _finishes(action: Callable[[], object], seconds: float) -> bool:
    thread = threading.Thread(target=action, daemon=True)
    thread.start()
    thread.join(seconds)
    return not thread.is_alive()


@pytest.mark.parametrize("chunksize", [1, 3, 8])
@pytest.mark.parametrize("jobs", [2, 3])
def test_results_come_in_the_order_of_the_items(jobs: int, chunksize: int) -> None:
    items = list(range(-40, 41))
    assert list(ordered_map(abs, items, jobs, chunksize=chunksize)) == list(map(abs, items))


def test_large_results_cross_whole_and_in_order() -> None:
    results = list(ordered_map(_large, range(9), 2))
    assert [(len(result), result[0]) for result in results] == [(BIG, index) for index in range(9)]


def test_an_error_in_a_worker_is_raised_again_where_map_would_raise_it() -> None:
    results = ordered_map(int, ["1", "2", "x", "4"], 2)
    assert [next(results), next(results)] == [1, 2]
    with pytest.raises(ValueError, match="invalid literal for int"):
        next(results)


class _PickyError(Exception):
    """An error that pickles but cannot be unpickled: its class takes two arguments and
    passes one on."""

    def __init__(self, what: str, why: str) -> None:
        super().__init__(f"{what}: {why}")


def _picky(item: str) -> str:
    raise _PickyError(item, "no")


def test_an_error_that_cannot_be_unpickled_is_still_an_error_not_a_wait() -> None:
    results = ordered_map(_picky, ["a", "b"], 2)
    raised: list[BaseException] = []

    def run() -> None:
        try:
            next(results)
        except RuntimeError as error:
            raised.append(error)

    assert _finishes(run, 30)
    assert [str(error) for error in raised] == [
        'what came from another process cannot be read: TypeError("_PickyError.__init__() missing '
        "1 required positional argument: 'why'\")"
    ]
    results.close()


@pytest.mark.parametrize("items", [3, 50])
def test_a_worker_that_dies_is_reported_not_waited_for(items: int) -> None:
    """A worker killed (by the kernel for want of memory, say) loses its batch: the run
    stops with an error naming how it ended, where a pool would wait for the batch forever."""
    raised: list[BaseException] = []

    def run() -> None:
        try:
            list(ordered_map(os._exit, [3] * items, 2))
        except WorkerLostError as error:
            raised.append(error)

    assert _finishes(run, 30)
    assert [str(error) for error in raised] == [
        "a worker process ended before its work was done (exit code 3)"
    ]


def test_work_handed_to_a_worker_that_has_ended_says_so() -> None:
    """Not a broken pipe, which the command line takes for a reader of its output that went
    away (exit 0, nothing said)."""
    worker = _Worker(multiprocessing.get_context("forkserver"), os._exit)
    said: list[str] = []
    try:
        worker.send([5])
        for _ in range(100):  # until the pipe is seen closed
            try:
                worker.send([5])
            except WorkerLostError as error:
                said.append(str(error))
                break
            time.sleep(0.05)
    finally:
        worker.stop()
        worker.join()
    assert said == ["a worker process ended before its work was done (exit code 5)"]


@pytest.mark.slow
def test_closing_a_run_while_its_workers_write_large_results_returns_at_once() -> None:
    """Closing (an interrupt, or a caller that stops early) stops the workers whatever they
    are doing. ``multiprocessing.Pool.terminate`` could wait forever when it came while a
    worker wrote a large result (here it did within the first 6 to 82 of these runs, three
    times of three), so the test closes many runs at unlucky moments."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.closing", "150"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_closing_while_every_worker_waits_to_send_returns_at_once() -> None:
    results = ordered_map(os.urandom, [BIG] * 12, 2)
    next(results)
    time.sleep(0.5)  # every worker now waits for its large result to be read
    assert _finishes(results.close, 30)


class _Busy:
    """A stand-in worker with ``busy`` batches not done."""

    def __init__(self, busy: int) -> None:
        self.busy = busy
        self.given: list[list[int]] = []

    def unfinished(self) -> int:
        return self.busy

    def send(self, batch: list[int]) -> None:
        self.given.append(batch)


@pytest.mark.parametrize(
    ("busy", "chosen"), [((0, 0), 0), ((2, 1), 1), ((1, 2), 0), ((3, 1, 1), 1), ((2, 2, 0), 2)]
)
def test_a_batch_goes_to_the_worker_with_fewest_batches_not_done(
    busy: tuple[int, ...], chosen: int
) -> None:
    """Batches of unequal weight (a corpus cut at 8 MiB, then at 1,000 lines, alternates
    long pieces and short ones) are not dealt in turn, which would give one worker every
    long piece."""
    stand_ins = [_Busy(count) for count in busy]
    assert _hand_out(stand_ins, [7]) is stand_ins[chosen]  # type: ignore[arg-type]
    assert [worker.given for worker in stand_ins] == [
        [[7]] if index == chosen else [] for index in range(len(busy))
    ]


def test_a_lost_worker_is_a_clear_error_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def lost(*_: object) -> int:
        raise WorkerLostError("a worker process ended before its work was done (exit code 9)")

    monkeypatch.setattr(validate_cmd, "run", lost)
    assert main(["validate", "fixtures"]) == 2
    assert capsys.readouterr().err == (
        "spades-replay: error: a worker process ended before its work was done (exit code 9)\n"
    )


def test_a_worker_lost_to_the_commands_own_interruption_says_interrupted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """SIGTERM to the whole process group stops the workers too: when the command sees its
    worker gone before its own signal, it still says it was interrupted, exit 130."""

    def stopped(*_: object) -> int:
        try:
            signal.raise_signal(signal.SIGTERM)
        except KeyboardInterrupt:
            raise WorkerLostError("a worker process ended (stopped by SIGTERM)") from None
        return 0

    monkeypatch.setattr(validate_cmd, "run", stopped)
    assert main(["validate", "fixtures"]) == 130
    assert capsys.readouterr().err == "spades-replay: interrupted\n"
