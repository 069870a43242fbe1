"""The Replay page's board in a real browser (Debian's chromium, driven by Playwright): the
keys move the step as docs/dashboard.md says, without the server; a link opens its
position and a reload keeps it; the game picked stays the same on every page of a store of
more than one page of games; a seat's view shows no card of another seat's hidden hand and
nothing of the double-dummy analysis; spoiler-free mode hides the result; the table and the
controls fit the screen of a laptop and of a phone. Every test fails on a page error or an
error logged to the console (tests/support/browser.py).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

import spades_replay
from spades_replay.engine.cards import cards_of
from spades_replay.replayer.replay import Replay
from spades_replay.text import card_label

from .conftest import FIXTURES
from .support.browser import LARGE_STORE_GAMES, Browser, playwright

pytestmark = [pytest.mark.browser, pytest.mark.slow]

expect = playwright().expect

GAME = "four-player-s12-000003"
"""A four-player game of the fixtures' corpus (its fourth line), of six hands."""


@cache
def _replay() -> Replay:
    line = (FIXTURES / "corpus" / "four-player.jsonl").read_bytes().splitlines()[3]
    return spades_replay.replay(spades_replay.loads(line))


def _at(page: Any, hand: int, step: int) -> None:
    """The board shows (hand number, step), and the address says so."""
    board = page.locator(".board")
    expect(board).to_have_attribute("data-hand", str(hand))
    expect(board).to_have_attribute("data-step", str(step))
    query = parse_qs(urlparse(page.url).query)
    assert (query["hand"], query["step"]) == ([str(hand)], [str(step)]), page.url


def _open(browser: Browser, url: str) -> Any:
    page = browser.open(url)
    expect(page.locator(".board")).to_be_visible()
    return page


def test_the_keys_move_the_step_as_documented(server: str, browser: Browser) -> None:
    hand = _replay().hands[1]
    marks = hand.trick_marks
    last = len(hand.timeline) - 1
    page = _open(browser, f"{server}?game={GAME}&hand=2&step=17")
    _at(page, 2, 17)
    keys = page.keyboard
    keys.press("ArrowRight")
    _at(page, 2, 18)
    keys.press("ArrowLeft")
    _at(page, 2, 17)
    after = next(mark for mark in marks if mark > 17)
    keys.press("ArrowDown")
    _at(page, 2, after)
    keys.press("ArrowUp")
    before = max(mark for mark in marks if mark < after)
    _at(page, 2, before)
    keys.press("Shift+ArrowRight")
    _at(page, 2, after)
    keys.press("Shift+ArrowLeft")
    _at(page, 2, before)
    keys.press("End")
    _at(page, 2, last)
    keys.press("ArrowRight")  # nothing after the last step
    _at(page, 2, last)
    keys.press("Home")
    _at(page, 2, 0)
    keys.press("PageDown")
    _at(page, 3, 0)
    keys.press("PageUp")
    _at(page, 2, 0)
    keys.press("PageUp")
    _at(page, 1, 0)
    keys.press("PageUp")  # nothing before the first hand
    _at(page, 1, 0)
    # the buttons do the same for the mouse, and the list of plays jumps
    page.get_by_role("button", name="Next action (→)").click()
    _at(page, 1, 1)
    first = _replay().hands[0].trick_marks
    page.locator(f'.log .entry[data-step="{first[0] + 5}"]').click()
    _at(page, 1, first[0] + 5)
    page.locator(".log .trick-number", has_text="3").first.click()
    _at(page, 1, first[3])
    # a key typed into a text box is the box's, not the board's
    page.get_by_role("combobox").first.focus()
    keys.press("End")
    _at(page, 1, first[3])
    browser.screenshot("board-keys")


def test_a_link_opens_its_position_and_a_reload_keeps_it(server: str, browser: Browser) -> None:
    page = _open(browser, f"{server}?game={GAME}&hand=4&step=23")
    _at(page, 4, 23)
    expect(page.locator(".trick-title")).to_contain_text("Trick")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    moved = int(page.locator(".board").get_attribute("data-step") or "0")
    assert moved > 23
    # Python hears the position, and writes the same address (no new history entry)
    browser.settled()
    page.reload()
    expect(page.locator(".board")).to_be_visible()
    _at(page, 4, moved)
    assert parse_qs(urlparse(page.url).query)["game"] == [GAME]
    # Copy link gives the address of the position
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.get_by_role("button", name="Copy the link to this position").click()
    expect(page.locator(".copied")).to_have_text("Link copied")
    assert page.evaluate("navigator.clipboard.readText()") == page.url


def _picker(page: Any) -> Any:
    """The game picker's box (its value is the label of the game picked)."""
    return page.get_by_role("combobox", name="Game", exact=True)


def test_a_large_store_keeps_the_game_on_every_page(store_server: str, browser: Browser) -> None:
    page = _open(browser, store_server)
    expect(page.get_by_text(f"{LARGE_STORE_GAMES} game(s) found; 100 a page.")).to_be_visible()
    search = page.get_by_role("textbox", name="Search games")
    search.fill("s12-000007")
    search.press("Enter")
    expect(page.get_by_text("6 game(s) found; 100 a page.")).to_be_visible()
    browser.settled()
    _picker(page).click()
    page.get_by_role("option", name=re.compile(r"^four-player-s12-000007~5 ")).click()
    expect(page).to_have_url(re.compile(r"game=four-player-s12-000007~5"))
    browser.settled()
    page.locator(".table").click()  # the keys are the board's once the picker is left
    page.keyboard.press("PageDown")
    page.keyboard.press("ArrowRight")
    _at(page, 2, 1)
    browser.settled()
    for name in ("Game charts", "What-if", "Corpus stats", "Validate", "Replay"):
        page.get_by_role("link", name=name).click()
        expect(page).to_have_url(re.compile(r"game=four-player-s12-000007~5"))
        browser.settled()
        if name in ("Game charts", "What-if", "Replay"):
            expect(_picker(page)).to_have_value(re.compile(r"^four-player-s12-000007~5 "))
            expect(page.get_by_role("textbox", name="Search games")).to_have_value("s12-000007")
    _at(page, 2, 1)
    # the fifth game of that id is game 107 of the store, line 108 of its file
    expect(page.get_by_text(re.compile("many\u2060?\\.jsonl:\u2060?108$"))).to_be_visible()


def _texts(page: Any) -> str:
    """Every text of the page, the board's (in its shadow root) included."""
    return str(page.locator("body").inner_text()) + "\n" + str(page.locator(".board").inner_text())


def test_a_seats_view_shows_only_what_she_knew(server: str, browser: Browser) -> None:
    replay = _replay()
    hand = replay.hands[0]
    step = hand.trick_marks[2] + 2  # trick 3 under way
    # seat 2: her opponents exchange cards for a Blind Nil in this hand, unseen by her
    assert {exchange.seat for exchange in hand.outcome.exchanges} == {1}
    page = _open(browser, f"{server}?game={GAME}&hand=1&step={step}&seat=2")
    _at(page, 1, step)
    browser.settled()
    text = _texts(page)
    held = hand.timeline[step].state.holdings
    for seat in (0, 1, 3):
        for card in cards_of(held[seat]):
            assert card_label(card) not in text, (seat, card_label(card))
    expect(page.locator(".hidden-hand")).to_have_count(3)
    assert page.locator(".tag.mark").count() == 0
    for words in ("par ", "double dummy", "doomed", "makeable", "Tricks lost"):
        assert words not in text.replace("Double dummy reads every hand", ""), words
    # what is to come is not listed either
    later = page.locator(".log .entry.later")
    assert later.count() == 0
    browser.screenshot("board-seat-view")


def test_spoiler_free_mode_hides_the_result(server: str, browser: Browser) -> None:
    page = _open(browser, f"{server}?game={GAME}&hand=3&step=0")
    result = re.compile(r"reached the target")
    expect(page.get_by_text(result)).to_be_visible()
    expect(_picker(page)).to_have_value(re.compile("won by"))
    page.get_by_text("Spoiler-free").click()
    expect(page.get_by_text(result)).to_have_count(0)
    browser.settled()
    expect(_picker(page)).not_to_have_value(re.compile("won by"))
    _at(page, 3, 0)
    assert page.locator(".log .entry.later").count() == 0
    # the running score shows the hands before the one shown only
    chart = page.locator(".js-plotly-plot")
    expect(chart).to_have_count(1)
    expect(chart.locator("svg.main-svg").first).to_be_visible()
    # (from 0 before hand 1, then hands 1 and 2)
    assert chart.evaluate("plot => plot.data.map(trace => trace.x.length)") == [3, 3]
    browser.screenshot("board-spoiler-free")


def _inside(box: dict[str, float] | None, width: int, height: int) -> bool:
    assert box is not None
    return (
        box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= width
        and (box["y"] + box["height"] <= height)
    )


@pytest.mark.parametrize(("width", "height"), [(1440, 900), (390, 844)])
def test_the_table_and_the_controls_fit_the_screen(
    server: str, browser: Browser, width: int, height: int
) -> None:
    page = browser.page
    page.set_viewport_size({"width": width, "height": height})
    try:
        page = _open(browser, f"{server}?game={GAME}&hand=2&step=30")
        browser.settled()
        table, trick = page.locator(".table"), page.locator(".trick")
        controls = page.locator(".controls")
        assert _inside(table.bounding_box(), width, height), table.bounding_box()
        assert _inside(trick.bounding_box(), width, height)
        if width > 1000:
            assert _inside(controls.bounding_box(), width, height), controls.bounding_box()
        else:
            # a phone: the table first, the controls under it, a scroll away
            table_box, controls_box = table.bounding_box(), controls.bounding_box()
            assert table_box is not None
            assert controls_box is not None
            assert controls_box["y"] >= table_box["y"] + table_box["height"]
            page.get_by_role("button", name="Next action (→)").click()
            _at(page, 2, 31)
        # no suit is broken across lines (heights read at once: the board may redraw)
        heights = page.locator(".holding .suit").evaluate_all(
            "suits => suits.map(suit => suit.getBoundingClientRect().height)"
        )
        assert heights
        assert max(heights) < 32, heights
        browser.screenshot(f"board-{width}x{height}")
    finally:
        page.set_viewport_size({"width": 1400, "height": 1000})
