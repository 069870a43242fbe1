"""Where the user is, kept in the page's address, for every page: a link or a reload opens
the same game, hand, step and view.

The address carries query parameters (:data:`PARAMS`): ``/replay?game=ID&hand=3&step=17``,
and ``&seat=2`` in one seat's view. ``game`` names a game by its id (:func:`~.selection.
game_token`: ``ID~2`` for the second game of the same id), on every page; ``hand``,
``step`` and ``seat`` are the Replay page's, ``player`` (a player's key) the Player page's:
``/player?player=KEY``.

The session is the app's memory; the address follows it:

1. At the start of every run the entry script calls :func:`arrive`. An address the app did
   not write itself (a link opened, a reload, the browser's Back or Forward) is read then,
   and its values wait in the session until the page that uses them takes them
   (:func:`take`): the game picker takes ``game``, the Replay page ``hand``, ``step`` and
   ``seat``, the Player page ``player``. Values still waiting when the user picks another
   game are dropped (:func:`drop`).
2. During the run, pages say what the address should hold: :func:`keep` for values that
   hold on every page until changed (the game), :func:`want` for this page's own (the
   Replay page's position).
3. At the end of the run the entry script calls :func:`publish`, which writes the address
   once, only when it changes, and remembers what it wrote: what the address holds then
   is not taken for an arrival at the next run. Parameters that are not the app's stay as
   they are.

A page that adds a parameter adds its name to :data:`PARAMS`, takes it in its run, and
wants it. The Replay page's board writes ``hand`` and ``step`` into the address itself as
the reader steps (the browser's ``history.replaceState``, no run), and tells the session in
a run of its fragment alone, which writes no address (it may come after a later step); the
next full run finds the address already written.
"""

from __future__ import annotations

from typing import cast

import streamlit as st

PARAMS: tuple[str, ...] = ("game", "hand", "step", "seat", "player")
"""The app's query parameters, in the order the address lists them."""

_WRITTEN = "url: written"
_ARRIVED = "url: arrived"
_KEPT = "url: kept"
_WANTED = "url: wanted"


def _values(key: str) -> dict[str, str]:
    return cast(dict[str, str], st.session_state.setdefault(key, {}))


def arrive() -> None:
    """Start a run: read the address if the app did not write it itself."""
    current = st.query_params.to_dict()
    if current != st.session_state.get(_WRITTEN):
        arrived = {name: current[name] for name in PARAMS if name in current}
        st.session_state[_ARRIVED] = arrived
        if "game" in arrived:
            _values(_KEPT)["game"] = arrived["game"]
        st.session_state[_WRITTEN] = current
    st.session_state[_WANTED] = {}


def take(name: str) -> str | None:
    """The value of ``name`` in an address that arrived and was not taken yet (then it is
    taken), else ``None``: the session's own value stands."""
    return _values(_ARRIVED).pop(name, None)


def drop(*names: str) -> None:
    """Forget the values of ``names`` that arrived and were not taken yet."""
    arrived = _values(_ARRIVED)
    for name in names:
        arrived.pop(name, None)


def keep(**values: str | int | None) -> None:
    """Values the address holds on every page from now on (``None`` removes one)."""
    kept = _values(_KEPT)
    for name, value in values.items():
        if value is None:
            kept.pop(name, None)
        else:
            kept[name] = str(value)


def kept(name: str) -> str | None:
    """A value kept with :func:`keep`, if any."""
    return _values(_KEPT).get(name)


def want(**values: str | int | None) -> None:
    """Values the address holds at the end of this run only (``None``: not there)."""
    wanted = _values(_WANTED)
    for name, value in values.items():
        if value is None:
            wanted.pop(name, None)
        else:
            wanted[name] = str(value)


def address() -> dict[str, str]:
    """What the address is to hold at the end of this run: the app's parameters kept and
    wanted, in :data:`PARAMS` order, then the parameters that are not the app's."""
    values = {**_values(_KEPT), **_values(_WANTED)}
    ours = {name: values[name] for name in PARAMS if name in values}
    theirs = st.query_params.to_dict()
    return ours | {name: value for name, value in theirs.items() if name not in PARAMS}


def publish() -> None:
    """End a run: write the address when it changes, and remember it."""
    new = address()
    if new != st.query_params.to_dict():
        st.query_params.from_dict(new)
    st.session_state[_WRITTEN] = new
