"""Drive the dashboard headless with Streamlit's AppTest: open a page, run it (failing on any
exception of the script), and read what it shows."""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import unquote

from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.testing.v1 import AppTest

from ..conftest import ROOT

ENTRY = str(ROOT / "dashboard" / "app.py")


def run_app(runnable: Any) -> AppTest:
    """Run the app (or the app of a widget just set; or call a function that runs it) and
    check that the script raised nothing."""
    at: AppTest = runnable() if callable(runnable) else runnable.run()
    assert not at.exception, [exception.value for exception in at.exception]
    return at


def toggle_filter(
    at: AppTest, chosen: dict[str, list[str]], key: str, value: str, select: bool
) -> AppTest:
    """Select ``value`` in the sidebar's multiselect ``key`` (unselect it when not
    ``select``), run the app, and note the change in ``chosen`` (key: values chosen)."""
    widget = at.sidebar.multiselect(key=key)
    at = run_app(widget.select(value) if select else widget.unselect(value))
    if select:
        chosen.setdefault(key, []).append(value)
    else:
        chosen[key].remove(value)
    return at


def open_app(page: str | None = None, query: dict[str, str] | None = None) -> AppTest:
    """The dashboard, run once, on ``page`` (a url path such as ``"whatif"``) or its first page,
    opened at an address with the ``query`` parameters given."""
    at = AppTest.from_file(ENTRY, default_timeout=30)
    if page is not None:
        # before the first run AppTest finds a page by its file name: our url paths
        at.switch_page(f"{page}.py")
    at.query_params.update(query or {})
    return run_app(at)


def markdown_of(at: AppTest) -> str:
    """All the Markdown of the main area, one element a line."""
    return "\n".join(element.value for element in at.main.markdown)


def table_of(at: AppTest, column: str) -> Any:
    """The first table shown with a column of that name (a pandas frame)."""
    return next(frame.value for frame in at.dataframe if column in frame.value.columns)


PLAYER_LINK = "player?player="


def player_keys(frame: Any) -> list[str]:
    """The players of a table shown, read from its *Id* column: each cell is her page's
    address, relative to the page (``player?player=KEY``, the key percent-encoded)."""
    links = [str(link) for link in frame["player_key"]]
    assert all(link.startswith(PLAYER_LINK) for link in links), links
    return [unquote(link.removeprefix(PLAYER_LINK)) for link in links]


def charts_of(at: AppTest) -> list[dict[str, Any]]:
    """The plotly figures shown, as their JSON specs."""
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def charts_by_title(at: AppTest) -> dict[str, dict[str, Any]]:
    """The plotly figures shown, as their JSON specs, by their titles."""
    return {chart["layout"]["title"]["text"]: chart for chart in charts_of(at)}


def labelled(widgets: Any, label: str) -> Any:
    """The widget of ``widgets`` (``at.number_input``, say) with the label ``label``."""
    return next(widget for widget in widgets if widget.label == label)


def pick_game(at: AppTest, game_id: str) -> AppTest:
    """Pick the game ``game_id`` in the game picker, and run the app."""
    picker = at.selectbox(key="game")
    index = next(i for i, label in enumerate(picker.options) if label.startswith(game_id + " "))
    return run_app(picker.select_index(index))


def go_to(at: AppTest, page: str) -> AppTest:
    """Open another page (its url path) in the same session, and run it. AppTest's
    ``switch_page`` finds the app's pages (callables, not files) only before the first run,
    so the page is picked by the hash ``st.navigation`` registered for it."""
    path = "" if page == "replay" else page  # the default page's url path is empty
    pages = at._registered_pages.items()
    at._page_hash = next(page_hash for page_hash, info in pages if info["url_pathname"] == path)
    return run_app(at)


def board(at: AppTest) -> Any:
    """The Replay page's board (of the page's components, the one named so: the sidebar
    holds another, the watcher of page changes)."""
    (found,) = [
        element
        for element in at.get("bidi_component")
        if element.proto.component_name.endswith("spades_replay.board")
    ]
    return found


def board_data(at: AppTest) -> dict[str, Any]:
    """What the Replay page sent its board (the component's data: a line of JSON with the
    run's fields, then the game as JSON), as one dict, the game under ``game``."""
    fields, game = board(at).proto.bytes.split(b"\n", 1)
    data: dict[str, Any] = json.loads(fields)
    data["game"] = json.loads(game)
    return data


def board_start(at: AppTest) -> tuple[int, int]:
    """Where the board starts: (hand number, step)."""
    data = board_data(at)
    hand = data["game"]["hands"][data["start"]["hand"]]
    return hand["number"], data["start"]["step"]


def board_step(at: AppTest, hand: int, step: int) -> dict[str, Any]:
    """The board's data of one step (hand number, step)."""
    hands = board_data(at)["game"]["hands"]
    found: dict[str, Any] = next(h for h in hands if h["number"] == hand)["steps"][step]
    return found


DRAWN = 1
"""The board's state value ``drawn`` in the runs below (the browser sends the time it was
drawn)."""


def _board_state(at: AppTest, state: dict[str, Any]) -> AppTest:
    """Run the app as after the board sent its state values ``state``."""
    states = at._tree.get_widget_states()
    states.widgets.append(WidgetState(id=board(at).proto.id, json_value=json.dumps(state)))
    return run_app(lambda: at._run(states))


def drawn(at: AppTest) -> AppTest:
    """Run the app as after the board said it is drawn in the browser, which it does once
    mounted (AppTest runs no JavaScript): the Replay page then adds its chart."""
    return _board_state(at, {"drawn": DRAWN})


def tell(at: AppTest, hand: int, step: int) -> AppTest:
    """Run the app as after the board, drawn, told Python it is at (hand number, step): what
    the browser sends when the reader steps."""
    return _board_state(at, {"drawn": DRAWN, "position": {"hand": hand, "step": step}})


def tell_until_analysed(at: AppTest, hand: int, step: int, timeout: float = 600) -> dict[str, Any]:
    """Tell the board's position (:func:`tell`) every half second until the board is sent
    the analysis of hand ``hand``, made in the server's background (the first analysis of a
    process loads the compiled kernel, which takes long on a loaded machine); that
    analysis's data."""
    deadline = time.monotonic() + timeout
    while True:
        tell(at, hand, step)
        found = next(h for h in board_data(at)["game"]["hands"] if h["number"] == hand)
        if found["analysis"] is not None:
            analysis: dict[str, Any] = found["analysis"]
            return analysis
        assert time.monotonic() < deadline, f"hand {hand} not analysed within {timeout} s"
        time.sleep(0.5)
