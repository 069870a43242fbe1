"""The benchmark stays runnable: every stage runs on a few records (no timing is checked),
and the report renders. Speed itself is measured by ./dev bench, never by tests."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from .conftest import FIXTURES, ROOT


def benchmark() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "benchmarks" / "run.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_run"] = module
    spec.loader.exec_module(module)
    return module


def test_every_stage_runs_and_the_report_renders() -> None:
    run = benchmark()
    lines = (FIXTURES / "corpus" / "four-player.jsonl").read_bytes().splitlines()[:3]
    figures = run.stage_figures(lines, 1)
    assert set(figures) == {
        "parse",
        "load",
        "verify",
        "replay",
        "validate",
        "validate-engine",
        "stats",
    }
    assert all(value["hands_per_second"] > 0 for value in figures.values())
    results = {
        "when": "now",
        "machine": "test",
        "games": 3,
        "rounds": 1,
        "stages": {"four-player": figures},
        "cli": {"games": 1600, "seconds": 3.0, "wall_seconds": 4.0, "ratio": 0.16},
        "jobs": {"jobs_1_seconds": 2.0, "jobs_2_seconds": 1.0, "speedup": 2.0},
        "memory": {"corpus_mb": 1.0, "jobs_1_peak_mb": 50.0, "jobs_2_tree_peak_mb": 90.0},
    }
    text = run.markdown(results)
    assert "| validate | four-player |" in text
    assert "| --jobs 2 >= 1.7 x --jobs 1 | 2.00 x" in text
    assert "| `spades-replay validate` of 1,600 mixed games >= 0.15 of orjson" in text
