"""The benchmark stays runnable: every stage runs on a few records (no timing is checked),
and the report renders. Speed itself is measured by ./dev bench, never by tests."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from .conftest import FIXTURES, ROOT
from .support.browser import Browser

sys.path.insert(0, str(ROOT / "benchmarks"))  # the scripts import their shared pages module


def script(name: str) -> ModuleType:
    """The benchmark script ``benchmarks/NAME.py``, imported as ``bench_NAME``."""
    spec = importlib.util.spec_from_file_location(
        f"bench_{name}", ROOT / "benchmarks" / f"{name}.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[f"bench_{name}"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_every_stage_runs_and_the_report_renders() -> None:
    run = script("run")
    lines = (FIXTURES / "corpus" / "four-player.jsonl").read_bytes().splitlines()[:3]
    figures = run.stage_figures(lines, 1)
    assert set(figures) == {
        "parse",
        "shape",
        "load",
        "verify",
        "verify-python",
        "replay",
        "validate",
        "validate-python",
        "validate-engine",
        "stats",
        "stats-python",
    }
    assert all(value["hands_per_second"] > 0 for value in figures.values())
    results = {
        "when": "now",
        "machine": "test",
        "games": 3,
        "rounds": 1,
        "kernel": "compiled",
        "stages": {"four-player": figures},
        "cli": {"games": 20000, "seconds": 3.0, "wall_seconds": 4.0, "ratio": 0.16},
        "jobs": {"jobs_1_seconds": 2.0, "jobs_2_seconds": 1.0, "speedup": 2.0},
        "memory": {"corpus_mb": 1.0, "jobs_1_peak_mb": 50.0, "jobs_2_tree_peak_mb": 90.0},
        "startup": run.startup_figures(1),
        "simulate": run.simulate_figures(1),
    }
    assert set(results["simulate"]) == {
        f"{variant}, {kind}"
        for variant in ("four-player", "two-player")
        for kind in ("heuristic", "random", "random, lose_score=-300")
    }
    assert set(results["startup"]) == {"import orjson", "--help", "validate one record"}
    text = run.markdown(results)
    assert "| validate | four-player |" in text
    assert "| validate-python | four-player |" in text
    assert "the verifier's kernel: compiled" in text
    assert "| validate in pure Python (no C compiler at install) >= 0.15 | " in text
    assert "| --jobs 2 >= 1.7 x --jobs 1 | 2.00 x" in text
    assert "| `spades-replay validate` of 20,000 mixed games >= 0.3 of orjson" in text
    assert "| `spades-replay --help` and `validate` of one record <= 1.5 x" in text
    assert "| `simulate`, heuristic bots, one core: >= 300 four-player games/s |" in text
    assert "| `simulate`, random bots: >= 1000 games/s | under `lose_score=-300`" in text
    assert "stops at the 60-hand cap" in text


@pytest.mark.slow
def test_the_store_benchmark_report_renders_and_its_query_runs(tmp_path: Path) -> None:
    module = script("store")
    from spades_replay.store.ingest import ingest
    from spades_replay.store.read import Store
    from spades_replay.store.sql import run

    ingest([FIXTURES / "corpus"], tmp_path / "store")
    rows = run(Store.open(tmp_path / "store"), module.nil_by_player()).rows
    assert rows
    results = {
        "when": "now",
        "machine": "test",
        "games": 4000,
        "ingest": {
            "corpus_mb": 34.0,
            "validate_s": 40.0,
            "ingest_s": 45.0,
            "ingest_ratio": 40 / 45,
            "reingest_s": 0.5,
            "reingest_share": 0.5 / 45,
            "peak_corpus_mb": 1000.0,
            "peak_mb": 120.0,
        },
        "query": {"query_s": 0.4, "query_alone_s": 0.1},
        "browser": {"skipped": "no chromium"},
    }
    text = module.markdown(results)
    assert "| ingest >= 0.9 x validate (--jobs 1) | 0.89 (40.0 s / 45.0 s) | no |" in text
    assert "skipped: no chromium" in text
    assert "the query alone 0.10 s" in text
    assert module.query_figures(tmp_path / "store")["query_alone_s"] > 0


def test_the_board_benchmark_report_renders() -> None:
    module = script("board")
    assert module.percentile([float(value) for value in range(1, 101)], 0.95) == 95.0
    assert module.percentile([3.0], 0.95) == 3.0
    results = {
        "when": "now",
        "machine": "test",
        "games": 100_000,
        "load_before": 2.0,
        "load_after": 3.0,
        "steps": 154,
        "p50_ms": 12.0,
        "p95_ms": 30.0,
        "max_ms": 80.0,
        "two-player_p95_ms": 25.0,
        "four-player_p95_ms": 31.0,
        "trips": 70,
        "trip_median_ms": 450.0,
        "ratio": 15.0,
        "cold_s": 4.0,
        "cold_paint_s": 3.6,
        "busy_warm_s": 2.4,
        "busy_warm_paint_s": 2.1,
        "settle_s": 21.4,
        "warm_s": 1.8,
        "warm_paint_s": 1.2,
        "empty_s": 0.9,
        "empty_paint_s": 0.8,
        "warm_ratio": 1.5,
        "cold_link_s": 3.2,
        "cold_link_paint_s": 3.0,
        "warm_link_s": 1.9,
        "warm_link_paint_s": 1.7,
    }
    text = module.markdown(results)
    assert "| a step, key press to board drawn, p95 (154 steps) | 30.0 ms" in text
    assert "<= 50 ms | yes |" in text
    assert "450 ms: 15 x the step's p95" in text
    # each opening painted in the page, then seen by the driver; the target and the ratios
    # are the paint's
    assert (
        "| an empty Streamlit page, opened the same way (median of 3), the baseline | "
        "0.80 s (0.90 s)" in text
    )
    assert (
        "| first board, warm, during the server's start-up work (median of 3) | 2.10 s "
        "(2.40 s): 2.6 x the empty page | | |"
    ) in text
    assert (
        "| first board, warm (a new session once the server has settled: waited 21 s; median "
        "of 3) | 1.20 s (1.80 s): 1.5 x the empty page | <= 1.5 s | yes |"
    ) in text
    # a server is settled once it uses next to no CPU: an idle process at once, after one
    # window of its measure
    module.SETTLED_WINDOW_S = 0.05
    idle = subprocess.Popen(["sleep", "30"])
    try:
        assert module._cpu_seconds(idle.pid) is not None
        assert module.settle(idle.pid, limit=5.0) < 5.0
    finally:
        idle.kill()
        idle.wait()
    assert module._cpu_seconds(idle.pid) is None
    # the baseline's app is a Streamlit script that shows the text its opening waits for
    assert f"st.write({module.EMPTY_TEXT!r})" in module.EMPTY_APP
    compile(module.EMPTY_APP, "empty.py", "exec")
    assert "3.00 s (3.20 s) / 1.70 s (1.90 s) | <= 1.5 s warm | no |" in text
    assert "| first board, cold (a new server) | 3.60 s (4.00 s) | | |" in text
    # each key of the run is one the board's docs list
    assert set(module.KEYS) <= {
        "ArrowRight",
        "ArrowLeft",
        "ArrowDown",
        "ArrowUp",
        "m",
        "Shift+M",
        "End",
        "Home",
        "PageDown",
        "PageUp",
    }


def test_the_cluster_report_renders() -> None:
    import scale

    results = {
        "validate": {
            "corpus_mb": 1000.0,
            "games": 100_000,
            "partitions": 120,
            "jobs_2_seconds": 80.0,
            "cluster_seconds": 84.0,
            "ratio": 80.0 / 84.0,
            "mb_per_second_per_worker": 6.0,
            "games_per_second_per_worker": 600.0,
        },
        "overhead": {
            "analysis": {"hands": 4, "seconds": 40.0, "hands_per_hour_per_worker": 180.0},
            "start_seconds": 3.0,
            "stop_seconds": 1.0,
            "tasks": 500,
            "cluster_ms_per_task": 10.0,
            "pool_ms_per_task": 3.0,
        },
    }
    text = scale.markdown(results)
    assert "| 0.95 x (80.0 s / 84.0 s): met |" in text
    assert "| per-partition scheduling overhead | 10.00 ms" in text
    assert "0.71% of an 8 MB partition's 1.40 s" in text
    assert "| 180 an hour |" in text


@pytest.mark.slow
def test_the_memory_benchmark_measures_and_renders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gzip

    module = script("memory")
    monkeypatch.setattr(module, "OUT", tmp_path)
    bomb = module.bomb(100_003)
    assert gzip.decompress(bomb.read_bytes()) == b"{}\n" * 100_003
    small = module.bomb(3_000)
    figures = {
        command: module.peak(module.arguments(command, small, 1, tmp_path / "store"))
        for command in module.COMMANDS
    }
    for command, figure in figures.items():
        assert figure["code"] == 1, (command, figure)
        assert figure["peak_mb"] > 10
    valid = module.peak(module.arguments("validate", FIXTURES / "corpus", 2, tmp_path / "s"))
    assert valid["code"] == 0
    results = {
        "when": "now",
        "machine": "here",
        "bomb": {"lines": 3_000, "bytes": small.stat().st_size},
        "valid": {"bytes": 1_000_000},
        "runs": [{"command": "validate", "jobs": 2, "bomb": figures["validate"], "valid": valid}],
        "bounded": figures["validate"],
    }
    text = module.markdown(results)
    assert "| `validate` | 2 |" in text
    assert "3,000 lines of `{}`" in text


def test_the_store_benchmark_repeats_simulated_games_under_their_own_ids(tmp_path: Path) -> None:
    from spades_replay.engine.seats import Variant
    from spades_replay.play.simulate import CorpusSpec, simulate_corpus
    from spades_replay.replayer.validate import validate_bytes

    module = script("store")
    whole = CorpusSpec(Variant.TWO_PLAYER, 7, 301)
    simulated = list(simulate_corpus(CorpusSpec(Variant.TWO_PLAYER, 3, 301)))
    module.repeat(whole, simulated, tmp_path / "games.jsonl")
    lines = (tmp_path / "games.jsonl").read_bytes().splitlines()
    assert lines[:3] == simulated
    assert lines[:3] == list(simulate_corpus(whole))[:3]
    assert lines[5] == simulated[2].replace(b"s301-000002", b"s301-000005")
    assert all(validate_bytes(line).valid for line in lines)
    assert len({line.split(b'"game_id":"')[1][:22] for line in lines}) == 7
    with pytest.raises(SystemExit, match="is not"):
        module.repeat(whole, simulated[1:], tmp_path / "wrong.jsonl")


STORE_RESULTS = {
    "when": "now",
    "machine": "test",
    "games": 1_000_000,
    "base": 10_000,
    "load_start": 3.0,
    "load_end": 4.5,
    "ingest": {
        "corpus_mb": 8700.0,
        "validate_s": 400.0,
        "ingest_s": 500.0,
        "ingest_ratio": 0.8,
        "reingest_s": 2.0,
        "reingest_share": 0.004,
        "peak_corpus_mb": 8700.0,
        "peak_mb": 250.0,
    },
    "query": {"query_s": 1.4, "query_alone_s": 0.9},
}
"""The store benchmark's figures but its browser's, as a run of a million games gives them."""


def test_the_store_benchmark_reports_the_warm_views_against_their_targets() -> None:
    module = script("store")
    results = {
        **STORE_RESULTS,
        "browser": {
            "cold_replay_s": 5.0,
            "cold_replay_chart_s": 9.0,
            "cold_stats_s": 4.0,
            "warm_replay_s": 1.5,
            "warm_replay_chart_s": 3.0,
            "warm_stats_s": 3.5,
        },
    }
    text = module.markdown(results)
    assert "the first 10,000 of each simulated and repeated" in text
    assert "load average was 3.0 at the start and 4.5 at the end" in text
    assert (
        "| dashboard, warm: Replay's board drawn <= 2 s | 1.5 s (its chart 3.0 s) | yes |" in text
    )
    assert "| dashboard, warm: Corpus stats drawn <= 3 s | 3.5 s | no |" in text
    assert "| dashboard, cold (no target): Replay drawn, then Corpus stats drawn | 5.0 s" in text


@pytest.mark.browser
@pytest.mark.slow
def test_the_board_benchmark_times_the_board_painted_in_the_page(
    server: str, browser: Browser
) -> None:
    # the script the benchmark installs finds the board's table wherever the component draws
    # it, and notes a time once it is painted; in a page of its own, so that nothing else
    # runs it
    module = script("board")
    page = browser.page.context.new_page()
    try:
        page.add_init_script(f"({module.PAINTED})({json.dumps(module.BOARD_SELECTOR)})")
        page.goto(server, wait_until="commit")
        module._drawn(page)
        page.wait_for_function("() => window.__painted !== null", timeout=60_000)
        painted = page.evaluate("() => window.__painted")
        navigated = page.evaluate("() => performance.now()")
    finally:
        page.close()
    assert 0 < painted <= navigated
