"""The address of every page (dashboard/urlstate.py), run headless by Streamlit's AppTest: a
link opens its game and position, the address follows what the user picks, and the game
picked stays the same on every page, on a store of more than one page of games too.

tests/test_dashboard_browser.py proves the same in a browser, reload included.
"""

from __future__ import annotations

import sys
from pathlib import Path

import polars as pl
import pytest
from spades_replay.dashboard.markup import md
from streamlit.testing.v1 import AppTest

from spades_replay.store.ingest import ingest
from spades_replay.store.read import Store

from .conftest import FIXTURES
from .support.apptest import ENTRY, board_start, go_to, open_app, run_app, tell

pytestmark = pytest.mark.slow  # every test runs the app's pages

FOUR = "four-player-s12-000003"
TWO = "two-player-s11-000002"


def _game_label(at: AppTest) -> str:
    picker = at.selectbox(key="game")
    return str(picker.options[picker.index])


def _query(at: AppTest) -> dict[str, str]:
    return {name: str(value) for name, value in at.query_params.items()}


def test_a_link_opens_its_game_hand_step_and_seat() -> None:
    at = open_app(query={"game": FOUR, "hand": "2", "step": "17", "seat": "3"})
    assert _game_label(at).startswith(FOUR + " ")
    assert board_start(at) == (2, 17)
    assert at.selectbox(key="view").value == 3
    assert _query(at) == {"game": FOUR, "hand": "2", "step": "17", "seat": "3"}


def test_the_address_follows_the_position_picked() -> None:
    at = open_app(query={"game": TWO})
    assert _query(at) == {"game": TWO, "hand": "1", "step": "0"}
    at = tell(at, 1, 1)
    assert _query(at)["step"] == "1"
    at = run_app(at.selectbox(key="view").select(1))
    assert _query(at) == {"game": TWO, "hand": "1", "step": "1", "seat": "1"}
    assert board_start(at) == (1, 1)
    at = tell(at, 2, 0)
    assert _query(at) == {"game": TWO, "hand": "2", "step": "0", "seat": "1"}
    at = run_app(at.selectbox(key="view").select(-1))
    assert "seat" not in _query(at)
    assert board_start(at) == (2, 0)


def test_a_rerun_keeps_the_position_and_a_new_game_starts_at_its_first_hand() -> None:
    at = open_app(query={"game": FOUR, "hand": "3", "step": "9"})
    at = run_app(at)
    assert board_start(at) == (3, 9)
    picker = at.selectbox(key="game")
    other = next(i for i, label in enumerate(picker.options) if label.startswith(TWO + " "))
    at = run_app(picker.select_index(other))
    assert _query(at) == {"game": TWO, "hand": "1", "step": "0"}


def test_what_a_link_gets_wrong_is_left_out() -> None:
    at = open_app(query={"game": "no-such-game", "hand": "x", "step": "-4", "seat": "9"})
    assert md("no-such-game", 120) in at.warning[0].value
    assert board_start(at) == (1, 0)
    assert at.selectbox(key="view").value == -1
    assert _query(at)["game"] != "no-such-game"
    at = open_app(query={"game": FOUR, "hand": "99", "step": "999"})
    assert board_start(at) == (1, 0)
    at = open_app(query={"game": FOUR, "hand": "2", "step": "999"})
    assert board_start(at) == (2, 0)


def test_every_page_keeps_the_game_and_the_replay_its_position() -> None:
    at = open_app(query={"game": FOUR, "hand": "2", "step": "5"})
    for page in ("charts", "whatif", "stats", "validate"):
        at = go_to(at, page)
        assert _query(at) == {"game": FOUR}, page
        if page in ("charts", "whatif"):
            assert _game_label(at).startswith(FOUR + " "), page
    at = go_to(at, "replay")
    assert _game_label(at).startswith(FOUR + " ")
    assert _query(at) == {"game": FOUR, "hand": "2", "step": "5"}


def test_a_link_to_another_page_names_the_game_there() -> None:
    at = open_app(query={"game": TWO, "hand": "2", "step": "3"}, page="charts")
    assert _game_label(at).startswith(TWO + " ")
    at = go_to(at, "replay")
    assert board_start(at) == (2, 3)


@pytest.fixture(scope="module")
def big_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of 250 games, each of the 25 of the four-player corpus ten times (so ten
    games share each id): more than two pages of the game picker."""
    folder = tmp_path_factory.mktemp("big")
    lines = (FIXTURES / "corpus" / "four-player.jsonl").read_bytes()
    (folder / "many.jsonl").write_bytes(lines * 10)
    directory = folder / "store"
    ingest([folder / "many.jsonl"], directory)
    return directory


def _store_app(
    store: Path, monkeypatch: pytest.MonkeyPatch, query: dict[str, str] | None = None
) -> AppTest:
    monkeypatch.setattr(sys, "argv", [ENTRY, "--store", str(store)])
    return open_app(query=query)


def test_a_large_store_keeps_the_game_and_the_search_on_every_page(
    big_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = _store_app(big_store, monkeypatch)
    at = run_app(at.number_input(key="game_page").set_value(3))
    picker = at.selectbox(key="game")
    assert len(picker.options) == 51  # the page's 50, and the game still picked
    at = run_app(picker.select_index(30))
    chosen = _game_label(at)
    token = _query(at)["game"]
    assert token.endswith("~10")  # the tenth game of that id
    at = run_app(at.text_input(key="game_search").input("s12-00000"))
    for page in ("charts", "whatif", "replay"):
        at = go_to(at, page)
        assert _game_label(at) == chosen, page
        assert at.text_input(key="game_search").value == "s12-00000", page
        assert _query(at)["game"] == token, page


def test_a_link_names_any_game_of_a_large_store(
    big_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    games = Store.open(big_store).table("games")
    game_id = games.row(7, named=True)["game_id"]
    same = games.filter(pl.col("game_id") == game_id).get_column("game").sort().to_list()
    at = _store_app(big_store, monkeypatch, {"game": f"{game_id}~10", "hand": "2"})
    assert any(md(f"many.jsonl:{same[9] + 1}") in caption.value for caption in at.caption)
    assert _game_label(at).startswith(f"{game_id}~10 ")  # named as the address names it
    assert board_start(at) == (2, 0)


def test_a_link_opens_a_players_page_and_the_address_follows_the_player_picked() -> None:
    at = open_app("player", query={"player": "heuristic-beth"})
    assert at.title[0].value == "Player"
    assert at.selectbox(key="player").value == "heuristic-beth"
    assert _query(at)["player"] == "heuristic-beth"
    # a rerun (a reload keeps the address) keeps her; another pick moves the address
    run_app(at)
    assert at.selectbox(key="player").value == "heuristic-beth"
    run_app(at.selectbox(key="player").set_value("heuristic-david"))
    assert _query(at)["player"] == "heuristic-david"
    # the address names the player on the Player page only
    go_to(at, "stats")
    assert "player" not in _query(at)


def test_a_link_to_a_player_not_shown_says_so() -> None:
    at = open_app("player", query={"player": "nobody-at-all"})
    assert at.selectbox(key="player").value != "nobody-at-all"
    assert "nobody" in at.warning[0].value
    assert "player" in _query(at)  # the first player shown, now in the address
