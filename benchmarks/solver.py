"""The speed of double-dummy analysis: ``python benchmarks/solver.py [--quick]``.

On a fixed seeded corpus of complete hands from :func:`~spades_replay.play.simulate.simulate_game`
(heuristic bots, so the hands look like real play), it times:

- **two-player**: the par of a full hand (one solve from the start of play) and the whole-hand
  analysis (every card, its cost and the best alternatives, and the Nils);
- **four-player endgames**: the solve of the real position with *k* tricks left, per *k*;
- **four-player whole hands**: the par and the whole-hand analysis, under a per-hand time cap
  (capped hands are counted and reported, not hidden);
- **corpus throughput**: hands analysed per minute by ``analyze_hands`` with ``jobs=1`` and
  ``jobs=2``, for the two-player hands and for four-player hands under a shorter cap.

Times per hand are CPU milliseconds of the analysing process (median, 90th percentile and
maximum): the machines are shared and noisy, and CPU time moves much less with the other users'
load than wall-clock time; throughput is wall-clock, as parallelism is the point there. The run
also times a fixed pure-Python loop (``calibration_ms``, before and after) to say how fast the
machine was. The time caps are wall-clock, so a loaded machine caps hands sooner. The full run
takes several minutes; ``--quick`` well under one. Results are printed and written to
``benchmarks/out/solver.json``; :func:`run` returns them. ``--kernel python`` measures the
pure-Python solver instead of the compiled one (the default when numba is installed); the
kernel and the seconds it took to load (numba's disk cache) head the results.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from spades_replay.analysis import (
    KERNEL_VARIABLE,
    HandAnalysis,
    Position,
    analyze_hand,
    analyze_hands,
    kernel_name,
    new_solver,
    prepare_kernel,
    solve,
)
from spades_replay.engine.seats import Variant
from spades_replay.play.bots import HeuristicBot
from spades_replay.play.simulate import simulate_game
from spades_replay.replayer.replay import HandReplay, replay

T = TypeVar("T")

OUT = Path(__file__).resolve().parent / "out" / "solver.json"

FULL = {
    "two_player_hands": 60,
    "endgame_sizes": (5, 6, 7, 8, 9),
    "endgames_per_size": 20,
    "four_player_hands": 40,
    "time_cap": 30.0,
    "throughput_hands": 8,
    "throughput_cap": 10.0,
}
QUICK = {
    "two_player_hands": 15,
    "endgame_sizes": (5, 6, 7, 8),
    "endgames_per_size": 6,
    "four_player_hands": 1,
    "time_cap": 5.0,
    "throughput_hands": 2,
    "throughput_cap": 3.0,
}


def corpus(variant: Variant, count: int) -> list[HandReplay]:
    """The first ``count`` complete hands of games seeded 1, 2, ... (always the same)."""
    hands: list[HandReplay] = []
    seed = 0
    while len(hands) < count:
        seed += 1
        bots = [HeuristicBot() for _ in range(variant.seat_count)]
        game = replay(simulate_game(variant, seed=seed, bots=bots))
        hands.extend(hand for hand in game.hands if hand.complete)
    return hands[:count]


def summary(times_ms: Sequence[float]) -> dict[str, float]:
    """Median, 90th percentile (nearest rank) and maximum of some times."""
    ordered = sorted(times_ms)
    rank = max(1, math.ceil(0.9 * len(ordered)))
    return {
        "count": len(ordered),
        "median_ms": round(statistics.median(ordered), 1),
        "p90_ms": round(ordered[rank - 1], 1),
        "max_ms": round(ordered[-1], 1),
    }


def timed(work: Callable[[], T]) -> tuple[float, T]:
    """CPU milliseconds taken by ``work()`` in this process, and its result. CPU time, not
    wall-clock: on a shared machine it moves much less with the other users' load."""
    started = time.process_time()
    result = work()
    return (time.process_time() - started) * 1000, result


def calibration_ms() -> float:
    """A fixed pure-Python loop, best of five: how fast this machine is right now."""
    best = float("inf")
    for _ in range(5):
        started = time.perf_counter()
        total = 0
        for value in range(1_000_000):
            total += value & 7
        best = min(best, (time.perf_counter() - started) * 1000)
    return round(best, 1)


def start_of(hand: HandReplay, plays: int = 0) -> Position:
    """The position of ``hand`` after its first ``plays`` cards."""
    position = Position(hand.variant, hand.outcome.holdings, hand.outcome.leader)
    for card in hand.actions.plays[:plays]:
        position = position.play(card)
    return position


def par_of(position: Position) -> tuple[int, int]:
    """The par from ``position``, by a fresh solver (nothing learnt from other hands)."""
    return new_solver(position.variant).tricks(position)


def two_player(settings: dict[str, Any]) -> dict[str, Any]:
    """Par and whole-hand analysis of full two-player hands."""
    hands = corpus(Variant.TWO_PLAYER, settings["two_player_hands"])
    par = [timed(functools.partial(par_of, start_of(hand)))[0] for hand in hands]
    analysis = [timed(functools.partial(analyze_hand, hand))[0] for hand in hands]
    return {"par": summary(par), "analysis": summary(analysis)}


def endgames(settings: dict[str, Any]) -> dict[str, Any]:
    """The solve of real four-player positions with k tricks left, per k."""
    hands = corpus(Variant.FOUR_PLAYER, settings["endgames_per_size"])
    results = {}
    for tricks in settings["endgame_sizes"]:
        times = []
        for hand in hands:
            position = start_of(hand, 4 * (13 - tricks))
            times.append(timed(functools.partial(par_of, position))[0])
        results[str(tricks)] = summary(times)
    return results


def four_player(settings: dict[str, Any]) -> dict[str, Any]:
    """Par and whole-hand analysis of full four-player hands, under the time cap."""
    hands = corpus(Variant.FOUR_PLAYER, settings["four_player_hands"])
    cap = settings["time_cap"]
    par_times, par_capped = [], 0
    analysis_times, analysis_capped = [], 0
    for hand in hands:
        elapsed, solution = timed(functools.partial(solve, start_of(hand), time_cap=cap))
        par_times.append(elapsed)
        par_capped += solution.capped
        elapsed, analysis = timed(functools.partial(analyze_hand, hand, time_cap=cap))
        analysis_times.append(elapsed)
        analysis_capped += analysis.capped
    return {
        "time_cap_s": cap,
        "par": {**summary(par_times), "capped": par_capped},
        "analysis": {**summary(analysis_times), "capped": analysis_capped},
    }


def _all(hands: list[HandReplay], cap: float | None, jobs: int) -> list[HandAnalysis]:
    return list(analyze_hands(hands, time_cap=cap, jobs=jobs))


def throughput(settings: dict[str, Any]) -> dict[str, Any]:
    """Hands analysed per minute (wall-clock) with one and two worker processes: the
    two-player hands, and four-player hands under a shorter time cap (a capped hand takes
    the cap however many workers there are)."""
    results = {}
    work = {
        "two_player": (corpus(Variant.TWO_PLAYER, settings["two_player_hands"]), None),
        "four_player": (
            corpus(Variant.FOUR_PLAYER, settings["throughput_hands"]),
            settings["throughput_cap"],
        ),
    }
    for name, (hands, cap) in work.items():
        rates: dict[str, float] = {}
        for jobs in (1, 2):
            started = time.perf_counter()
            analysed = _all(hands, cap, jobs)
            elapsed = time.perf_counter() - started
            rates[f"jobs_{jobs}"] = round(len(hands) / (elapsed / 60), 1)
        rates["speedup"] = round(rates["jobs_2"] / rates["jobs_1"], 2)
        results[name] = {
            "hands": len(hands),
            "time_cap_s": cap,
            "capped": sum(analysis.capped for analysis in analysed),
            "hands_per_minute": rates,
        }
    return results


def run(quick: bool = False, kernel: str | None = None) -> dict[str, Any]:
    """Every measurement, as JSON-ready data, on ``kernel`` (``"python"`` forces the
    pure-Python solver; by default the compiled one when numba is installed)."""
    if kernel is not None:
        os.environ[KERNEL_VARIABLE] = kernel
    settings = QUICK if quick else FULL
    started = time.perf_counter()
    load = prepare_kernel()
    results: dict[str, Any] = {
        "kernel": kernel_name(),
        "kernel_load_s": round(load, 2),
        "quick": quick,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average": [round(value, 2) for value in os.getloadavg()],
        "calibration_ms": calibration_ms(),
    }
    results["two_player"] = two_player(settings)
    results["four_player_endgames"] = endgames(settings)
    results["four_player"] = four_player(settings)
    results["throughput"] = throughput(settings)
    results["calibration_ms_after"] = calibration_ms()
    results["seconds"] = round(time.perf_counter() - started, 1)
    return results


def _line(label: str, figures: dict[str, Any]) -> str:
    text = (
        f"{label:<44} median {figures['median_ms']:>9.1f} ms   p90 {figures['p90_ms']:>9.1f} ms"
        f"   max {figures['max_ms']:>9.1f} ms   (n={figures['count']})"
    )
    if "capped" in figures:
        text += f"   capped {figures['capped']}"
    return text


def report(results: dict[str, Any]) -> str:
    """The results for people."""
    lines = [
        f"kernel {results['kernel']} (loaded in {results['kernel_load_s']} s); "
        f"Python {results['python']}, {results['cpus']} CPU(s), load {results['load_average']}, "
        f"calibration loop {results['calibration_ms']} ms before, "
        f"{results['calibration_ms_after']} ms after",
        _line("two-player par (one full-hand solve)", results["two_player"]["par"]),
        _line("two-player whole-hand analysis", results["two_player"]["analysis"]),
    ]
    for tricks, figures in results["four_player_endgames"].items():
        lines.append(_line(f"four-player solve, {tricks} tricks left", figures))
    four = results["four_player"]
    lines.append(_line(f"four-player par (cap {four['time_cap_s']:g} s)", four["par"]))
    lines.append(
        _line(f"four-player whole-hand analysis (cap {four['time_cap_s']:g} s)", four["analysis"])
    )
    for name, figures in results["throughput"].items():
        rates = figures["hands_per_minute"]
        cap = (
            f", cap {figures['time_cap_s']:g} s, {figures['capped']} capped"
            if figures["time_cap_s"]
            else ""
        )
        lines.append(
            f"{name.replace('_', '-')} analysis of {figures['hands']} hands{cap}: "
            f"{rates['jobs_1']} hands/min with --jobs 1, {rates['jobs_2']} with --jobs 2 "
            f"(x{rates['speedup']})"
        )
    lines.append(f"total {results['seconds']} s")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run, print, write ``benchmarks/out/solver.json`` and return the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smaller run, under a minute")
    parser.add_argument(
        "--kernel",
        choices=("compiled", "python"),
        help="the solver's kernel (default: compiled when numba is installed)",
    )
    arguments = parser.parse_args(argv)
    results = run(quick=arguments.quick, kernel=arguments.kernel)
    print(report(results))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(results, indent=2) + "\n")
    return results


if __name__ == "__main__":
    main(sys.argv[1:])
