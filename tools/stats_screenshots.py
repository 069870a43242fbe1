"""Screenshots of the dashboard's stats pages for docs/dashboard.md:
``nice -n 10 .venv/bin/python tools/stats_screenshots.py [OUT_DIR]``.

Serves ``spades-replay dashboard fixtures/corpus`` (the sample corpora) on a free port with a
temporary HOME, opens each page in Debian's chromium (``/usr/bin/chromium``, driven by
Playwright; never ``playwright install``), waits for its charts, and saves, as a PNG under
OUT_DIR (docs/images unless given), the part of the page its caption names (:data:`SHOTS`):
from one element to another of the page's main area, the sidebar left out. The window is
made as tall as the page first, so that nothing of the shot is scrolled away (Streamlit
scrolls its main area inside the window, which a full-page screenshot does not see).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import expect, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT / "docs" / "images"
CHROMIUM = "/usr/bin/chromium"
WIDTH = 1400
MARGIN = 16
"""Pixels kept above the part shot (and at its sides: the main area's padding)."""
BELOW = 6
"""Pixels kept below it: the next element starts soon after."""


def _nothing(page: Any) -> None:
    """No action before the shot."""


def _open_beth(page: Any) -> None:
    """From the Leaderboard, open Beth's page, as a reader does."""
    page.get_by_label("A player's page (type to search)").click()
    page.get_by_role("option", name="Beth").first.click()
    page.get_by_role("button", name="Open her page").click()
    expect(page.get_by_role("heading", name="Player")).to_be_visible()


def _target_300(page: Any) -> None:
    """Lower the target score to 300 and wait for every game's figures."""
    target = page.get_by_role("spinbutton", name="Target score").first
    target.fill("300")
    target.press("Enter")
    expect(page.get_by_text("Changes: target_score=300")).to_be_visible()
    expect(page.get_by_text("Games whose winner changes")).to_be_visible()


def _heading(name: str) -> Callable[[Any], Any]:
    return lambda page: page.get_by_role("heading", name=name, exact=True).first


def _chart(title: str) -> Callable[[Any], Any]:
    """The chart whose title starts with ``title``."""
    return lambda page: page.get_by_test_id("stPlotlyChart").filter(has_text=title).first


def _caption(start: str) -> Callable[[Any], Any]:
    return lambda page: page.get_by_test_id("stCaptionContainer").filter(has_text=start).first


@dataclass(frozen=True)
class Shot:
    """A screenshot: its file, the page's address, the charts it draws at first, what to do
    then, the charts to wait for after it, and the first and last elements of the part shot
    (the caption in docs/dashboard.md names that part)."""

    name: str
    path: str
    opened: int
    action: Callable[[Any], None]
    charts: int
    first: Callable[[Any], Any]
    last: Callable[[Any], Any]


SHOTS = (
    # "Corpus stats on the sample corpora: the counts, then the charts of players and games"
    Shot(
        "stats.png",
        "stats",
        6,
        _nothing,
        6,
        _heading("Corpus stats"),
        _caption("How many sides' hands scored each number of points"),
    ),
    # "The Game charts of a sample game"
    Shot(
        "charts.png",
        "charts",
        3,
        _nothing,
        3,
        _heading("Game charts"),
        _chart("Points by hand"),
    ),
    # "The Leaderboard on the sample corpora: the best player, how sure, and the table"
    Shot(
        "leaderboard.png",
        "leaderboard",
        2,
        _nothing,
        2,
        _heading("Leaderboard"),
        _caption("Rating: mu - 3 sigma"),
    ),
    # "The Player page of Beth on the sample corpora: her figures and her form"
    Shot(
        "player.png",
        "leaderboard",
        2,
        _open_beth,
        2,
        _heading("Player"),
        lambda page: (
            page.get_by_test_id("stMarkdownContainer")
            .filter(has_text="Nil and Blind Nil success over her last")
            .first
        ),
    ),
    # "The What-if page with the target lowered to 300: the game picked"
    Shot(
        "whatif.png",
        "whatif",
        1,
        _target_300,
        2,
        _heading("What-if"),
        _caption("The running score of each side as played"),
    ),
    # "Every game shown with the target lowered to 300: the games whose winner changes"
    Shot(
        "whatif-corpus.png",
        "whatif",
        1,
        _target_300,
        2,
        _heading("Every game shown, with the same changes"),
        _caption("Each player's share of her games won"),
    ),
)


def _port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait(url: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.5)
    raise SystemExit(f"the dashboard did not answer at {url}")


def _settle(page: Any, charts: int) -> None:
    """Wait for the run to end and every chart to draw."""
    app = page.get_by_test_id("stApp")
    expect(app).to_have_attribute("data-test-script-state", "notRunning")
    plots = page.locator(".js-plotly-plot")
    expect(plots).to_have_count(charts)
    for index in range(charts):
        expect(plots.nth(index).locator("svg.main-svg").first).to_be_attached()


def _box(locator: Any) -> dict[str, float]:
    box = locator.bounding_box()
    if box is None:
        raise SystemExit(f"nothing to frame: {locator}")
    return dict(box)


def _shoot(page: Any, base: str, shot: Shot, out: Path) -> Path:
    page.set_viewport_size({"width": WIDTH, "height": 1000})
    page.goto(base + shot.path)
    _settle(page, shot.opened)
    shot.action(page)
    _settle(page, shot.charts)
    main = page.get_by_test_id("stMainBlockContainer")
    content = _box(main)
    page.set_viewport_size({"width": WIDTH, "height": int(content["y"] + content["height"]) + 200})
    page.wait_for_timeout(1500)  # plotly redraws its charts at the new size
    _settle(page, shot.charts)
    area, first, last = _box(main), _box(shot.first(page)), _box(shot.last(page))
    top = first["y"] - MARGIN
    clip = {
        "x": area["x"],
        "y": top,
        "width": area["width"],
        "height": last["y"] + last["height"] + BELOW - top,
    }
    page.mouse.move(0, 0)  # no chart hovered: plotly shows its toolbar on a hovered chart
    path = out / shot.name
    page.screenshot(path=str(path), clip=clip)
    return path


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else IMAGES
    expect.set_options(timeout=120_000)  # a loaded machine draws a page slowly
    out.mkdir(parents=True, exist_ok=True)
    port = _port()
    home = tempfile.mkdtemp()
    environment = dict(
        os.environ,
        HOME=home,
        STREAMLIT_SERVER_FILE_WATCHER_TYPE="none",
        STREAMLIT_BROWSER_GATHER_USAGE_STATS="false",
    )
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "spades_replay",
            "dashboard",
            "--port",
            str(port),
            "fixtures/corpus",
        ],
        cwd=ROOT,
        env=environment,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}/"
    try:
        _wait(base + "_stcore/health")
        with sync_playwright() as driver:
            browser = driver.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
            )
            page = browser.new_page(viewport={"width": WIDTH, "height": 1000})
            page.set_default_timeout(120_000)
            for shot in SHOTS:
                print(_shoot(page, base, shot, out))
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
