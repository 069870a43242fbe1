"""The What-if benchmark: ``python benchmarks/whatif.py [--quick | --games N] [--write-docs]``.

One scoring option changed (``target_score=300``) over a store of 100,000 games (``--quick``:
10,000), answered from the store's tables (:mod:`spades_replay.store.rescore`) against the
replaying ``rescore`` measured in the same run on the first games of the same corpus.

The corpus repeats the lines of a simulated one (1,000 games of each variant, simulated once
and kept in ``benchmarks/out/``) with distinct game ids, since simulating 100,000 games takes
longer than the rest of the run; the store is built once per size and kept there too.

Measured (in this process; the median of three for the tables read and the option change):

- reading the store's tables (``Store.tables``), as a page does once when the store opens;
- preparing them (``prepare``: each side's contract, tricks and Nils per hand, the games as
  played), which no option changes, so a page does it once;
- one option change (``rescore_tables`` with the tables prepared): what a What-if click
  costs, target <= 2 s; and the same preparing too (a first question). ``target_score``
  changes where games end only, so every hand scores as played; ``bag_limit=5``, timed too,
  scores every hand again;
- the replaying rescore on the first ``BASELINE`` games, per game, and the ratio.

Results are printed and written to ``benchmarks/out/whatif.json``; with ``--write-docs``
they also go in docs/performance.md between its ``whatif-bench`` markers.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
from pages import replace_block

from spades_replay.engine.rules import Rules
from spades_replay.engine.seats import Variant
from spades_replay.play.simulate import CorpusSpec, write_corpus
from spades_replay.record.io import loads
from spades_replay.replayer.rescore import rescore
from spades_replay.store.ingest import ingest
from spades_replay.store.read import Store
from spades_replay.store.rescore import prepare, rescore_tables

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "out"
DOCS = ROOT / "docs" / "performance.md"
TARGET_S = 2.0
BASE_GAMES = 1_000
"""Games of each variant simulated, then repeated."""
BASELINE = 1_000
"""Games the replaying rescore is timed on."""
OPTIONS: dict[str, Any] = {"target_score": 300}
"""The question asked: where games end changes, every hand scores as played."""
SCORING: dict[str, Any] = {"bag_limit": 5}
"""A change that scores every hand again (bags, penalties, running scores)."""


def base_corpus() -> list[bytes]:
    """The lines of a simulated corpus, both variants, simulated once."""
    path = OUT / f"whatif-base-{BASE_GAMES}.jsonl"
    if not path.exists():
        OUT.mkdir(parents=True, exist_ok=True)
        lines: list[bytes] = []
        for variant, seed in ((Variant.TWO_PLAYER, 401), (Variant.FOUR_PLAYER, 402)):
            part = OUT / f"whatif-base-{variant.value}.jsonl"
            print(f"simulating {BASE_GAMES} {variant.value} games ...", file=sys.stderr)
            write_corpus(
                CorpusSpec(variant, BASE_GAMES, seed, Rules(lose_score=-300)), part, jobs=0
            )
            lines += part.read_bytes().splitlines()
            part.unlink()
        path.write_bytes(b"\n".join(lines) + b"\n")
    return path.read_bytes().splitlines()


def corpus(games: int) -> Path:
    """``games`` games: the base corpus's lines repeated, each with its own game id."""
    path = OUT / f"whatif-corpus-{games}.jsonl"
    if path.exists():
        return path
    base = base_corpus()
    with open(path, "wb") as stream:
        for index in range(games):
            record = orjson.loads(base[index % len(base)])
            record["game_id"] = f"whatif-{index:07d}"
            stream.write(orjson.dumps(record) + b"\n")
    return path


def store(games: int) -> Path:
    """A store of :func:`corpus`, built once."""
    directory = OUT / f"whatif-store-{games}"
    if not (directory / "manifest.json").exists():
        print(f"ingesting {games} games into {directory} ...", file=sys.stderr)
        ingest([corpus(games)], directory, jobs=0)
    return directory


def median_time(action: Callable[[], object], runs: int = 3) -> float:
    """The median wall time of ``action``."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(games: int) -> dict[str, Any]:
    """Every figure of the run."""
    directory = store(games)
    opened = Store.open(directory)
    read_s = median_time(opened.tables)
    tables = opened.tables()
    prepare_s = median_time(lambda: prepare(tables), runs=1)
    prepared = prepare(tables)
    change_s = median_time(lambda: rescore_tables(tables, OPTIONS, prepared=prepared))
    scoring_s = median_time(lambda: rescore_tables(tables, SCORING, prepared=prepared))
    first_s = median_time(lambda: rescore_tables(tables, OPTIONS), runs=1)
    records = [loads(line) for line in corpus(games).read_bytes().splitlines()[:BASELINE]]
    replay_s = median_time(lambda: [rescore(record, **OPTIONS) for record in records], runs=1)
    per_game = replay_s / len(records)
    answer = rescore_tables(tables, OPTIONS, prepared=prepared)
    return {
        "when": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_version()}",
        "load": os.getloadavg()[0],
        "games": tables.games.height,
        "hands": tables.side_hands.height // 2,
        "winner_changed": answer.summary.winner_changed,
        "read_s": read_s,
        "prepare_s": prepare_s,
        "change_s": change_s,
        "scoring_s": scoring_s,
        "first_s": first_s,
        "replay_per_game_ms": per_game * 1000,
        "replay_estimate_s": per_game * tables.games.height,
        "ratio": per_game * tables.games.height / change_s,
    }


def markdown(result: dict[str, Any]) -> str:
    """The figures as the docs show them."""
    met = "yes" if result["change_s"] <= TARGET_S else "no"
    return "\n".join(
        [
            f"Run on {result['when']} ({result['machine']}), {result['games']:,} games "
            f"({result['hands']:,} hands), one option changed (target_score=300: "
            f"{result['winner_changed']:,} games change winner). The machine's load average "
            f"was {result['load']:.1f} at the end of the run (other work sharing its cores "
            "slows every figure alike).",
            "",
            "| step | time | note |",
            "| --- | --- | --- |",
            f"| one option change (`rescore_tables`, the tables prepared) | "
            f"{result['change_s']:.2f} s | target <= {TARGET_S:g} s: {met} |",
            f"| an option that scores every hand again (`bag_limit=5`, the tables prepared) | "
            f"{result['scoring_s']:.2f} s | |",
            f"| the first question (preparing included) | {result['first_s']:.2f} s | |",
            f"| preparing alone (`prepare`, once per store or filter) | "
            f"{result['prepare_s']:.2f} s | |",
            f"| reading the store's tables (`Store.tables`, once) | {result['read_s']:.2f} s | |",
            f"| replaying `rescore`, per game ({BASELINE:,} games timed) | "
            f"{result['replay_per_game_ms']:.2f} ms | {result['replay_estimate_s']:.0f} s for "
            f"all: {result['ratio']:.0f} x the store's answer |",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10,000 games")
    parser.add_argument("--games", type=int, help="this many games")
    parser.add_argument("--write-docs", action="store_true", help="update docs/performance.md")
    arguments = parser.parse_args()
    games = arguments.games or (10_000 if arguments.quick else 100_000)
    result = measure(games)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "whatif.json").write_text(json.dumps(result, indent=2) + "\n")
    text = markdown(result)
    print(text)
    if arguments.write_docs:
        replace_block(DOCS, "whatif-bench", text)


if __name__ == "__main__":
    main()
