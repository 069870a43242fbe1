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
import subprocess

import pytest

from .conftest import FIXTURES, INVALID_FIXTURES, ROOT, fixture_records
from .support.browser import (
    HOSTILE_NAME,
    SERVE,
    Browser,
    free_port,
    playwright,
    plots_drew,
    wait_healthy,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

expect = playwright().expect


def _shown(text: str) -> str:
    """Untrusted text as the page shows it: as is, with invisible word joiners that keep it
    from looking like an address (see spades_replay.dashboard.markup.md)."""
    return text.replace(":", ":\u2060").replace("@", "@\u2060").replace(".", "\u2060.")


def test_replay_steps_through_a_hand_with_the_cards_in_colour(
    server: str, browser: Browser
) -> None:
    page = browser.open(server)
    board = page.locator(".board")
    expect(board).to_have_attribute("data-step", "0")
    expect(page.locator(".step-label")).to_have_text(re.compile(r"^Step 0 of \d+"))
    # the hostile name and game id are shown as text, and make no link
    expect(page.locator(".seat .name", has_text=HOSTILE_NAME).first).to_be_visible()
    expect(page.get_by_text(_shown("[evil](https://evil.example)")).first).to_be_visible()
    assert page.locator('a[href*="evil.example"]').count() == 0
    assert page.locator("main b").count() == 0

    page.get_by_role("button", name="Next trick").click()
    expect(page.locator(".trick-title")).to_have_text("play")
    page.get_by_role("button", name="Next trick").click()
    expect(page.locator(".trick-title")).to_have_text(re.compile(r"^Trick 1, won by "))
    page.get_by_role("button", name="Next action").click()
    expect(page.locator(".trick-title")).to_have_text("Trick 2")
    expect(page.locator(".played .tag.win")).to_have_text("winning")
    # the first card of trick 2 cost its player a trick, double dummy (analysed on the fly):
    # marked beside the card, and its alternatives open on demand
    expect(page.locator(".played .tag.mark")).to_have_text("-1")
    expect(page.get_by_text(re.compile(r"it cost 1 trick\(s\)"))).to_be_visible()
    expect(page.locator(".contract", has_text="par").first).to_be_visible()
    page.get_by_text("Best alternatives: every legal card of this play with its value").click()
    alternatives = page.get_by_test_id("stDataFrame").filter(has_text="played")
    expect(alternatives).to_be_visible()
    expect(alternatives).to_contain_text("best")
    browser.screenshot("replay")

    hearts = page.locator(".suit.s2 .symbol").first
    spades = page.locator(".suit.s3 .symbol").first
    red = hearts.evaluate("element => getComputedStyle(element).color")
    black = spades.evaluate("element => getComputedStyle(element).color")
    red_part, green_part, _ = (int(value) for value in re.findall(r"\d+", red)[:3])
    assert red_part > 150 > green_part, red
    assert max(int(value) for value in re.findall(r"\d+", black)[:3]) < 100, black

    # another hand starts from the deal
    page.get_by_role("button", name="Next hand (PageDown)").click()
    expect(page.locator(".hand-label")).to_have_text(re.compile(r"^Hand 2 of \d+"))
    expect(board).to_have_attribute("data-step", "0")
    expect(page.get_by_text("Going into hand 2:", exact=False)).to_be_visible()
    page.get_by_role("button", name="End of the hand (End)").click()
    # the score table of the hand, once it is over
    expect(page.locator(".score table")).to_contain_text("contract points")


def test_game_charts_really_draw(server: str, browser: Browser) -> None:
    page = browser.open(server + "charts")
    expect(page.get_by_role("heading", name="Game charts")).to_be_visible()
    # the hostile game (mercy rules): running score, bags with penalties, points by part
    plots_drew(page, [2, 3, 10])
    expect(page.get_by_text("mercy -200")).to_be_visible()
    browser.screenshot("charts")


def test_corpus_stats_really_draw(server: str, browser: Browser) -> None:
    page = browser.open(server + "stats")
    expect(page.get_by_role("heading", name="Corpus stats")).to_be_visible()
    plots_drew(page, [1, 2, 3, 1, 2, 2])
    browser.screenshot("stats")


def test_validate_shows_a_bad_uploads_error_and_opens_a_good_one(
    server: str, browser: Browser
) -> None:
    page = browser.open(server)
    page.get_by_role("link", name="See them on the Validate page").click()
    expect(page.get_by_role("heading", name="Validate")).to_be_visible()
    # the fixtures' records, and the hostile one the server was given too
    # EXPECTED.json, among the files of fixtures/invalid, is no record: not counted
    invalid = f"{len(INVALID_FIXTURES) - 1} of {fixture_records()} record(s) are invalid"
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
    expect(page.locator(".board")).to_be_visible()
    expect(page.get_by_text(_shown("upload good.json"))).to_be_visible()
    # the game picked stays picked on the way to another page
    page.get_by_role("link", name="Game charts").click()
    expect(page.get_by_role("heading", name="Game charts")).to_be_visible()
    expect(page.get_by_text(_shown("upload good.json"))).to_be_visible()
    plots_drew(page, [2, 3, 10])


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
    port = free_port()
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
        wait_healthy(url + "_stcore/health", process)
        page = browser.open(url)
        expect(page.get_by_text("Page (of 2)")).to_be_visible()
        expect(page.get_by_text("150 game(s) found; 100 a page.")).to_be_visible()
        # the board reports its first drawing, and the page then runs again to add the
        # running score: a search entered before that run may land on the run before
        expect(page.get_by_test_id("stPlotlyChart").first).to_be_visible()
        browser.settled()
        search = page.get_by_role("textbox", name="Search games")
        search.fill("s12-000007")
        search.press("Enter")
        expect(page.get_by_text("6 game(s) found; 100 a page.")).to_be_visible()
        expect(page.locator(".step-label")).to_have_text(re.compile(r"^Step 0 of \d+"))
        browser.screenshot("store-search")
    finally:
        process.terminate()
        process.wait(timeout=10)
