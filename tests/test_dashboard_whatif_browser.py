"""The What-if page in a real browser, on the server and chromium of
tests/support/browser.py (the fixtures, and a record with a hostile player name): the
game's chart draws as played and rescored, a changed option rescores the game and the corpus,
and the hostile name stays text."""

from __future__ import annotations

import re

import pytest

from .support.browser import Browser, cut_short, playwright, plots_drew

pytestmark = pytest.mark.browser

expect = playwright().expect


def test_whatif_rescores_the_game_and_the_corpus(server: str, browser: Browser) -> None:
    page = browser.open(server + "whatif")
    expect(page.get_by_role("heading", name="What-if")).to_be_visible()
    # the first game is the hostile record, a mercy game: as played and rescored agree
    expect(page.get_by_text("Changes: no change")).to_be_visible()
    expect(
        page.get_by_text(re.compile(r"As played: 416 to -258, won by Drew in hand 14"))
    ).to_be_visible()
    plots_drew(page, [6])
    expect(page.get_by_text("mercy -200")).to_be_visible()
    # the hostile name is in the legend as written: no bold, no link
    legend = page.locator(".legendtext").filter(has_text="<b>bold</b> (side 0), as played")
    expect(legend).to_be_visible()
    assert page.locator('a[href*="evil.example"]').count() == 0
    # every scoring option says its whole name, the longest (four-player's) too
    assert not cut_short(page, "A failed Nil's tricks help her partner (four-player)")

    target = page.get_by_label("Target score", exact=True)
    target.fill("200")
    target.press("Enter")
    expect(page.get_by_text("Changes: target_score=200")).to_be_visible()
    expect(
        page.get_by_text(re.compile(r"Rescored: 208 to 181, won by Drew in hand 4 \(target\)"))
    ).to_be_visible()
    expect(page.get_by_text("target 200 (rescored)")).to_be_visible()
    expect(page.get_by_text("Games whose winner changes")).to_be_visible()
    plots_drew(page, [6, 2])
    assert page.locator("main b").count() == 0
    browser.screenshot("whatif")
