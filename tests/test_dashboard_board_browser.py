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
import struct
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse
from xml.etree import ElementTree

import pytest

import spades_replay
from spades_replay.analysis import KERNEL_VARIABLE, HandAnalysis, analyze_hand
from spades_replay.engine.cards import cards_of
from spades_replay.replayer.replay import Replay
from spades_replay.text import card_label

from .conftest import FIXTURES
from .support.browser import LARGE_STORE_GAMES, Browser, cut_short, playwright
from .support.games import card_steps

pytestmark = [pytest.mark.browser, pytest.mark.slow]

expect = playwright().expect

GAME = "four-player-s12-000003"
"""A four-player game of the fixtures' corpus (its fourth line), of six hands."""


@cache
def _replay() -> Replay:
    line = (FIXTURES / "corpus" / "four-player.jsonl").read_bytes().splitlines()[3]
    return spades_replay.replay(spades_replay.loads(line))


def _at(page: Any, hand: int, step: int) -> None:
    """The board shows (hand number, step), and the address says so (once Python has heard
    it: until then a run of the page may still write the position it held)."""
    board = page.locator(".board")
    expect(board).to_have_attribute("data-hand", str(hand))
    expect(board).to_have_attribute("data-step", str(step))
    expect(page).to_have_url(re.compile(rf"[?&]hand={hand}&step={step}(&|$)"))
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
    # a box of the board's ticked keeps the keys for the board
    page.get_by_label("Four-colour deck").click()
    keys.press("ArrowRight")
    _at(page, 1, first[3] + 1)
    page.get_by_label("Four-colour deck").click()
    # a key typed into a text box is the box's, not the board's
    page.get_by_role("combobox").first.focus()
    keys.press("End")
    _at(page, 1, first[3] + 1)
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


def test_a_step_not_told_yet_as_the_reader_leaves_the_page_spoils_nothing(
    server: str, browser: Browser
) -> None:
    """The board tells Python a step a moment after it. Once a link to another page is
    clicked (here in the same task as the key), it tells nothing more: a state value set
    then is sent as the Replay page's, and the run answering it would come after the other
    page's and leave that page blank. The sidebar's watcher notes the click before the page
    reacts to it. The step is not lost: the board keeps it, and tells it when the reader
    comes back."""
    page = _open(browser, f"{server}?game={GAME}&hand=3&step=5")
    _at(page, 3, 5)
    browser.settled()
    left = page.evaluate(
        """() => {
            window.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight" }));
            document.querySelector('[data-testid="stSidebarNavLink"][href$="/player"]').click();
            return window.spadesReplayLeaving;
        }"""
    )
    assert left == "/"
    expect(page.get_by_role("heading", name="Player", exact=True)).to_be_visible()
    browser.settled()
    expect(page.get_by_role("combobox", name="Player (type to search)", exact=True)).to_be_visible()
    expect(page.get_by_text("By variant and rules")).to_be_visible()
    # the board kept the step, and tells it: Replay shows it, and the address says so
    page.get_by_test_id("stSidebarNavLink").filter(has_text="Replay").click()
    expect(page.locator(".board")).to_be_visible()
    _at(page, 3, 6)
    # and once Python has heard it, the address still says so: the page's first run back
    # writes the position it held (step 5) after the board wrote its own
    _heard(page, browser, 3, 6)
    _at(page, 3, 6)


TWO = "two-player-s11-000000"
"""A two-player game of the fixtures' corpus (its first line): its hands are analysed before
the board is drawn, so their marks come with it."""


@cache
def _two() -> tuple[Replay, dict[int, HandAnalysis]]:
    """That game, and the analysis of its first five hands (by the pure-Python solver, equal
    to the compiled one: tests/test_solver_kernels.py)."""
    line = (FIXTURES / "corpus" / "two-player.jsonl").read_bytes().splitlines()[0]
    replay = spades_replay.replay(spades_replay.loads(line))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(KERNEL_VARIABLE, "python")
        return replay, {hand.number: analyze_hand(hand) for hand in replay.hands[:5]}


def _mistakes(replay: Replay, analyses: dict[int, HandAnalysis]) -> list[tuple[int, int]]:
    """Every mistake of the hands analysed, as (hand number, step), in order: a card that cost
    tricks, or lost or let off a Nil."""
    found = []
    for number, analysis in sorted(analyses.items()):
        steps = card_steps(replay.hands[number - 1])
        for play in analysis.plays:
            if play.cost or play.nil_swings:
                found.append((number, steps[play.index]))
    return found


def test_the_par_strip_jumps_and_the_keys_go_from_mistake_to_mistake(
    server: str, browser: Browser
) -> None:
    replay, analyses = _two()
    hand = replay.hands[2]
    steps = card_steps(hand)
    page = _open(browser, f"{server}?game={TWO}&hand=3&step=0")
    # the hand shown comes analysed; the game's other hands follow from the background
    expect(page.locator(".board")).to_have_attribute(
        "data-analysed", str(len(replay.hands)), timeout=300_000
    )
    strip = page.locator(".par-strip")
    expect(strip).to_be_visible()
    # a spot for the start of play and one after each card, each going there on a click
    spots = strip.locator(".par-spot")
    expect(spots).to_have_count(len(steps) + 1)
    spots.nth(12).click()
    _at(page, 3, steps[11])
    spots.nth(0).click()
    _at(page, 3, steps[0] - 1)
    # the strip's legend says each side's tricks after the card shown: par before any card
    par = analyses[3].par
    assert par is not None
    expect(strip.locator(".par-key.side0")).to_have_text(re.compile(f" {par[0]}$"))
    # M: the next mistake, across hands; Shift+M: the previous one
    mistakes = _mistakes(replay, analyses)
    start = mistakes.index(next(m for m in mistakes if m[0] == 3))
    for position in mistakes[start : start + 5]:
        page.keyboard.press("m")
        _at(page, *position)
    for position in reversed(mistakes[start - 2 : start + 4]):
        page.keyboard.press("Shift+M")
        _at(page, *position)
    page.get_by_role("button", name="Next mistake (M)").click()
    _at(page, *mistakes[start - 1])
    # B: the best cards of the play shown, and what the card played cost
    number, step = mistakes[start - 1]
    play = analyses[number].plays[card_steps(replay.hands[number - 1]).index(step)]
    assert play.cost or play.nil_swings
    best = page.locator(".best")
    expect(best).to_have_count(0)
    page.keyboard.press("b")
    expected = " ".join(card_label(card) for card in sorted(play.best_cards, reverse=True))
    expect(best).to_contain_text(f"Best cards: {expected} ·")
    if play.cost:
        expect(best).to_contain_text(f"cost {play.cost} trick(s)")
    page.get_by_role("button", name="Show or hide the best cards of the play shown (B)").click()
    expect(best).to_have_count(0)
    browser.screenshot("board-par-strip")
    # without spoilers the strip stops at the card shown
    browser.settled()
    page.get_by_text("Spoiler-free").click()
    browser.settled()
    _at(page, number, step)
    played = card_steps(replay.hands[number - 1]).index(step) + 1
    expect(page.locator(".par-strip .par-spot")).to_have_count(played + 1)


def test_a_four_player_hand_is_analysed_in_the_background(server: str, browser: Browser) -> None:
    pytest.importorskip("numba")
    page = _open(browser, f"{server}?game={GAME}&hand=5&step=20")
    _at(page, 5, 20)
    # the board steps while the hand is analysed, and keeps its place when the marks come
    page.keyboard.press("ArrowRight")
    _at(page, 5, 21)
    strip = page.locator(".par-strip")
    expect(strip).to_be_visible(timeout=600_000)
    expect(page.get_by_text("in the background")).to_have_count(0)
    _at(page, 5, 21)
    expect(page.get_by_role("button", name="Next mistake (M)")).to_be_visible()


def _download(page: Any, name: str) -> bytes:
    """Click the button ``name`` and return the bytes of the file it downloads."""
    with page.expect_download() as info:
        page.get_by_role("button", name=name).click()
    download = info.value
    assert re.fullmatch(r"[A-Za-z0-9._-]+-hand\d+-step\d+\.(png|svg)", download.suggested_filename)
    return Path(download.path()).read_bytes()


def test_the_position_downloads_as_svg_and_png(server: str, browser: Browser) -> None:
    replay = _replay()
    step = replay.hands[1].trick_marks[3] + 2
    held = replay.hands[1].timeline[step].state.holdings
    page = _open(browser, f"{server}?game={GAME}&hand=2&step={step}&seat=0")
    _at(page, 2, step)
    picture = _download(page, "Download this position as an SVG picture")
    root = ElementTree.fromstring(picture)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    text = " ".join(root.itertext())
    assert f"Hand 2 · step {step}" in text
    for player in replay.players:
        assert player.name in text
    # seat 0's own cards are on it, suit by suit; the other seats' only counted
    for card in cards_of(held[0]):
        assert any(
            line.startswith(card_label(card)[-1]) and card_label(card)[:-1] in line.split()
            for line in root.itertext()
        ), card_label(card)
    assert text.count("cards, hidden") == 3
    for seat in (1, 2, 3):
        for card in cards_of(held[seat]):
            assert card_label(card) not in text
    png = _download(page, "Download this position as a PNG picture")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert (width, height) == (2 * int(root.get("width", "0")), 2 * int(root.get("height", "0")))


def _picker(page: Any) -> Any:
    """The game picker's box (its value is the label of the game picked)."""
    return page.get_by_role("combobox", name="Game", exact=True)


def test_an_upload_opened_in_replay_is_shown_past_the_first_page(
    store_server: str, browser: Browser
) -> None:
    """The upload's games are numbered after the store's 150: its game opens, listed first,
    rather than the first game of the picker's page."""
    page = browser.open(store_server + "validate")
    expect(page.get_by_role("heading", name="Validate")).to_be_visible()
    uploader = page.get_by_test_id("stFileUploader").filter(has_text="Records to check")
    good = (FIXTURES / "four-player" / "pooled-nil.json").read_bytes()
    uploader.locator('input[type="file"]').set_input_files(
        files=[{"name": "good.json", "mimeType": "application/json", "buffer": good}]
    )
    page.get_by_role("button", name="Open in Replay").click()
    expect(page.locator(".board")).to_be_visible()
    expect(page.get_by_text(re.compile("^upload good\u2060?\\.json$"))).to_be_visible()
    expect(_picker(page)).to_have_value(re.compile(r"^fixture-four-player-pooled-nil "))


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
    _heard(page, browser, 2, 1)
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


def _heard(page: Any, browser: Browser, hand: int, step: int) -> None:
    """Wait until Python has heard the board's position (the board tells it a moment after
    the last step; the run that hears it sends the board the session's position, its
    ``data-heard``) and that run has ended: a page left before then opens on the position
    Python last heard."""
    expect(page.locator(".board")).to_have_attribute("data-heard", f"{hand}:{step}")
    browser.settled()


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
    # no par strip, no mistakes to go to, no best cards: all read every hand
    for part in (".par-strip", ".mistake-button", ".best-button"):
        assert page.locator(part).count() == 0, part
    page.keyboard.press("b")
    page.keyboard.press("m")
    _at(page, 1, step)
    assert page.locator(".best").count() == 0
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


def _two_steps_on(browser: Browser, server: str) -> Any:
    """The board opened at hand 3, step 0, then two steps on, pressed at once."""
    page = _open(browser, f"{server}?game={GAME}&hand=3&step=0")
    _at(page, 3, 0)
    browser.settled()
    page.locator(".board").focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    return page


def test_a_step_not_told_yet_is_kept_by_another_view_of_the_game(
    server: str, browser: Browser
) -> None:
    """The board tells Python its position a moment after the last step; a view asked for
    in that moment (Spoiler-free here) opens where the board is, and Python hears it."""
    page = _two_steps_on(browser, server)
    page.get_by_text("Spoiler-free").click()
    expect(page.get_by_text(re.compile(r"reached the target"))).to_have_count(0)
    _at(page, 3, 2)
    _heard(page, browser, 3, 2)
    _at(page, 3, 2)


def _inside(box: dict[str, float] | None, width: int, height: int) -> bool:
    assert box is not None
    return (
        box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= width
        and (box["y"] + box["height"] <= height)
    )


COMFORT = 40
"""Pixels the table keeps free above the bottom of a phone's screen."""


@pytest.mark.parametrize(("width", "height"), [(1440, 900), (390, 844)])
@pytest.mark.parametrize("game", [GAME, TWO])
def test_the_table_and_the_controls_fit_the_screen(
    server: str, browser: Browser, width: int, height: int, game: str
) -> None:
    page = browser.page
    page.set_viewport_size({"width": width, "height": height})
    try:
        page = _open(browser, f"{server}?game={game}&hand=2&step=30")
        browser.settled()
        # mid-play (a trick on the table), then the start of the hand (every card in hand)
        for moment in ("trick", "start"):
            if moment == "start":
                page.keyboard.press("Home")
                _at(page, 2, 0)
            # (the parts' boxes read at once, in one task of the page: the board may redraw
            # between two reads, and a part read while it is replaced has no box)
            boxes = page.locator(".board").evaluate(
                """(board, parts) => Object.fromEntries(parts.map(part => {
                    const node = board.querySelector(part);
                    const box = node && node.getBoundingClientRect();
                    const shown = box && (box.width > 0 || box.height > 0);
                    return [part, shown ? {
                        x: box.x, y: box.y, width: box.width, height: box.height
                    } : null];
                }))""",
                [".table", ".trick", ".controls", ".controls .hands"],
            )
            table = boxes[".table"]
            assert table is not None
            assert _inside(table, width, height), (moment, boxes)
            if width > 1000:
                for part in (".trick", ".controls"):
                    assert _inside(boxes[part], width, height), (moment, part, boxes)
            else:
                # a phone: the table first, with room to spare, then the controls, the
                # first of them on the screen
                assert table["y"] + table["height"] <= height - COMFORT, (moment, boxes)
                controls = boxes[".controls"]
                assert controls is not None
                assert controls["y"] >= table["y"] + table["height"]
                assert _inside(boxes[".controls .hands"], width, height), (moment, boxes)
            # no suit is broken across lines, nor drawn past its seat (heights and edges
            # read at once: the board may redraw)
            suits = page.locator(".seat").evaluate_all(
                """seats => seats.flatMap(seat => {
                    const edge = seat.getBoundingClientRect();
                    return [...seat.querySelectorAll(".holding .suit")].map(suit => {
                        const box = suit.getBoundingClientRect();
                        const inside = box.left >= edge.left - 1 && box.right <= edge.right + 1;
                        return [box.height, inside];
                    });
                })"""
            )
            assert suits
            assert max(tall for tall, _ in suits) < 32, (moment, suits)
            assert all(inside for _, inside in suits), (moment, suits)
            # the switches above the board say their whole names, never cut to "Spo..."
            assert not cut_short(page, "Spoiler-free"), moment
            browser.screenshot(f"board-{game}-{width}x{height}-{moment}")
        if width < 1000:
            page.get_by_role("button", name="Next action (→)").click()
            _at(page, 2, 1)
    finally:
        page.set_viewport_size({"width": 1400, "height": 1000})


def test_a_board_at_rest_asks_for_no_run(server: str, browser: Browser) -> None:
    """Once Python has heard the board's position, the board tells it nothing more: neither
    when drawn again for the same game on coming back to the page, nor after."""
    page = _two_steps_on(browser, server)
    _heard(page, browser, 3, 2)
    for name in ("Game charts", "Replay"):
        page.get_by_role("link", name=name).click()
        browser.settled()
    _at(page, 3, 2)
    _heard(page, browser, 3, 2)
    browser.watch_runs()
    page.wait_for_timeout(2000)
    assert browser.script_changes() == 0
    _at(page, 3, 2)
