"""Drive the dashboard headless with Streamlit's AppTest: open a page, run it (failing on any
exception of the script), and read what it shows."""

from __future__ import annotations

import json
from typing import Any

from streamlit.testing.v1 import AppTest

from ..conftest import ROOT

ENTRY = str(ROOT / "dashboard" / "app.py")


def run_app(runnable: Any) -> AppTest:
    """Run the app (or the app of a widget just set) and check that the script raised nothing."""
    at: AppTest = runnable.run()
    assert not at.exception, [exception.value for exception in at.exception]
    return at


def open_app(page: str | None = None) -> AppTest:
    """The dashboard, run once, on ``page`` (a url path such as ``"whatif"``) or its first page."""
    at = AppTest.from_file(ENTRY, default_timeout=30)
    if page is not None:
        # before the first run AppTest finds a page by its file name: our url paths
        at.switch_page(f"{page}.py")
    return run_app(at)


def markdown_of(at: AppTest) -> str:
    """All the Markdown of the main area, one element a line."""
    return "\n".join(element.value for element in at.main.markdown)


def table_of(at: AppTest, column: str) -> Any:
    """The first table shown with a column of that name (a pandas frame)."""
    return next(frame.value for frame in at.dataframe if column in frame.value.columns)


def charts_of(at: AppTest) -> list[dict[str, Any]]:
    """The plotly figures shown, as their JSON specs."""
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def pick_game(at: AppTest, game_id: str) -> AppTest:
    """Pick the game ``game_id`` in the game picker, and run the app."""
    picker = at.selectbox(key="game")
    index = next(i for i, label in enumerate(picker.options) if label.startswith(game_id + " "))
    return run_app(picker.select_index(index))
