"""Make the screenshots of the Replay page's board that docs/dashboard.md shows.

    .venv/bin/python tools/board_screenshots.py [OUT_DIR]

Serves the dashboard on the sample records of fixtures/ (``spades-replay dashboard``, on a
free port, with a temporary HOME), opens positions of a four-player and a two-player game in
Debian's chromium (Playwright; never ``playwright install``), and saves the board (the
component only, not the page around it; on the phone, the screen) as PNG files under
OUT_DIR (docs/images unless given): ``board.png`` (1440x900, the full view, trick 4 under
way), ``board-seat.png`` (one seat's view), ``board-draft.png`` (a two-player draft) and
``board-phone.png`` (390x844). The full views wait for the hand's analysis, so that the
marks and the par strip show, with the best cards of the play shown.
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

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
SHOTS = (
    ("board.png", 1440, 900, "game=four-player-s12-000003&hand=2&step=19", True),
    ("board-seat.png", 1440, 900, "game=four-player-s12-000003&hand=2&step=19&seat=0", False),
    ("board-draft.png", 1440, 900, "game=two-player-s11-000002&hand=1&step=9", False),
    ("board-phone.png", 390, 844, "game=four-player-s12-000003&hand=2&step=19", True),
)
"""Each screenshot: its file, the window's width and height, the address's query, and
whether to wait for the hand's double-dummy analysis (made in the server's background) and
show the best cards of the play."""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the dashboard exited with code {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.read().strip() == b"ok":
                    return
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"{url} did not answer")


def main(out: Path) -> None:
    """Serve the samples, and save every screenshot of :data:`SHOTS` under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    with tempfile.TemporaryDirectory() as home:
        environment = dict(
            os.environ,
            HOME=home,
            STREAMLIT_SERVER_FILE_WATCHER_TYPE="none",
            STREAMLIT_BROWSER_GATHER_USAGE_STATS="false",
        )
        command = [sys.executable, "-m", "spades_replay", "dashboard", "--port", str(port)]
        process = subprocess.Popen(
            [*command, "fixtures"],
            cwd=ROOT,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            _wait(f"http://127.0.0.1:{port}/_stcore/health", process)
            with sync_playwright() as driver:
                context = driver.chromium.launch_persistent_context(
                    str(Path(home) / "profile"),
                    executable_path=CHROMIUM,
                    headless=True,
                    args=["--no-sandbox", "--disable-gpu", "--no-first-run"],
                )
                page = context.new_page()
                for name, width, height, query, analysed in SHOTS:
                    page.set_viewport_size({"width": width, "height": height})
                    page.goto(f"http://127.0.0.1:{port}/?{query}")
                    board = page.locator(".board")
                    board.wait_for(timeout=120_000)
                    app = page.get_by_test_id("stApp")
                    app.wait_for(timeout=120_000)
                    deadline = time.monotonic() + 120
                    while app.get_attribute("data-test-script-state") != "notRunning":
                        if time.monotonic() > deadline:
                            raise SystemExit("the page did not finish drawing")
                        time.sleep(0.2)
                    if analysed:
                        board.locator(".par-strip").wait_for(timeout=600_000)
                        if board.locator(".best").count() == 0:
                            page.keyboard.press("b")
                    time.sleep(0.5)
                    # a phone's shot is its screen, as the reader sees it first: the table
                    # whole, the controls under it
                    shot = page if width < 600 else board
                    shot.screenshot(path=str(out / name))
                    print(out / name)
                context.close()
        finally:
            process.terminate()
            process.wait(timeout=20)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "images")
