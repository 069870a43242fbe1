"""Leaving a page: a component with no view, mounted at the top of the sidebar of every page,
that notes in the browser when the reader asks for another page (``leaving.js``), so that
the Replay page's board tells the server nothing from then on.

Streamlit sends each state value an element sets with the page it knows, which stays the old
page until the server starts the new page's run; a run asked for by the old page's element
then comes after the new page's, and leaves it blank. The board can be drawn after the click
(by what is left of the old page's run), before its own script has seen the click: hence a
watcher loaded with the sidebar, before any page's elements."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

WATCH = st.components.v2.component(
    "spades_replay.leaving",
    js=(Path(__file__).parent / "leaving.js").read_text(encoding="utf-8"),
)
"""The component's mounting command."""


def watch() -> None:
    """Mount the watcher in the sidebar (it draws nothing)."""
    with st.sidebar:
        WATCH(key="leaving")
