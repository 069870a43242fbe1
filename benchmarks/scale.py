"""The cluster stages of ``./dev bench``: ``--scheduler local:2`` against ``--jobs 2``.

- **validate on a cluster**: wall time of ``spades-replay validate`` on a corpus file with
  ``--jobs 2`` and with ``--scheduler local:2`` (the command starts and stops its
  ``LocalCluster``), medians of alternating runs; the ratio is ``--jobs 2`` time over
  cluster time (target 0.9 or more). The per-worker throughput (MB and games a second) is
  what the capacity plan of docs/scale.md starts from.
- **cluster start**: the time to start and stop a ``LocalCluster`` of two workers, which
  every ``local:N`` run pays once.
- **per-partition overhead**: on an open cluster, the wall time per task of an
  ``ordered_map`` of a function that does nothing, against the same over ``--jobs 2``'s
  process pool: what scheduling one partition costs.
- **four-player analysis**: whole four-player hands of a corpus analysed double dummy on the
  ``local:2`` cluster, spread one hand per task (no time cap): hands per hour per worker, the
  figure the overnight analysis plan starts from.

Run by benchmarks/run.py; ``python benchmarks/scale.py PATH`` runs these stages alone.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from pages import replace_block

from spades_replay.analysis import analyze_hands
from spades_replay.plumbing.cluster import Cluster, open_cluster
from spades_replay.plumbing.corpus import CHUNK_BYTES
from spades_replay.plumbing.parallel import ordered_map
from spades_replay.record.io import loads
from spades_replay.replayer.replay import HandReplay, replay

TARGET = 0.9
"""``--scheduler local:2`` at least this fraction of ``--jobs 2``'s speed."""
DOCS = Path(__file__).resolve().parents[1] / "docs" / "scale.md"


def _validate_seconds(path: Path, where: list[str]) -> float:
    command = [sys.executable, "-m", "spades_replay", "validate", "-q", "--no-progress"]
    start = time.perf_counter()
    done = subprocess.run([*command, *where, str(path)], capture_output=True, check=False)
    seconds = time.perf_counter() - start
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return seconds


def validate_figures(path: Path, rounds: int) -> dict[str, float]:
    """Wall time of validating ``path`` with ``--jobs 2`` and ``--scheduler local:2``."""
    times: dict[str, list[float]] = {"jobs": [], "cluster": []}
    for _ in range(rounds):
        times["jobs"].append(_validate_seconds(path, ["--jobs", "2"]))
        times["cluster"].append(_validate_seconds(path, ["--scheduler", "local:2"]))
        print(
            f"  --jobs 2: {times['jobs'][-1]:.1f} s; --scheduler local:2: "
            f"{times['cluster'][-1]:.1f} s",
            file=sys.stderr,
        )
    jobs, cluster = statistics.median(times["jobs"]), statistics.median(times["cluster"])
    size = path.stat().st_size
    with path.open("rb") as stream:
        games = sum(1 for line in stream if line.strip())
    return {
        "corpus_mb": size / 1e6,
        "games": games,
        "partitions": -(-size // CHUNK_BYTES),
        "jobs_2_seconds": jobs,
        "cluster_seconds": cluster,
        "ratio": jobs / cluster,
        "mb_per_second_per_worker": size / 1e6 / cluster / 2,
        "games_per_second_per_worker": games / cluster / 2,
    }


def four_player_hands(path: Path, count: int) -> list[HandReplay]:
    """The first ``count`` complete hands of a four-player corpus."""
    hands: list[HandReplay] = []
    with path.open("rb") as stream:
        for line in stream:
            hands.extend(hand for hand in replay(loads(line)).hands if hand.scores is not None)
            if len(hands) >= count:
                return hands[:count]
    return hands


def analysis_figures(cluster: Cluster, hands: list[HandReplay]) -> dict[str, float]:
    """Four-player hands analysed on the cluster's two workers: hands per hour per worker."""
    start = time.perf_counter()
    analysed = list(analyze_hands(hands, jobs=cluster))
    seconds = time.perf_counter() - start
    assert not any(analysis.capped for analysis in analysed)
    figures = {
        "hands": len(hands),
        "seconds": seconds,
        "hands_per_hour_per_worker": len(hands) / seconds * 3600 / 2,
    }
    print(
        f"  {len(hands)} four-player hands in {seconds:.1f} s on local:2: "
        f"{figures['hands_per_hour_per_worker']:,.0f} hands an hour per worker",
        file=sys.stderr,
    )
    return figures


def overhead_figures(tasks: int, hands: list[HandReplay]) -> dict[str, Any]:
    """Seconds to start a local:2 cluster, milliseconds per task of scheduling work that
    does nothing on it and on a pool of two processes, and the analysis of ``hands``."""
    start = time.perf_counter()
    with open_cluster("local:2") as cluster:
        started = time.perf_counter() - start
        list(cluster.ordered_map(abs, range(20)))  # warm: imports, connections
        start = time.perf_counter()
        assert list(cluster.ordered_map(abs, range(tasks))) == list(range(tasks))
        on_cluster = time.perf_counter() - start
        analysis = analysis_figures(cluster, hands)
        closing = time.perf_counter()
    closed = time.perf_counter() - closing
    start = time.perf_counter()
    assert list(ordered_map(abs, range(tasks), 2)) == list(range(tasks))
    on_pool = time.perf_counter() - start
    figures: dict[str, Any] = {
        "analysis": analysis,
        "start_seconds": started,
        "stop_seconds": closed,
        "tasks": tasks,
        "cluster_ms_per_task": on_cluster / tasks * 1000,
        "pool_ms_per_task": on_pool / tasks * 1000,
    }
    print(
        f"  local:2 starts in {started:.1f} s; per task: {figures['cluster_ms_per_task']:.2f} ms "
        f"on the cluster, {figures['pool_ms_per_task']:.2f} ms on a pool",
        file=sys.stderr,
    )
    return figures


def figures(path: Path, rounds: int, tasks: int, four_player: Path, hands: int) -> dict[str, Any]:
    """Every cluster figure: validating the corpus ``path``, and analysing ``hands`` hands
    of the four-player corpus ``four_player``."""
    return {
        "validate": validate_figures(path, rounds),
        "overhead": overhead_figures(tasks, four_player_hands(four_player, hands)),
    }


def markdown(results: dict[str, Any]) -> str:
    """The cluster figures as the table of docs/performance.md and docs/scale.md."""
    validate, overhead = results["validate"], results["overhead"]
    partition_seconds = validate["cluster_seconds"] * 2 / max(validate["partitions"], 1)
    share = overhead["cluster_ms_per_task"] / 1000 / partition_seconds
    met = "yes" if validate["ratio"] >= TARGET else "no"
    return "\n".join(
        [
            "| cluster figure | measured |",
            "| --- | --- |",
            f"| `--scheduler local:2` >= {TARGET} x `--jobs 2` (validate, "
            f"{validate['corpus_mb']:,.0f} MB) | {validate['ratio']:.2f} x "
            f"({validate['jobs_2_seconds']:.1f} s / {validate['cluster_seconds']:.1f} s): "
            f"{'met' if met == 'yes' else 'not met'} |",
            f"| validate throughput per worker | {validate['mb_per_second_per_worker']:.1f} MB/s, "
            f"{validate['games_per_second_per_worker']:,.0f} games/s |",
            f"| starting and stopping `local:2` | {overhead['start_seconds']:.1f} s + "
            f"{overhead['stop_seconds']:.1f} s, once per run |",
            f"| per-partition scheduling overhead | {overhead['cluster_ms_per_task']:.2f} ms "
            f"(a process pool: {overhead['pool_ms_per_task']:.2f} ms), "
            f"{share:.2%} of an {CHUNK_BYTES // 2**20} MB partition's "
            f"{partition_seconds:.2f} s |",
            f"| four-player hands analysed per worker (no cap, "
            f"{overhead['analysis']['hands']} hands) | "
            f"{overhead['analysis']['hands_per_hour_per_worker']:,.0f} an hour |",
        ]
    )


def write_docs(text: str) -> None:
    """Replace the part of docs/scale.md between its bench markers."""
    replace_block(DOCS, "bench", text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=Path, help="a valid .jsonl corpus")
    parser.add_argument("four_player", type=Path, help="a .jsonl corpus of four-player games")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--tasks", type=int, default=500)
    parser.add_argument("--hands", type=int, default=4)
    arguments = parser.parse_args()
    results = figures(
        arguments.path, arguments.rounds, arguments.tasks, arguments.four_player, arguments.hands
    )
    print(json.dumps(results, indent=2), file=sys.stderr)
    print(markdown(results))


if __name__ == "__main__":
    main()
