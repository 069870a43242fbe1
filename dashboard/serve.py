"""The dashboard's server: ``python -m spades_replay.dashboard.serve run APP [ARGS]`` is
Streamlit's own command line (``streamlit run``), in a process that has first imported what
the app's pages use: polars, plotly, DuckDB and pyarrow, and the package's replay, stats and
store modules.

Streamlit runs the app's script only when a browser opens a session, so the first session
of a new server would otherwise pay for these imports (most of a second on a two-core
machine) before drawing anything. Imports are kept for the life of the process: every later
session finds them done. The pages themselves are left to Streamlit to import: their caches
must be made with its runtime running.

It also starts loading the compiled double-dummy kernel (:func:`~spades_replay.analysis.
prepare_kernel`: from numba's disk cache, or compiling it on a machine's first run) in a
thread as the server starts, so that neither the first two-player board, analysed before it
is drawn, nor the first four-player hand, analysed in the background, waits for it.

It also says where the app is served, once the server listens: the command line knows the
port only then (Streamlit moves on to the next free port when the first is taken).
"""

import sys
import threading
from collections.abc import Callable

import duckdb  # noqa: F401
import plotly.graph_objects  # type: ignore[import-untyped]  # noqa: F401
import polars  # noqa: F401
import pyarrow  # type: ignore[import-untyped]  # noqa: F401 (DuckDB hands results to polars by it)
from streamlit import config
from streamlit.web import bootstrap
from streamlit.web.cli import main
from streamlit.web.server import Server

import spades_replay.analysis
import spades_replay.replayer.replay
import spades_replay.stats.tables
import spades_replay.store.sql

ANNOUNCE = "--announce"
"""``serve --announce MESSAGE run ...``: print MESSAGE on stderr once the server listens,
``{port}`` in it replaced by the port it is listening on."""


def announcing(on_start: Callable[[Server], None], message: str) -> Callable[[Server], None]:
    """Streamlit's server-start hook, then ``message`` with the port the server bound (the
    one asked for, or the next free one Streamlit moved on to): the address is printed only
    once it serves this app."""

    def on_server_start(server: Server) -> None:
        on_start(server)
        port = config.get_option("server.port")
        print(message.replace("{port}", str(port)), file=sys.stderr, flush=True)

    return on_server_start


if __name__ == "__main__":
    if sys.argv[1:2] == [ANNOUNCE]:
        announcement = sys.argv[2]
        del sys.argv[1:3]
        # Streamlit calls its module's hook by name once the server listens: ours wraps it
        hook = announcing(bootstrap._on_server_start, announcement)
        bootstrap._on_server_start = hook  # type: ignore[assignment]
    threading.Thread(
        target=spades_replay.analysis.prepare_kernel, name="double-dummy kernel", daemon=True
    ).start()
    # the same program name as ``python -m streamlit``, which Streamlit's server reads
    sys.exit(main(prog_name="streamlit"))
