"""The dashboard in a real browser: ``spades-replay dashboard`` serving the fixtures (and a
record whose player name and game id try to inject Markdown and HTML), driven in Debian's
chromium by Playwright.

Each page must render, every chart must really draw (plotly's SVG, with its traces), stepping
must change the trick shown, a bad upload must show its error, and the browser must report no
page error. A screenshot of each page is saved under test-artifacts/screenshots/.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson
import pytest

from .conftest import FIXTURES, INVALID_FIXTURES, ROOT, fixture_records

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = "/usr/bin/chromium"
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SERVE = [sys.executable, "-m", "spades_replay", "dashboard"]
HOSTILE_NAME = "**Eve** [click](https://evil.example) <b>bold</b>"

if not shutil.which(CHROMIUM):
    pytest.skip(
        f"BROWSER TESTS SKIPPED: no Debian chromium at {CHROMIUM} "
        "(apt-get install -y chromium; CI installs it in .ci/run)",
        allow_module_level=True,
    )
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
expect.set_options(timeout=60_000)  # the first page also waits for the data to load


def _shown(text: str) -> str:
    """Untrusted text as the page shows it: as is, with invisible word joiners that keep it
    from looking like an address (see spades_replay.dashboard.markup.md)."""
    return text.replace(":", ":\u2060").replace("@", "@\u2060").replace(".", "\u2060.")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_healthy(url: str, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the dashboard exited early with code {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200 and response.read().strip() == b"ok":
                    return
        except OSError:
            pass
        time.sleep(0.25)
    raise TimeoutError(f"{url} not healthy after {timeout} s")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``spades-replay dashboard`` on a hostile record and the fixtures; its address."""
    home = tmp_path_factory.mktemp("home")
    hostile = tmp_path_factory.mktemp("records") / "hostile.json"
    record = orjson.loads((FIXTURES / "two-player" / "mercy.json").read_bytes())
    record["players"][0] = {"name": HOSTILE_NAME}
    record["game_id"] = "[evil](https://evil.example)"
    hostile.write_bytes(orjson.dumps(record))
    port = _free_port()
    environment = dict(
        os.environ,
        HOME=str(home),
        STREAMLIT_SERVER_FILE_WATCHER_TYPE="none",
        STREAMLIT_BROWSER_GATHER_USAGE_STATS="false",
    )
    log_path = home / "dashboard.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [*SERVE, "--port", str(port), str(hostile), "fixtures"],
            cwd=ROOT,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            _wait_healthy(f"http://127.0.0.1:{port}/_stcore/health", process)
            yield f"http://127.0.0.1:{port}/"
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
    print(log_path.read_text())


@dataclass
class Browser:
    """The browser page on the dashboard, and the page errors it reported."""

    page: Any
    errors: list[str] = field(default_factory=list)

    def open(self, url: str) -> Any:
        """Load ``url`` (a new session of the app) and wait for the sidebar's summary."""
        self.page.goto(url, wait_until="domcontentloaded")
        summary = re.compile(r"\d+ valid game\(s\), \d+ complete hand")
        expect(self.page.get_by_text(summary)).to_be_visible()
        return self.page

    def settled(self) -> Any:
        """Wait until the app's script has finished its run, as a reader waits for the page
        before the next click (a click during a run may land on a widget of the run before)."""
        app = self.page.get_by_test_id("stApp")
        expect(app).to_have_attribute("data-test-script-state", "notRunning")
        return self.page

    def screenshot(self, name: str) -> None:
        """Save a screenshot of the page as it is now."""
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.page.screenshot(path=str(path))
        print(f"screenshot: {path}")


@pytest.fixture(scope="module")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    """One chromium, with a new empty profile, for the module (launching it, and loading
    plotly's script into it, are the slow parts)."""
    with sync_api.sync_playwright() as driver:
        context = driver.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("profile")),
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1400, "height": 1000},
            timeout=60_000,
        )
        try:
            page = context.pages[0] if context.pages else context.new_page()
            page.set_default_timeout(60_000)
            browser = Browser(page)
            page.on("pageerror", lambda error: browser.errors.append(str(error)))
            yield browser
        finally:
            context.close()


@pytest.fixture
def browser(chromium: Browser) -> Iterator[Browser]:
    """The browser for one test: no page error may happen during it."""
    chromium.errors.clear()
    yield chromium
    assert chromium.errors == []


def _plots_drew(page: Any, traces: list[int]) -> None:
    """Every plotly chart drew its SVG with the expected number of traces."""
    plots = page.locator(".js-plotly-plot")
    expect(plots).to_have_count(len(traces))
    for index, count in enumerate(traces):
        plot = plots.nth(index)
        plot.scroll_into_view_if_needed()
        expect(plot.locator("svg.main-svg").first).to_be_visible()
        expect(plot.locator("g.trace")).to_have_count(count)


def test_replay_steps_through_a_hand_with_the_cards_in_colour(
    server: str, browser: Browser
) -> None:
    page = browser.open(server)
    expect(page.get_by_role("heading", name="Replay")).to_be_visible()
    expect(page.get_by_text(re.compile(r"^Step 0 of \d+"))).to_be_visible()
    # the hostile name and game id are shown as text, and make no link
    expect(page.get_by_text(f"{_shown(HOSTILE_NAME)} (seat 0)").first).to_be_visible()
    expect(page.get_by_text(_shown("[evil](https://evil.example)")).first).to_be_visible()
    assert page.locator('a[href*="evil.example"]').count() == 0
    assert page.locator("main b").count() == 0

    browser.settled().get_by_role("button", name="Next trick").click()
    expect(page.get_by_text("No card played yet.")).to_be_visible()
    browser.settled().get_by_role("button", name="Next trick").click()
    expect(page.get_by_text(re.compile(r"^Trick 1, led by"))).to_contain_text("Won by")
    browser.settled().get_by_role("button", name="Next card").click()
    trick = page.get_by_text(re.compile(r"^Trick 2, led by"))
    expect(trick).to_contain_text("Winning so far")
    # the first card of trick 2 cost its player a trick, double dummy (analysed on the fly):
    # marked beside the card, and its alternatives open on demand
    expect(trick.locator("strong", has_text="-1")).to_be_visible()
    expect(page.get_by_text(re.compile(r"it cost 1 trick\(s\)"))).to_be_visible()
    expect(page.get_by_text(re.compile(r"double-dummy par \d+")).first).to_be_visible()
    page.get_by_text("Best alternatives: every legal card of this play with its value").click()
    alternatives = page.get_by_test_id("stDataFrame").filter(has_text="played")
    expect(alternatives).to_be_visible()
    expect(alternatives).to_contain_text("best")
    browser.screenshot("replay")
    # after a toggle far down the page, a select box higher up takes its first click as a
    # mere focus change (Streamlit's, seen in a bare app too): click elsewhere first
    page.get_by_role("heading", name="Replay").click()

    hearts = page.locator("main strong", has_text="♥").first
    spades = page.locator("main strong", has_text="♠").first
    red = hearts.evaluate("element => getComputedStyle(element).color")
    black = spades.evaluate("element => getComputedStyle(element).color")
    red_part, green_part, _ = (int(value) for value in re.findall(r"\d+", red)[:3])
    assert red_part > 150 > green_part, red
    assert max(int(value) for value in re.findall(r"\d+", black)[:3]) < 100, black

    # a hand picked in the browser sticks, and starts from the deal
    page.get_by_test_id("stSelectbox").filter(has_text="Jump to hand").click()
    page.get_by_role("option", name="Hand 2 of 14").click()
    expect(page.get_by_text(re.compile(r"^Step 0 of \d+"))).to_be_visible()
    expect(page.get_by_text("Going into hand 2:", exact=False)).to_be_visible()

    slider = page.get_by_role("slider")
    slider.focus()
    page.keyboard.press("End")
    expect(page.get_by_text(re.compile(r"^Step (\d+) of \1"))).to_be_visible()
    # the score table: a canvas grid, its cells in an accessible table behind it
    scores = page.get_by_test_id("stDataFrame").filter(has_text="hand total")
    expect(scores).to_be_visible()


def test_game_charts_really_draw(server: str, browser: Browser) -> None:
    page = browser.open(server + "charts")
    expect(page.get_by_role("heading", name="Game charts")).to_be_visible()
    # the hostile game (mercy rules): running score, bags with penalties, points by part
    _plots_drew(page, [2, 3, 10])
    expect(page.get_by_text("mercy -200")).to_be_visible()
    browser.screenshot("charts")


def test_corpus_stats_really_draw(server: str, browser: Browser) -> None:
    page = browser.open(server + "stats")
    expect(page.get_by_role("heading", name="Corpus stats")).to_be_visible()
    _plots_drew(page, [2, 3, 1, 1, 2, 2])
    browser.screenshot("stats")


def test_validate_shows_a_bad_uploads_error_and_opens_a_good_one(
    server: str, browser: Browser
) -> None:
    page = browser.open(server)
    page.get_by_role("link", name="See them on the Validate page").click()
    expect(page.get_by_role("heading", name="Validate")).to_be_visible()
    # the fixtures' records, and the hostile one the server was given too
    invalid = f"{len(INVALID_FIXTURES)} of {fixture_records() + 1} record(s) are invalid"
    expect(page.get_by_text(invalid)).to_be_visible()
    uploader = page.get_by_test_id("stFileUploader").filter(has_text="Records to check")
    upload = uploader.locator('input[type="file"]')
    upload.set_input_files(
        files=[{"name": "bad.json", "mimeType": "application/json", "buffer": b"{oops"}]
    )
    expect(
        page.get_by_text(f"{_shown('bad.json')}: 1 of 1 record(s) invalid, 0 valid.")
    ).to_be_visible()
    expect(page.get_by_text("format.json").first).to_be_visible()
    browser.screenshot("validate")

    good = (FIXTURES / "four-player" / "pooled-nil.json").read_bytes()
    upload.set_input_files(
        files=[{"name": "good.json", "mimeType": "application/json", "buffer": good}]
    )
    expect(page.get_by_text(f"{_shown('good.json')}: 1 record(s), all valid.")).to_be_visible()
    page.get_by_role("button", name="Open in Replay").click()
    expect(page.get_by_role("heading", name="Replay")).to_be_visible()
    expect(page.get_by_text(_shown("upload good.json"))).to_be_visible()
    # the game picked stays picked on the way to another page
    page.get_by_role("link", name="Game charts").click()
    expect(page.get_by_role("heading", name="Game charts")).to_be_visible()
    expect(page.get_by_text(_shown("upload good.json"))).to_be_visible()
    _plots_drew(page, [2, 3, 10])


def test_the_paths_are_served_from_a_cache_store(server: str, browser: Browser) -> None:
    """``dashboard PATH...`` reads the paths into a store under the cache directory (the
    server's HOME here) and shows that store; its game picker finds a game by search."""
    page = browser.open(server)
    expect(page.get_by_text("The store")).to_be_visible()
    expect(page.get_by_text(re.compile(r"\.cache/spades-replay/stores/"))).to_be_visible()
    # the fixtures' valid records, and the hostile one the server was given too
    valid = fixture_records() - len(INVALID_FIXTURES) + 1
    expect(
        page.get_by_text(re.compile(rf"{valid} valid game\(s\), \d+ complete hand"))
    ).to_be_visible()
    browser.screenshot("store")


def test_a_large_store_pages_and_searches_its_games(
    tmp_path_factory: pytest.TempPathFactory, browser: Browser
) -> None:
    from spades_replay.store.ingest import ingest

    folder = tmp_path_factory.mktemp("large")
    (folder / "many.jsonl").write_bytes(
        (FIXTURES / "corpus" / "four-player.jsonl").read_bytes() * 6
    )
    ingest([folder / "many.jsonl"], folder / "store")
    port = _free_port()
    environment = dict(os.environ, HOME=str(folder), STREAMLIT_SERVER_FILE_WATCHER_TYPE="none")
    process = subprocess.Popen(
        [*SERVE, "--port", str(port), "--store", str(folder / "store")],
        cwd=ROOT,
        env=environment,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.1:{port}/"
        _wait_healthy(url + "_stcore/health", process)
        page = browser.open(url)
        expect(page.get_by_text("Page (of 2)")).to_be_visible()
        expect(page.get_by_text("150 game(s) found; 100 a page.")).to_be_visible()
        search = page.get_by_role("textbox", name="Search games")
        search.fill("s12-000007")
        search.press("Enter")
        expect(page.get_by_text("6 game(s) found; 100 a page.")).to_be_visible()
        expect(page.get_by_text(re.compile(r"^Step 0 of \d+"))).to_be_visible()
        browser.screenshot("store-search")
    finally:
        process.terminate()
        process.wait(timeout=10)
