"""The Replay page's board, a Streamlit component (``st.components.v2``: inline HTML, CSS and
JavaScript, no build step, no iframe): a Spades table that steps in the browser.

Python sends the whole game once, as seen through the view chosen (:mod:`.timeline`), with
the position to start from; every step after that (keys, buttons, the list of plays) is
drawn by ``board.js`` without the server. The board tells Python only where it is (the
state value ``position``: hand number and step), a moment after the last step, so that the
session and the address (:mod:`.urlstate`) follow; that rerun is the board's fragment only.
While hands are analysed in the background (:mod:`.double_dummy`), the board asks again a
second after each run (``POLL_MS`` in board.js; the state value ``poll``), which reruns its
fragment: the analyses done by then come with it (and it asks again each second until a run
says nothing is waiting). Once drawn, the board says so (the state value ``drawn``, a new
value after each run whose data says Python has not heard it: ``drawn`` in the data), which
reruns the fragment too: the page draws what the browser is slow to load (the score chart,
and plotly's script with it) only then, so that the board is drawn first.

The data sent stays the same from one rerun to the next (the start position is the one of
the first run of a game and view), so the browser is not sent the game again, and the board
keeps its place. A position that comes from elsewhere (a link opened, the browser's Back, a
new game) changes the data's ``token``, and the board moves there.

The data goes as bytes, which the component forwards as they are (a dict would be written
out twice at every run of the board: once to send, once more, its keys sorted, to name the
component): a line of JSON with the few fields of this run (the token, the analyses'
version, the start, what Python heard), then the game as JSON. The game, hundreds of
kilobytes, is written once per game, view and analyses, and kept; the browser parses it only
when the token or the version is new, not at each run of the board (every position told,
every second while a hand is analysed), where parsing it took the browser 10 to 30 ms that
a key press could wait for.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import orjson
import streamlit as st

from spades_replay.analysis import HandAnalysis
from spades_replay.replayer.replay import Replay

from . import timeline
from .board import Viewer

_HERE = Path(__file__).parent
BOARD = st.components.v2.component(
    "spades_replay.board",
    html='<div class="board-host"></div>',
    css=(_HERE / "board.css").read_text(encoding="utf-8"),
    js=(_HERE / "board.js").read_text(encoding="utf-8"),
)
"""The component's mounting command."""

KEY = "board"
"""The component's key: its state is ``st.session_state[KEY]``."""

_STARTS = "board starts"
"""Session key: the start position sent with each token (so the data stays the same)."""


@st.cache_resource(show_spinner=False, max_entries=32)
def _data(
    game: str,
    viewer: Viewer,
    version: tuple[tuple[int, int], ...],
    _replay: Replay,
    _analyses: Any,
) -> bytes:
    """:func:`.timeline.game_data` as JSON, kept per game, view and analyses (``version``:
    the hands analysed, and from which card each analysis holds): built and written once,
    sent as it is every time."""
    game_data = timeline.game_data(_replay, viewer, cast(dict[int, HandAnalysis], _analyses))
    return orjson.dumps(game_data)


def payload(fields: dict[str, Any], game: bytes) -> bytes:
    """What the board is sent: ``fields`` as one line of JSON, then ``game`` (JSON, which
    has no line break outside its strings, where it is escaped)."""
    return orjson.dumps(fields) + b"\n" + game


def position() -> tuple[int, int] | None:
    """The position the board last told: (hand number, step); ``None`` before it told any."""
    state = st.session_state.get(KEY)
    told = None if state is None else state.get("position")
    if not isinstance(told, dict):
        return None
    hand, step = told.get("hand"), told.get("step")
    if not isinstance(hand, int) or not isinstance(step, int):
        return None
    return hand, step


def drawn() -> bool:
    """Whether the board is drawn in the browser (it said so once mounted)."""
    state = st.session_state.get(KEY)
    return state is not None and state.get("drawn") is not None


def _shown() -> None:
    """The board said it is drawn: the run of its fragment that follows adds what waited
    for it."""


def _asked() -> None:
    """The board asked again for the analyses it waits for: the run of its fragment that
    follows is the answer (it sends what is done by then)."""


def draw(
    game: str,
    token: str,
    replay: Replay,
    viewer: Viewer,
    start: tuple[int, int],
    *,
    heard: tuple[int, int],
    spoiler_free: bool,
    page: tuple[str, bool],
    analyses: dict[int, HandAnalysis] | None = None,
    waiting: list[int] | None = None,
    on_position: Any = None,
) -> None:
    """Mount the board on ``replay`` (game key ``game``) seen by ``viewer``, starting at
    ``start`` (hand number, step) when ``token`` is new; ``on_position`` is called when the
    board tells a new position, and ``heard`` is the session's position in this run (the
    board shows it as its ``data-heard`` attribute, ``hand:step``: what a test waits for
    to know that Python has heard a step). ``page``: the URL path of the board's page, and
    whether it is the app's default page (then also at the app's root): the board tells
    nothing while the address shows another page. ``waiting``: the hands analysed in the
    background, not done yet; the board asks again a moment later (its state value
    ``poll``) while there are any."""
    found = analyses or {}
    version = tuple(sorted((number, analysis.analysed_from) for number, analysis in found.items()))
    data = _data(game, viewer, version, replay, found)
    starts = cast(dict[str, dict[str, int]], st.session_state.setdefault(_STARTS, {}))
    if token not in starts:
        numbers = [hand.number for hand in replay.hands]
        hand = numbers.index(start[0]) if start[0] in numbers else 0
        starts.clear()
        starts[token] = {"hand": hand, "step": start[1]}
    BOARD(
        key=KEY,
        data=payload(
            {
                "token": token,
                "gameKey": game,
                "version": ",".join(f"{number}:{key}" for number, key in version),
                "start": starts[token],
                "heard": {"hand": heard[0], "step": heard[1]},
                "drawn": drawn(),
                "page": {"path": page[0], "default": page[1]},
                "spoilerFree": spoiler_free,
                "waiting": waiting or [],
            },
            data,
        ),
        on_position_change=on_position,
        on_poll_change=_asked,
        on_drawn_change=_shown,
    )
