"""The questions the stats pages answer, walked in a real browser as a reader would, from
opening the dashboard to the answer on the screen (clicks and waits only), on the fixtures
and on a store of more than 200 games (the chromium of tests/support/browser.py):

- who the best player is, and how sure we are (Leaderboard);
- how a player does with each partner (Player);
- how her Nil success changed over her last 200 games (Player);
- which games change winner at target 300 (What-if).

Each answer is checked visible and equal to the figures of the stats functions on the same
games. Each path's time is printed (``pytest -s``), never asserted: the machine's load says
more about it than the code."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import polars as pl
import pytest

from spades_replay.stats import player
from spades_replay.stats.leaderboard import chance_above, leaderboard
from spades_replay.stats.tables import Tables
from spades_replay.store.ingest import ingest
from spades_replay.store.read import Store
from spades_replay.store.rescore import rescore_tables

from .conftest import FIXTURES
from .support.browser import Browser, playwright, serving

pytestmark = pytest.mark.browser

expect = playwright().expect

STORE_GAMES = 250
"""The games of the larger store: the four-player corpus ten times, so that a player has
more than 200 games."""
WHO = "heuristic-beth"
"""The player whose partners and Nil success are asked for (four-player: she has a partner)."""
LABEL = "Beth (heuristic-beth)"


class Dashboard:
    """A dashboard served on a store, and the tables of that store (what the answers are
    checked against)."""

    def __init__(self, url: str, tables: Tables) -> None:
        self.url = url
        self.tables = tables


@pytest.fixture(scope="module", params=["fixtures", "store"])
def dashboard(request: pytest.FixtureRequest, tmp_path_factory: Any) -> Iterator[Dashboard]:
    """``spades-replay dashboard fixtures`` (the reader's command; it serves a store of them,
    the same as the one ingested here to check the answers), or ``dashboard --store DIR`` on
    a store of :data:`STORE_GAMES` games."""
    folder = tmp_path_factory.mktemp(request.param)
    if request.param == "fixtures":
        ingest([FIXTURES], folder / "store")
        arguments = [str(FIXTURES)]
    else:
        corpus = (FIXTURES / "corpus" / "four-player.jsonl").read_bytes()
        copies = STORE_GAMES // len(corpus.splitlines())
        (folder / "many.jsonl").write_bytes(corpus * copies)
        ingest([folder / "many.jsonl"], folder / "store")
        arguments = ["--store", str(folder / "store")]
    tables = Store.open(folder / "store").tables()
    if request.param == "store":
        assert tables.games.height == STORE_GAMES
    with serving(arguments, folder) as url:
        yield Dashboard(url, tables)


def _timed(browser: Browser, question: str, where: str, path: Callable[[], None]) -> None:
    """Walk ``path`` (from opening the dashboard to the answer visible) and print its time;
    then leave the page, so that it stops asking a server the module may stop next."""
    start = time.monotonic()
    path()
    print(f"\n{question} ({where}): {time.monotonic() - start:.1f} s")
    browser.page.goto("about:blank")


PATHS = {"Leaderboard": "leaderboard", "Player": "player", "What-if": "whatif"}
"""The address of each page a question starts on."""


def _go(browser: Browser, dashboard: Dashboard, page_title: str) -> Any:
    """Open ``page_title`` at its address (a new session). Not by a click from the first
    page, Replay: a page clicked while Replay's board is still being drawn can be left
    blank, a fault of the board's that these questions are not about (the board's own tests
    leave Replay)."""
    page = browser.open(dashboard.url.rstrip("/") + "/" + PATHS[page_title])
    expect(page.get_by_role("heading", name=page_title, exact=True)).to_be_visible()
    return page


def _pick_player(browser: Browser, page: Any) -> None:
    """Type her name in the Player page's search and pick her."""
    browser.settled()
    picker = page.get_by_role("combobox", name="Player (type to search)", exact=True)
    picker.click()
    picker.fill("Beth")
    page.get_by_role("option", name=LABEL).click()
    expect(picker).to_have_value(LABEL)
    browser.settled()


def _line(page: Any, start: str) -> Any:
    """The line of text (a Markdown paragraph, bold parts and all) that holds ``start``."""
    return page.get_by_test_id("stMarkdownContainer").filter(has_text=start)


def _cells(table: Any) -> list[str]:
    """The text of the cells a table shows (it draws them on a canvas; the grid keeps their
    text for screen readers)."""
    return [str(text).strip() for text in table.locator("td").all_inner_texts()]


def test_who_is_the_best_player_and_how_sure_we_are(
    dashboard: Dashboard, browser: Browser, request: pytest.FixtureRequest
) -> None:
    board = leaderboard(dashboard.tables)
    best, second = board.row(0, named=True), board.row(1, named=True)
    chance = chance_above(best["mu"], best["sigma"], second["mu"], second["sigma"])

    def path() -> None:
        page = _go(browser, dashboard, "Leaderboard")
        answer = _line(page, "Best rated:")
        expect(answer).to_be_visible()
        expect(answer).to_contain_text(f"Best rated: {best['player']} ({best['player_key']})")
        expect(answer).to_contain_text(f"a {chance:.1%} chance that her skill is above")
        expect(answer).to_contain_text(
            f"95 % interval {best['win_low']:.1%} to {best['win_high']:.1%}"
        )

    _timed(browser, "who is the best player, and how sure", request.node.callspec.id, path)


def test_how_a_player_does_with_each_partner(
    dashboard: Dashboard, browser: Browser, request: pytest.FixtureRequest
) -> None:
    partners = player.partners(dashboard.tables, WHO)
    assert partners.height > 0

    def path() -> None:
        page = _go(browser, dashboard, "Player")
        _pick_player(browser, page)
        heading = page.get_by_role("heading", name="Partners and opponents")
        heading.scroll_into_view_if_needed()
        expect(heading).to_be_in_viewport()
        # the partners' table: the one in the column its caption names (a partner's name is
        # in other tables too)
        table = (
            page.get_by_test_id("stColumn")
            .filter(has_text="her games with each partner")
            .get_by_test_id("stDataFrame")
        )
        expect(table.first).to_contain_text(partners.item(0, "partner"))
        expect(table.first).to_be_in_viewport()
        cells = _cells(table.first)
        for row in partners.iter_rows(named=True):
            assert row["partner"] in cells
            assert str(row["games"]) in cells
            assert str(row["wins"]) in cells

    _timed(browser, "how a player does with each partner", request.node.callspec.id, path)


def test_how_her_nil_success_changed_over_her_last_200_games(
    dashboard: Dashboard, browser: Browser, request: pytest.FixtureRequest
) -> None:
    change = player.nil_change(dashboard.tables, WHO, 200).rows(named=True)
    played = player.games_of(dashboard.tables, WHO).height
    assert change[0]["games"] == min(200, played)
    if request.node.callspec.id == "store":
        assert played > 200

    def path() -> None:
        page = _go(browser, dashboard, "Player")
        _pick_player(browser, page)
        chart = page.locator(".js-plotly-plot").filter(
            has_text=f"her last {change[0]['games']} games"
        )
        expect(chart.locator("g.trace")).to_have_count(2)
        answer = _line(page, "Nil and Blind Nil success over her last")
        answer.scroll_into_view_if_needed()
        expect(answer).to_be_in_viewport()
        expect(answer).to_contain_text(
            f"over her last {change[0]['games']} games: {change[0]['rate']:.1%} "
            f"({change[0]['made']} made of {change[0]['bids']})"
        )
        first, second = change[1], change[2]
        expect(answer).to_contain_text(
            f"in the first {first['games']} of them {first['rate']:.1%} "
            f"({first['made']} made of {first['bids']}), in the last {second['games']} "
            f"{second['rate']:.1%} ({second['made']} made of {second['bids']})"
        )

    _timed(
        browser,
        "how her Nil success changed over her last 200 games",
        request.node.callspec.id,
        path,
    )


def test_which_games_change_winner_at_target_300(
    dashboard: Dashboard, browser: Browser, request: pytest.FixtureRequest
) -> None:
    result = rescore_tables(dashboard.tables, {"target_score": 300})
    changed = result.games.filter(pl.col("winner_changed"))
    assert changed.height > 0

    def path() -> None:
        page = _go(browser, dashboard, "What-if")
        browser.settled()
        target = page.get_by_label("Target score", exact=True)
        target.fill("300")
        target.press("Enter")
        expect(page.get_by_text("Changes: target_score=300")).to_be_visible()
        heading = page.get_by_text("Games whose winner changes")
        heading.scroll_into_view_if_needed()
        expect(heading).to_be_in_viewport()
        metric = page.get_by_test_id("stMetric").filter(has_text="Winner changes")
        expect(metric).to_contain_text(str(changed.height))
        table = page.get_by_test_id("stDataFrame").filter(
            has=page.get_by_text("As played", exact=True)
        )
        table.first.scroll_into_view_if_needed()
        expect(table.first).to_be_in_viewport()
        cells = _cells(table.first)
        shown = set(changed.get_column("game_id").head(5).to_list())
        assert shown <= set(cells)

    _timed(browser, "which games change winner at target 300", request.node.callspec.id, path)
