"""The corpus store benchmark:
``./dev bench store [--quick | --large | --games N] [--write-docs]``.

On a simulated corpus of 100,000 games, half of each variant (``--quick``: 4,000; ``--large``:
1,000,000; ``--games``: N), simulated once (on ``--jobs`` processes, one per core unless
told) and kept in ``benchmarks/out/``, and a store of it built once per run, it measures with
the commands a user runs (wall time, each a fresh process). With ``--base B``, for a machine
too slow to simulate the whole corpus in time, only the first B games of each variant are
simulated (the same bytes as the whole corpus's first B) and the corpus repeats them in turn:
game *i* is game *i* mod B with the id game *i* would have. What is measured:

- ``ingest --jobs 1`` against ``validate --jobs 1`` on the same files, validate run last
  (throughput ratio; target >= 0.9), with the peak resident memory of the ingest process
  (VmHWM; target <= 300 MB over at least 1 GB: the whole corpus when it is that large, else
  a 1 GB corpus ingested apart);
- the re-ingest of the unchanged corpus, against the first ingest (target <= 2 %);
- ``query`` of Nil success by player, as docs/store.md asks it (target <= 1 s; median of
  three), as a command and alone (in this process);
- the dashboard on the store in Debian's chromium, driven by Playwright as the browser tests
  drive it: from opening the address to the Replay page drawn (its board; the time to its
  chart is reported beside), then, once that page has settled, from a click on Corpus stats
  in the navigation to that page drawn (every chart's SVG), cold (a new server) and warm (a
  new session of the same server); targets, warm: the board <= 2 s, Corpus stats <= 3 s.
  Skipped, and said so, without chromium.

Results are printed and written to ``benchmarks/out/store.json``; with ``--write-docs`` they
also go in docs/performance.md between its ``store-bench`` markers.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from pages import replace_block
from run import PEAK_OF_ONE

from spades_replay.engine.seats import Variant
from spades_replay.play.simulate import CorpusSpec, write_corpus

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "out"
DOCS = ROOT / "docs" / "performance.md"
CHROMIUM = "/usr/bin/chromium"
TARGETS = {
    "ingest_ratio": 0.9,
    "reingest_share": 0.02,
    "query_s": 1.0,
    "peak_mb": 300,
    "board_s": 2.0,
    "stats_s": 3.0,
}


def nil_by_player() -> str:
    """The worked question "Nil success by player" of docs/store.md, as the page gives it."""
    page = (ROOT / "docs" / "store.md").read_text()
    found = re.search(r"### Nil success by player\n.*?```sql\n(.*?)```", page, flags=re.DOTALL)
    if found is None:
        raise SystemExit("docs/store.md has no worked question 'Nil success by player'")
    return found.group(1)


def corpus(games: int, jobs: int = 0, base: int | None = None) -> Path:
    """A folder with ``games`` games, half of each variant, simulated once on ``jobs``
    processes (0: one per core); with ``base``, the first ``base`` games of each variant
    simulated and repeated in turn under the ids of the games they stand for."""
    half = games // 2
    if base is None or base >= half:
        folder = OUT / f"store-corpus-{games}"
    else:
        folder = OUT / f"store-corpus-{games}-from-{base}"
    done = folder / ".complete"
    if done.exists():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    for variant, seed in ((Variant.TWO_PLAYER, 301), (Variant.FOUR_PLAYER, 302)):
        path = folder / f"{variant.value}.jsonl"
        if folder.name == f"store-corpus-{games}":
            print(f"simulating {half} {variant.value} games into {path} ...", file=sys.stderr)
            write_corpus(CorpusSpec(variant, half, seed), path, jobs=jobs)
            continue
        assert base is not None
        simulated = OUT / f"store-base-{base}" / f"{variant.value}.jsonl"
        if not simulated.exists():
            print(f"simulating {base} {variant.value} games into {simulated} ...", file=sys.stderr)
            simulated.parent.mkdir(parents=True, exist_ok=True)
            write_corpus(CorpusSpec(variant, base, seed), simulated, jobs=jobs)
        print(f"repeating them into {half} games in {path} ...", file=sys.stderr)
        repeat(CorpusSpec(variant, half, seed), simulated.read_bytes().splitlines(), path)
    done.touch()
    return folder


def repeat(spec: CorpusSpec, lines: list[bytes], path: Path) -> None:
    """Write the ``spec.games`` games of ``spec`` to ``path`` from the simulated first
    ``len(lines)`` of them: game *i* is line *i* mod ``len(lines)``, its id made game *i*'s."""
    ids = [b'"game_id":"%s"' % spec.game_id(index).encode() for index in range(len(lines))]
    for index, line in enumerate(lines):
        if ids[index] not in line:
            raise SystemExit(f"{path}: simulated game {index} is not {spec.game_id(index)}")
    with path.open("wb") as stream:
        for index in range(spec.games):
            source = index % len(lines)
            line = lines[source]
            if index != source:
                line = line.replace(
                    ids[source], b'"game_id":"%s"' % spec.game_id(index).encode(), 1
                )
            stream.write(line + b"\n")


def command(*arguments: str, peak: bool = False) -> tuple[float, float | None]:
    """Run ``spades-replay ARGUMENTS``: (wall seconds, peak MB when ``peak``)."""
    launcher = ["-c", PEAK_OF_ONE] if peak else ["-m", "spades_replay"]
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, *launcher, *arguments], capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"spades-replay {' '.join(arguments[:2])} failed: {done.stderr[-2000:]}")
    return seconds, (int(done.stderr.split()[-1]) / 1024 if peak else None)


def size_of(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.iterdir() if path.suffix == ".jsonl")


def big_corpus(source: Path, size: int) -> Path:
    """A folder with one corpus of at least ``size`` bytes: the source's lines repeated."""
    folder = OUT / f"store-big-{size // 1_000_000}MB"
    path = folder / "big.jsonl"
    if path.exists() and path.stat().st_size >= size:
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    block = b"".join(p.read_bytes() for p in sorted(source.glob("*.jsonl")))
    written = 0
    with path.open("wb") as stream:
        while written < size:
            stream.write(block)
            written += len(block)
    return folder


def ingest_figures(folder: Path, store: Path, quick: bool) -> dict[str, float]:
    """ingest (--jobs 1) with its peak memory, then the unchanged re-ingest."""
    figures: dict[str, float] = {"corpus_mb": size_of(folder) / 1e6}
    print("ingest --jobs 1 ...", file=sys.stderr)
    figures["ingest_s"], peak = command(
        "ingest", str(folder), "--store", str(store), "--no-progress", peak=True
    )
    figures["ingest_peak_mb"] = peak or 0.0
    print("re-ingest ...", file=sys.stderr)
    figures["reingest_s"], _ = command(
        "ingest", str(folder), "--store", str(store), "--no-progress"
    )
    figures["reingest_share"] = figures["reingest_s"] / figures["ingest_s"]
    size = 100_000_000 if quick else 1_000_000_000
    if figures["corpus_mb"] * 1e6 >= size:
        figures["peak_corpus_mb"] = figures["corpus_mb"]
        figures["peak_mb"] = figures["ingest_peak_mb"]
    else:
        big = big_corpus(folder, size)
        print(f"ingest of {size_of(big) / 1e6:,.0f} MB for the peak memory ...", file=sys.stderr)
        with tempfile.TemporaryDirectory(dir=OUT) as scratch:
            _, peak = command(
                "ingest", str(big), "--store", f"{scratch}/store", "--no-progress", peak=True
            )
        figures["peak_corpus_mb"] = size_of(big) / 1e6
        figures["peak_mb"] = peak or 0.0
    return figures


def validate_figures(folder: Path, figures: dict[str, float]) -> None:
    """validate (--jobs 1) on the files ingested, and ingest's throughput against it (run
    last: on a corpus that takes most of an hour, the store's figures come first)."""
    print("validate --jobs 1 ...", file=sys.stderr)
    figures["validate_s"], _ = command("validate", "--quiet", "--no-progress", str(folder))
    figures["ingest_ratio"] = figures["validate_s"] / figures["ingest_s"]


def query_figures(store: Path) -> dict[str, float]:
    """The query as a command (Python's start and the imports counted), and the query alone
    (in this process, the store opened anew each time); medians of three."""
    from spades_replay.store.read import Store
    from spades_replay.store.sql import run

    sql = nil_by_player()
    times = [command("query", "--store", str(store), sql)[0] for _ in range(3)]
    alone = []
    for _ in range(3):
        start = time.perf_counter()
        run(Store.open(store), sql)
        alone.append(time.perf_counter() - start)
    return {"query_s": statistics.median(times), "query_alone_s": statistics.median(alone)}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _serve(store: Path, home: Path) -> tuple[subprocess.Popen[bytes], str]:
    return serve_command(
        [sys.executable, "-m", "spades_replay", "dashboard", "--store", str(store), "--port"],
        home,
        "the dashboard",
    )


def serve_command(command: list[str], home: Path, what: str) -> tuple[subprocess.Popen[bytes], str]:
    """Start ``command`` followed by a free port (a Streamlit server), with ``home`` as its
    HOME, and wait until it answers (``what`` names it if it does not): the process and its
    address."""
    port = _free_port()
    environment = dict(os.environ, HOME=str(home), STREAMLIT_SERVER_FILE_WATCHER_TYPE="none")
    process = subprocess.Popen(
        [*command, str(port)],
        env=environment,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
                return process, f"http://127.0.0.1:{port}/"
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit(f"{what} did not start")


STATS_CHARTS = (
    "chart_nil",
    "chart_accuracy",
    "chart_wins",
    "chart_bags_per_hand",
    "chart_final_scores",
    "chart_hand_points",
)
"""The keys of the six charts of the Corpus stats page."""


WAIT_MS = 1_800_000
"""How long a view may take before the benchmark gives up on it (a million games counted
cold on a loaded machine take minutes)."""


def _drawn(page: Any, key: str) -> None:
    """Wait until the chart of that key has drawn its SVG and its traces."""
    page.locator(f".st-key-{key} g.trace").first.wait_for(state="attached", timeout=WAIT_MS)


def _views(page: Any, url: str) -> tuple[float, float, float]:
    """Seconds from opening ``url`` to the Replay page drawn (its board), and to its chart
    drawn; then, once the page has settled (what a reader does), from a click on Corpus
    stats in the page's navigation to every chart of that page drawn."""
    start = time.perf_counter()
    page.goto(url, wait_until="domcontentloaded")
    page.get_by_text(re.compile(r"^Step 0 of \d+")).wait_for(state="visible", timeout=WAIT_MS)
    replay = time.perf_counter() - start
    _drawn(page, "chart_replay_scores")
    settled = time.perf_counter() - start
    start = time.perf_counter()
    page.get_by_role("link", name="Corpus stats").click()
    for key in STATS_CHARTS:
        _drawn(page, key)
    return replay, settled, time.perf_counter() - start


def browser_figures(store: Path) -> dict[str, Any]:
    """The dashboard's first views in chromium, cold then warm."""
    if not shutil.which(CHROMIUM):
        return {"skipped": f"no chromium at {CHROMIUM}"}
    from playwright.sync_api import sync_playwright

    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as scratch, sync_playwright() as driver:
        browser = driver.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        process, url = _serve(store, Path(scratch))
        try:
            for when in ("cold", "warm"):
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                replay, settled, stats = _views(page, url)
                page.close()
                figures[f"{when}_replay_s"] = replay
                figures[f"{when}_replay_chart_s"] = settled
                figures[f"{when}_stats_s"] = stats
        finally:
            process.terminate()
            process.wait(timeout=10)
            browser.close()
    return figures


def markdown(results: dict[str, Any]) -> str:
    ingest = results["ingest"]
    view = results["browser"]

    def met(ok: bool) -> str:
        return "yes" if ok else "no"

    made = (
        f", the first {results['base']:,} of each simulated and repeated under the ids of the rest"
        if results.get("base")
        else ""
    )
    lines = [
        f"Run on {results['when']} ({results['machine']}), {results['games']:,} games "
        f"({ingest['corpus_mb']:,.0f} MB), half of each variant{made}."
        + (
            f" The machine's load average was {results['load_start']:.1f} at the start and "
            f"{results['load_end']:.1f} at the end (work sharing its cores slows every figure)."
            if "load_end" in results
            else ""
        ),
        "",
        "| target | measured | met |",
        "| --- | --- | --- |",
        f"| ingest >= {TARGETS['ingest_ratio']} x validate (--jobs 1) | "
        f"{ingest['ingest_ratio']:.2f} "
        f"({ingest['validate_s']:.1f} s / {ingest['ingest_s']:.1f} s) | "
        f"{met(ingest['ingest_ratio'] >= TARGETS['ingest_ratio'])} |",
        f"| re-ingest unchanged <= 2 % of the first | {ingest['reingest_share']:.1%} "
        f"({ingest['reingest_s']:.2f} s) | "
        f"{met(ingest['reingest_share'] <= TARGETS['reingest_share'])} |",
        f"| query Nil success by player <= 1 s | {results['query']['query_s']:.2f} s "
        f"(the whole command; the query alone {results['query']['query_alone_s']:.2f} s) | "
        f"{met(results['query']['query_s'] <= TARGETS['query_s'])} |",
        f"| peak memory ingesting {ingest['peak_corpus_mb']:,.0f} MB <= 300 MB | "
        f"{ingest['peak_mb']:.0f} MB | {met(ingest['peak_mb'] <= TARGETS['peak_mb'])} |",
    ]
    if "skipped" in view:
        lines.append(f"| dashboard first views | skipped: {view['skipped']} | - |")
    else:
        for when in ("cold", "warm"):
            replay, stats = view[f"{when}_replay_s"], view[f"{when}_stats_s"]
            chart = view[f"{when}_replay_chart_s"]
            if when == "cold":
                lines.append(
                    f"| dashboard, cold (no target): Replay drawn, then Corpus stats drawn | "
                    f"{replay:.1f} s (its chart {chart:.1f} s), {stats:.1f} s | - |"
                )
                continue
            lines.append(
                f"| dashboard, warm: Replay's board drawn <= {TARGETS['board_s']:.0f} s | "
                f"{replay:.1f} s (its chart {chart:.1f} s) | "
                f"{met(replay <= TARGETS['board_s'])} |"
            )
            lines.append(
                f"| dashboard, warm: Corpus stats drawn <= {TARGETS['stats_s']:.0f} s | "
                f"{stats:.1f} s | {met(stats <= TARGETS['stats_s'])} |"
            )
    return "\n".join(lines)


def write_docs(text: str, large: bool) -> None:
    """Replace the part of docs/performance.md between its store bench markers."""
    replace_block(DOCS, "store-bench-large" if large else "store-bench", text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="4,000 games")
    size.add_argument("--large", action="store_true", help="1,000,000 games")
    size.add_argument("--games", type=int, metavar="N", help="N games")
    parser.add_argument(
        "--base",
        type=int,
        metavar="B",
        help="simulate only the first B games of each variant and repeat them",
    )
    parser.add_argument(
        "--jobs", type=int, default=0, help="processes simulating the corpus (0: one per core)"
    )
    parser.add_argument("--write-docs", action="store_true", help="put the figures in docs/")
    arguments = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    games = 4_000 if arguments.quick else 1_000_000 if arguments.large else 100_000
    games = arguments.games or games
    folder = corpus(games, arguments.jobs, arguments.base)
    results: dict[str, Any] = {
        "when": time.strftime("%Y-%m-%d %H:%M"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}",
        "games": games,
        "base": arguments.base if arguments.base and arguments.base < games // 2 else None,
        "load_start": os.getloadavg()[0],
    }

    def save(stage: str, figures: Any) -> None:
        """Keep the figures so far (a long run stopped early keeps what it measured)."""
        results[stage] = figures
        results["load_end"] = os.getloadavg()[0]
        (OUT / "store.json").write_text(json.dumps(results, indent=2) + "\n")
        print(f"{stage}: {json.dumps(figures)}", file=sys.stderr)

    with tempfile.TemporaryDirectory(dir=OUT) as scratch:
        store = Path(scratch) / "store"
        ingest = ingest_figures(folder, store, arguments.quick)
        save("ingest", ingest)
        save("query", query_figures(store))
        save("browser", browser_figures(store))
        validate_figures(folder, ingest)
        save("ingest", ingest)
    text = markdown(results)
    print(text)
    if arguments.write_docs:
        write_docs(text, arguments.large)


if __name__ == "__main__":
    main()
