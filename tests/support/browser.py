"""Fixtures and helpers of the browser tests: ``spades-replay dashboard`` serving the fixtures
and a hostile record (``server``), Debian's chromium driven by Playwright (``chromium``, one a
module, and ``browser``, one a test, failing the test on any page error), and checks of the
page. tests/conftest.py registers this module as a pytest plugin."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import pytest

from ..conftest import FIXTURES, ROOT

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
"""The player name of the hostile record the server serves: it tries to inject Markdown and HTML."""


def playwright() -> Any:
    """Playwright's sync API, its ``expect`` waiting up to a minute (the first page also waits
    for the data to load); where Debian's chromium or Playwright is missing, the calling test
    module (or fixture) is skipped, saying why."""
    if not shutil.which(CHROMIUM):
        pytest.skip(
            f"BROWSER TESTS SKIPPED: no Debian chromium at {CHROMIUM} "
            "(apt-get install -y chromium; CI installs it in .ci/run)",
            allow_module_level=True,
        )
    sync_api = pytest.importorskip("playwright.sync_api")
    sync_api.expect.set_options(timeout=60_000)
    return sync_api


def free_port() -> int:
    """A TCP port free on this machine now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_healthy(url: str, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    """Wait until the dashboard's health check at ``url`` answers ok; fail if it exits first."""
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


@contextlib.contextmanager
def serving(arguments: list[str], home: Path) -> Iterator[str]:
    """``spades-replay dashboard ARGUMENTS`` served on a free port, with ``home`` as its
    HOME (where its log goes, printed at the end); its address."""
    port = free_port()
    environment = dict(
        os.environ,
        HOME=str(home),
        STREAMLIT_SERVER_FILE_WATCHER_TYPE="none",
        STREAMLIT_BROWSER_GATHER_USAGE_STATS="false",
    )
    log_path = home / "dashboard.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [*SERVE, "--port", str(port), *arguments],
            cwd=ROOT,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_healthy(f"http://127.0.0.1:{port}/_stcore/health", process)
            yield f"http://127.0.0.1:{port}/"
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
    print(log_path.read_text())


LARGE_STORE_GAMES = 150
"""The games of the ``store_server``'s store: more than one page of the game picker."""


@pytest.fixture(scope="module")
def store_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``spades-replay dashboard --store DIR`` on a store of :data:`LARGE_STORE_GAMES`
    games (the four-player corpus six times: six games share each id); its address."""
    from spades_replay.store.ingest import ingest

    folder = tmp_path_factory.mktemp("large")
    corpus = (FIXTURES / "corpus" / "four-player.jsonl").read_bytes()
    (folder / "many.jsonl").write_bytes(corpus * (LARGE_STORE_GAMES // len(corpus.splitlines())))
    ingest([folder / "many.jsonl"], folder / "store")
    with serving(["--store", str(folder / "store")], folder) as url:
        yield url


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``spades-replay dashboard`` on a hostile record and the fixtures; its address."""
    home = tmp_path_factory.mktemp("home")
    hostile = tmp_path_factory.mktemp("records") / "hostile.json"
    record = orjson.loads((FIXTURES / "two-player" / "mercy.json").read_bytes())
    record["players"][0] = {"name": HOSTILE_NAME}
    record["game_id"] = "[evil](https://evil.example)"
    hostile.write_bytes(orjson.dumps(record))
    with serving([str(hostile), "fixtures"], home) as url:
        yield url


@dataclass
class Browser:
    """The browser page on the dashboard, and the page errors (and errors logged to the
    console) it reported."""

    page: Any
    errors: list[str] = field(default_factory=list)

    def open(self, url: str) -> Any:
        """Load ``url`` (a new session of the app) and wait for the sidebar's summary."""
        self.page.goto(url, wait_until="domcontentloaded")
        summary = re.compile(r"\d+ valid game\(s\), \d+ complete hand")
        playwright().expect(self.page.get_by_text(summary)).to_be_visible()
        return self.page

    def settled(self) -> Any:
        """Wait until the app's script has finished its run, as a reader waits for the page
        before the next click (a click during a run may land on a widget of the run before)."""
        app = self.page.get_by_test_id("stApp")
        playwright().expect(app).to_have_attribute("data-test-script-state", "notRunning")
        return self.page

    def watch_runs(self) -> None:
        """Count, from now on, each change of the app's script state (a run starting or
        ending); :meth:`script_changes` reads the count."""
        self.page.get_by_test_id("stApp").evaluate(
            """app => {
                window.spadesReplayRunWatch?.disconnect();
                window.spadesReplayRuns = 0;
                window.spadesReplayRunWatch = new MutationObserver(changes => {
                    window.spadesReplayRuns += changes.length;
                });
                window.spadesReplayRunWatch.observe(app, {
                    attributeFilter: ["data-test-script-state"],
                });
            }"""
        )

    def script_changes(self) -> int:
        """How many times the app's script state changed since :meth:`watch_runs`."""
        return int(self.page.evaluate("() => window.spadesReplayRuns"))

    def rerun(self, action: Callable[[], object]) -> Any:
        """Do ``action``, which asks the app for a run, and wait until that run has finished.
        Waiting for the script to be at rest alone can pass before the run begins: what the
        action changed in the browser (a chosen option's chip, say) shows at once, and the
        page's next read finds the elements of the run before, or loses them to the run."""
        self.watch_runs()
        action()
        self.page.wait_for_function("() => window.spadesReplayRuns > 0")
        return self.settled()

    def screenshot(self, name: str) -> None:
        """Save a screenshot of the page as it is now."""
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.page.screenshot(path=str(path))
        print(f"screenshot: {path}")


def _console(browser: Browser, message: Any) -> None:
    """Keep an error logged to the console, but Streamlit's own probing of where its server
    is: opened at a page's address (``/charts``), its first requests go to
    ``/charts/_stcore/...``, answered 404, before it finds them at ``/_stcore/...``."""
    if message.type != "error":
        return
    where = str(message.location.get("url", ""))
    path = urllib.parse.urlparse(where).path
    if "/_stcore/" in path and not path.startswith("/_stcore/"):
        return
    browser.errors.append(f"console: {message.text} ({where})")


@pytest.fixture(scope="module")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    """One chromium, with a new empty profile, for the module (launching it, and loading
    plotly's script into it, are the slow parts)."""
    with playwright().sync_playwright() as driver:
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
            page.on("console", lambda message: _console(browser, message))
            yield browser
        finally:
            context.close()


@pytest.fixture
def browser(chromium: Browser) -> Iterator[Browser]:
    """The browser for one test: no page error, and no error logged to the console, may
    happen during it."""
    chromium.errors.clear()
    yield chromium
    assert chromium.errors == []


def plots_drew(page: Any, traces: list[int]) -> None:
    """Every plotly chart drew its SVG with the expected number of traces."""
    plots = page.locator(".js-plotly-plot")
    playwright().expect(plots).to_have_count(len(traces))
    for index, count in enumerate(traces):
        plot = plots.nth(index)
        plot.scroll_into_view_if_needed()
        playwright().expect(plot.locator("svg.main-svg").first).to_be_visible()
        playwright().expect(plot.locator("g.trace")).to_have_count(count)


def _box(locator: Any) -> dict[str, float]:
    box = locator.bounding_box()
    assert box is not None
    return dict(box)


def _overlap(one: dict[str, float], two: dict[str, float]) -> bool:
    return not (
        one["x"] + one["width"] <= two["x"]
        or two["x"] + two["width"] <= one["x"]
        or one["y"] + one["height"] <= two["y"]
        or two["y"] + two["height"] <= one["y"]
    )


def titles_clear(page: Any) -> None:
    """Every chart has a title, and neither its legend nor its plot area covers it (their
    bounding boxes, as drawn)."""
    plots = page.locator(".js-plotly-plot")
    for index in range(plots.count()):
        plot = plots.nth(index)
        plot.scroll_into_view_if_needed()
        title = _box(plot.locator(".gtitle"))
        assert _overlap(title, _box(plot.locator(".nsewdrag").first)) is False, index
        legends = plot.locator("g.legend")
        if legends.count():
            assert _overlap(title, _box(legends.first)) is False, index


def cut_short(page: Any, text: str) -> bool:
    """Whether the label that reads ``text`` is cut short on the page (ended with "..."
    where its box is narrower than the words): it, or either of the two boxes around it,
    overflows."""
    return bool(
        page.get_by_text(text, exact=True).evaluate(
            """label => [label, label.parentElement, label.parentElement.parentElement]
                .some(node => node.scrollWidth > node.clientWidth + 1)"""
        )
    )
