"""The replay board benchmark: ``./dev bench board [--quick | --games N] [--write-docs]``.

The dashboard on a store of 100,000 games (``--quick``: 10,000; ``--games``: N), the store of
``benchmarks/whatif.py`` (a simulated corpus's lines repeated with distinct game ids, built
once and kept in ``benchmarks/out/``), driven in Debian's chromium by Playwright:

- **the first board**: from opening the address to the board drawn, timed in the page (from
  the navigation's start to the frame that paints the board's table, :data:`PAINTED`) and,
  beside it, as the driver sees it (the board's step shown, which it sees later where the
  page's main thread is busy after the paint), cold (a new server, its first session) and
  warm (a new browser context on the same server: a new session), on the app's address (the
  store's first game) and on a link to a position of a four-player game (target for warm,
  painted: <= 1.5 s). Warm is measured once the server has
  settled (:func:`settle`: the work a server starts when it first opens a store, Corpus
  stats' count and What-if's preparation of every game, runs in the background for half a
  minute of both cores), and on the app's address also before, while that work runs;
- **a step**: real key presses (→, ←, ↓, ↑, M, Page Down, Page Up, End, Home), each timed in
  the page from the key event's time stamp to the frame after the board is redrawn (a
  ``requestAnimationFrame``, then a task: the frame is painted), on a two-player game with
  every hand analysed and on a four-player game with the hand shown analysed (target p95
  <= 50 ms);
- **the baselines, in the same run**: for a step, the server round trip that follows it (the
  board tells Python its position; that run of the board's fragment), from the report sent
  to the run finished in the page, on the two-player game (every hand analysed, so nothing
  else runs): what every step would wait for if it asked the server. For the first board,
  an empty Streamlit page (one line of text, served by the same Streamlit), opened the same
  way: what any Streamlit page costs the browser before the app draws anything.

Results are printed and written to ``benchmarks/out/board.json``; with ``--write-docs`` they
also go in docs/performance.md between its ``board-bench`` markers. Without chromium it stops,
saying so.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pages import replace_block
from run import process_tree
from store import CHROMIUM, _serve, serve_command
from whatif import BASE_GAMES, OUT, store

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "performance.md"
STEP_TARGET_MS = 50.0
WARM_TARGET_S = 1.5
REPORT_DELAY_MS = 200
"""The board's wait after the last step before it tells Python (board.js)."""

TWO_PLAYER = "whatif-0000000"
FOUR_PLAYER = f"whatif-{BASE_GAMES:07d}"
"""The store's first game (two-player) and its first four-player game (the base corpus holds
:data:`whatif.BASE_GAMES` games of each variant, two-player first)."""
LINK = f"?game={FOUR_PLAYER}&hand=3&step=20"
"""The link to a position of the first board's second measure."""

KEYS = (
    ["ArrowRight"] * 30
    + ["ArrowDown"] * 8
    + ["ArrowLeft"] * 10
    + ["ArrowUp"] * 5
    + ["m"] * 4
    + ["Shift+M"] * 2
    + ["End", "Home"]
    + ["PageDown"] * 4
    + ["ArrowRight"] * 10
    + ["PageUp"] * 2
)
"""The keys pressed on each game, in order."""

TIMER = """() => {
  window.__board = { steps: [], trips: [], reported: null };
  window.addEventListener("keydown", (event) => {
    const start = event.timeStamp;
    const key = event.key;
    requestAnimationFrame(() => setTimeout(() => {
      window.__board.steps.push([key, performance.now() - start]);
    }, 0));
  }, true);
  const app = document.querySelector('[data-testid="stApp"]');
  new MutationObserver(() => {
    const state = app.getAttribute("data-test-script-state");
    if (state === "notRunning" && window.__board.reported !== null) {
      window.__board.trips.push(performance.now() - window.__board.reported);
      window.__board.reported = null;
    }
  }).observe(app, { attributes: true, attributeFilter: ["data-test-script-state"] });
}"""
"""Installed in the page before the keys: times each key event to the painted frame after
it, and each server round trip from the board's report to the run finished."""


def _drawn(page: Any) -> None:
    page.locator(".board[data-step]").wait_for(state="attached", timeout=300_000)
    page.locator(".board .table").wait_for(state="visible", timeout=300_000)


def _settled(page: Any) -> None:
    app = page.get_by_test_id("stApp")
    deadline = time.monotonic() + 300
    while app.get_attribute("data-test-script-state") != "notRunning":
        if time.monotonic() > deadline:
            raise SystemExit("the page did not settle")
        time.sleep(0.05)


PAINTED = """(selector) => {
  const roots = [document];
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) {
    const root = attach.call(this, init);
    roots.push(root);
    return root;
  };
  window.__painted = null;
  const seen = new IntersectionObserver((entries) => {
    if (window.__painted === null && entries.some((entry) => entry.isIntersecting)) {
      window.__painted = performance.now();
      seen.disconnect();
    }
  });
  let watched = null;
  const look = () => {
    if (window.__painted !== null) {
      return;
    }
    if (watched === null || !watched.isConnected) {
      for (const root of roots) {
        const found = root.querySelector(selector);
        if (found) {
          watched = found;
          seen.observe(found);
          break;
        }
      }
    }
    requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
}"""
"""Installed in a page before its own scripts: finds, at each frame, the first element that
matches ``selector`` (in the document or in a shadow root) and notes, in milliseconds from
the navigation's start, when it is first seen in the viewport: an ``IntersectionObserver``'s
answer, which the browser gives after the frame that lays the element out and paints it,
without forcing a layout of its own (reading the element's size at each frame did, a
twentieth of a second of the page's work)."""

BOARD_SELECTOR = ".board .table"
EMPTY_SELECTOR = '[data-testid="stMarkdownContainer"] p'


def _opened(
    browser: Any, url: str, shown: Callable[[Any], None], selector: str
) -> tuple[float, float]:
    """Open ``url`` in a new browser context (a new session): the seconds to ``shown``
    returning on its page (the driver seeing it), and the seconds from the navigation's
    start to the frame that painted the first element matching ``selector`` (timed in the
    page, :data:`PAINTED`). The driver sees it later where the page's main thread is busy
    after the paint (the run that follows the board saying it is drawn)."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.add_init_script(f"({PAINTED})({json.dumps(selector)})")
    page = context.new_page()
    start = time.perf_counter()
    page.goto(url, wait_until="commit")
    shown(page)
    seen = time.perf_counter() - start
    page.wait_for_function("() => window.__painted !== null", timeout=300_000)
    painted = page.evaluate("() => window.__painted") / 1000
    context.close()
    return seen, painted


def _medians(openings: list[tuple[float, float]]) -> tuple[float, float]:
    """The median of each figure of :func:`_opened` over several openings."""
    return (
        statistics.median(seen for seen, _ in openings),
        statistics.median(painted for _, painted in openings),
    )


def _cpu_seconds(pid: int) -> float | None:
    """The CPU seconds used so far by process ``pid`` and its descendants (Linux's /proc;
    one that ends meanwhile is left out); ``None`` where there is no /proc to read, or no
    such process."""
    if not os.path.isdir(f"/proc/{pid}/task"):
        return None
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for each in process_tree(pid):
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            fields = Path(f"/proc/{each}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


SETTLED_SHARE = 0.05
"""The server has settled when it uses less than this share of a core over
:data:`SETTLED_WINDOW_S`."""
SETTLED_WINDOW_S = 3.0


def settle(pid: int, limit: float = 600.0) -> float:
    """Wait until the server ``pid`` has done the work it starts when a store is first opened
    (Corpus stats' count and What-if's preparation of every game, in the background: half
    a minute of both cores on 100,000 games): until it is idle. The seconds waited (where
    there is no /proc to read, a fixed minute)."""
    start = time.monotonic()
    before = _cpu_seconds(pid)
    if before is None:
        time.sleep(60)
        return time.monotonic() - start
    while time.monotonic() - start < limit:
        time.sleep(SETTLED_WINDOW_S)
        now = _cpu_seconds(pid)
        if now is None or now - before < SETTLED_SHARE * SETTLED_WINDOW_S:
            break
        before = now
    return time.monotonic() - start


def first_board(browser: Any, url: str) -> tuple[float, float]:
    """Open ``url`` in a new browser context (a new session): the seconds to the board seen
    drawn by the driver, and to the frame that painted it (:func:`_opened`)."""
    return _opened(browser, url, _drawn, BOARD_SELECTOR)


EMPTY_TEXT = "An empty Streamlit page"
EMPTY_APP = f"import streamlit as st\n\nst.write({EMPTY_TEXT!r})\n"
"""The baseline's app: one line of text."""


def _empty_shown(page: Any) -> None:
    page.get_by_text(EMPTY_TEXT).wait_for(timeout=300_000)


def empty_page(browser: Any, folder: Path) -> tuple[float, float]:
    """The medians of three openings, each as :func:`first_board` opens the board, of an
    empty Streamlit page served in ``folder``: seconds to its text seen, and painted."""
    app = folder / "empty.py"
    app.write_text(EMPTY_APP, encoding="utf-8")
    command = [sys.executable, "-m", "streamlit", "run", str(app), "--server.headless=true"]
    command += ["--browser.gatherUsageStats=false", "--server.port"]
    process, url = serve_command(command, folder, "the empty Streamlit page's server")
    try:
        times = [_opened(browser, url, _empty_shown, EMPTY_SELECTOR) for _ in range(4)]
        # the first opening is the cold one, as for the board
        return _medians(times[1:])
    finally:
        process.terminate()
        process.wait(timeout=20)


def steps(browser: Any, url: str, every_hand: bool) -> tuple[list[float], list[float]]:
    """Press :data:`KEYS` on the board at ``url`` (once every hand is analysed, when
    ``every_hand``), each after the round trip of the one before: the step latencies (ms)
    and the round trips (ms)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    page.goto(url)
    _drawn(page)
    board = page.locator(".board")
    if every_hand:
        hands = page.locator(".hand-label").inner_text().split()[-1]
        deadline = time.monotonic() + 600
        while board.get_attribute("data-analysed") != hands:
            if time.monotonic() > deadline:
                raise SystemExit("the game's hands were not analysed in time")
            time.sleep(0.2)
    _settled(page)
    page.evaluate(TIMER)
    page.locator(".table").click()
    for key in KEYS:
        before = board.get_attribute("data-step"), board.get_attribute("data-hand")
        trips = page.evaluate("() => window.__board.trips.length")
        page.keyboard.press(key)
        after = board.get_attribute("data-step"), board.get_attribute("data-hand")
        if after != before:
            # the board tells Python REPORT_DELAY_MS after the step: time the run from then
            page.evaluate(
                f"() => {{ window.__board.reported = performance.now() + {REPORT_DELAY_MS}; }}"
            )
            with contextlib.suppress(PlaywrightTimeout):
                # (a report the server coalesced with the next gives no run of its own)
                page.wait_for_function(
                    f"() => window.__board.trips.length > {trips}", timeout=10_000
                )
        time.sleep(0.05)
    timed = page.evaluate("() => window.__board")
    context.close()
    return [ms for _, ms in timed["steps"]], list(timed["trips"])


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def measure(games: int) -> dict[str, Any]:
    """Every figure of the run."""
    if not shutil.which(CHROMIUM):
        raise SystemExit(f"no chromium at {CHROMIUM}: apt-get install -y chromium")
    from playwright.sync_api import sync_playwright

    directory = store(games)
    result: dict[str, Any] = {
        "when": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_version()}",
        "games": games,
        "load_before": os.getloadavg()[0],
    }
    with tempfile.TemporaryDirectory() as scratch, sync_playwright() as driver:
        browser = driver.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        process, url = _serve(directory, Path(scratch))
        try:
            print("first board, cold and warm ...", file=sys.stderr)
            result["cold_s"], result["cold_paint_s"] = first_board(browser, url)
            # a new session while the server still does its start-up work, then once done
            result["busy_warm_s"], result["busy_warm_paint_s"] = _medians(
                [first_board(browser, url) for _ in range(3)]
            )
            print("the server's start-up work ...", file=sys.stderr)
            result["settle_s"] = settle(process.pid)
            result["warm_s"], result["warm_paint_s"] = _medians(
                [first_board(browser, url) for _ in range(3)]
            )
            result["cold_link_s"], result["cold_link_paint_s"] = first_board(browser, url + LINK)
            result["warm_link_s"], result["warm_link_paint_s"] = _medians(
                [first_board(browser, url + LINK) for _ in range(3)]
            )
            print("an empty Streamlit page, the baseline ...", file=sys.stderr)
            result["empty_s"], result["empty_paint_s"] = empty_page(browser, Path(scratch))
            result["warm_ratio"] = result["warm_paint_s"] / result["empty_paint_s"]
            latencies: list[float] = []
            trips: list[float] = []
            for name, game, every_hand in (
                ("two-player", TWO_PLAYER, True),
                ("four-player", FOUR_PLAYER, False),
            ):
                print(f"steps on the {name} game ...", file=sys.stderr)
                address = f"{url}?game={game}&hand=1&step=0"
                found, round_trips = steps(browser, address, every_hand)
                result[f"{name}_p95_ms"] = percentile(found, 0.95)
                latencies += found
                if every_hand:
                    # (a four-player game's page also runs while a hand is analysed: those
                    # runs are no round trip of a step)
                    trips += round_trips
            result["steps"] = len(latencies)
            result["p50_ms"] = percentile(latencies, 0.5)
            result["p95_ms"] = percentile(latencies, 0.95)
            result["max_ms"] = max(latencies)
            result["trips"] = len(trips)
            result["trip_median_ms"] = statistics.median(trips)
            result["ratio"] = result["trip_median_ms"] / result["p95_ms"]
        finally:
            process.terminate()
            process.wait(timeout=20)
            browser.close()
    result["load_after"] = os.getloadavg()[0]
    return result


def markdown(result: dict[str, Any]) -> str:
    """The figures as the docs show them."""

    def met(ok: bool) -> str:
        return "yes" if ok else "no"

    def opening(name: str) -> str:
        # painted in the page, then seen by the driver
        return f"{result[name + '_paint_s']:.2f} s ({result[name + '_s']:.2f} s)"

    return "\n".join(
        [
            f"Run on {result['when']} ({result['machine']}), a store of {result['games']:,} "
            f"games. The machine's load average was {result['load_before']:.1f} before the run "
            f"and {result['load_after']:.1f} after it (other work sharing its two cores slows "
            "every figure).",
            "",
            "| figure | measured | target | met |",
            "| --- | --- | --- | --- |",
            f"| a step, key press to board drawn, p95 ({result['steps']} steps) | "
            f"{result['p95_ms']:.1f} ms (p50 {result['p50_ms']:.1f}, max "
            f"{result['max_ms']:.1f}; two-player {result['two-player_p95_ms']:.1f}, "
            f"four-player {result['four-player_p95_ms']:.1f}) | <= {STEP_TARGET_MS:g} ms | "
            f"{met(result['p95_ms'] <= STEP_TARGET_MS)} |",
            f"| the server round trip after a step, median ({result['trips']}), the baseline | "
            f"{result['trip_median_ms']:.0f} ms: {result['ratio']:.0f} x the step's p95 | | |",
            f"| first board, cold (a new server) | {opening('cold')} | | |",
            "| an empty Streamlit page, opened the same way (median of 3), the baseline | "
            f"{opening('empty')} | | |",
            "| first board, warm, during the server's start-up work (median of 3) | "
            f"{opening('busy_warm')}: "
            f"{result['busy_warm_paint_s'] / result['empty_paint_s']:.1f} x the empty page | | |",
            "| first board, warm (a new session once the server has settled: waited "
            f"{result['settle_s']:.0f} s; median of 3) | {opening('warm')}: "
            f"{result['warm_ratio']:.1f} x the empty page | <= {WARM_TARGET_S:g} s | "
            f"{met(result['warm_paint_s'] <= WARM_TARGET_S)} |",
            f"| a link to a four-player position, cold / warm | {opening('cold_link')} / "
            f"{opening('warm_link')} | <= {WARM_TARGET_S:g} s warm | "
            f"{met(result['warm_link_paint_s'] <= WARM_TARGET_S)} |",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="10,000 games")
    size.add_argument("--games", type=int, metavar="N", help="N games")
    parser.add_argument("--write-docs", action="store_true", help="update docs/performance.md")
    arguments = parser.parse_args()
    games = arguments.games or (10_000 if arguments.quick else 100_000)
    result = measure(games)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "board.json").write_text(json.dumps(result, indent=2) + "\n")
    text = markdown(result)
    print(text)
    if arguments.write_docs:
        replace_block(DOCS, "board-bench", text)


if __name__ == "__main__":
    main()
