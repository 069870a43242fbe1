"""The speed and memory benchmark of spades-replay: ``./dev bench [--quick] [--write-docs]``.

Every figure is a ratio against a baseline measured in the same run on the same bytes
(``orjson.loads`` of each record), because the machines are shared and noisy: absolute
speeds move with the load, ratios much less. Stages are timed in CPU time of the process
(time spent waiting for a core while others work is not the code's); the ``--jobs``
speed-up is wall time. Each stage is timed in several rounds, each
round timing the baseline right before the stage; the median of the per-round ratios is
reported.

Stages, on a fixed seeded corpus (2,000 games of each variant; 200 with ``--quick``):

- ``parse``: ``orjson.loads`` alone (the baseline);
- ``load``: parsing with the format's models (``spades_replay.loads``), which the accept
  path no longer takes for a valid record;
- ``shape``: the shape check on already-parsed records (``spades_replay.record.shape.accepts``);
- ``verify``: the fast verifier on already-parsed records
  (``spades_replay.replayer.verify.verify``);
- ``replay``: the engine's replay of already-loaded records (legal replay, scoring, claims);
- ``validate``: end to end, bytes to verdict (``validate_bytes``: the accept path: orjson, the
  shape check, the verifier), on one core;
- ``validate-engine``: end to end through the engine alone (``check_bytes``), on one core;
- ``stats``: validation plus the rows of the three stats tables (from the verifier's figures),
  on one core;

first the start of the command line in new processes (``spades-replay --help`` and
``spades-replay validate`` of one record) against ``python -c "import orjson"``, in CPU time;

then ``spades-replay validate`` on a corpus of 20,000 games (the 2,000 of each variant,
alternating, repeated; with ``--quick``, 800 of each to 2,000 games), process start
included, against ``orjson.loads`` of the same lines in the same run;

then ``validate --jobs 2`` against ``--jobs 1`` on a corpus file (medians of three runs of
each, alternating), and the peak resident
memory of validating a ``.jsonl`` of at least 1 GB (100 MB with ``--quick``), for one
process and for the whole process tree with ``--jobs 2``; then the cluster stages of
benchmarks/scale.py (``--scheduler local:2`` against ``--jobs 2`` on that corpus, and the
per-partition overhead).

Results go to ``benchmarks/out/results.json``; ``--write-docs`` also puts them in
docs/performance.md between its ``bench`` markers, and the cluster figures of a full run (not
``--quick``: its 100 MB corpus is not what the capacity plan starts from) in docs/scale.md.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson
from pages import replace_block

from spades_replay.engine.rules import STANDARD, Rules
from spades_replay.engine.seats import Variant
from spades_replay.play.simulate import CorpusSpec, simulate_corpus, write_corpus
from spades_replay.record import shape
from spades_replay.record.io import loads
from spades_replay.replayer import verify as verifier
from spades_replay.replayer.replay import check
from spades_replay.replayer.validate import (
    CorpusValidation,
    check_bytes,
    validate_bytes,
    verify_bytes,
)
from spades_replay.replayer.verify import KERNEL, PYTHON_KERNEL, Kernel, verify
from spades_replay.stats.collect import RowSink

ROOT = Path(__file__).resolve().parents[1]
SEEDS = {Variant.TWO_PLAYER: 101, Variant.FOUR_PLAYER: 202}
"""The seed of each variant's benchmark corpus."""
OUT = ROOT / "benchmarks" / "out"
DOCS = ROOT / "docs" / "performance.md"
TARGETS = {
    "validate": 0.35,
    "validate_python": 0.15,
    "stats": 0.25,
    "cli": 0.30,
    "jobs_speedup": 1.7,
    "peak_mb": 200,
    "startup": 1.5,
    "simulate_four": 300,
    "simulate_two": 150,
    "simulate_random": 1000,
}


def corpus(variant: Variant, games: int, seed: int) -> Path:
    """The benchmark corpus of a variant, simulated once and kept in benchmarks/out/."""
    path = OUT / f"corpus-{variant.value}-{games}-s{seed}.jsonl"
    if not path.exists():
        print(f"simulating {games} {variant.value} games into {path} ...", file=sys.stderr)
        write_corpus(CorpusSpec(variant, games, seed), path, jobs=0)
    return path


def timed(function: Callable[[Any], object], items: Sequence[Any]) -> float:
    """CPU seconds of this process to call ``function`` on every item (CPU time, not wall
    time: on a shared machine, time spent waiting for a core is not the code's)."""
    start = time.process_time()
    for item in items:
        function(item)
    return time.process_time() - start


def ratio_rounds(
    stage: Callable[[bytes], Any],
    lines: Sequence[bytes],
    rounds: int,
    then: Callable[[Any], object] | None = None,
) -> tuple[float, float]:
    """(median ratio of baseline time to stage time, median stage seconds).

    With ``then``, ``stage`` only looks each line's input up, untimed, and ``then`` is timed.
    """
    ratios = []
    seconds = []
    for _ in range(rounds):
        base = timed(orjson.loads, lines)
        if then is None:
            took = timed(stage, lines)
        else:
            inputs = [stage(line) for line in lines]
            took = timed(then, inputs)
        ratios.append(base / took)
        seconds.append(took)
    return statistics.median(ratios), statistics.median(seconds)


@contextlib.contextmanager
def kernel(chosen: Kernel) -> Iterator[None]:
    """The fast verifier's card work done by ``chosen`` for a while (``verify`` reads
    :data:`spades_replay.replayer.verify.KERNEL` on every call), and with the pure-Python
    kernel, every hand's shape checked in Python (:data:`spades_replay.record.shape.HAND_KERNEL`)
    as on a machine without a C compiler."""
    default, hands = verifier.KERNEL, shape.HAND_KERNEL
    verifier.KERNEL = chosen
    if chosen is PYTHON_KERNEL:
        shape.HAND_KERNEL = None
    try:
        yield
    finally:
        verifier.KERNEL, shape.HAND_KERNEL = default, hands


def stage_figures(lines: Sequence[bytes], rounds: int) -> dict[str, dict[str, float]]:
    """Hands per second and ratio to the baseline for every stage, on ``lines``."""
    hands = sum(len(orjson.loads(line)["hands"]) for line in lines)

    sink = RowSink()  # one per run, as each worker task has one

    def stats(line: bytes) -> object:
        report, verified = verify_bytes(line, "bench", None)
        if verified is not None:
            sink.add(verified, "bench", None)
        return report

    def verify_python(record: dict[str, Any]) -> object:
        return verify(record, PYTHON_KERNEL)

    def validate_python(line: bytes) -> object:
        with kernel(PYTHON_KERNEL):
            return validate_bytes(line)

    def stats_python(line: bytes) -> object:
        with kernel(PYTHON_KERNEL):
            return stats(line)

    stages: dict[str, Callable[[Any], object]] = {
        "parse": orjson.loads,
        "load": loads,
        "shape": shape.accepts,
        "verify": verify,
        "verify-python": verify_python,
        "replay": check,
        "validate": validate_bytes,
        "validate-python": validate_python,
        "validate-engine": check_bytes,
        "stats": stats,
        "stats-python": stats_python,
    }
    figures = {}
    for name, function in stages.items():
        if name in ("shape", "verify", "verify-python", "replay"):
            # from records already parsed (loaded by the models, for the engine's replay);
            # held only while this stage runs, so that the other stages see the small heap a
            # streaming validator has
            read = loads if name == "replay" else orjson.loads
            records = {line: read(line) for line in lines}
            ratio, seconds = ratio_rounds(records.__getitem__, lines, rounds, then=function)
            del records
        else:
            ratio, seconds = ratio_rounds(function, lines, rounds)
        gc.collect()
        figures[name] = {"hands_per_second": hands / seconds, "ratio": ratio}
        print(f"  {name:15s} {hands / seconds:10.0f} hands/s   ratio {ratio:.3f}", file=sys.stderr)
    return figures


def mixed_corpus(sources: Sequence[Path], games: int, total: int) -> Path:
    """A corpus of ``total`` lines: the first ``games`` games of each source, alternating
    line by line, repeated in turn (a record is validated on its own, so a repeat costs
    what the first did)."""
    path = OUT / f"mixed-{total}.jsonl"
    parts = [source.read_bytes().splitlines()[:games] for source in sources]
    if any(len(part) < games for part in parts):
        raise SystemExit(f"the sources hold fewer than {games} games each")
    mixed = [line for group in zip(*parts, strict=True) for line in group]
    lines = [mixed[index % len(mixed)] for index in range(total)]
    data = b"\n".join(lines) + b"\n"
    if not path.exists() or path.read_bytes() != data:
        path.write_bytes(data)
    return path


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cli_figures(path: Path, rounds: int) -> dict[str, float]:
    """``spades-replay validate PATH`` as a user runs it (a new process, one core, its
    bytecode compiled by an untimed first run), against ``orjson.loads`` of the same lines in
    this process: the median of ``rounds`` ratios of CPU time (the child's, process start and
    imports included), and its wall time."""
    lines = path.read_bytes().splitlines()
    command = [sys.executable, "-m", "spades_replay", "validate", "--quiet", "--no-progress"]
    subprocess.run([*command, str(path)], capture_output=True, check=True)  # compiles
    ratios = []
    seconds = []
    walls = []
    for _ in range(rounds):
        base = timed(orjson.loads, lines)
        cpu = _children_cpu()
        start = time.perf_counter()
        done = subprocess.run([*command, str(path)], capture_output=True, check=False)
        walls.append(time.perf_counter() - start)
        took = _children_cpu() - cpu
        assert done.returncode == 0, done.stdout + done.stderr
        ratios.append(base / took)
        seconds.append(took)
        print(
            f"  validate {path.name}: {took:.2f} s CPU ({walls[-1]:.2f} s wall), "
            f"ratio {base / took:.3f}",
            file=sys.stderr,
        )
    return {
        "games": len(lines),
        "seconds": statistics.median(seconds),
        "wall_seconds": statistics.median(walls),
        "ratio": statistics.median(ratios),
    }


STARTUP_RECORD = ROOT / "fixtures" / "four-player" / "standard-game.json"
"""The one record whose validation the start-up stage times (a whole four-player game)."""


def startup_figures(rounds: int) -> dict[str, dict[str, float]]:
    """The start of the command line, in new processes, against ``python -c "import orjson"``
    in the same rounds: ``spades-replay --help`` and ``spades-replay validate`` of one
    record, run as a user runs them (the installed console script, bytecode compiled by an
    untimed first run). Each round runs the three once, in turn; each figure is the median
    of its per-round ratios of CPU time (the child's) to the baseline's, with its median CPU
    and wall seconds."""
    script = str(Path(sys.executable).with_name("spades-replay"))
    commands = {
        "import orjson": [sys.executable, "-c", "import orjson"],
        "--help": [script, "--help"],
        "validate one record": [script, "validate", str(STARTUP_RECORD)],
    }
    for command in commands.values():
        subprocess.run(command, capture_output=True, check=True)  # compiles
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    wall: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, command in commands.items():
            before = _children_cpu()
            start = time.perf_counter()
            subprocess.run(command, capture_output=True, check=True)
            wall[name].append(time.perf_counter() - start)
            cpu[name].append(_children_cpu() - before)
    base = cpu["import orjson"]
    figures = {}
    for name in commands:
        ratios = [took / baseline for took, baseline in zip(cpu[name], base, strict=True)]
        figures[name] = {
            "ratio": statistics.median(ratios),
            "seconds": statistics.median(cpu[name]),
            "wall_seconds": statistics.median(wall[name]),
        }
        print(
            f"  {name:20s} {figures[name]['seconds'] * 1000:6.0f} ms CPU "
            f"({figures[name]['wall_seconds'] * 1000:.0f} ms wall), "
            f"{figures[name]['ratio']:.2f} x import orjson",
            file=sys.stderr,
        )
    return figures


SIMULATE_SEED = 303
"""The seed of the games the simulate stage plays (other than the corpora's, so that its
figures do not depend on corpora already written)."""


SIMULATE_KINDS = (
    ("heuristic", "heuristic", STANDARD),
    ("random", "random", STANDARD),
    ("random, lose_score=-300", "random", Rules(lose_score=-300)),
)
"""The self-play the simulate stage measures: a name, the bots and the rules. Random bots
never win under the standard rules (a random bid is set almost every hand), so every one of
their games stops at the 60-hand cap; a lose score of -300 is what ``simulate`` advises for
them (the README's random example), and there their games end."""


def simulate_figures(games: int, rounds: int = 3) -> dict[str, dict[str, float]]:
    """Self-play on one core, in this process: ``games`` games of each variant and each of
    :data:`SIMULATE_KINDS` (as ``simulate`` plays them: a game not won within 60 hands stops
    there), in games and hands a second of CPU time, the median of ``rounds`` runs; beside
    it, the validation of the same games (``validate_bytes``), so that both are read on the
    same machine in the same run. A game of each kind is played first, untimed: the first
    record builds the format's models (a twentieth of a second, once per process), which a
    throughput leaves out."""
    figures = {}
    for variant in (Variant.FOUR_PLAYER, Variant.TWO_PLAYER):
        for kind, bot, rules in SIMULATE_KINDS:
            warm = CorpusSpec(variant, 1, SIMULATE_SEED - 1, rules=rules, bot=bot)
            list(simulate_corpus(warm, jobs=1))
            spec = CorpusSpec(variant, games, SIMULATE_SEED, rules=rules, bot=bot)
            times = []
            for _ in range(rounds):
                start = time.process_time()
                lines = list(simulate_corpus(spec, jobs=1))
                times.append(time.process_time() - start)
            simulated = statistics.median(times)
            validated = timed(validate_bytes, lines)
            hands = sum(len(orjson.loads(line)["hands"]) for line in lines)
            name = f"{variant.value}, {kind}"
            figures[name] = {
                "games_per_second": games / simulated,
                "hands_per_second": hands / simulated,
                "hands_per_game": hands / games,
                "validate_games_per_second": games / validated,
            }
            print(
                f"  {name:32s} {games / simulated:8.1f} games/s ({hands / simulated:,.0f} "
                f"hands/s); validating them {games / validated:,.0f} games/s",
                file=sys.stderr,
            )
    return figures


def jobs_figures(path: Path, rounds: int) -> dict[str, float]:
    """Wall time of validating ``path`` on one and on two worker processes: the medians of
    ``rounds`` runs of each, alternating, so that both meet the same noise."""
    times: dict[int, list[float]] = {1: [], 2: []}
    for _ in range(rounds):
        for jobs in (1, 2):
            start = time.perf_counter()
            validation = CorpusValidation([path], jobs=jobs, chunk_bytes=4 * 1024 * 1024)
            invalid = sum(1 for _ in validation)
            times[jobs].append(time.perf_counter() - start)
            assert invalid == 0, "the benchmark corpus must be valid"
            print(f"  --jobs {jobs}: {times[jobs][-1]:.1f} s", file=sys.stderr)
    one, two = statistics.median(times[1]), statistics.median(times[2])
    return {"jobs_1_seconds": one, "jobs_2_seconds": two, "speedup": one / two}


def big_corpus(sources: Sequence[Path], size: int) -> Path:
    """A corpus of at least ``size`` bytes: the benchmark corpora's lines, repeated."""
    path = OUT / f"big-{size // 1_000_000}MB.jsonl"
    if path.exists() and path.stat().st_size >= size:
        return path
    lines = [line for source in sources for line in source.read_bytes().splitlines()]
    block = b"\n".join(lines) + b"\n"
    written = 0
    with path.open("wb") as stream:
        while written < size:
            stream.write(block)
            written += len(block)
    return path


def process_tree(root: int) -> Iterator[int]:
    """``root`` and every process descended from it, found through each process's
    ``children`` in Linux's /proc: a few files, where a scan of every process of the machine
    (:func:`_tree_rss_kib`) reads hundreds. A process gone meanwhile is left out, with what
    it started; /proc refusing to be read raises ``PermissionError``."""
    pending = [root]
    while pending:
        pid = pending.pop()
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except (FileNotFoundError, ProcessLookupError):
            continue
        yield pid
        for task in tasks:
            with contextlib.suppress(FileNotFoundError, ProcessLookupError):
                children = Path(f"/proc/{pid}/task/{task}/children").read_text()
                pending.extend(int(child) for child in children.split())


def _tree_rss_kib(root: int) -> int:
    """The resident memory of a process and all its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        parent = re.search(r"^PPid:\s+(\d+)", status, re.M)
        resident = re.search(r"^VmRSS:\s+(\d+)", status, re.M)
        if parent:
            children.setdefault(int(parent.group(1)), []).append(int(entry))
        rss[int(entry)] = int(resident.group(1)) if resident else 0
    total = 0
    pending = [root]
    while pending:
        pid = pending.pop()
        total += rss.get(pid, 0)
        pending.extend(children.get(pid, []))
    return total


PEAK_OF_ONE = (
    "import re, sys\n"
    "from spades_replay.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "status = open('/proc/self/status').read()\n"
    "print(re.search(r'VmHWM:\\s+(\\d+)', status).group(1), file=sys.stderr)\n"
    "sys.exit(code)\n"
)
"""Runs one command and reports its own peak resident memory (KiB) last on stderr: VmHWM,
the high-water mark of the process since it started (getrusage's ru_maxrss would also count
the copy of this benchmark process it was forked from)."""


def memory_figures(path: Path) -> dict[str, float]:
    """Peak memory of validating ``path``: the one process of --jobs 1 (its own peak), and
    the whole process tree of --jobs 2 (sampled from /proc every 50 ms)."""
    figures: dict[str, float] = {"corpus_mb": path.stat().st_size / 1e6}
    arguments = ["validate", "--quiet", "--no-progress"]
    start = time.perf_counter()
    single = subprocess.run(
        [sys.executable, "-c", PEAK_OF_ONE, *arguments, str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    figures["jobs_1_seconds"] = time.perf_counter() - start
    assert single.returncode == 0, single.stdout + single.stderr
    figures["jobs_1_peak_mb"] = int(single.stderr.split()[-1]) / 1024
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "spades_replay", *arguments, "--jobs", "2", str(path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    peak = 0
    while process.poll() is None:
        peak = max(peak, _tree_rss_kib(process.pid))
        time.sleep(0.05)
    figures["jobs_2_seconds"] = time.perf_counter() - start
    assert process.returncode == 0, process.stderr.read() if process.stderr else ""
    figures["jobs_2_tree_peak_mb"] = peak / 1024
    print(
        f"  1 process: {figures['jobs_1_peak_mb']:.0f} MB peak; "
        f"--jobs 2 tree: {figures['jobs_2_tree_peak_mb']:.0f} MB peak",
        file=sys.stderr,
    )
    return figures


def markdown(results: dict[str, Any]) -> str:
    """The results as the tables of docs/performance.md."""
    lines = [
        f"Run on {results['when']} ({results['machine']}), corpus of {results['games']} games "
        f"per variant; medians of {results['rounds']} rounds; the verifier's kernel: "
        f"{results['kernel']} (the `-python` stages: its pure-Python kernel).",
        "",
        "| stage | variant | hands/s | ratio to orjson.loads |",
        "| --- | --- | ---: | ---: |",
    ]
    for variant, figures in results["stages"].items():
        for stage, values in figures.items():
            lines.append(
                f"| {stage} | {variant} | {values['hands_per_second']:,.0f} | "
                f"{values['ratio']:.3f} |"
            )
    jobs = results["jobs"]
    memory = results["memory"]
    validate = min(figures["validate"]["ratio"] for figures in results["stages"].values())
    stats = min(figures["stats"]["ratio"] for figures in results["stages"].values())
    validate_python = min(
        figures["validate-python"]["ratio"] for figures in results["stages"].values()
    )
    stats_python = min(figures["stats-python"]["ratio"] for figures in results["stages"].values())
    cli = results["cli"]
    peak = max(memory["jobs_1_peak_mb"], memory["jobs_2_tree_peak_mb"])
    startup = results["startup"]
    slowest_start = max(startup["--help"]["ratio"], startup["validate one record"]["ratio"])
    lines += [
        "",
        "| target | measured | met |",
        "| --- | --- | --- |",
        f"| `spades-replay --help` and `validate` of one record <= {TARGETS['startup']} x "
        f'`python -c "import orjson"` (CPU, new processes) | --help '
        f"{startup['--help']['ratio']:.2f} x, validate "
        f"{startup['validate one record']['ratio']:.2f} x "
        f"({startup['import orjson']['seconds'] * 1000:.0f} ms for import orjson) | "
        f"{'yes' if slowest_start <= TARGETS['startup'] else 'no'} |",
        *simulate_rows(results["simulate"]),
        f"| end-to-end validate >= {TARGETS['validate']} of orjson | {validate:.3f} (the lower "
        f"variant) | {'yes' if validate >= TARGETS['validate'] else 'no'} |",
        f"| stats >= {TARGETS['stats']} of orjson | {stats:.3f} (the lower variant) | "
        f"{'yes' if stats >= TARGETS['stats'] else 'no'} |",
        f"| validate in pure Python (no C compiler at install) >= {TARGETS['validate_python']} "
        f"| {validate_python:.3f} (the lower variant; stats {stats_python:.3f}) | "
        f"{'yes' if validate_python >= TARGETS['validate_python'] else 'no'} |",
        f"| `spades-replay validate` of {cli['games']:,} mixed games >= {TARGETS['cli']} of "
        f"orjson, process start included | {cli['ratio']:.3f} ({cli['seconds']:.2f} s CPU) | "
        f"{'yes' if cli['ratio'] >= TARGETS['cli'] else 'no'} |",
        f"| --jobs 2 >= {TARGETS['jobs_speedup']} x --jobs 1 | {jobs['speedup']:.2f} x "
        f"({jobs['jobs_1_seconds']:.1f} s / {jobs['jobs_2_seconds']:.1f} s) | "
        f"{'yes' if jobs['speedup'] >= TARGETS['jobs_speedup'] else 'no'} |",
        f"| peak memory validating {memory['corpus_mb']:,.0f} MB <= {TARGETS['peak_mb']} MB | "
        f"{memory['jobs_1_peak_mb']:.0f} MB (--jobs 1), {memory['jobs_2_tree_peak_mb']:.0f} MB "
        f"(--jobs 2, all processes) | {'yes' if peak <= TARGETS['peak_mb'] else 'no'} |",
    ]
    return "\n".join(lines)


def simulate_rows(figures: dict[str, dict[str, float]]) -> list[str]:
    """The rows of the targets table for self-play."""

    def rate(name: str) -> float:
        return figures[name]["games_per_second"]

    def met(ok: bool) -> str:
        return "yes" if ok else "no"

    def length(name: str) -> float:
        return figures[name]["hands_per_game"]

    random_target = TARGETS["simulate_random"]
    lose = "random, lose_score=-300"
    ended = min(rate(f"four-player, {lose}"), rate(f"two-player, {lose}")) >= random_target
    capped = min(rate("four-player, random"), rate("two-player, random")) >= random_target
    return [
        f"| `simulate`, heuristic bots, one core: >= {TARGETS['simulate_four']} four-player "
        f"games/s | {rate('four-player, heuristic'):.1f} | "
        f"{met(rate('four-player, heuristic') >= TARGETS['simulate_four'])} |",
        f"| the same, >= {TARGETS['simulate_two']} two-player games/s | "
        f"{rate('two-player, heuristic'):.1f} | "
        f"{met(rate('two-player, heuristic') >= TARGETS['simulate_two'])} |",
        f"| `simulate`, random bots: >= {random_target} games/s | "
        f"under `lose_score=-300` (what `simulate` advises for random bots), "
        f"{rate(f'four-player, {lose}'):,.1f} four-player and "
        f"{rate(f'two-player, {lose}'):,.1f} two-player (games of "
        f"{length(f'four-player, {lose}'):.1f} and {length(f'two-player, {lose}'):.1f} hands); "
        f"under the standard rules, where every game stops at the 60-hand cap, "
        f"{rate('four-player, random'):.1f} and {rate('two-player, random'):.1f} | "
        f"{met(ended)} under `lose_score=-300`, {met(capped)} at the cap |",
    ]


def write_docs(text: str) -> None:
    """Replace the part of docs/performance.md between its bench markers."""
    replace_block(DOCS, "bench", text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small corpus, a short run")
    parser.add_argument(
        "--write-docs", action="store_true", help="put the results in docs/performance.md"
    )
    parser.add_argument(
        "--only",
        action="append",
        choices=("startup", "simulate"),
        help="run only this part (repeatable); the figures are printed, never written to the docs",
    )
    arguments = parser.parse_args()
    if arguments.only and arguments.write_docs:
        parser.error("--write-docs needs the whole run, not --only")
    # the commands run as an installed package does, their bytecode compiled once and then
    # read (pip compiles it at install; a checkout's first run writes it to __pycache__)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    OUT.mkdir(parents=True, exist_ok=True)
    games = 200 if arguments.quick else 2000
    rounds = 3 if arguments.quick else 7
    parts = {
        "startup": lambda: startup_figures(11 if arguments.quick else 21),
        "simulate": lambda: simulate_figures(20 if arguments.quick else 100),
    }
    if arguments.only:
        for part in arguments.only:
            print(f"{part}:", file=sys.stderr)
            print(json.dumps({part: parts[part]()}, indent=2))
        return
    paths = {variant: corpus(variant, games, seed) for variant, seed in SEEDS.items()}
    results: dict[str, Any] = {
        "when": time.strftime("%Y-%m-%d %H:%M"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}",
        "games": games,
        "rounds": rounds,
        "kernel": KERNEL.name,
        "stages": {},
    }
    for part, measure in parts.items():
        print(f"{part}:", file=sys.stderr)
        results[part] = measure()
    sample = 300 if arguments.quick else 1000
    for variant, path in paths.items():
        print(f"{variant.value}:", file=sys.stderr)
        lines = path.read_bytes().splitlines()[:sample]
        results["stages"][variant.value] = stage_figures(lines, rounds)
    print("command line:", file=sys.stderr)
    cli_games = 800 if arguments.quick else games
    cli_sources = (
        [corpus(variant, cli_games, seed) for variant, seed in SEEDS.items()]
        if games < cli_games
        else list(paths.values())
    )
    cli_total = 2_000 if arguments.quick else 20_000
    results["cli"] = cli_figures(mixed_corpus(cli_sources, cli_games, cli_total), rounds)
    print("--jobs:", file=sys.stderr)
    results["jobs"] = jobs_figures(
        big_corpus(list(paths.values()), 60_000_000 if arguments.quick else 250_000_000),
        1 if arguments.quick else 3,
    )
    print("memory:", file=sys.stderr)
    size = 100_000_000 if arguments.quick else 1_000_000_000
    results["memory"] = memory_figures(big_corpus(list(paths.values()), size))
    print("cluster:", file=sys.stderr)
    sys.path.insert(0, str(Path(__file__).parent))
    import scale

    results["cluster"] = scale.figures(
        big_corpus(list(paths.values()), size),
        1 if arguments.quick else 3,
        500,
        paths[Variant.FOUR_PLAYER],
        4 if arguments.quick else 16,
    )
    (OUT / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    text = markdown(results) + "\n\n" + scale.markdown(results["cluster"])
    print(text)
    if arguments.write_docs:
        write_docs(text)
        if not arguments.quick:
            scale.write_docs(scale.markdown(results["cluster"]))


if __name__ == "__main__":
    main()
