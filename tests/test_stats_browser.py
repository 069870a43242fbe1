"""The stats pages in a real browser (the server, store server and chromium of
tests/support/browser.py): Corpus stats, Leaderboard, Player, Game charts and What-if draw
every figure on the fixtures and on a store of more than 100 games; no legend covers a
chart's title (bounding boxes); the sidebar's filters narrow each other; a player's page
survives a reload; and the console shows no error (the ``browser`` fixture)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .support.browser import LARGE_STORE_GAMES, Browser, playwright, plots_drew, titles_clear

pytestmark = pytest.mark.browser

expect = playwright().expect

PAGES = [
    ("stats", "Corpus stats", [1, 2, 3, 1, 2, 2]),
    ("leaderboard", "Leaderboard", [1, 1]),
    ("player", "Player", [2, 1]),
    ("charts", "Game charts", [2, 3, 10]),
    ("whatif", "What-if", [6]),
]
"""Each page: its address, its heading, and the traces of each chart it draws at first (the
fixtures' first game is a mercy game with bag penalties: a trace of their marks)."""
FOUR_PLAYER_STATS = [1, 2, 3, 1, 2, 1]
"""Corpus stats of four-player games alone: the two-player panel of a side's points in one
hand is empty, and plotly draws no empty trace."""
STORE_PAGES = [
    ("stats", "Corpus stats", FOUR_PLAYER_STATS),
    *PAGES[1:3],
    ("charts", "Game charts", [2, 2, 10]),  # its first game has no bag penalty to mark
    *PAGES[4:],
]
"""The same on the store: the four-player corpus."""


def _page(browser: Browser, url: str, heading: str, traces: list[int], name: str) -> Any:
    page = browser.open(url)
    expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible()
    browser.settled()
    browser.screenshot(name)
    plots_drew(page, traces)
    titles_clear(page)
    return page


@pytest.mark.parametrize(("path", "heading", "traces"), PAGES)
def test_each_page_draws_its_figures_on_the_fixtures(
    server: str, browser: Browser, path: str, heading: str, traces: list[int]
) -> None:
    _page(browser, server + path, heading, traces, f"fixtures-{path}")


@pytest.mark.parametrize(("path", "heading", "traces"), STORE_PAGES)
def test_each_page_draws_its_figures_on_a_store_of_more_than_100_games(
    store_server: str, browser: Browser, path: str, heading: str, traces: list[int]
) -> None:
    assert LARGE_STORE_GAMES > 100
    page = _page(browser, store_server + path, heading, traces, f"store-{path}")
    expect(page.get_by_text(f"{LARGE_STORE_GAMES} valid game(s)")).to_be_visible()


def test_whatif_over_a_store_draws_the_corpus_clear_of_its_titles(
    store_server: str, browser: Browser
) -> None:
    page = _page(browser, store_server + "whatif", "What-if", [6], "store-whatif-start")
    target = page.get_by_label("Target score", exact=True)
    target.fill("300")
    target.press("Enter")
    expect(page.get_by_text("Changes: target_score=300")).to_be_visible()
    expect(page.get_by_text("Games whose winner changes")).to_be_visible()
    browser.settled()
    plots_drew(page, [6, 2])
    titles_clear(page)
    browser.screenshot("store-whatif")


def _open(page: Any, label: str) -> Any:
    """Open the sidebar's multiselect ``label``; its options. A click that lands while the
    page is drawn again can leave it closed: it is clicked again, a few times at most."""
    options = page.get_by_role("option")
    for _ in range(5):
        page.get_by_role("combobox", name=label, exact=True).click()
        try:
            expect(options.first).to_be_visible(timeout=10_000)
        except AssertionError:
            page.keyboard.press("Escape")
            continue
        return options
    expect(options.first).to_be_visible()
    return options


def _choose(browser: Browser, label: str, option: str) -> None:
    """Pick ``option`` in the sidebar's multiselect ``label``, and wait for the run that
    draws the page and the filters again."""
    page = browser.page

    def pick() -> None:
        _open(page, label).filter(has_text=option).first.click()
        page.keyboard.press("Escape")

    browser.rerun(pick)


def _options(page: Any, label: str) -> list[str]:
    """What the sidebar's multiselect ``label`` offers. A run that draws the sidebar again
    closes the list between its opening and its reading (on a loaded machine): it is then
    read again, a few times at most."""
    found: list[str] = []
    for _ in range(5):
        found = [str(text) for text in _open(page, label).all_inner_texts()]
        page.keyboard.press("Escape")
        if found:
            break
    return found


def test_the_filters_narrow_each_other(server: str, browser: Browser) -> None:
    page = browser.open(server + "stats")
    browser.settled()
    everyone = _options(page, "Player")
    assert "Megan (heuristic-megan)" in everyone
    _choose(browser, "Variant", "four-player")
    expect(page.get_by_text("four-player").first).to_be_visible()
    four = _options(page, "Player")
    assert "Megan (heuristic-megan)" not in four
    assert "Beth (heuristic-beth)" in four
    assert len(four) < len(everyone)
    rules = _options(page, "Rules")
    assert all("two-player" not in rule for rule in rules)
    plots_drew(page, FOUR_PLAYER_STATS)
    titles_clear(page)
    browser.screenshot("stats-four-player")


def test_a_players_page_is_linked_and_survives_a_reload(server: str, browser: Browser) -> None:
    page = browser.open(server + "player?player=heuristic-beth")
    expect(page.get_by_role("heading", name="Player", exact=True)).to_be_visible()
    picker = page.get_by_role("combobox", name="Player (type to search)", exact=True)
    expect(picker).to_have_value("Beth (heuristic-beth)")
    browser.settled()
    expect(page).to_have_url(re.compile(r"[?&]player=heuristic-beth\b"))
    page.reload(wait_until="domcontentloaded")
    expect(picker).to_have_value("Beth (heuristic-beth)")
    plots_drew(page, [2, 1])
    expect(page.get_by_text("Form of Beth (heuristic-beth)")).to_be_visible()
