"""``--scheduler``: the commands on a Dask cluster give the bytes ``--jobs 1`` gives.

One ``LocalCluster`` of two worker processes, started once for the module, serves every test
that runs work (marked ``cluster``); one test starts ``local:2`` through the command line.
The faults: a worker killed mid-run, a scheduler out of reach, Ctrl-C, Dask not installed.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from spades_replay.cli import main
from spades_replay.engine.seats import Variant
from spades_replay.play.simulate import CorpusSpec, write_corpus
from spades_replay.plumbing.cluster import Cluster, ClusterError, open_cluster, parse_address
from spades_replay.plumbing.parallel import ordered_map, workers
from spades_replay.replayer.validate import CorpusValidation
from tests.conftest import FIXTURES, ROOT

distributed = pytest.importorskip("distributed")

CORPUS = FIXTURES / "corpus"
TWO_PLAYER = CORPUS / "two-player.jsonl"


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The address of a LocalCluster of two worker processes (one thread each), started in
    a directory of their own, as workers on other machines would be."""
    here = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("workers"))
    try:
        cluster = distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            memory_limit=0,
            silence_logs=logging.ERROR,
        )
    finally:
        os.chdir(here)
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


@pytest.fixture
def cluster(scheduler: str) -> Iterator[Cluster]:
    """A connection to the module's cluster, as the commands open it."""
    with open_cluster(scheduler) as opened:
        yield opened


def run(capfdbinary: pytest.CaptureFixture[bytes], *argv: str) -> tuple[int, bytes, bytes]:
    """Run the command line in this process: exit code, stdout and stderr bytes."""
    capfdbinary.readouterr()
    code = main(list(argv))
    sys.stdout.flush()
    captured = capfdbinary.readouterr()
    return code, captured.out, captured.err


def same_as_jobs_1(
    capfdbinary: pytest.CaptureFixture[bytes], scheduler: str, *argv: str
) -> tuple[int, bytes]:
    """Run a command with ``--jobs 1`` and on the cluster; assert the same code and stdout."""
    local = run(capfdbinary, *argv, "--jobs", "1")
    clustered = run(capfdbinary, *argv, "--scheduler", scheduler)
    assert clustered[0] == local[0], clustered[2]
    assert clustered[1] == local[1]
    return local[0], local[1]


def test_addresses_are_parsed() -> None:
    assert parse_address("local:3") == 3
    assert parse_address("local") == (os.cpu_count() or 1)
    assert parse_address(" tcp://10.0.0.5:8786 ") == "tcp://10.0.0.5:8786"
    for bad in ("local:0", "local:x", "local:\u00b2", "", "tcp://a b"):
        with pytest.raises(ClusterError, match="--scheduler"):
            parse_address(bad)


class Recorder:
    """An executor that runs the work here and notes how it was asked."""

    def __init__(self) -> None:
        self.asked: list[int] = []

    def ordered_map(
        self, function: Callable[[Any], Any], items: Iterable[Any], *, chunksize: int = 1
    ) -> Generator[Any, None, None]:
        self.asked.append(chunksize)
        yield from map(function, items)


def test_an_executor_takes_the_place_of_jobs() -> None:
    assert workers(3) == 3
    assert workers(0) == (os.cpu_count() or 1)
    assert workers(4, 2) == 2
    assert workers(4, 0) == 1
    executor = Recorder()
    assert workers(executor, 1) is executor
    assert list(ordered_map(abs, [-1, 2, -3], executor, chunksize=8)) == [1, 2, 3]
    assert executor.asked == [8]


def test_jobs_and_scheduler_exclude_each_other(capfdbinary: pytest.CaptureFixture[bytes]) -> None:
    code, out, err = run(
        capfdbinary, "validate", str(TWO_PLAYER), "--jobs", "2", "--scheduler", "local:1"
    )
    assert code == 2
    assert out == b""
    assert b"--jobs and --scheduler exclude each other" in err


@pytest.mark.slow
def test_an_unreachable_scheduler_is_named_and_exits_2(
    capfdbinary: pytest.CaptureFixture[bytes],
) -> None:
    code, out, err = run(
        capfdbinary, "validate", str(TWO_PLAYER), "--scheduler", "tcp://127.0.0.1:9"
    )
    assert code == 2
    assert b"cannot reach the Dask scheduler at tcp://127.0.0.1:9" in err
    assert b"Traceback" not in err
    assert out == b""


@pytest.mark.cluster
def test_a_scheduler_without_workers_says_so() -> None:
    empty = distributed.LocalCluster(
        n_workers=0, dashboard_address=":0", silence_logs=logging.ERROR, processes=False
    )
    try:
        with pytest.raises(ClusterError, match="has no worker"):
            open_cluster(empty.scheduler_address, timeout=1)
    finally:
        empty.close()


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def test_without_dask_the_scheduler_option_names_the_extra() -> None:
    done = _python(
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('dask', 'distributed'):\n"
        "            raise ImportError(name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "from spades_replay.cli import main\n"
        "sys.exit(main(['validate', 'fixtures/corpus', '--scheduler', 'local:2']))\n"
    )
    assert done.returncode == 2, done.stderr
    assert "pip install 'spades-replay[cluster]'" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_the_jobs_paths_never_import_dask(tmp_path: Path) -> None:
    done = _python(
        "import sys\n"
        "from spades_replay.cli import main\n"
        f"for argv in (['validate', 'fixtures/corpus', '-q', '--jobs', '2'],\n"
        f"             ['stats', 'fixtures/corpus', '--format', 'csv', '--jobs', '2'],\n"
        f"             ['simulate', '--variant', 'two-player', '--games', '4', '--jobs', '2',\n"
        f"              '-o', {str(tmp_path / 'out.jsonl')!r}],\n"
        f"             ['analyze', 'fixtures/corpus/two-player.jsonl', '--hand', '1',\n"
        f"              '--jobs', '2']):\n"
        "    main(argv)\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed'))\n"
        "print('LOADED', loaded, file=sys.stderr)\n"
    )
    assert "LOADED []" in done.stderr, done.stderr


@pytest.mark.cluster
@pytest.mark.parametrize("form", ["text", "json"])
def test_validate_gives_the_same_bytes(
    capfdbinary: pytest.CaptureFixture[bytes], scheduler: str, form: str
) -> None:
    code, out = same_as_jobs_1(
        capfdbinary, scheduler, "validate", str(FIXTURES), "--verbose", "--format", form
    )
    assert code == 1
    assert out.count(b"\n") > 100


@pytest.mark.cluster
def test_relative_paths_are_read_by_workers_elsewhere(
    capfdbinary: pytest.CaptureFixture[bytes], scheduler: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    code, out = same_as_jobs_1(
        capfdbinary, scheduler, "validate", "fixtures/corpus", "fixtures/two-player"
    )
    assert code == 0
    assert b"fixtures/corpus/two-player.jsonl" not in out  # every record valid, none listed
    code, out = same_as_jobs_1(
        capfdbinary, scheduler, "validate", "fixtures/invalid", "--format", "json"
    )
    assert code == 1
    assert b'"source":"fixtures/invalid/' in out


@pytest.mark.cluster
def test_byte_ranges_of_a_corpus_keep_their_line_numbers(tmp_path: Path, cluster: Cluster) -> None:
    corpus = tmp_path / "corpus.jsonl"
    lines = TWO_PLAYER.read_bytes().splitlines()
    # a corrupt line in the middle, and a blank one: their line numbers must survive the ranges
    corpus.write_bytes(b"\n".join([*lines[:5], b"{not json", b"", *lines[5:]]) + b"\n")
    reports = {}
    progress: dict[str, list[tuple[int, int]]] = {}
    for name, jobs in (("local", 1), ("cluster", cluster)):
        seen: list[tuple[int, int]] = []
        validation = CorpusValidation(
            [corpus],
            jobs=jobs,
            keep_valid=True,
            chunk_bytes=4096,
            progress=lambda done, total, seen=seen: seen.append((done, total)),
        )
        reports[name] = [report.to_dict() for report in validation]
        assert validation.summary.to_dict()["invalid"] == 1
        progress[name] = seen
    assert reports["cluster"] == reports["local"]
    assert [report["line"] for report in reports["local"] if not report["valid"]] == [6]
    # the progress bar hears of every range as the cluster returns it
    assert progress["cluster"] == progress["local"]
    assert len(progress["cluster"]) > 3
    assert progress["cluster"][-1][0] == corpus.stat().st_size


@pytest.mark.cluster
@pytest.mark.parametrize("form", ["table", "csv", "json"])
def test_stats_gives_the_same_bytes(
    capfdbinary: pytest.CaptureFixture[bytes], scheduler: str, form: str
) -> None:
    code, out = same_as_jobs_1(
        capfdbinary, scheduler, "stats", str(FIXTURES), "--by", "game", "--format", form
    )
    assert code == 1
    assert len(out) > 1000


@pytest.mark.cluster
def test_stats_files_are_the_same(
    capfdbinary: pytest.CaptureFixture[bytes], scheduler: str, tmp_path: Path
) -> None:
    local, clustered = tmp_path / "local.parquet", tmp_path / "cluster.parquet"
    base = ("stats", str(CORPUS), "--format", "parquet")
    assert run(capfdbinary, *base, "-o", str(local), "--jobs", "1")[0] == 0
    assert run(capfdbinary, *base, "-o", str(clustered), "--scheduler", scheduler)[0] == 0
    assert clustered.read_bytes() == local.read_bytes()


@pytest.mark.cluster
def test_the_analysis_spreads_hands_and_gives_the_same_bytes(
    capfdbinary: pytest.CaptureFixture[bytes], scheduler: str, tmp_path: Path
) -> None:
    same_as_jobs_1(capfdbinary, scheduler, "analyze", str(TWO_PLAYER), "--game", "2", "--hand", "3")
    corpus = tmp_path / "two-games.jsonl"
    corpus.write_bytes(b"".join(TWO_PLAYER.read_bytes().splitlines(keepends=True)[:2]))
    code, out = same_as_jobs_1(
        capfdbinary, scheduler, "stats", str(corpus), "--analysis", "--format", "csv"
    )
    assert code == 0
    assert b"tricks_lost" in out
    code, out = same_as_jobs_1(
        capfdbinary, scheduler, "analyze", str(corpus), "--all", "--format", "json"
    )
    assert code == 0
    assert out.count(b"\n") == 2


@pytest.mark.cluster
@pytest.mark.parametrize("name", ["games.jsonl", "games.jsonl.gz", "games"])
def test_simulate_same_seed_same_bytes(
    capfdbinary: pytest.CaptureFixture[bytes], scheduler: str, tmp_path: Path, name: str
) -> None:
    outputs = []
    for where, option in (("local", ("--jobs", "1")), ("cluster", ("--scheduler", scheduler))):
        target = tmp_path / where / name
        target.parent.mkdir()
        argv = ("simulate", "--variant", "four-player", "--games", "20", "--seed", "5")
        code, _, err = run(capfdbinary, *argv, "-o", str(target), *option)
        assert code == 0, err
        files = sorted(target.rglob("*")) if target.is_dir() else [target]
        outputs.append([(path.name, path.read_bytes()) for path in files])
    assert outputs[0] == outputs[1]
    assert len(outputs[0]) in (1, 20)


@pytest.mark.cluster
def test_local_n_starts_a_cluster_for_the_run() -> None:
    command = [sys.executable, "-m", "spades_replay", "validate", str(TWO_PLAYER), "--format"]
    command.append("json")
    local = subprocess.run([*command, "--jobs", "1"], capture_output=True, timeout=120)
    clustered = subprocess.run(
        [*command, "--scheduler", "local:2"], capture_output=True, timeout=120
    )
    assert clustered.returncode == local.returncode == 0, clustered.stderr
    assert clustered.stdout == local.stdout
    assert b"Traceback" not in clustered.stderr


def _tasks_on(scheduler: str) -> int:
    with distributed.Client(scheduler, timeout=10) as client:
        return int(client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)))


@pytest.mark.cluster
def test_ctrl_c_cancels_the_work_and_writes_nothing(scheduler: str, tmp_path: Path) -> None:
    target = tmp_path / "out" / "games.jsonl"
    target.parent.mkdir()
    command = [sys.executable, "-m", "spades_replay", "simulate", "--variant", "four-player"]
    command += ["--games", "5000", "-o", str(target), "--scheduler", scheduler]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while _tasks_on(scheduler) == 0:  # the command is at work on the cluster
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.2)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert out == b""
    assert b"interrupted" in err
    assert b"Traceback" not in err
    assert list(target.parent.iterdir()) == []
    deadline = time.monotonic() + 30
    while _tasks_on(scheduler):
        assert time.monotonic() < deadline, "the cluster kept the interrupted work"
        time.sleep(0.2)


@pytest.mark.cluster
def test_work_that_kills_its_workers_is_given_up_with_a_clear_error() -> None:
    import dask

    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        lone = distributed.LocalCluster(
            n_workers=1,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.CRITICAL,
        )
    try:
        with (
            open_cluster(lone.scheduler_address) as opened,
            pytest.raises(ClusterError, match="lost the work"),
        ):
            list(opened.ordered_map(os._exit, [3]))
    finally:
        lone.close()


@pytest.mark.cluster
def test_a_worker_killed_mid_run_loses_nothing(tmp_path: Path, cluster: Cluster) -> None:
    corpus = tmp_path / "corpus.jsonl"
    write_corpus(CorpusSpec(Variant.TWO_PLAYER, 60, 3), corpus)
    expected = list(CorpusValidation([corpus], keep_valid=True, chunk_bytes=8192))
    pids: dict[str, int] = cluster.client.run(os.getpid)
    victim = sorted(pids)[0]
    killed: list[int] = []

    def kill_once(done: int, total: int) -> None:
        if not killed:
            os.kill(pids[victim], signal.SIGKILL)
            killed.append(pids[victim])

    validation = CorpusValidation(
        [corpus], jobs=cluster, keep_valid=True, chunk_bytes=8192, progress=kill_once
    )
    got = list(validation)
    assert killed
    assert [report.to_dict() for report in got] == [report.to_dict() for report in expected]
    assert validation.summary.valid == 60
    # the worker's process died and its nanny started a new one
    assert pids[victim] not in cluster.client.run(os.getpid).values()


@pytest.mark.cluster
def test_ingest_writes_the_same_store(
    capfdbinary: pytest.CaptureFixture[bytes], scheduler: str, tmp_path: Path
) -> None:
    """``ingest --scheduler``: the files read by the workers, the hands analysed one by one
    on them; the store holds the same manifest and tables as with ``--jobs 1``."""
    from spades_replay.store.layout import MANIFEST
    from spades_replay.store.read import Store

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "two-games.jsonl").write_bytes(
        b"".join(TWO_PLAYER.read_bytes().splitlines(keepends=True)[:2])
    )
    (corpus / "bad.json").write_bytes(b'{"format_version": "1.1"}')
    stores = {}
    for name, how in (("local", ("--jobs", "1")), ("cluster", ("--scheduler", scheduler))):
        store = tmp_path / name
        code, _, err = run(
            capfdbinary, "ingest", str(corpus), "--store", str(store), "--analysis", *how
        )
        assert code == 1, err  # bad.json is invalid, and in the problems table
        tables = ("games", "side_hands", "seat_hands", "seat_analysis", "records", "problems")
        opened = Store.open(store)
        stores[name] = (
            (store / MANIFEST).read_bytes(),
            {table: opened.table(table).to_dicts() for table in tables},
        )
    assert stores["cluster"] == stores["local"]
    assert len(stores["local"][1]["seat_analysis"]) > 0
    assert len(stores["local"][1]["problems"]) > 0
