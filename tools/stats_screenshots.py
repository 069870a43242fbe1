"""Screenshots of the dashboard's stats pages for docs/stats.md and docs/dashboard.md:
``.venv/bin/python tools/stats_screenshots.py``.

Serves ``spades-replay dashboard fixtures/corpus`` (the sample corpora) on a free port,
opens each page in Debian's chromium (``/usr/bin/chromium``, driven by Playwright), waits
for its charts, and writes a full-page PNG of it to ``docs/images/``: Corpus stats, the Game
charts of the first game, the Leaderboard, the Player page of Beth, and the What-if page with
the target lowered to 300.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT / "docs" / "images"
CHROMIUM = "/usr/bin/chromium"


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


def _settle(page: object, charts: int) -> None:
    plots = page.locator(".js-plotly-plot")  # type: ignore[attr-defined]
    expect(plots).to_have_count(charts, timeout=120_000)
    for index in range(charts):
        plot = plots.nth(index)
        plot.scroll_into_view_if_needed()
        expect(plot.locator("svg.main-svg").first).to_be_visible(timeout=120_000)
    app = page.get_by_test_id("stApp")  # type: ignore[attr-defined]
    expect(app).to_have_attribute("data-test-script-state", "notRunning", timeout=120_000)


def main() -> None:
    expect.set_options(timeout=120_000)  # a loaded machine draws a page slowly
    IMAGES.mkdir(parents=True, exist_ok=True)
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
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(120_000)
            page.goto(base + "stats")
            _settle(page, 6)
            page.screenshot(path=str(IMAGES / "stats.png"), full_page=True)
            page.goto(base + "charts")
            _settle(page, 3)
            page.screenshot(path=str(IMAGES / "charts.png"), full_page=True)
            page.goto(base + "leaderboard")
            _settle(page, 2)
            page.screenshot(path=str(IMAGES / "leaderboard.png"), full_page=True)
            page.get_by_label("A player's page (type to search)").click()
            page.get_by_role("option", name="Beth").first.click()
            page.get_by_role("button", name="Open her page").click()
            expect(page.get_by_role("heading", name="Player")).to_be_visible()
            _settle(page, 2)
            page.screenshot(path=str(IMAGES / "player.png"), full_page=True)
            page.goto(base + "whatif")
            _settle(page, 1)
            target = page.get_by_role("spinbutton", name="Target score").first
            target.fill("300")
            target.press("Enter")
            expect(page.get_by_text("Games whose winner changes")).to_be_visible()
            _settle(page, 2)
            page.screenshot(path=str(IMAGES / "whatif.png"), full_page=True)
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
    for name in ("stats", "charts", "leaderboard", "player", "whatif"):
        print(IMAGES / f"{name}.png")


if __name__ == "__main__":
    main()
