"""The dashboard's server: ``python -m spades_replay.dashboard.serve run APP [ARGS]`` is
Streamlit's own command line (``streamlit run``), in a process that has first imported what
the app's pages use: polars, plotly, DuckDB and pyarrow, and the package's replay, stats and
store modules.

Streamlit runs the app's script only when a browser opens a session, so the first session
of a new server would otherwise pay for these imports (most of a second on a two-core
machine) before drawing anything. Imports are kept for the life of the process: every later
session finds them done. The pages themselves are left to Streamlit to import: their caches
must be made with its runtime running.
"""

import sys

import duckdb  # noqa: F401
import plotly.graph_objects  # type: ignore[import-untyped]  # noqa: F401
import polars  # noqa: F401
import pyarrow  # type: ignore[import-untyped]  # noqa: F401 (DuckDB hands results to polars by it)
from streamlit.web.cli import main

import spades_replay.analysis
import spades_replay.replayer.replay
import spades_replay.stats.tables
import spades_replay.store.sql  # noqa: F401

if __name__ == "__main__":
    # the same program name as ``python -m streamlit``, which Streamlit's server reads
    sys.exit(main(prog_name="streamlit"))
