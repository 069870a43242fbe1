"""The Leaderboard and Player pages in a real browser, on the server and chromium of
tests/support/browser.py: the table and every chart draw, no legend overlaps a chart's title
(their bounding boxes), and the console shows no error but Streamlit's own probes of its
server under a page's address."""

from __future__ import annotations

import re

import pytest

from .support.browser import Browser, playwright, plots_drew, titles_clear

pytestmark = pytest.mark.browser

expect = playwright().expect


def test_the_leaderboard_and_a_players_page_draw_cleanly(server: str, browser: Browser) -> None:
    console: list[str] = []
    browser.page.on(
        "console", lambda message: console.append(message.text) if message.type == "error" else None
    )
    missing: list[str] = []
    browser.page.on(
        "response",
        lambda response: missing.append(response.url) if response.status == 404 else None,
    )
    page = browser.open(server + "leaderboard")
    expect(page.get_by_role("heading", name="Leaderboard")).to_be_visible()
    expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
    plots_drew(page, [1, 1])
    titles_clear(page)
    browser.screenshot("leaderboard")

    page = browser.open(server + "player")
    expect(page.get_by_role("heading", name="Player")).to_be_visible()
    expect(page.get_by_text("Partners and opponents")).to_be_visible()
    plots_drew(page, [2, 1])
    titles_clear(page)
    browser.screenshot("player")
    # opened at a page's address, Streamlit's own client first asks for its server's
    # _stcore endpoints under that address (404) before the root: those are the only misses
    assert all("/_stcore/" in url for url in missing), missing
    errors = [text for text in console if not text.startswith("Failed to load resource")]
    assert errors == []
    assert len(console) - len(errors) == len(missing)


def test_a_players_id_opens_her_page(server: str, browser: Browser) -> None:
    page = browser.open(server + "leaderboard")
    browser.settled()
    table = page.get_by_test_id("stDataFrame").first
    expect(table).to_be_visible()
    box = table.bounding_box()
    assert box is not None
    # the table is drawn on a canvas: the first row's Id (after the narrow rank column),
    # hovered first as a reader's pointer is, then clicked
    x, y = box["x"] + 80, box["y"] + 52
    page.mouse.move(x - 10, y - 2)
    page.mouse.move(x, y, steps=5)
    with page.context.expect_page() as opened:
        page.mouse.click(x, y)
    her_page = opened.value
    try:
        expect(her_page).to_have_url(re.compile(r"/player\?player=heuristic-drew$"))
        picker = her_page.get_by_role("combobox", name="Player (type to search)", exact=True)
        expect(picker).to_have_value("Drew (heuristic-drew)")
    finally:
        her_page.close()
